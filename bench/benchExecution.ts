/**
 * The executor's own cost (issue 10's figures): what a level-0 run of a Node script costs beyond
 * the script itself, what the workflow scheduler costs per step, binding and validation with a
 * cached schema, and appending a trace line. Real processes and real files throughout.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { NodeFileSystem } from '../src/core/base/nodeFileSystem';
import { SkillIndex } from '../src/core/skills/index/skillIndex';
import { bindArguments } from '../src/core/execution/argumentBinding';
import type { WorkflowStepSpec } from '../src/core/execution/executableSkill';
import { createNodeExecutor, nodeTraceAppend } from '../src/core/execution/executorSetup';
import { NodeScriptPort } from '../src/core/execution/nodeScriptPort';
import { SchemaValidator } from '../src/core/execution/schemaValidator';
import { TraceStore } from '../src/core/execution/traceStore';
import { runWorkflow } from '../src/core/execution/workflowRunner';
import type { RunTrace } from '../src/core/execution/executionTypes';

const RUNS = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function row(label: string, ours: string, target: string): void {
  console.log(`${label.padEnd(66)} | ${ours.padStart(10)} | ${target.padStart(9)}`);
}

const SCRIPT = `const c = []; process.stdin.on('data', (d) => c.push(d)); process.stdin.on('end', () => process.stdout.write(JSON.stringify({ success: true, output: JSON.parse(Buffer.concat(c).toString()) })));\n`;
const SCHEMA = {
  type: 'object',
  required: ['path'],
  properties: {
    path: { type: 'string', description: 'The file' },
    count: { type: 'integer', default: 3, description: 'How many' },
    mode: { type: 'string', enum: ['fast', 'thorough'], default: 'fast', description: 'How' },
    dry_run: { type: 'boolean', default: false, description: 'Only report' },
  },
};

async function level0(tmp: string): Promise<{ direct: number; executor: number }> {
  const skills = path.join(tmp, 'skills');
  fs.mkdirSync(path.join(skills, 'echo', 'scripts'), { recursive: true });
  fs.writeFileSync(path.join(skills, 'echo', 'scripts', 'run.js'), SCRIPT);
  fs.writeFileSync(
    path.join(skills, 'echo', 'SKILL.md'),
    `---\nname: echo\ndescription: Echoes its input. Use when benchmarking.\nentry: scripts/run.js\npermissions:\n  commands: true\ninput_schema: ${JSON.stringify(SCHEMA)}\n---\n`,
  );
  const index = new SkillIndex({ fs: new NodeFileSystem(), roots: [{ path: skills, scope: 'project', label: 'bench', writeTarget: true }] });
  await index.load();
  const { executor } = createNodeExecutor({
    index,
    fs: new NodeFileSystem(),
    storageDir: path.join(tmp, 'storage'),
    processEnv: { PATH: process.env['PATH'] },
    approve: async () => ({ allowed: true }),
    mayRun: () => ({ allowed: true }),
  });
  const port = new NodeScriptPort();
  const args = { path: 'a.txt', count: 3, mode: 'fast', dry_run: false };
  const direct: number[] = [];
  const through: number[] = [];
  // Warm both paths (module loading, the first spawn) before measuring; interleave so drift hits both.
  for (let i = 0; i < RUNS + 3; i++) {
    let started = performance.now();
    const raw = await port.run({ command: [process.execPath, path.join(skills, 'echo', 'scripts', 'run.js')], cwd: tmp, stdin: JSON.stringify(args), env: { PATH: process.env['PATH'] ?? '' }, timeoutMs: 60_000, maxStdoutBytes: 1 << 20, stderrTailBytes: 8192 });
    if (raw.exitCode !== 0) throw new Error(`the script failed: ${raw.stderrTail}`);
    if (i >= 3) direct.push(performance.now() - started);
    started = performance.now();
    const result = await executor.run('echo', { path: 'a.txt' }, { context: { workspaceFolder: tmp }, origin: 'cli' });
    if (!result.success) throw new Error(`the run failed: ${result.error ?? ''}`);
    if (i >= 3) through.push(performance.now() - started);
  }
  return { direct: median(direct), executor: median(through) };
}

async function workflowOverhead(steps: number, shape: 'chain' | 'wide'): Promise<number> {
  const specs: WorkflowStepSpec[] = Array.from({ length: steps }, (_, i) => ({
    id: `s${i}`,
    skill: 'noop',
    with: shape === 'chain' && i > 0 ? { v: `\${steps.s${i - 1}.output.v}` } : { v: i },
    dependsOn: [],
    strategy: 'fail_fast',
    maxRetries: 0,
    retryBackoffSeconds: 1,
    retryOn: [],
    fallbackParams: {},
  }));
  const times: number[] = [];
  for (let round = 0; round < 12; round++) {
    const started = performance.now();
    const result = await runWorkflow({
      steps: specs,
      input: {},
      context: {},
      // The steps themselves cost nothing: what is left is the scheduler, references and trace.
      runStep: async (request) => ({ outcome: { ok: true, output: { v: request.args['v'] } }, kind: 'instructions', nested: [], called: [] }),
      signal: new AbortController().signal,
      sleep: async () => undefined,
      elapsed: () => performance.now() - started,
    });
    if (!result.outcome.ok) throw new Error(result.outcome.error);
    if (round >= 2) times.push((performance.now() - started) / steps);
  }
  return median(times);
}

function binding(): number {
  const validator = new SchemaValidator();
  const calls = 20_000;
  const times: number[] = [];
  for (let round = 0; round < 7; round++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) {
      const bound = bindArguments({ skill: 'echo', inputSchema: SCHEMA, explicit: { path: `f${i}.txt`, count: '4' }, context: { workspaceFolder: '/w' }, env: {}, declaredEnv: [] }, validator);
      if (!bound.ok) throw new Error(bound.error);
    }
    times.push((performance.now() - started) / calls);
  }
  return median(times.slice(2));
}

async function traceAppend(tmp: string): Promise<number> {
  const store = new TraceStore({ fs: new NodeFileSystem(), append: nodeTraceAppend, storageDir: path.join(tmp, 'trace-bench') });
  const trace: RunTrace = {
    type: 'trace',
    trace_id: '00000000-0000-4000-8000-000000000000',
    skill: 'echo',
    kind: 'workflow',
    success: true,
    started: new Date().toISOString(),
    durationMs: 12,
    outputBytes: 40,
    steps: Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, skill: 'echo', kind: 'script' as const, status: 'success' as const, attempts: [{ offsetMs: i, durationMs: 2 }], offsetMs: i, durationMs: 2, outputBytes: 8 })),
    calledSkills: ['echo'],
    sessionId: 'bench-session',
    origin: 'cli',
  };
  const times: number[] = [];
  for (let i = 0; i < 1_000; i++) {
    const started = performance.now();
    await store.append({ ...trace, trace_id: `t${i}` });
    times.push(performance.now() - started);
  }
  return median(times.slice(50));
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-bench-exec-'));
  try {
    console.log(`Executor benchmark (${os.cpus().length} CPUs, Node ${process.version}; medians)`);
    row('measure', 'ours', 'target');
    row('-'.repeat(66), '-'.repeat(10), '-'.repeat(9));
    const l0 = await level0(tmp);
    row(`Node script run, spawned directly (the script's own time, n=${RUNS})`, `${l0.direct.toFixed(1)} ms`, '');
    row(`Node script run through the executor (n=${RUNS})`, `${l0.executor.toFixed(1)} ms`, '');
    row('executor overhead per L0 run beyond the script', `${(l0.executor - l0.direct).toFixed(1)} ms`, '≤ 30 ms');
    row('workflow overhead per step, 500-step chain (steps excluded)', `${(await workflowOverhead(500, 'chain')).toFixed(3)} ms`, '≤ 1 ms');
    row('workflow overhead per step, 500 independent steps', `${(await workflowOverhead(500, 'wide')).toFixed(3)} ms`, '≤ 1 ms');
    row('binding + validation per call, schema cached', `${(binding() * 1000).toFixed(1)} µs`, '≤ 200 µs');
    row('trace append (one JSON line, 5 steps)', `${(await traceAppend(tmp)).toFixed(3)} ms`, '≤ 1 ms');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
