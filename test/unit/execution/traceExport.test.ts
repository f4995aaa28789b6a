import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { RunTrace, TraceStep } from '../../../src/core/execution/executionTypes';
import type { OtlpSpan } from '../../../src/core/execution/traceExport';
import { otlpSpanId, otlpTraceId, traceSpans, tracesToOtlp } from '../../../src/core/execution/traceExport';

const STARTED = '2025-01-31T12:00:00.123Z';
const START_NS = BigInt(Date.parse(STARTED)) * 1_000_000n;

function step(id: string, fields: Partial<TraceStep> = {}): TraceStep {
  return { id, skill: id, kind: 'script', status: 'success', attempts: [{ offsetMs: 0, durationMs: 5 }], offsetMs: 0, durationMs: 5, outputBytes: 10, ...fields };
}

function trace(fields: Partial<RunTrace>): RunTrace {
  return {
    type: 'trace',
    trace_id: 't-1',
    skill: 'deploy',
    kind: 'script',
    success: true,
    started: STARTED,
    durationMs: 40,
    outputBytes: 10,
    steps: [step('main', { skill: 'deploy', durationMs: 40 })],
    calledSkills: [],
    origin: 'cli',
    ...fields,
  };
}

const attr = (span: OtlpSpan | undefined, key: string): unknown => span?.attributes.find((a) => a.key === key)?.value;

describe('OTLP/JSON trace export', () => {
  it('derives 16-byte trace ids and 8-byte span ids from the trace id, the same every time', () => {
    assert.match(otlpTraceId('t-1'), /^[0-9a-f]{32}$/);
    assert.match(otlpSpanId('t-1'), /^[0-9a-f]{16}$/);
    assert.equal(otlpTraceId('t-1'), otlpTraceId('t-1'));
    assert.notEqual(otlpTraceId('t-1'), otlpTraceId('t-2'));
    assert.notEqual(otlpSpanId('t-1'), otlpSpanId('t-1', 'build'));
    assert.notEqual(otlpSpanId('t-1', 'build'), otlpSpanId('t-2', 'build'));
    assert.equal(otlpTraceId('t-1'), createHash('sha256').update('trace\u0000t-1').digest('hex').slice(0, 32));
  });

  it('makes a level-0 run one execute_tool span with its failed attempts as exception events', () => {
    const run = trace({
      success: false,
      error: 'POST http://x/v1/invoke replied 503 (gave up after 2 attempts)',
      kind: 'http',
      version: '1.4.0',
      sessionId: 'sess-9',
      tokens: { input: 120, output: 30 },
      steps: [
        step('main', {
          skill: 'deploy',
          kind: 'http',
          status: 'failed',
          durationMs: 40,
          attempts: [
            { offsetMs: 0, durationMs: 10, error: 'replied 503', kind: 'http_status' },
            { offsetMs: 30.5, durationMs: 9.5, error: 'replied 503 again', kind: 'http_status' },
          ],
        }),
      ],
    });
    const [root, ...rest] = traceSpans(run);
    assert.equal(rest.length, 0);
    assert.equal(root?.name, 'execute_tool deploy');
    assert.equal(root.parentSpanId, undefined);
    assert.equal(root.startTimeUnixNano, START_NS.toString());
    assert.equal(root.endTimeUnixNano, (START_NS + 40_000_000n).toString());
    assert.deepEqual(root.status, { code: 2, message: run.error });
    assert.deepEqual(attr(root, 'gen_ai.operation.name'), { stringValue: 'execute_tool' });
    assert.deepEqual(attr(root, 'gen_ai.tool.name'), { stringValue: 'deploy' });
    assert.deepEqual(attr(root, 'gen_ai.tool.call.id'), { stringValue: 't-1' });
    assert.deepEqual(attr(root, 'gen_ai.conversation.id'), { stringValue: 'sess-9' });
    assert.deepEqual(attr(root, 'gen_ai.usage.input_tokens'), { intValue: '120' });
    assert.deepEqual(attr(root, 'gen_ai.usage.output_tokens'), { intValue: '30' });
    assert.deepEqual(attr(root, 'error.type'), { stringValue: 'http_status' });
    assert.deepEqual(attr(root, 'skillwright.skill.version'), { stringValue: '1.4.0' });
    assert.deepEqual(
      root.events.map((event) => [event.name, event.timeUnixNano, event.attributes]),
      [
        ['exception', (START_NS + 10_000_000n).toString(), [{ key: 'exception.message', value: { stringValue: 'replied 503' } }, { key: 'exception.type', value: { stringValue: 'http_status' } }]],
        ['exception', (START_NS + 40_000_000n).toString(), [{ key: 'exception.message', value: { stringValue: 'replied 503 again' } }, { key: 'exception.type', value: { stringValue: 'http_status' } }]],
      ],
    );
  });

  it('makes a workflow an invoke_workflow span with a child per step, nested under nested workflows', () => {
    const run = trace({
      skill: 'release',
      kind: 'workflow',
      durationMs: 100,
      steps: [
        step('build', { offsetMs: 0, durationMs: 20, tokens: { input: 5, output: 7 } }),
        step('ship/upload', { parent: 'ship', skill: 'upload', offsetMs: 25, durationMs: 30 }),
        step('ship', { skill: 'ship-it', kind: 'workflow', offsetMs: 22, durationMs: 40 }),
        step('notify', { status: 'skipped', kind: 'unknown', attempts: [], offsetMs: 62, durationMs: 0, reason: 'if: false' }),
        step('check', { status: 'failed', offsetMs: 62, durationMs: 1.25, error: 'exit 1', attempts: [{ offsetMs: 62, durationMs: 1.25, error: 'exit 1', kind: 'exit_code' }] }),
        step('check.fallback/inner', { parent: 'check.fallback', skill: 'inner', offsetMs: 64, durationMs: 3 }),
      ],
      calledSkills: ['build', 'upload', 'ship-it', 'check', 'inner'],
    });
    const spans = traceSpans(run);
    const [root] = spans;
    const byStep = (id: string): OtlpSpan | undefined => spans.find((span) => span.spanId === otlpSpanId('t-1', id));
    assert.equal(spans.length, 7);
    assert.equal(root?.name, 'invoke_workflow release');
    assert.deepEqual(attr(root, 'gen_ai.workflow.name'), { stringValue: 'release' });
    assert.equal(byStep('build')?.name, 'execute_tool build');
    assert.equal(byStep('build')?.parentSpanId, root.spanId);
    assert.deepEqual(attr(byStep('build'), 'gen_ai.usage.output_tokens'), { intValue: '7' });
    assert.equal(byStep('ship')?.name, 'invoke_workflow ship-it');
    assert.equal(byStep('ship/upload')?.parentSpanId, byStep('ship')?.spanId);
    assert.equal(byStep('check.fallback/inner')?.parentSpanId, byStep('check')?.spanId, 'a fallback workflow hangs under its step');
    assert.deepEqual(byStep('notify')?.status, { code: 0 });
    assert.deepEqual(attr(byStep('notify'), 'skillwright.step.skip_reason'), { stringValue: 'if: false' });
    assert.deepEqual(byStep('check')?.status, { code: 2, message: 'exit 1' });
    assert.deepEqual(attr(byStep('check'), 'error.type'), { stringValue: 'exit_code' });
    assert.equal(byStep('check')?.endTimeUnixNano, (START_NS + 63_250_000n).toString(), 'fractions of a millisecond are kept');
    assert.ok(spans.every((span) => span.traceId === otlpTraceId('t-1')));
    assert.deepEqual(attr(root, 'skillwright.called_skills'), { arrayValue: { values: run.calledSkills.map((name) => ({ stringValue: name })) } });
  });

  it('wraps every run in one resource and one scope', () => {
    const body = tracesToOtlp([trace({ trace_id: 'a' }), trace({ trace_id: 'b' })], { version: '0.9.0' });
    const [resource] = body.resourceSpans;
    assert.equal(body.resourceSpans.length, 1);
    assert.deepEqual(resource?.resource.attributes, [
      { key: 'service.name', value: { stringValue: 'skillwright' } },
      { key: 'service.version', value: { stringValue: '0.9.0' } },
    ]);
    assert.deepEqual(resource.scopeSpans.map((scope) => scope.scope), [{ name: 'skillwright.execution', version: '0.9.0' }]);
    assert.deepEqual(resource.scopeSpans[0]?.spans.map((span) => span.traceId), [otlpTraceId('a'), otlpTraceId('b')]);
  });
});
