import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TuningState } from '../../../src/core/execution/adaptation';
import { EMPTY_TUNING_STATE, applyProposals, effectiveValues } from '../../../src/core/execution/adaptation';
import type { RunSummary } from '../../../src/core/execution/adaptationHeuristic';
import { heuristicProposals, parseScriptProposals, scriptInput } from '../../../src/core/execution/adaptationHeuristic';
import type { AdaptationSpec } from '../../../src/core/execution/adaptationSpec';
import { parseAdaptation } from '../../../src/core/execution/adaptationSpec';
import { mulberry32, pick } from '../seededRandom';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);

function specOf(adaptation: Record<string, unknown>): AdaptationSpec {
  const names = Object.keys(adaptation['tunable_params'] as object);
  const result = parseAdaptation({ adaptation, input_schema: { type: 'object', properties: Object.fromEntries(names.map((n) => [n, {}])) } });
  assert.ok(result?.ok, JSON.stringify(result));
  return result.spec;
}

const SPEC = specOf({
  feedback_window_days: 7,
  min_signals: 3,
  tunable_params: {
    batch_size: { type: 'integer', min: 10, max: 500, default: 100, step: 10 },
    temperature: { type: 'number', min: 0, max: 1, default: 0.3 },
    mode: { type: 'string', enum: ['fast', 'thorough'], default: 'fast' },
  },
});
const CURRENT = { batch_size: 100, temperature: 0.3, mode: 'fast' };

/** `count` runs an hour apart ending `daysAgo` days before NOW. */
function runs(count: number, params: Record<string, unknown>, outcome: { ok: number; latencyMs: number; daysAgo?: number; rating?: 1 | -1 }): RunSummary[] {
  return Array.from({ length: count }, (_, i) => ({
    at: NOW - (outcome.daysAgo ?? 0) * DAY - i * 3_600_000,
    success: i < outcome.ok,
    latencyMs: outcome.latencyMs + i * 10,
    params: { ...CURRENT, ...params },
    ...(outcome.rating !== undefined ? { rating: outcome.rating } : {}),
  }));
}

describe('heuristicProposals', () => {
  it('proposes the side that succeeds more often, judged only on runs inside the window', () => {
    const summaries = [
      ...runs(10, {}, { ok: 6, latencyMs: 2_000 }),
      ...runs(8, { batch_size: 200 }, { ok: 8, latencyMs: 1_500, daysAgo: 1 }),
      ...runs(8, { batch_size: 60 }, { ok: 3, latencyMs: 900, daysAgo: 2 }),
      // Older than the window: a perfect record at 400 must not count.
      ...runs(20, { batch_size: 400 }, { ok: 20, latencyMs: 100, daysAgo: 9 }),
    ];
    const proposals = heuristicProposals(SPEC, summaries, CURRENT, NOW);
    assert.deepEqual(proposals.map((p) => [p.param, p.value]), [['batch_size', 200]]);
    assert.equal(
      proposals[0]?.reason,
      'batch_size: runs at 200 did better (8/8 good, median 1.5 s) than at 100 (6/10 good, median 2.0 s), over 26 runs in the last 7 days',
    );
  });

  it('breaks a tie in success rate by the median latency, and handles enums by value', () => {
    const summaries = [
      ...runs(6, {}, { ok: 6, latencyMs: 3_000 }),
      ...runs(6, { temperature: 0.1, mode: 'thorough' }, { ok: 6, latencyMs: 800 }),
    ];
    const proposals = heuristicProposals(SPEC, summaries, CURRENT, NOW);
    assert.deepEqual(proposals.map((p) => [p.param, p.value]), [['temperature', 0.1], ['mode', 'thorough']]);
    assert.match(proposals[1]?.reason ?? '', /runs with "thorough" did better \(6\/6 good, median 825 ms\) than with "fast" \(6\/6 good, median 3\.0 s\)/);
  });

  it('lets a person’s rating outweigh success', () => {
    const summaries = [...runs(5, {}, { ok: 5, latencyMs: 500, rating: -1 }), ...runs(5, { mode: 'thorough' }, { ok: 2, latencyMs: 900, rating: 1 })];
    assert.deepEqual(heuristicProposals(SPEC, summaries, CURRENT, NOW).map((p) => [p.param, p.value]), [['mode', 'thorough']]);
  });

  it('proposes nothing from too few runs, from a single value, or when the current value is best', () => {
    assert.deepEqual(heuristicProposals(SPEC, runs(2, { batch_size: 200 }, { ok: 2, latencyMs: 10 }).concat(runs(0, {}, { ok: 0, latencyMs: 0 })), CURRENT, NOW), []);
    assert.deepEqual(heuristicProposals(SPEC, runs(30, {}, { ok: 3, latencyMs: 9_000 }), CURRENT, NOW), [], 'no variation, nothing to compare');
    const currentBest = [...runs(10, {}, { ok: 10, latencyMs: 100 }), ...runs(10, { batch_size: 300, mode: 'thorough' }, { ok: 4, latencyMs: 100 })];
    assert.deepEqual(heuristicProposals(SPEC, currentBest, CURRENT, NOW), []);
  });

  it('ignores malformed runs, runs from the future and values outside the bounds', () => {
    const hostile = [
      ...runs(10, {}, { ok: 5, latencyMs: 1_000 }),
      ...runs(10, { batch_size: 9_999 }, { ok: 10, latencyMs: 1 }),
      ...runs(10, { batch_size: 300 }, { ok: 10, latencyMs: 1 }).map((run) => ({ ...run, at: NOW + DAY })),
      { at: NOW, success: 'yes', latencyMs: 1, params: { batch_size: 200 } },
      { at: NOW, success: true, latencyMs: Number.NaN, params: { batch_size: 200 } },
      null,
    ] as RunSummary[];
    assert.deepEqual(heuristicProposals(SPEC, hostile, CURRENT, NOW), []);
  });

  it('driven by a simulated world, tunes towards the value that works and stays within the rules', () => {
    // Batches near 200 succeed most; a fifth of runs pass an explicit batch size, which is the variation the heuristic learns from.
    const random = mulberry32(7);
    let state: TuningState = EMPTY_TUNING_STATE;
    const history: RunSummary[] = [];
    const seen: number[] = [];
    for (let i = 0; i < 400; i += 1) {
      const now = NOW + i * 600_000;
      const tuned = effectiveValues(SPEC, state);
      const used = random() < 0.2 ? pick(random, [50, 100, 150, 200, 250, 300, 400]) : (tuned['batch_size'] as number);
      const successChance = 0.95 - Math.abs(used - 200) / 250;
      history.push({ at: now, success: random() < successChance, latencyMs: 200 + used * 3, params: { ...tuned, batch_size: used } });
      const result = applyProposals(SPEC, state, heuristicProposals(SPEC, history, tuned, now), now, 'heuristic');
      state = result.state;
      seen.push(effectiveValues(SPEC, state)['batch_size'] as number);
    }
    const final = seen.at(-1) ?? 0;
    assert.ok(final >= 160 && final <= 240, `batch_size ended at ${final}, not near 200 (path ${seen.filter((_, i) => i % 20 === 0).join(' ')})`);
    for (const change of state.changes.filter((c) => c.param === 'batch_size')) {
      assert.ok(Math.abs((change.to as number) - (change.from as number)) <= 20, `${String(change.from)} → ${String(change.to)}`);
    }
  });
});

describe('the script strategy', () => {
  let dir = '';
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-adaptation-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sends the window, the params and their current values, and reads the proposals a real script prints', () => {
    const script = path.join(dir, 'tune.js');
    fs.writeFileSync(
      script,
      `let text = '';
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  const batch = input.params.find((p) => p.name === 'batch_size');
  const failures = input.runs.filter((r) => !r.success).length;
  const proposals = failures > input.runs.length / 2 ? [{ param: 'batch_size', value: batch.current / 2, reason: failures + ' of ' + input.runs.length + ' runs failed' }] : [];
  process.stdout.write(JSON.stringify({ proposals }));
});
`,
    );
    const summaries = [...runs(4, {}, { ok: 1, latencyMs: 100 }), ...runs(3, {}, { ok: 3, latencyMs: 100, daysAgo: 30 })];
    const input = scriptInput(SPEC, summaries, { ...CURRENT, batch_size: 9_000 }, NOW);
    assert.equal((input['runs'] as unknown[]).length, 4, 'only the window is sent');
    assert.deepEqual((input['params'] as { current: unknown }[]).map((p) => p.current), [500, 0.3, 'fast'], 'current values are made legal first');
    const ran = spawnSync(process.execPath, [script], { input: JSON.stringify(input), encoding: 'utf8', timeout: 10_000 });
    assert.equal(ran.status, 0, ran.stderr);
    const parsed = parseScriptProposals(ran.stdout);
    assert.deepEqual(parsed, { ok: true, proposals: [{ param: 'batch_size', value: 250, reason: '3 of 4 runs failed' }] });
    const applied = applyProposals(SPEC, { values: { batch_size: 500 }, changes: [], pending: { batch_size: { direction: -1, count: 2 } } }, parsed.ok ? parsed.proposals : [], NOW, 'script');
    assert.deepEqual(applied.accepted.map((c) => [c.from, c.to, c.source]), [[500, 480, 'script']]);
  });

  it('says what is wrong with a script’s output', () => {
    const error = (stdout: unknown): string => {
      const result = parseScriptProposals(stdout);
      if (result.ok) assert.fail(`expected an error for ${JSON.stringify(stdout)}`);
      return result.error;
    };
    assert.match(error(''), /printed nothing; it must print JSON like \{"proposals"/);
    assert.match(error('batch_size=200'), /not JSON/);
    assert.match(error('{"changes": []}'), /no `proposals` list/);
    assert.match(error('[{"param": "batch_size", "value": 200}]'), /Proposal 1 .*\(batch_size\) has no `reason`/);
    assert.match(error({ proposals: [{ value: 3, reason: 'x' }] }), /has no `param`/);
    assert.match(error({ proposals: [7] }), /is not an object/);
    assert.deepEqual(parseScriptProposals('  {"proposals": []}\n'), { ok: true, proposals: [] });
  });
});
