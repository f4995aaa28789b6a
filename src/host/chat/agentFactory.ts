import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AssembledAgent } from '../../core/agent/agentAssembly';
import { assembleAgent } from '../../core/agent/agentAssembly';
import type { Logger } from '../../core/base/logger';
import { NodeFileSystem } from '../../core/base/nodeFileSystem';
import type { ChatModel } from '../../core/llm/chatTypes';
import { hitSummarizer } from '../../core/sessions/hitSummarizer';
import { sessionAgentTool } from '../../core/agent/sessionAgentTool';
import type { WorkspaceFolderRef } from '../../core/base/skillRoots';
import { JsTextSearch } from '../../core/tools/jsTextSearch';
import { NodeProcessPort } from '../../core/tools/processPort';
import { RipgrepSearch } from '../../core/tools/ripgrepSearch';
import { WorkspaceTools } from '../../core/tools/workspaceTools';
import type { MemoryService } from '../memory/memoryService';
import type { SessionService } from '../history/sessionService';
import type { SkillService } from '../skills/skillService';
import type { ExecutionService } from '../execution/executionService';
import type { RunApproval } from '../../core/execution/executionTypes';
import type { StepProgress } from '../../core/execution/workflowRunner';
import type { SemanticSource } from '../../core/skills/search/embeddingIndex';

export interface AgentFactoryDeps {
  /** The cheaper model of `skillwright.sessions.summaryModel`, resolved per session (undefined: none). */
  readonly summaryModel?: () => Promise<ChatModel | undefined>;
  readonly skills: SkillService;
  /** Skill embeddings (skillEmbeddings.ts): suggestions by meaning as well as words. */
  readonly embeddings?: SemanticSource;
  readonly memory: MemoryService;
  readonly sessions: SessionService;
  /** Runs skills for skill_run; without it the agent can read skills but not run them. */
  readonly execution?: ExecutionService;
  readonly logger: Logger;
}

export interface BuiltAgent {
  readonly assembled: AssembledAgent;
  readonly workspaceTools: WorkspaceTools;
  readonly trusted: boolean;
  readonly folders: readonly WorkspaceFolderRef[];
  /** Memory entries the scanner withheld from the snapshot (their pattern ids), for a notice. */
  readonly withheld: readonly string[];
}

/** VS Code ships ripgrep; its place differs between desktop builds, so look in both. */
export function bundledRipgrep(appRoot: string): string | undefined {
  const name = process.platform === 'win32' ? 'rg.exe' : 'rg';
  return ['node_modules', 'node_modules.asar.unpacked']
    .map((dir) => path.join(appRoot, dir, '@vscode', 'ripgrep', 'bin', name))
    .find((candidate) => existsSync(candidate));
}

/** Globs switched on in an exclude setting (`files.exclude`, `search.exclude`). */
function enabledGlobs(section: string, key: string, scope?: vscode.Uri): string[] {
  const value = vscode.workspace.getConfiguration(section, scope).get<Record<string, unknown>>(key) ?? {};
  return Object.entries(value)
    .filter(([, on]) => on === true)
    .map(([glob]) => glob);
}

/** The workspace tools for the open folders, honouring the editor's excludes, with VS Code's ripgrep. */
export function createWorkspaceTools(logger: Logger): { tools: WorkspaceTools; folders: WorkspaceFolderRef[] } {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ name: folder.name, fsPath: folder.uri.fsPath }));
  const scope = vscode.workspace.workspaceFolders?.[0]?.uri;
  const fs = new NodeFileSystem();
  const processPort = new NodeProcessPort();
  const rg = bundledRipgrep(vscode.env.appRoot);
  const fallback = new JsTextSearch(fs);
  if (!rg) logger.info('VS Code\'s ripgrep was not found; search_text uses the built-in search.');
  const tools = new WorkspaceTools({
    fs,
    folders,
    process: processPort,
    textSearch: rg ? new RipgrepSearch(rg, processPort, fallback) : fallback,
    excludeGlobs: enabledGlobs('files', 'exclude', scope),
    searchExcludeGlobs: enabledGlobs('search', 'exclude', scope),
    logger,
  });
  return { tools, folders };
}

/**
 * Everything a new chat session needs, taken once at its start: tools over the current folders,
 * the memory snapshot, and the frozen system prompt. In Restricted Mode the skill service already
 * holds project skills back and memory has no project file; instruction files stay out too.
 */
export interface SkillRunHooks {
  /** The approval of the session the call runs in (its cards and grants). */
  readonly approve: () => RunApproval | undefined;
  /** A workflow step started or ended, in the skill_run call `callId`. */
  readonly onProgress?: (progress: StepProgress, callId: string | undefined) => void;
}

export async function buildAgent(deps: AgentFactoryDeps, currentSessionId: () => string | undefined, runHooks?: SkillRunHooks): Promise<BuiltAgent> {
  await deps.skills.ready;
  // Built in the background; a turn that starts before waits for it rather than stalling the window.
  const search = await deps.skills.searchReady();
  const trusted = vscode.workspace.isTrusted;
  const { tools: workspaceTools, folders } = createWorkspaceTools(deps.logger);
  const snapshot = await deps.memory.store.takeMemorySnapshot();
  const summaryModel = await deps.summaryModel?.().catch((error: unknown) => {
    deps.logger.warn(`The session summary model is unavailable; session_search returns hits without summaries: ${String(error)}`);
    return undefined;
  });
  const assembled = await assembleAgent({
    // The skill service's file system: the agent's skill writes count as written here (consent).
    fs: deps.skills.fs,
    folders: trusted ? folders : [],
    index: deps.skills.skillIndex,
    search,
    ...(deps.embeddings ? { embeddings: deps.embeddings } : {}),
    workspaceTools,
    extraTools: [
      deps.memory.agentTool(),
      sessionAgentTool(deps.sessions.index, currentSessionId, { ...(summaryModel ? { summarize: hitSummarizer(summaryModel, { logger: deps.logger }) } : {}), logger: deps.logger }),
    ],
    ...(deps.execution
      ? {
          skillRun: {
            executor: deps.execution.forTools,
            context: () => (deps.execution as ExecutionService).contextVariables(currentSessionId()),
            ...(runHooks?.onProgress ? { onProgress: runHooks.onProgress } : {}),
            // Read at each call: the gate belongs to the session, created after the agent is built.
            get approve(): RunApproval | undefined {
              return runHooks?.approve();
            },
          },
        }
      : {}),
    trusted,
    // The same catalog the status page and the Skills tab describe (budget from settings, usage order).
    catalog: deps.skills.catalog(),
    usage: deps.skills.usage,
    memory: snapshot.text,
    date: new Date().toISOString().slice(0, 10),
    logger: deps.logger,
  });
  return { assembled, workspaceTools, trusted, folders, withheld: snapshot.withheld.map((w) => w.ids.join(', ')) };
}
