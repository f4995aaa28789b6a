import * as assert from 'node:assert/strict';
import type { RunTrace } from '../../../src/core/execution/executionTypes';
import { parseShowTraceArgs, runPickItem, runTime, traceModelOf } from '../../../src/host/execution/tracePicks';
import { parseHostTraceMessage } from '../../../src/shared/traceProtocol';

function trace(extra: Partial<RunTrace> = {}): RunTrace {
  return {
    type: 'trace',
    trace_id: 'abc-123',
    skill: 'release',
    version: '2.1.0',
    kind: 'workflow',
    success: true,
    started: new Date(2025, 2, 4, 9, 5, 7).toISOString(),
    durationMs: 1250,
    outputBytes: 12,
    steps: [
      { id: 'build', skill: 'build', kind: 'script', status: 'success', attempts: [{ offsetMs: 0, durationMs: 800 }], offsetMs: 0, durationMs: 800, outputBytes: 4, tokens: { input: 3, output: 2 } },
      { id: 'ship', skill: 'ship', kind: 'http', status: 'failed', attempts: [{ offsetMs: 810, durationMs: 400, error: 'HTTP 502', kind: 'http_status' }], offsetMs: 810, durationMs: 400, outputBytes: 0, error: 'HTTP 502' },
    ],
    calledSkills: ['build', 'ship'],
    sessionId: 's-1',
    origin: 'chat',
    ...extra,
  };
}

describe('trace panel: command arguments, picks and the page model', () => {
  it('takes { traceId }, { skill } or nothing, trimmed', () => {
    assert.deepEqual(parseShowTraceArgs(undefined), { ok: true, args: {} });
    assert.deepEqual(parseShowTraceArgs(null), { ok: true, args: {} });
    assert.deepEqual(parseShowTraceArgs({ traceId: ' abc ' }), { ok: true, args: { traceId: 'abc' } });
    assert.deepEqual(parseShowTraceArgs({ skill: 'release' }), { ok: true, args: { skill: 'release' } });
  });

  it('refuses anything else, saying what the command takes', () => {
    for (const [raw, reason] of [
      ['abc', /got string/],
      [[1], /got a list/],
      [{ trace: 'abc' }, /does not know "trace"/],
      [{ traceId: 5 }, /traceId must be a non-empty string/],
      [{ skill: '  ' }, /skill must be a non-empty string/],
    ] as const) {
      const parsed = parseShowTraceArgs(raw);
      assert.ok(!parsed.ok, JSON.stringify(raw));
      assert.match(parsed.error, reason);
      assert.match(parsed.error, /Pass \{ traceId: .* or \{ skill: /);
    }
  });

  it('shows a run in the pick with its skill, outcome, duration, time, steps and origin', () => {
    const ok = runPickItem(trace());
    assert.deepEqual(ok, {
      label: '$(pass) release',
      description: 'succeeded · 1.2 s',
      detail: '2025-03-04 09:05:07 · 2 steps, 1 failed · workflow · from chat',
      traceId: 'abc-123',
    });
    const failed = runPickItem(trace({ success: false, kind: 'script', error: 'exit code 3', steps: [] }));
    assert.equal(failed.label, '$(error) release');
    assert.equal(failed.detail, '2025-03-04 09:05:07 · script · from chat · exit code 3');
    assert.equal(runTime('not a date'), 'not a date');
  });

  it('turns a stored trace into a model the page accepts, with nothing beyond the schema', () => {
    const model = traceModelOf({ ...trace(), extra: 'not sent' } as RunTrace);
    assert.equal('extra' in model, false);
    assert.equal('sessionId' in model, false);
    assert.equal(model.traceId, 'abc-123');
    assert.deepEqual(model.steps[1]?.attempts, [{ offsetMs: 810, durationMs: 400, error: 'HTTP 502', kind: 'http_status' }]);
    const parsed = parseHostTraceMessage({ type: 'trace/show', trace: model });
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.deepEqual(parsed.value, { type: 'trace/show', trace: model });
  });
});
