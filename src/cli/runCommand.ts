import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { assembleAgent } from '../core/agent/agentAssembly';
import type { AgentEvent } from '../core/agent/agentLoop';
import { AgentSession, DEFAULT_MAX_STEPS } from '../core/agent/agentSession';
import { createApprovalGate } from '../core/agent/approvalGate';
import { headlessApprovalPolicy } from '../core/agent/approvals';
import { memoryAgentTool } from '../core/agent/memoryAgentTool';
import { NodeFileLock } from '../core/memory/memoryLock';
import { MemoryProposals } from '../core/memory/memoryProposals';
import { MemoryStore } from '../core/memory/memoryStore';
import { MemoryTool } from '../core/memory/memoryTool';
import { defaultDataDir } from '../core/base/dataDir';
import { sessionAgentTool } from '../core/agent/sessionAgentTool';
import { SessionIndex } from '../core/sessions/sessionIndex';
import { NodeAppendPort, SessionLog } from '../core/sessions/sessionLog';
import type { ChatMessage } from '../core/llm/chatTypes';
import { contextWindowFor } from '../core/llm/contextWindows';
import { tokenCounterFor } from '../core/llm/tokenCounter';
import { DEFAULT_THRESHOLD_SHARE } from '../core/agent/contextUsage';
import { skillReader } from '../core/agent/skillReader';
import type { PriorCompaction } from '../core/sessions/compactedHistory';
import { compactedHistory } from '../core/sessions/compactedHistory';
import type { SessionWriter } from '../core/sessions/sessionWriter';
import { configuredRoots } from '../core/skills/index/configuredRoots';
import { SkillIndex } from '../core/skills/index/skillIndex';
import { SkillSearch } from '../core/skills/search/skillSearch';
import { NodeProcessPort } from '../core/tools/processPort';
import { JsTextSearch } from '../core/tools/jsTextSearch';
import { RipgrepSearch } from '../core/tools/ripgrepSearch';
import { WorkspaceTools } from '../core/tools/workspaceTools';
import type { ParsedArgs } from './cliArgs';
import { intFlag, UsageError } from './cliArgs';
import type { CliEnv } from './cliCommands';
import { createCliExecutor } from './skillRunCommands';

function stringFlag(args: ParsedArgs, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = args.flags.get(name);
    if (typeof value === 'string') return value;
  }
  return undefined;
}

function eventJson(event: AgentEvent): Record<string, unknown> {
  if (event.type === 'turn_done' && event.error) {
    return { type: event.type, reason: event.reason, error: { kind: event.error.kind, message: event.error.message, advice: event.error.advice } };
  }
  return event as unknown as Record<string, unknown>;
}

/**
 * `skillwright run -p "<prompt>"`: one agent turn from a terminal or CI, with the same skills and
 * tools as the extension. Edits and commands are denied unless flags allow them.
 */
export async function runCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const prompt = stringFlag(args, '-p', '--prompt') ?? args.positionals.join(' ');
  if (!prompt.trim()) throw new UsageError('run needs a prompt: skillwright run -p "what to do"');
  const baseUrl = stringFlag(args, '--base-url') ?? env.env.SKILLWRIGHT_BASE_URL ?? '';
  const modelName = stringFlag(args, '--model') ?? env.env.SKILLWRIGHT_MODEL ?? '';
  if (!baseUrl || !modelName) {
    throw new UsageError('run needs a model: set SKILLWRIGHT_BASE_URL and SKILLWRIGHT_MODEL (and OPENAI_API_KEY if the server needs a key), or pass --base-url and --model');
  }
  const maxSteps = intFlag(args, '--max-steps', DEFAULT_MAX_STEPS, 1, 200);
  const cwd = path.resolve(env.cwd, stringFlag(args, '--cwd') ?? '.');
  if ((await env.fs.stat(cwd))?.type !== 'directory') throw new UsageError(`--cwd "${cwd}" is not a folder`);
  const json = args.flags.has('--json');
  // The server's stated window is asked for while the skills load (one GET /models; none when the window is set).
  const apiKey = env.env.OPENAI_API_KEY;
  const windowSetting = contextWindowSetting(env.env.SKILLWRIGHT_CONTEXT_WINDOW);
  const listedWindows =
    windowSetting > 0
      ? Promise.resolve(new Map<string, number>())
      : import('../providers/modelConnection').then(({ listModelWindows }) => listModelWindows({ baseUrl, ...(apiKey ? { apiKey } : {}), timeoutMs: 5_000 }));

  const folders = [{ name: path.basename(cwd), fsPath: cwd }];
  const index = new SkillIndex({ fs: env.fs, roots: configuredRoots(folders, env.homeDir).roots });
  await index.load();
  const processPort = new NodeProcessPort();
  const workspaceTools = new WorkspaceTools({
    fs: env.fs,
    folders,
    process: processPort,
    textSearch: new RipgrepSearch('rg', processPort, new JsTextSearch(env.fs)),
  });
  const dataDir = path.resolve(env.cwd, stringFlag(args, '--data-dir') ?? defaultDataDir(env.homeDir, process.platform, env.env));
  const sessions = new SessionLog({ fs: env.fs, append: new NodeAppendPort(), storageDir: dataDir });
  const sessionIndex = new SessionIndex({ log: sessions, sqlJs: sqlWasmDir(), indexFile: path.join(dataDir, 'session-index.sqlite') });
  let writer: SessionWriter | undefined;
  const memoryStore = new MemoryStore({ fs: env.fs, lock: new NodeFileLock(), projectRoot: cwd, userHome: env.homeDir });
  const snapshot = await memoryStore.takeMemorySnapshot();
  // Without a person to review proposals, memory is written only when edits are allowed.
  const memoryTool = new MemoryTool({
    store: memoryStore,
    proposals: new MemoryProposals(memoryStore),
    reviewMode: args.flags.has('--yes-edits') ? 'auto' : 'ask',
  });
  const policy = headlessApprovalPolicy({
    readsOnly: args.flags.has('--yes-reads-only'),
    allowEdits: args.flags.has('--yes-edits'),
    allowCommands: args.flags.has('--yes-commands'),
  });
  // skill_run asks the same policy as run_command: a skill's script or endpoint needs --yes-commands.
  const { executor } = createCliExecutor({ index, env, dataDir, policy });
  const agent = await assembleAgent({
    fs: env.fs,
    folders,
    index,
    search: new SkillSearch(index.active()),
    workspaceTools,
    extraTools: [memoryAgentTool(memoryTool), sessionAgentTool(sessionIndex, () => writer?.id)],
    skillRun: { executor, context: () => ({ workspaceFolder: cwd, ...(writer ? { sessionId: writer.id } : {}) }) },
    trusted: true,
    memory: snapshot.text,
    date: new Date().toISOString().slice(0, 10),
  });
  const { OpenAiChatModel } = await import('../providers/openAiChatModel');
  const model = new OpenAiChatModel({ baseUrl, model: modelName, ...(apiKey ? { apiKey } : {}) });
  // Environment variables, like the model itself: SKILLWRIGHT_COMPACTION_MODEL and SKILLWRIGHT_CONTEXT_WINDOW mirror the settings.
  const compactionModelName = env.env.SKILLWRIGHT_COMPACTION_MODEL?.trim();
  const summaryModel = compactionModelName ? new OpenAiChatModel({ baseUrl, model: compactionModelName, ...(apiKey ? { apiKey } : {}) }) : undefined;
  // Same window rules as the extension: the flag (its setting), the server's model list, the table, 32,000.
  const served = (await listedWindows).get(modelName);
  let learnedWindow: number | undefined;
  const window = () => contextWindowFor(modelName, { ...(windowSetting > 0 ? { setting: windowSetting } : {}), ...(learnedWindow ? { learned: learnedWindow } : {}), ...(served ? { server: served } : {}) });
  // A resumed session keeps the system prompt it started with, byte for byte, and its compacted state.
  const resumeId = stringFlag(args, '--session');
  let systemPrompt = agent.prompt.text;
  let history: ChatMessage[] = [];
  let priorCompaction: PriorCompaction | undefined;
  if (resumeId) {
    const resumed = await sessions.resume(resumeId).catch(() => undefined);
    if (!resumed?.session.header) throw new UsageError(`no session "${resumeId}" in ${sessions.dir}`);
    writer = resumed.writer;
    systemPrompt = resumed.session.header.systemPrompt;
    const rebuilt = compactedHistory(resumed.session);
    history = rebuilt.messages;
    priorCompaction = rebuilt.prior;
    for (const reason of rebuilt.skipped ?? []) env.stderr(`skillwright run: ${reason}\n`);
  } else {
    writer = await sessions.create({ model: model.id, systemPrompt, promptLayers: agent.prompt.layers, workspace: cwd });
  }
  const log = writer;
  let appended: Promise<unknown> = Promise.resolve();
  const session = new AgentSession({
    model,
    tools: agent.tools,
    systemPrompt,
    history,
    onMessage: (message) => {
      appended = appended.then(() => log.appendChat(message));
    },
    approvals: createApprovalGate(policy, async () => 'deny'),
    maxSteps,
    suggest: agent.suggest,
    ...(priorCompaction ? { priorCompaction } : {}),
    context: {
      counter: tokenCounterFor(modelName),
      window,
      thresholdShare: DEFAULT_THRESHOLD_SHARE,
      ...(summaryModel ? { summaryModel } : {}),
      onWindowLearned: (tokens) => (learnedWindow = tokens),
      readSkill: skillReader(() => ({ fs: env.fs, index })),
    },
    onCompaction: (info, record) => {
      appended = appended.then(() => log.appendCompaction(record));
      if (!json) env.stderr(`\n[compacted] ${info.messagesCompacted} messages → summary (${info.summaryTokens} tokens)\n`);
    },
  });

  const result = await session.send(prompt, {
    ...(env.signal ? { signal: env.signal } : {}),
    onEvent: (event) => {
      if (event.type === 'usage') appended = appended.then(() => log.appendUsage(event.usage, { model: model.id }));
      if (json) {
        env.stdout(`${JSON.stringify(eventJson(event))}\n`);
      } else if (event.type === 'text') {
        env.stdout(event.delta);
      } else if (event.type === 'tool_start') {
        env.stderr(`\n[tool] ${event.call.name} …\n`);
      } else if (event.type === 'tool_end') {
        env.stderr(`[tool] ${event.call.name} ${event.ok ? 'done' : 'failed'} in ${event.durationMs} ms: ${event.summary}\n`);
      }
    },
  });
  await appended;
  await log.flush();
  await sessionIndex.flush().catch(() => undefined);
  sessionIndex.dispose();
  if (json) {
    env.stdout(`${JSON.stringify({ type: 'session', id: log.id, file: sessions.fileOf(log.id) })}\n`);
  } else {
    env.stderr(`\nsession ${log.id} (resume with --session ${log.id})\n`);
  }
  if (!json) {
    env.stdout('\n');
    if (result.error) env.stderr(`skillwright run: ${result.error.message} ${result.error.advice}\n`);
    if (result.reason === 'max_steps') env.stderr(`skillwright run: stopped after ${maxSteps} model requests (--max-steps)\n`);
  }
  return result.reason === 'stop' ? 0 : result.reason === 'aborted' ? 130 : 1;
}

function contextWindowSetting(value: string | undefined): number {
  if (value === undefined || value.trim() === '' || value.trim() === '0') return 0;
  const tokens = Number(value);
  if (!Number.isInteger(tokens) || tokens < 1_024) throw new UsageError(`SKILLWRIGHT_CONTEXT_WINDOW must be a whole number of tokens, at least 1024 (or 0 for the server's figure), not "${value.slice(0, 40)}"`);
  return tokens;
}

/** sql.js's wasm: beside the bundled CLI in dist/, or in node_modules when run from sources. */
function sqlWasmDir(): string {
  const candidates = [__dirname, path.join(__dirname, '..', '..', '..', 'node_modules', 'sql.js', 'dist'), path.join(__dirname, '..', 'node_modules', 'sql.js', 'dist')];
  return candidates.find((dir) => existsSync(path.join(dir, 'sql-wasm.wasm'))) ?? __dirname;
}
