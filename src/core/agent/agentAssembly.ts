import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import { scanText } from '../security/threatScanner';
import type { CatalogResult } from '../skills/catalog/skillCatalog';
import { buildCatalog } from '../skills/catalog/skillCatalog';
import type { SkillIndex } from '../skills/index/skillIndex';
import type { SkillSearch } from '../skills/search/skillSearch';
import type { SemanticSource } from '../skills/search/embeddingIndex';
import { hybridSuggest } from '../skills/search/embeddingRanker';
import type { SkillToolContext } from '../skills/tools/skillToolContext';
import type { WorkspaceFolderRef } from '../base/skillRoots';
import type { WorkspaceTools } from '../tools/workspaceTools';
import type { AgentTool } from '../toolkit/agentTool';
import type { InstructionFile, SystemPrompt } from './systemPrompt';
import { buildSystemPrompt, INSTRUCTION_FILES, MAX_INSTRUCTION_CHARS } from './systemPrompt';
import { skillAgentTools } from './skillAgentTools';
import type { SkillRunToolContext } from '../execution/skillRunTool';
import { SKILL_RUN_TOOL } from '../execution/skillRunTool';
import { agentToolsOf } from '../toolkit/toolDefinition';

const MAX_SUGGESTIONS = 3;

export interface AgentParts {
  readonly fs: FileSystemPort;
  readonly folders: readonly WorkspaceFolderRef[];
  readonly index: SkillIndex;
  readonly search: SkillSearch;
  /** Skill embeddings: with them, suggestions fuse meaning with words (embeddingRanker.ts). */
  readonly embeddings?: SemanticSource;
  readonly workspaceTools: WorkspaceTools;
  readonly extraTools?: readonly AgentTool[];
  /** The executor behind skill_run; without it the agent can read skills but not run them. */
  readonly skillRun?: SkillRunToolContext;
  readonly trusted: boolean;
  readonly budgetTokens?: number;
  /** A catalog already built (the extension's, ordered by usage); built here from the index otherwise. */
  readonly catalog?: CatalogResult;
  readonly usage?: SkillToolContext['usage'];
  /** Memory snapshots taken at session start (empty when there is none). */
  readonly memory?: string;
  readonly userProfile?: string;
  readonly date: string;
  readonly logger?: Logger;
}

export interface AssembledAgent {
  readonly tools: AgentTool[];
  readonly prompt: SystemPrompt;
  readonly catalog: CatalogResult;
  /** Lexical suggestions, synchronous. */
  readonly suggest: (text: string) => { name: string; description: string }[];
  /**
   * Hybrid suggestions when embeddings were given (else absent): words and meaning fused. Resolves
   * within the embedding deadline (1.5 s) with the lexical suggestions when the embedding is late
   * or fails; never rejects.
   */
  readonly suggestHybrid?: (text: string, signal?: AbortSignal) => Promise<{ name: string; description: string }[]>;
}

/** Reads AGENTS.md and its siblings from each folder, capped; missing files are skipped. */
export async function readInstructionFiles(fs: FileSystemPort, folders: readonly WorkspaceFolderRef[]): Promise<InstructionFile[]> {
  const files: InstructionFile[] = [];
  for (const folder of folders) {
    for (const name of INSTRUCTION_FILES) {
      const file = path.join(folder.fsPath, ...name.split('/'));
      const stat = await fs.stat(file);
      if (stat?.type !== 'file') continue;
      const bytes = await fs.readFile(file);
      const text = new TextDecoder().decode(bytes.subarray(0, MAX_INSTRUCTION_CHARS * 4));
      files.push({ path: folders.length > 1 ? `${folder.name}/${name}` : name, text });
    }
  }
  return files;
}

/**
 * Puts together what one agent session needs: the tools, the frozen system prompt (catalog,
 * instruction files, memory snapshots) and per-turn skill suggestions. Shared by the panel and
 * the headless CLI so both behave the same.
 */
export async function assembleAgent(parts: AgentParts): Promise<AssembledAgent> {
  const skillContext = (): SkillToolContext => ({
    fs: parts.fs,
    index: parts.index,
    search: parts.search,
    ...(parts.logger ? { logger: parts.logger } : {}),
    ...(parts.usage ? { usage: parts.usage } : {}),
  });
  const skillRun = parts.skillRun;
  const runTools = skillRun ? agentToolsOf([SKILL_RUN_TOOL], () => skillRun, (tool, error) => parts.logger?.error(`${tool} failed: ${describeError(error)}`)) : [];
  const tools = [...skillAgentTools(skillContext), ...runTools, ...parts.workspaceTools.agentTools(), ...(parts.extraTools ?? [])];
  const catalog = parts.catalog ?? buildCatalog(parts.index.active(), { ...(parts.budgetTokens ? { budgetTokens: parts.budgetTokens } : {}) });
  const instructionFiles = await readInstructionFiles(parts.fs, parts.folders);
  const prompt = buildSystemPrompt({
    catalog: catalog.text,
    toolNames: tools.map((tool) => tool.spec.name),
    instructionFiles,
    memory: parts.memory ?? '',
    userProfile: parts.userProfile ?? '',
    date: parts.date,
    trusted: parts.trusted,
    scan: (text) => scanText(text, { context: 'instructions' }),
  });
  // Runs on the first request of every turn, so it uses the search's budgeted suggestion mode
  // (skillSearch.ts), not a full search; hits below its score floor are noise, not worth tokens.
  const suggest = (text: string) =>
    parts.search.suggest(text, { top: MAX_SUGGESTIONS }).map((hit) => ({ name: hit.record.name, description: hit.record.description }));
  const embeddings = parts.embeddings;
  const suggestHybrid = embeddings
    ? async (text: string, signal?: AbortSignal) => {
        try {
          const hits = await hybridSuggest(parts.search, embeddings, text, { top: MAX_SUGGESTIONS, ...(signal ? { signal } : {}) });
          return hits.map((hit) => ({ name: hit.record.name, description: hit.record.description }));
        } catch (error) {
          parts.logger?.warn(`Hybrid skill suggestions failed, using word matching: ${describeError(error)}`);
          return suggest(text);
        }
      }
    : undefined;
  return { tools, prompt, catalog, suggest, ...(suggestHybrid ? { suggestHybrid } : {}) };
}
