import * as assert from 'node:assert/strict';
import type { TraceModel } from '../../../src/shared/traceProtocol';
import { formatDuration, parseHostTraceMessage, parseTraceMessage, STEP_STATE_TEXT, TRACE_STEP_STATUSES } from '../../../src/shared/traceProtocol';
import { parseHostMessage, parseWebviewMessage, RUN_STEP_STATES } from '../../../src/shared/protocol';

const trace: TraceModel = {
  traceId: '0b6f7a52-1c1e-4bd4-9a43-2a8f5c9d1e00',
  skill: 'release',
  version: '1.0.0',
  kind: 'workflow',
  success: false,
  error: 'step "build" failed: exit code 2',
  started: '2025-03-04T10:00:00.000Z',
  durationMs: 1200,
  outputBytes: 0,
  steps: [
    {
      id: 'build',
      skill: 'build',
      kind: 'script',
      status: 'failed',
      attempts: [{ offsetMs: 0, durationMs: 1200, error: 'exit code 2', kind: 'exit_code' }],
      offsetMs: 0,
      durationMs: 1200,
      outputBytes: 0,
      error: 'exit code 2',
    },
  ],
  calledSkills: ['build'],
  origin: 'chat',
};

describe('trace panel protocol', () => {
  it('accepts every message of the page and of the host, unchanged', () => {
    for (const message of [{ type: 'trace/ready' }, { type: 'trace/pickRun', skill: 'release' }, { type: 'trace/openSkill', skill: 'release' }]) {
      assert.deepEqual(parseTraceMessage(message), { ok: true, value: message });
    }
    for (const message of [{ type: 'trace/show', trace }, { type: 'trace/error', message: 'gone' }]) {
      assert.deepEqual(parseHostTraceMessage(message), { ok: true, value: message });
    }
  });

  it('refuses malformed messages with a short reason that names the field', () => {
    const cases: [unknown, RegExp][] = [
      [null, /not an object/],
      [[], /not an object/],
      [{ type: 7 }, /no string "type"/],
      [{ type: 'trace/delete' }, /unknown message type "trace\/delete"/],
      [{ type: 'trace/pickRun' }, /"trace\/pickRun" skill:/],
      [{ type: 'trace/pickRun', skill: '' }, /"trace\/pickRun" skill:/],
      [{ type: 'trace/openSkill', skill: 'x'.repeat(401) }, /skill:/],
    ];
    for (const [raw, reason] of cases) {
      const parsed = parseTraceMessage(raw);
      assert.ok(!parsed.ok, JSON.stringify(raw));
      assert.match(parsed.error, reason);
      assert.ok(parsed.error.length < 200);
    }
    const badStatus = { ...trace, steps: [{ ...trace.steps[0], status: 'exploded' }] };
    const parsed = parseHostTraceMessage({ type: 'trace/show', trace: badStatus });
    assert.ok(!parsed.ok);
    assert.match(parsed.error, /trace\.steps\.0\.status/);
    assert.equal(parseHostTraceMessage({ type: 'trace/show', trace: { ...trace, durationMs: -1 } }).ok, false);
    assert.equal(parseHostTraceMessage({ type: 'trace/show', trace: { ...trace, origin: 'somewhere' } }).ok, false);
  });

  it('has words and a glyph for every step state, running included, and they differ', () => {
    const states = ['running', ...TRACE_STEP_STATUSES] as const;
    assert.deepEqual([...states].sort(), [...RUN_STEP_STATES].sort(), 'the chat cards and the trace panel know the same states');
    assert.equal(new Set(states.map((s) => STEP_STATE_TEXT[s].label)).size, states.length);
    assert.equal(new Set(states.map((s) => STEP_STATE_TEXT[s].glyph)).size, states.length);
  });

  it('writes durations precisely when short and readably when long', () => {
    assert.deepEqual(
      [0, 12.4, 999, 1000, 1250, 9999, 10_000, 59_999, 60_000, 125_000, -3, Number.NaN].map(formatDuration),
      ['0 ms', '12 ms', '999 ms', '1.0 s', '1.2 s', '9.9 s', '10 s', '59 s', '1 min', '2 min 5 s', '0 ms', '0 ms'],
    );
  });
});

describe('chat protocol: skill runs', () => {
  const tool = {
    kind: 'tool',
    id: 'call_1',
    name: 'skill_run',
    summary: 'skill_run: release',
    args: '{}',
    state: 'done',
    steps: [
      { id: 'build', skill: 'build', state: 'failed', error: 'exit code 2', durationMs: 1200 },
      { id: 'build/compile', parent: 'build', skill: 'compile', state: 'success' },
      { id: 'notify', skill: 'notify', state: 'running' },
    ],
    traceId: trace.traceId,
  };

  it('carries a skill_run card with nested steps and its trace id, and the Show trace request', () => {
    assert.deepEqual(parseHostMessage({ type: 'chat/item', item: tool }), { ok: true, value: { type: 'chat/item', item: tool } });
    assert.deepEqual(parseWebviewMessage({ type: 'chat/showTrace', traceId: trace.traceId }), { ok: true, value: { type: 'chat/showTrace', traceId: trace.traceId } });
  });

  it('refuses a step in an unknown state and a Show trace without an id', () => {
    const parsed = parseHostMessage({ type: 'chat/item', item: { ...tool, steps: [{ id: 'a', skill: 'a', state: 'done' }] } });
    assert.ok(!parsed.ok);
    assert.match(parsed.error, /item\.steps\.0\.state/);
    assert.equal(parseWebviewMessage({ type: 'chat/showTrace' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'chat/showTrace', traceId: '' }).ok, false);
  });
});
