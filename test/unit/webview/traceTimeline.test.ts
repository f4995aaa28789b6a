import * as assert from 'node:assert/strict';
import type { TraceModel, TraceStepModel } from '../../../src/shared/traceProtocol';
import { axisTicks, barOf, countsText, layoutTimeline, MIN_BAR_PCT, orderSteps } from '../../../src/webview/trace/traceTimeline';

function step(id: string, offsetMs: number, durationMs: number, extra: Partial<TraceStepModel> = {}): TraceStepModel {
  const parent = id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : undefined;
  return {
    id,
    ...(parent !== undefined ? { parent } : {}),
    skill: `${id.split('/').at(-1) ?? id}-skill`,
    kind: 'script',
    status: 'success',
    attempts: [{ offsetMs, durationMs }],
    offsetMs,
    durationMs,
    outputBytes: 10,
    ...extra,
  };
}

function trace(steps: TraceStepModel[], durationMs = 1000): TraceModel {
  return { traceId: 't-1', skill: 'release', kind: 'workflow', success: false, started: '2025-03-04T10:00:00.000Z', durationMs, outputBytes: 0, steps, calledSkills: [], origin: 'chat' };
}

describe('trace timeline layout', () => {
  // As the executor writes it: a nested workflow's steps come before the step that ran them.
  const nested = trace([
    step('fetch', 0, 200),
    step('build/compile', 250, 300),
    step('build/test', 560, 100, {
      status: 'retried_success',
      attempts: [
        { offsetMs: 560, durationMs: 40, error: 'timed out after 40 ms', kind: 'timeout' },
        { offsetMs: 610, durationMs: 50 },
      ],
    }),
    step('build', 240, 500, { kind: 'workflow', status: 'failed', error: 'step "deploy" failed: exit code 2' }),
    step('notify', 750, 0, { status: 'skipped', attempts: [], reason: 'it uses step "build", which failed', outputBytes: 0 }),
  ]);

  it('places each step on the run\'s time axis: offset as left, duration as width, in percent', () => {
    const layout = layoutTimeline(nested);
    assert.equal(layout.totalMs, 1000);
    const bars = Object.fromEntries(layout.rows.map((row) => [row.id, [row.leftPct, row.widthPct]]));
    assert.deepEqual(bars, {
      fetch: [0, 20],
      build: [24, 50],
      'build/compile': [25, 30],
      'build/test': [56, 10],
      notify: [75, MIN_BAR_PCT],
    });
  });

  it('puts nested steps under the step that ran them, one level deeper, and labels them by their own id', () => {
    const layout = layoutTimeline(nested);
    assert.deepEqual(
      layout.rows.map((row) => [row.id, row.depth, row.label]),
      [
        ['fetch', 0, 'fetch'],
        ['build', 0, 'build'],
        ['build/compile', 1, 'compile'],
        ['build/test', 1, 'test'],
        ['notify', 0, 'notify'],
      ],
    );
    assert.match(layout.rows[3]?.ariaLabel ?? '', /^Step test, skill test-skill, inside build: Succeeded after retrying, started at 560 ms, took 100 ms, 2 attempts$/);
  });

  it('says each status in words and a glyph, and counts them', () => {
    const layout = layoutTimeline(nested);
    assert.deepEqual(
      layout.rows.map((row) => [row.status, row.statusLabel, row.glyph]),
      [
        ['success', 'Succeeded', '✓'],
        ['failed', 'Failed', '✕'],
        ['success', 'Succeeded', '✓'],
        ['retried_success', 'Succeeded after retrying', '↻'],
        ['skipped', 'Skipped', '⤼'],
      ],
    );
    assert.equal(countsText(layout.counts), '2 succeeded, 1 succeeded after retrying, 1 failed, 1 skipped');
    assert.equal(countsText([]), 'no steps');
  });

  it('lays out attempts on the same axis and explains the failed ones; errors and reasons are in the details', () => {
    const rows = layoutTimeline(nested).rows;
    const test = rows.find((row) => row.id === 'build/test');
    assert.deepEqual(test?.attempts.map((a) => [a.leftPct, a.widthPct, a.text]), [
      [56, 4, 'Attempt 1: 40 ms, failed (timeout): timed out after 40 ms'],
      [61, 5, 'Attempt 2: 50 ms, succeeded'],
    ]);
    assert.ok(rows.find((row) => row.id === 'build')?.details.includes('Error: step "deploy" failed: exit code 2'));
    assert.ok(rows.find((row) => row.id === 'notify')?.details.includes('Skipped because it uses step "build", which failed'));
    assert.deepEqual(rows.find((row) => row.id === 'notify')?.attempts, []);
  });

  it('stretches the axis to the last step when the run reports less time than its steps took', () => {
    const layout = layoutTimeline(trace([step('a', 0, 300), step('b', 300, 500)], 600));
    assert.equal(layout.totalMs, 800);
    assert.deepEqual(layout.rows.map((row) => [row.leftPct, row.widthPct]), [[0, 37.5], [37.5, 62.5]]);
  });

  it('keeps every bar visible and inside the axis', () => {
    assert.deepEqual(barOf(990, 50, 1000), { leftPct: 95, widthPct: 5 });
    assert.deepEqual(barOf(1000, 0, 1000), { leftPct: 100 - MIN_BAR_PCT, widthPct: MIN_BAR_PCT });
    assert.deepEqual(barOf(-5, 2000, 1000), { leftPct: 0, widthPct: 100 });
    assert.deepEqual(barOf(0, 0, 0), { leftPct: 0, widthPct: MIN_BAR_PCT });
  });

  it('marks the axis at round values, at most six, starting at zero', () => {
    assert.deepEqual(axisTicks(1000).map((t) => [t.ms, t.leftPct, t.label]), [
      [0, 0, '0 ms'],
      [200, 20, '200 ms'],
      [400, 40, '400 ms'],
      [600, 60, '600 ms'],
      [800, 80, '800 ms'],
      [1000, 100, '1.0 s'],
    ]);
    assert.deepEqual(axisTicks(7300).map((t) => t.label), ['0 ms', '2.0 s', '4.0 s', '6.0 s']);
    for (const total of [1, 7, 99, 1234, 65_000, 3_600_000]) {
      const ticks = axisTicks(total);
      assert.ok(ticks.length >= 2 && ticks.length <= 6, `${total}: ${ticks.length} ticks`);
      assert.ok(ticks.every((t) => t.leftPct >= 0 && t.leftPct <= 100), `${total}`);
    }
  });

  it('orders siblings by start time and shows steps whose parents loop once each, at the top', () => {
    const ordered = orderSteps([step('late', 500, 10), step('early', 100, 10), step('x', 0, 1, { parent: 'y' }), step('y', 0, 1, { parent: 'x' })]);
    assert.deepEqual(ordered.map((o) => [o.step.id, o.depth]), [['early', 0], ['late', 0], ['x', 0], ['y', 0]]);
  });

  it('lays out a level-0 run as one full-width bar', () => {
    const layout = layoutTimeline({ ...trace([step('main', 0, 420)], 420), kind: 'script', success: true });
    assert.deepEqual(layout.rows.map((row) => [row.id, row.depth, row.leftPct, row.widthPct]), [['main', 0, 0, 100]]);
  });
});
