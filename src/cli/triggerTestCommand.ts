import * as path from 'node:path';
import { assembleAgent } from '../core/agent/agentAssembly';
import { headlessApprovalPolicy } from '../core/agent/approvals';
import { memoryAgentTool } from '../core/agent/memoryAgentTool';
import type { TriggerTestResult } from '../core/agent/triggerTest';
import { DEFAULT_TRIGGER_RUNS, MAX_TRIGGER_RUNS, TRIGGER_TEST_REFUSAL, TriggerTestError, describeTriggerTest, runTriggerTest, triggerQueries, triggerTestTarget } from '../core/agent/triggerTest';
import { defaultDataDir } from '../core/base/dataDir';
import type { SkillRoot } from '../core/base/skillRoots';
import { NodeFileLock } from '../core/memory/memoryLock';
import { MemoryProposals } from '../core/memory/memoryProposals';
import { MemoryStore } from '../core/memory/memoryStore';
import { MemoryTool } from '../core/memory/memoryTool';
import { SESSION_SEARCH_TOOL } from '../core/sessions/sessionSearchTool';
import { configuredRoots } from '../core/skills/index/configuredRoots';
import { SkillIndex } from '../core/skills/index/skillIndex';
import { SkillSearch } from '../core/skills/search/skillSearch';
import { WorkspaceTools } from '../core/tools/workspaceTools';
import { toolSpecOf } from '../core/toolkit/toolDefinition';
import { fail } from '../core/toolkit/toolResult';
import type { ParsedArgs } from './cliArgs';
import { intFlag, UsageError } from './cliArgs';
import type { CliEnv } from './cliCommands';
import { createCliExecutor } from './skillRunCommands';

export const DEFAULT_MIN_RATE = 0.5;

function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

function rateFlag(args: ParsedArgs): number {
  const raw = args.flags.get('--min-rate');
  if (raw === undefined) return DEFAULT_MIN_RATE;
  const value = Number(raw);
  if (raw === true || raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError('--min-rate takes a number from 0 to 1 (the share of runs that must load the skill, e.g. 0.5)');
  }
  return value;
}

/** The queries whose share of loading runs is below the minimum, as "k/n query". */
export function queriesBelow(result: TriggerTestResult, minRate: number): string[] {
  return result.queries.filter((query) => query.runs === 0 || query.loaded / query.runs < minRate).map((query) => `${query.loaded}/${query.runs} "${query.query}"`);
}

function resultJson(result: TriggerTestResult, minRate: number, passed: boolean): Record<string, unknown> {
  return {
    skill: result.skill,
    model: result.model,
    runs: result.runs,
    loaded: result.loaded,
    rate: result.rate,
    minRate,
    passed,
    queries: result.queries.map((query) => ({ ...query, rate: query.runs > 0 ? query.loaded / query.runs : 0 })),
    requests: result.requests,
    contentHash: result.contentHash,
    ...(result.stopped ? { stopped: true } : {}),
    ...(result.error ? { error: result.error } : {}),
  };
}

/**
 * `skillwright test-trigger <name>`: does the model load this skill for the requests it is meant
 * for? Each example query (and each --query) goes to the model --runs times, in a turn with the
 * prompt and tools of `skillwright run` in which nothing runs and nothing is written. Exit 0 when
 * every query loaded the skill in at least --min-rate of its runs, 1 when one did not, 3 when the
 * model failed.
 */
export async function triggerTestCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const [name, ...extra] = args.positionals;
  if (!name) throw new UsageError('test-trigger needs a skill name: skillwright test-trigger <name> [--query "..."]');
  if (extra.length > 0) throw new UsageError(`test-trigger takes one skill name; give queries with --query "…" (found "${extra[0] ?? ''}")`);
  const runs = intFlag(args, '--runs', DEFAULT_TRIGGER_RUNS, 1, MAX_TRIGGER_RUNS);
  const minRate = rateFlag(args);
  const baseUrl = stringFlag(args, '--base-url') ?? env.env.SKILLWRIGHT_BASE_URL ?? '';
  const modelName = stringFlag(args, '--model') ?? env.env.SKILLWRIGHT_MODEL ?? '';
  if (!baseUrl || !modelName) {
    throw new UsageError('test-trigger needs a model: set SKILLWRIGHT_BASE_URL and SKILLWRIGHT_MODEL (and OPENAI_API_KEY if the server needs a key), or pass --base-url and --model');
  }
  const cwd = path.resolve(env.cwd, stringFlag(args, '--cwd') ?? '.');
  if ((await env.fs.stat(cwd))?.type !== 'directory') throw new UsageError(`--cwd "${cwd}" is not a folder`);
  const json = args.flags.has('--json');

  const folders = [{ name: path.basename(cwd), fsPath: cwd }];
  const roots: SkillRoot[] = args.roots.length > 0
    ? args.roots.map((entry) => ({ path: path.resolve(env.cwd, entry), scope: 'project' as const, label: entry, writeTarget: false }))
    : configuredRoots(folders, env.homeDir).roots;
  for (const root of roots.filter((r) => args.roots.includes(r.label))) {
    if ((await env.fs.stat(root.path))?.type !== 'directory') throw new UsageError(`skill folder "${root.label}" does not exist or is not a folder`);
  }
  const index = new SkillIndex({ fs: env.fs, roots });
  await index.load();
  for (const warning of index.warnings) env.stderr(`skillwright: warning: ${warning}\n`);
  const search = new SkillSearch(index.active());
  const skills = { fs: env.fs, index, search };
  const target = triggerTestTarget(name, skills);
  if (!target.ok) throw new UsageError(target.error);
  const queries = triggerQueries(target.record, args.queries);
  if (queries.length === 0) {
    throw new UsageError(`"${target.record.name}" has no example_queries: add some to its SKILL.md frontmatter, or pass --query "a request it should handle" (repeatable)`);
  }

  // The same parts as `skillwright run`, so the prompt and the tool list are what a real turn sends.
  // They are only read here: the trigger test answers every call itself.
  const dataDir = path.resolve(env.cwd, stringFlag(args, '--data-dir') ?? defaultDataDir(env.homeDir, process.platform, env.env));
  const memoryStore = new MemoryStore({ fs: env.fs, lock: new NodeFileLock(), projectRoot: cwd, userHome: env.homeDir });
  const snapshot = await memoryStore.takeMemorySnapshot();
  const memoryTool = new MemoryTool({ store: memoryStore, proposals: new MemoryProposals(memoryStore), reviewMode: 'ask' });
  const policy = headlessApprovalPolicy({ readsOnly: true });
  const { executor } = createCliExecutor({ index, env, dataDir, policy });
  const agent = await assembleAgent({
    fs: env.fs,
    folders,
    index,
    search,
    workspaceTools: new WorkspaceTools({ fs: env.fs, folders }),
    // session_search as offered, without opening the session index: it is never called here.
    extraTools: [memoryAgentTool(memoryTool), { spec: toolSpecOf(SESSION_SEARCH_TOOL), readOnly: true, approval: 'read', run: () => Promise.resolve(fail(TRIGGER_TEST_REFUSAL)) }],
    skillRun: { executor, context: () => ({ workspaceFolder: cwd }) },
    trusted: true,
    memory: snapshot.text,
    date: new Date().toISOString().slice(0, 10),
  });

  const { OpenAiChatModel } = await import('../providers/openAiChatModel');
  const apiKey = env.env.OPENAI_API_KEY;
  const model = new OpenAiChatModel({ baseUrl, model: modelName, ...(apiKey ? { apiKey } : {}) });
  if (!json) env.stderr(`Testing "${target.record.name}": ${queries.length} ${queries.length === 1 ? 'query' : 'queries'} × ${runs} runs with ${model.id} …\n`);
  let result: TriggerTestResult;
  try {
    result = await runTriggerTest({
      model,
      systemPrompt: agent.prompt.text,
      tools: agent.tools.map((tool) => tool.spec),
      skills,
      suggest: agent.suggest,
      skill: target.record.name,
      queries,
      runs,
      ...(env.signal ? { signal: env.signal } : {}),
    });
  } catch (error) {
    if (error instanceof TriggerTestError) throw new UsageError(error.message);
    throw error;
  }
  const below = queriesBelow(result, minRate);
  const passed = !result.error && !result.stopped && below.length === 0;
  if (json) {
    env.stdout(`${JSON.stringify(resultJson(result, minRate, passed), null, 2)}\n`);
  } else {
    env.stdout(`${describeTriggerTest(result).join('\n')}\n`);
    if (result.error) env.stderr(`skillwright test-trigger: the model failed: ${result.error.message} ${result.error.advice}\n`);
    else if (result.stopped) env.stderr('skillwright test-trigger: stopped\n');
    else if (passed) env.stderr(`Every query loaded it in at least ${Math.round(minRate * 100)}% of its runs.\n`);
    else env.stderr(`Below --min-rate ${minRate}: ${below.join(', ')}\n`);
  }
  if (result.stopped) return 130;
  if (result.error) return 3;
  return passed ? 0 : 1;
}
