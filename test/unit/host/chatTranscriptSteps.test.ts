import * as assert from 'node:assert/strict';
import type { RunTrace } from '../../../src/core/execution/executionTypes';
import { sessionFromRecords } from '../../../src/core/sessions/sessionLog';
import { ChatTranscript, MAX_CARD_STEPS } from '../../../src/host/chat/chatTranscript';
import { nestedOrder, readRunResult } from '../../../src/host/chat/runResultSteps';
import type { ChatItem } from '../../../src/shared/protocol';

type Tool = Extract<ChatItem, { kind: 'tool' }>;

const TRACE_ID = '5d0c1a8e-7f3b-4c2e-9a11-0e4b7c6d2f10';

function runTrace(): RunTrace {
  const step = (id: string, skill: string, offsetMs: number, durationMs: number, extra: Partial<RunTrace['steps'][number]> = {}) => ({
    id,
    skill,
    kind: 'script' as const,
    status: 'success' as const,
    attempts: [{ offsetMs, durationMs }],
    offsetMs,
    durationMs,
    outputBytes: 4,
    ...extra,
  });
  return {
    type: 'trace',
    trace_id: TRACE_ID,
    skill: 'release',
    kind: 'workflow',
    success: false,
    error: 'step "build" failed: step "test" failed: exit code 1',
    started: '2025-03-04T10:00:00.000Z',
    durationMs: 900,
    outputBytes: 0,
    // The executor's order: nested steps first, then the step that ran them.
    steps: [
      step('build/test', 'unit-tests', 100, 700, { parent: 'build', status: 'failed', error: 'exit code 1' }),
      step('build', 'build-flow', 90, 720, { kind: 'workflow', status: 'failed', error: 'step "test" failed: exit code 1' }),
      step('notify', 'notify', 810, 0, { status: 'skipped', attempts: [], reason: 'build failed' }),
    ],
    calledSkills: ['build-flow', 'unit-tests', 'notify'],
    origin: 'chat',
  };
}

function session(traces = new Map<string, RunTrace>()) {
  const posted: ChatItem[] = [];
  let clock = 1_000;
  const transcript = new ChatTranscript({ item: (item) => posted.push(item), delta: () => undefined }, { traceOf: (id) => traces.get(id), now: () => clock });
  const call = { id: 'call_7', name: 'skill_run', arguments: '{"name":"release"}' };
  transcript.startTurn('t1', 'release it', { catalog: 1, suggestions: [] });
  transcript.onEvent({ type: 'tool_start', call });
  const tool = (): Tool => {
    const item = transcript.items.find((i): i is Tool => i.kind === 'tool');
    assert.ok(item);
    return item;
  };
  return { transcript, posted, call, tool, tick: (ms: number) => (clock += ms) };
}

describe('ChatTranscript: skill_run steps as nested cards', () => {
  it('upserts each step as it starts and ends, timed between the two, and posts every change at once', () => {
    const { transcript, posted, tool, tick } = session();
    assert.deepEqual(tool().skill, { name: 'release', action: 'ran' });
    transcript.stepProgress({ id: 'build', skill: 'build-flow', state: 'running' }, 'call_7');
    tick(10);
    transcript.stepProgress({ id: 'build/test', parent: 'build', skill: 'unit-tests', state: 'running' }, 'call_7');
    assert.deepEqual(tool().steps?.map((s) => [s.id, s.state]), [['build', 'running'], ['build/test', 'running']]);
    tick(700);
    transcript.stepProgress({ id: 'build/test', parent: 'build', skill: 'unit-tests', state: 'failed', error: 'exit code 1' }, 'call_7');
    assert.deepEqual(tool().steps?.[1], { id: 'build/test', parent: 'build', skill: 'unit-tests', state: 'failed', error: 'exit code 1', durationMs: 700 });
    const posts = posted.filter((item) => item.kind === 'tool');
    assert.equal(posts.length, 4, 'the start and three progress reports');
    assert.deepEqual((posts.at(-1) as Tool).steps, tool().steps);
  });

  it('takes the exact steps and the trace id from the trace once skill_run returns, parents first', () => {
    const trace = runTrace();
    const { transcript, call, tool } = session(new Map([[TRACE_ID, trace]]));
    transcript.stepProgress({ id: 'build', skill: 'build-flow', state: 'running' }, 'call_7');
    const result = JSON.stringify({ success: false, error: trace.error, output: null, trace_id: TRACE_ID, steps: [] });
    transcript.onEvent({ type: 'tool_end', call, ok: false, result, summary: '', durationMs: 905 });
    const item = tool();
    assert.equal(item.state, 'failed');
    assert.equal(item.traceId, TRACE_ID);
    assert.deepEqual(
      item.steps?.map((s) => [s.id, s.parent ?? null, s.state, s.durationMs]),
      [
        ['build', null, 'failed', 720],
        ['build/test', 'build', 'failed', 700],
        ['notify', null, 'skipped', 0],
      ],
    );
  });

  it('without the trace at hand (a resumed session) reads the steps from the result, nesting from their ids', () => {
    const result = JSON.stringify({
      success: true,
      output: { ok: 1 },
      trace_id: TRACE_ID,
      steps: [
        { step: 'outer/inner', skill: 'inner-skill', status: 'retried_success' },
        { step: 'outer', skill: 'outer-flow', status: 'success' },
        { step: 'bogus', skill: 'x', status: 'exploded' },
      ],
    });
    const at = '2025-03-04T10:00:00.000Z';
    const rebuilt = ChatTranscript.fromSession(
      sessionFromRecords('s1', [
        { type: 'session', v: 1, id: 's1', created: at, model: 'm', systemPrompt: 'sys' },
        { type: 'message', id: 'm1', role: 'user', content: 'go', at },
        { type: 'message', id: 'm2', role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'skill_run', arguments: '{"name":"outer-flow"}' }], at },
        { type: 'message', id: 'm3', role: 'tool', toolCallId: 'c1', content: result, at },
      ]),
    );
    const item = rebuilt.items.find((i): i is Tool => i.kind === 'tool');
    assert.ok(item);
    assert.equal(item.traceId, TRACE_ID);
    assert.deepEqual(item.steps, [
      { id: 'outer', skill: 'outer-flow', state: 'success' },
      { id: 'outer/inner', parent: 'outer', skill: 'inner-skill', state: 'retried_success' },
    ]);
  });

  it('does not claim success for steps still running when the call ends without word on them', () => {
    const { transcript, call, tool } = session();
    transcript.stepProgress({ id: 'slow', skill: 'slow', state: 'running' }, 'call_7');
    transcript.onEvent({ type: 'tool_end', call, ok: false, result: '{"success":false,"error":"stopped by the user"}', summary: '', durationMs: 5 });
    assert.deepEqual(tool().steps, [{ id: 'slow', skill: 'slow', state: 'failed', error: 'the run ended before this step reported back' }]);
    assert.equal(tool().traceId, undefined);
  });

  it('finds the running skill_run card when progress comes without a call id, and ignores progress for no card', () => {
    const { transcript, tool } = session();
    transcript.stepProgress({ id: 'a', skill: 'a', state: 'running' }, undefined);
    assert.deepEqual(tool().steps?.map((s) => s.id), ['a']);
    const other = new ChatTranscript();
    other.stepProgress({ id: 'a', skill: 'a', state: 'running' }, 'nope');
    assert.deepEqual(other.items, []);
  });

  it('shows at most MAX_CARD_STEPS cards and counts the rest once each', () => {
    const { transcript, tool } = session();
    for (let i = 0; i < MAX_CARD_STEPS + 3; i++) {
      transcript.stepProgress({ id: `s${i}`, skill: 'x', state: 'running' }, 'call_7');
      transcript.stepProgress({ id: `s${i}`, skill: 'x', state: 'success' }, 'call_7');
    }
    assert.equal(tool().steps?.length, MAX_CARD_STEPS);
    assert.equal(tool().moreSteps, 3);
  });

  it('reads a trace id from a result cut short for the model, and nothing from a non-JSON one', () => {
    assert.deepEqual(readRunResult(`{"success":true,"output":"${'x'.repeat(50)}","trace_id":"${TRACE_ID}","steps":[{"st… [result cut at 100000 characters]`), { traceId: TRACE_ID });
    assert.deepEqual(readRunResult('not json'), {});
    assert.deepEqual(readRunResult('[1,2]'), {});
  });

  it('orders steps parents first, and shows steps whose parents loop once', () => {
    const ordered = nestedOrder([
      { id: 'a/b', parent: 'a', skill: 'b', state: 'success' },
      { id: 'a', skill: 'a', state: 'success' },
      { id: 'x', parent: 'y', skill: 'x', state: 'success' },
      { id: 'y', parent: 'x', skill: 'y', state: 'success' },
    ]);
    assert.deepEqual(ordered.map((s) => s.id), ['a', 'a/b', 'x', 'y']);
  });
});
