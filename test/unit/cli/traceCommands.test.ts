import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CliRun } from './cliRun';
import { runCliCaptured } from './cliRun';
import { parseSince } from '../../../src/cli/traceCommands';
import { UsageError } from '../../../src/cli/cliArgs';
import type { RunTrace } from '../../../src/core/execution/executionTypes';
import type { OtlpSpan, OtlpTraceExport } from '../../../src/core/execution/traceExport';
import { repoRoot } from '../../repoRoot';


const DAY = 86_400_000;

describe('skillwright traces', () => {
  let work: string;
  let home: string;
  let dataDir: string;

  async function run(args: string[]): Promise<CliRun> {
    return runCliCaptured(args, { cwd: work, homeDir: home, env: { PATH: process.env.PATH ?? '', SKILLWRIGHT_DATA_DIR: dataDir } });
  }

  async function runSkill(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await run(['run-skill', name, '--args', JSON.stringify(args), '--yes-commands', '--json']);
    return (JSON.parse(result.out) as { trace_id: string }).trace_id;
  }

  /** A run recorded long ago, written as the store writes it. */
  function oldTrace(daysAgo: number): RunTrace {
    const started = new Date(Date.now() - daysAgo * DAY).toISOString();
    const trace: RunTrace = {
      type: 'trace',
      trace_id: `old-${daysAgo}`,
      skill: 'py-words',
      kind: 'script',
      success: true,
      started,
      durationMs: 12,
      outputBytes: 20,
      steps: [{ id: 'main', skill: 'py-words', kind: 'script', status: 'success', attempts: [{ offsetMs: 0, durationMs: 12 }], offsetMs: 0, durationMs: 12, outputBytes: 20 }],
      calledSkills: [],
      origin: 'cli',
    };
    fs.mkdirSync(path.join(dataDir, 'traces'), { recursive: true });
    fs.appendFileSync(path.join(dataDir, 'traces', `${started.slice(0, 10)}.jsonl`), `${JSON.stringify(trace)}\n`);
    return trace;
  }

  beforeEach(() => {
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-traces-')));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-traces-home-'));
    dataDir = path.join(home, 'data');
    fs.cpSync(path.join(repoRoot(), 'test', 'fixtures', 'execution', 'skills'), path.join(work, '.agents', 'skills'), { recursive: true });
  });

  afterEach(() => {
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('parses --since as a span back from now or an ISO date', () => {
    const now = Date.parse('2025-03-10T12:00:00Z');
    assert.equal(parseSince('30m', now), now - 30 * 60_000);
    assert.equal(parseSince('12h', now), now - 12 * 3_600_000);
    assert.equal(parseSince('7d', now), now - 7 * DAY);
    assert.equal(parseSince('2w', now), now - 14 * DAY);
    assert.equal(parseSince('2025-01-31', now), Date.parse('2025-01-31T00:00:00Z'));
    assert.equal(parseSince('2025-01-31T08:30Z', now), Date.parse('2025-01-31T08:30:00Z'));
    assert.equal(parseSince('2025-01-31T08:30:00+02:00', now), Date.parse('2025-01-31T06:30:00Z'));
    for (const bad of ['7', '7x', '-1d', '', 'yesterday', '2025-13-45', '31/01/2025', 'd7']) {
      assert.throws(() => parseSince(bad, now), (error: unknown) => error instanceof UsageError && /write 30m, 12h, 7d/.test(error.message), bad);
    }
  });

  it('lists runs newest first, filtered by skill and by time', async () => {
    const old = oldTrace(10);
    const sum = await runSkill('node-sum', { a: 1, b: 2 });
    const failed = await runSkill('node-sum', { a: 1 });
    const workflow = await runSkill('sum-then-words', { a: 2, b: 2 });

    const all = JSON.parse((await run(['traces', 'list', '--json'])).out) as { traces: { trace_id: string; skill: string; success: boolean; steps: number; origin: string; durationMs: number }[] };
    assert.deepEqual(all.traces.map((t) => t.trace_id), [workflow, failed, sum, old.trace_id]);
    assert.deepEqual(all.traces.map((t) => t.success), [true, false, true, true]);
    assert.equal(all.traces[0]?.steps, 2);

    const bySkill = JSON.parse((await run(['traces', 'list', '--skill', 'node-sum', '--json'])).out) as { traces: { trace_id: string }[] };
    assert.deepEqual(bySkill.traces.map((t) => t.trace_id), [workflow, failed, sum], 'a workflow that called the skill counts');

    const recent = await run(['traces', 'list', '--since', '7d']);
    assert.equal(recent.code, 0, recent.err);
    const lines = recent.out.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[1] ?? '', new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  node-sum\\s+FAILED\\s+[\\d.]+ s  ${failed}  missing required argument`));
    assert.match(lines[2] ?? '', new RegExp(`node-sum\\s+ok\\s+[\\d.]+ s  ${sum}$`));
    const sinceDate = new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10);
    assert.equal((await run(['traces', 'list', '--since', sinceDate])).out.trim().split('\n').length, 4);
    assert.match((await run(['traces', 'list', '--since', '1m', '--skill', 'http-echo'])).out, /^no runs recorded in that time of that skill/);
  });

  it('exports OTLP/JSON spans with GenAI names, a root per run and a child per workflow step', async () => {
    oldTrace(10);
    const sum = await runSkill('node-sum', { a: 1, b: 2 });
    const failed = await runSkill('node-sum', { a: 1 });
    const workflow = await runSkill('sum-then-words', { a: 2, b: 2 });
    const result = await run(['traces', 'export', '--since', '7d', '--format', 'otlp-json']);
    assert.equal(result.code, 0, result.err);
    assert.match(result.err, /exported 3 run\(s\)/);
    const body = JSON.parse(result.out) as OtlpTraceExport;
    assert.equal(body.resourceSpans.length, 1);
    const resource = body.resourceSpans[0];
    assert.deepEqual(resource?.resource.attributes[0], { key: 'service.name', value: { stringValue: 'skillwright' } });
    const scope = resource.scopeSpans[0];
    assert.deepEqual(scope?.scope, { name: 'skillwright.execution', version: '1.2.3' });
    const spans = scope.spans;
    assert.equal(spans.length, 1 + 1 + 3, 'one root per run, plus the two steps of the workflow');

    for (const span of spans) {
      assert.match(span.traceId, /^[0-9a-f]{32}$/);
      assert.match(span.spanId, /^[0-9a-f]{16}$/);
      assert.match(span.startTimeUnixNano, /^\d{19}$/);
      assert.match(span.endTimeUnixNano, /^\d{19}$/);
      assert.ok(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano));
      assert.equal(span.kind, 1);
      if (span.parentSpanId !== undefined) {
        const parent = spans.find((other) => other.spanId === span.parentSpanId);
        assert.ok(parent, `the parent of ${span.name} is exported`);
        assert.equal(parent.traceId, span.traceId);
        assert.ok(BigInt(span.startTimeUnixNano) >= BigInt(parent.startTimeUnixNano));
      }
    }
    const attr = (span: OtlpSpan | undefined, key: string): unknown => span?.attributes.find((a) => a.key === key)?.value;
    const rootOf = (traceId: string): OtlpSpan | undefined => spans.find((span) => span.parentSpanId === undefined && attr(span, 'gen_ai.tool.call.id') !== undefined && (attr(span, 'gen_ai.tool.call.id') as { stringValue: string }).stringValue === traceId);

    const ok = rootOf(sum);
    assert.equal(ok?.name, 'execute_tool node-sum');
    assert.deepEqual(attr(ok, 'gen_ai.operation.name'), { stringValue: 'execute_tool' });
    assert.deepEqual(attr(ok, 'gen_ai.tool.name'), { stringValue: 'node-sum' });
    assert.deepEqual(ok.status, { code: 1 });

    const bad = rootOf(failed);
    assert.equal(bad?.status.code, 2);
    assert.match(bad.status.message ?? '', /missing required argument/);
    assert.deepEqual(attr(bad, 'error.type'), { stringValue: 'validation' });
    assert.deepEqual(bad.events.map((event) => event.name), ['exception']);

    const flow = rootOf(workflow);
    assert.equal(flow?.name, 'invoke_workflow sum-then-words');
    assert.deepEqual(attr(flow, 'gen_ai.operation.name'), { stringValue: 'invoke_workflow' });
    const steps = spans.filter((span) => span.parentSpanId === flow.spanId);
    assert.deepEqual(steps.map((span) => span.name), ['execute_tool node-sum', 'execute_tool py-words']);
    assert.ok(steps.every((span) => span.traceId === flow.traceId && span.status.code === 1));
    assert.equal(new Set(spans.map((span) => span.spanId)).size, spans.length, 'span ids are unique');

    const again = await run(['traces', 'export', '--since', '7d']);
    assert.equal(again.out, result.out, 'the same runs export to the same spans');
    const lines = (await run(['traces', 'export', '--format', 'jsonl'])).out.trim().split('\n');
    assert.deepEqual(lines.map((line) => (JSON.parse(line) as RunTrace).trace_id), ['old-10', sum, failed, workflow], 'oldest first');
  });

  it('rejects unknown actions, formats and --since values as usage errors', async () => {
    for (const [args, message] of [
      [['traces'], /traces needs "list" or "export"/],
      [['traces', 'show'], /not "show"/],
      [['traces', 'list', 'extra'], /takes no more words/],
      [['traces', 'export', '--format', 'csv'], /--format "csv" is not known; use otlp-json/],
      [['traces', 'list', '--format', 'jsonl'], /--format is for traces export/],
      [['traces', 'list', '--since', 'last week'], /--since "last week" is neither a span nor a date/],
      [['traces', 'list', '--limit', '0'], /--limit takes a whole number/],
    ] as const) {
      const result = await run([...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.err, message);
    }
    const empty = await run(['traces', 'export']);
    assert.equal(empty.code, 0);
    assert.deepEqual((JSON.parse(empty.out) as OtlpTraceExport).resourceSpans[0]?.scopeSpans[0]?.spans, []);
  });
});
