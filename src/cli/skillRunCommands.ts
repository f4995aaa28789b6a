import * as path from 'node:path';
import { createApprovalGate } from '../core/agent/approvalGate';
import type { ApprovalPolicy } from '../core/agent/approvals';
import { headlessApprovalPolicy } from '../core/agent/approvals';
import { gateRunApproval } from '../core/agent/runApproval';
import { defaultDataDir } from '../core/base/dataDir';
import type { Logger } from '../core/base/logger';
import { describeError } from '../core/base/logger';
import type { RunResult } from '../core/execution/executionTypes';
import { createNodeExecutor } from '../core/execution/executorSetup';
import { parseJsonText } from '../core/execution/jsonText';
import type { SkillExecutor } from '../core/execution/skillExecutor';
import type { ExampleResult } from '../core/execution/skillExamples';
import { testSkillExamples } from '../core/execution/skillExamples';
import { indexSkillLoader } from '../core/execution/skillLoader';
import type { SchemaValidator } from '../core/execution/schemaValidator';
import type { TraceStore } from '../core/execution/traceStore';
import { configuredRoots } from '../core/skills/index/configuredRoots';
import { SkillIndex } from '../core/skills/index/skillIndex';
import { findSkill } from '../core/skills/model/skillPaths';
import { SkillSearch } from '../core/skills/search/skillSearch';
import type { ParsedArgs } from './cliArgs';
import { UsageError } from './cliArgs';
import type { CliEnv } from './cliCommands';

/** Asked of a headless skill run that would start a script or call an endpoint. */
export const RUN_SKILL_HINT = 'pass --yes-commands to let skills run their scripts and call their endpoints';

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** Where sessions and traces live: --data-dir, SKILLWRIGHT_DATA_DIR, or the extension's global storage. */
export function cliDataDir(args: ParsedArgs, env: CliEnv): string {
  return path.resolve(env.cwd, stringFlag(args, '--data-dir') ?? defaultDataDir(env.homeDir, process.platform, env.env));
}

/** The workspace folder of a run: --cwd, else the current folder. */
export async function cliWorkspace(args: ParsedArgs, env: CliEnv): Promise<string> {
  const cwd = path.resolve(env.cwd, stringFlag(args, '--cwd') ?? '.');
  if ((await env.fs.stat(cwd))?.type !== 'directory') throw new UsageError(`--cwd "${cwd}" is not a folder`);
  return cwd;
}

/** The skills of the workspace: --root folders when given, else the workspace's and the user's skill folders. */
export async function openWorkspaceIndex(args: ParsedArgs, env: CliEnv, cwd: string): Promise<SkillIndex> {
  const roots =
    args.roots.length > 0
      ? args.roots.map((entry) => ({ path: path.resolve(env.cwd, entry), scope: 'project' as const, label: entry, writeTarget: false }))
      : configuredRoots([{ name: path.basename(cwd), fsPath: cwd }], env.homeDir).roots;
  for (const root of args.roots.length > 0 ? roots : []) {
    if ((await env.fs.stat(root.path))?.type !== 'directory') throw new UsageError(`skill folder "${root.label}" does not exist or is not a folder`);
  }
  const index = new SkillIndex({ fs: env.fs, roots });
  await index.load();
  for (const warning of index.warnings) env.stderr(`skillwright: warning: ${warning}\n`);
  return index;
}

export function stderrLogger(env: CliEnv): Logger {
  const line = (level: string) => (message: string | Error): void => env.stderr(`skillwright: ${level}: ${message instanceof Error ? message.message : message}\n`);
  return { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: line('warning'), error: line('error') };
}

/**
 * The executor of a CLI run. The policy decides, as for run_command: with nobody to ask, a script
 * or an endpoint runs only when --yes-commands allows commands.
 */
export function createCliExecutor(options: { readonly index: SkillIndex; readonly env: CliEnv; readonly dataDir: string; readonly policy: ApprovalPolicy }): { executor: SkillExecutor; traces: TraceStore; validator: SchemaValidator } {
  return createNodeExecutor({
    index: options.index,
    fs: options.env.fs,
    storageDir: options.dataDir,
    processEnv: options.env.env,
    approve: gateRunApproval(createApprovalGate(options.policy, () => Promise.resolve('deny'))),
    mayRun: () => ({ allowed: true }),
    logger: stderrLogger(options.env),
  });
}

function skillPolicy(args: ParsedArgs): ApprovalPolicy {
  return headlessApprovalPolicy({ allowCommands: args.flags.has('--yes-commands'), headlessHint: RUN_SKILL_HINT });
}

/** --args or --args-file as a JSON object; {} when neither is given. */
async function readArguments(args: ParsedArgs, env: CliEnv): Promise<Record<string, unknown>> {
  const inline = stringFlag(args, '--args');
  const file = stringFlag(args, '--args-file');
  if (inline !== undefined && file !== undefined) throw new UsageError('give the arguments with --args or with --args-file, not both');
  let text: string;
  let source: string;
  if (file !== undefined) {
    const full = path.resolve(env.cwd, file);
    try {
      text = Buffer.from(await env.fs.readFile(full)).toString('utf8').replace(/^\uFEFF/, '');
    } catch (error) {
      throw new UsageError(`--args-file "${file}" cannot be read: ${describeError(error)}`);
    }
    source = `--args-file ${file}`;
  } else if (inline !== undefined) {
    text = inline;
    source = '--args';
  } else {
    return {};
  }
  if (text.trim() === '') throw new UsageError(`${source} is empty; pass a JSON object such as '{"path": "data.json"}' (or '{}')`);
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    const where = text.includes('\n') ? `line ${parsed.line}, column ${parsed.column}` : `column ${parsed.column}`;
    const pointer = text.includes('\n') ? '' : `\n  ${text}\n  ${' '.repeat(Math.max(0, parsed.column - 1))}^`;
    throw new UsageError(`${source} is not valid JSON at ${where}: ${parsed.message}${pointer}\n  (quote the JSON for your shell, e.g. --args '{"count": 3}')`);
  }
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`;
    throw new UsageError(`${source} must be a JSON object of the skill's arguments, such as '{"path": "data.json"}', but it is ${got}`);
  }
  return value as Record<string, unknown>;
}

function skillName(args: ParsedArgs, command: string, example: string): string {
  const [name, ...extra] = args.positionals;
  if (name === undefined) throw new UsageError(`${command} needs a skill name, e.g. skillwright ${command} ${example}`);
  if (extra.length > 0) throw new UsageError(`${command} takes one skill name, got ${args.positionals.length} (${args.positionals.join(' ')}); pass the arguments with --args '<json>'`);
  return name;
}

/** What a person reads: a string as it is, an instruction skill's instructions, anything else as indented JSON. */
function humanOutput(result: RunResult, kind: string): string {
  const output = result.output;
  if (typeof output === 'string') return output.endsWith('\n') ? output : `${output}\n`;
  if (kind === 'instructions' && output && typeof (output as { instructions?: unknown }).instructions === 'string') {
    const text = (output as { instructions: string }).instructions;
    return text.endsWith('\n') ? text : `${text}\n`;
  }
  return `${JSON.stringify(output, null, 2)}\n`;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** `skillwright run-skill <name> --args '<json>'`: one run through the same executor as skill_run and Run Skill…. */
export async function runSkillCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const name = skillName(args, 'run-skill', `format-json --args '{"path": "data.json"}'`);
  const input = await readArguments(args, env);
  const cwd = await cliWorkspace(args, env);
  const index = await openWorkspaceIndex(args, env, cwd);
  const { executor } = createCliExecutor({ index, env, dataDir: cliDataDir(args, env), policy: skillPolicy(args) });
  const run = await executor.run(name, input, { context: { workspaceFolder: cwd }, origin: 'cli', ...(env.signal ? { signal: env.signal } : {}) });
  const result: RunResult = { success: run.success, output: run.output, error: run.error, trace_id: run.trace_id };
  if (run.trace.drift !== undefined) env.stderr(`skillwright run-skill: warning: ${run.trace.drift}\n`);
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify(result, null, 2)}\n`);
  } else if (result.success) {
    env.stdout(humanOutput(result, run.trace.kind));
    env.stderr(`skillwright run-skill: ${run.trace.skill} ran in ${seconds(run.trace.durationMs)} (trace ${result.trace_id})\n`);
  } else {
    env.stderr(`skillwright run-skill: ${run.trace.skill} failed: ${result.error ?? 'no error text'}\n  trace ${result.trace_id} (skillwright traces list --skill ${run.trace.skill})\n`);
  }
  if (result.success) return 0;
  return env.signal?.aborted ? 130 : 1;
}

function resultLine(result: ExampleResult): string {
  const label = result.kind === 'query' ? `query ${JSON.stringify(result.name)}` : result.kind === 'binding' ? 'binds without arguments' : result.name;
  const extra = result.kind === 'query' && result.rank !== undefined ? ` (#${result.rank})` : result.kind === 'query' ? '' : ` (${seconds(result.durationMs)})`;
  const head = `${result.passed ? 'PASS' : 'FAIL'} ${label}${extra}`;
  if (result.passed) return `${head}\n`;
  const trace = result.trace_id !== undefined ? `\n     trace ${result.trace_id}` : '';
  return `${head}\n     ${(result.message ?? 'failed').split('\n').join('\n     ')}${trace}\n`;
}

/**
 * `skillwright test-skill <name>`: runs the examples the skill ships and checks its example queries;
 * exit 1 when one fails or there is nothing to try. Scripts and endpoints need --yes-commands, as
 * for run-skill: the examples run the skill for real.
 */
export async function testSkillCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const name = skillName(args, 'test-skill', 'format-json --yes-commands');
  const json = args.flags.has('--json');
  const cwd = await cliWorkspace(args, env);
  const index = await openWorkspaceIndex(args, env, cwd);
  const found = findSkill(name, index.active(), { all: index.all() });
  if (!found.ok) {
    env.stderr(`skillwright test-skill: ${found.error}\n`);
    return 1;
  }
  const record = found.value;
  const loaded = await indexSkillLoader(index, env.fs)(record.name);
  if (!loaded.ok) {
    env.stderr(`skillwright test-skill: ${loaded.error}\n`);
    return 1;
  }
  const { executor, validator } = createCliExecutor({ index, env, dataDir: cliDataDir(args, env), policy: skillPolicy(args) });
  const report = await testSkillExamples({
    record,
    kind: loaded.skill.kind,
    fs: env.fs,
    validator,
    search: new SkillSearch(index.active()),
    run: (input) => executor.run(record.name, input, { context: { workspaceFolder: cwd }, origin: 'test', ...(env.signal ? { signal: env.signal } : {}) }),
    ...(json ? {} : { onResult: (result: ExampleResult) => env.stdout(resultLine(result)) }),
  });
  const nothing = report.results.length === 0;
  if (json) {
    env.stdout(`${JSON.stringify(report, null, 2)}\n`);
  } else if (!nothing) {
    env.stdout(`${record.name}: ${report.passed} passed, ${report.failed} failed\n`);
  }
  if (nothing) {
    env.stderr(
      `skillwright test-skill: "${record.name}" has nothing to try: add examples/<name>.json files such as ` +
        `{"arguments": {…}, "expect": {"output": {…}}} to its folder${loaded.skill.kind === 'instructions' ? ', or example_queries to its frontmatter' : ''}\n`,
    );
  }
  if (env.signal?.aborted) return 130;
  return report.failed > 0 || nothing ? 1 : 0;
}
