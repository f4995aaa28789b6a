import * as assert from 'node:assert/strict';
import type { Proposal, TuningState } from '../../../src/core/execution/adaptation';
import { EMPTY_TUNING_STATE, applyProposals, effectiveValues, revertChange } from '../../../src/core/execution/adaptation';
import type { AdaptationSpec } from '../../../src/core/execution/adaptationSpec';
import { parseAdaptation } from '../../../src/core/execution/adaptationSpec';
import type { Random } from '../seededRandom';
import { mulberry32, pick, randomInt } from '../seededRandom';

function specFrom(adaptation: Record<string, unknown>): AdaptationSpec {
  const names = Object.keys(adaptation['tunable_params'] as object);
  const properties = Object.fromEntries(names.map((name) => [name, {}]));
  const result = parseAdaptation({ adaptation, input_schema: { type: 'object', properties } });
  assert.ok(result?.ok, `spec should parse: ${JSON.stringify(result)}`);
  return result.spec;
}

const SPEC = specFrom({
  min_signals: 3,
  tunable_params: {
    batch_size: { type: 'integer', min: 10, max: 500, default: 100, step: 10 },
    temperature: { type: 'number', min: 0, max: 1, default: 0.3 },
    offset: { type: 'integer', min: -50, max: 50, default: 0 },
    mode: { type: 'string', enum: ['fast', 'thorough', 'exhaustive'], default: 'fast' },
    verbose: { type: 'boolean', default: false },
  },
});

/** Feeds the same proposal in `times` separate rounds, as separate feedback events would. */
function feed(state: TuningState, proposal: Proposal, times: number, spec = SPEC): { state: TuningState; accepted: number } {
  let accepted = 0;
  for (let i = 0; i < times; i += 1) {
    const result = applyProposals(spec, state, [proposal], 1_000 + i, 'heuristic');
    accepted += result.accepted.length;
    state = result.state;
  }
  return { state, accepted };
}

const up = (param: string, value: unknown): Proposal => ({ param, value, reason: `try ${String(value)}` });

describe('applyProposals: the rules', () => {
  it('caps one change at 20 % of the default, and records the reason and the cap', () => {
    let state = EMPTY_TUNING_STATE;
    const first = applyProposals(SPEC, state, [up('batch_size', 500)], 1, 'heuristic');
    assert.equal(first.accepted.length, 0);
    assert.deepEqual(first.waiting.map((w) => [w.count, w.needed]), [[1, 3]]);
    state = feed(first.state, up('batch_size', 500), 2).state;
    assert.equal(effectiveValues(SPEC, state)['batch_size'], 120);
    const [change] = state.changes;
    assert.deepEqual({ ...change, reason: undefined }, { id: 'c1', param: 'batch_size', from: 100, to: 120, reason: undefined, at: 1_001, source: 'heuristic' });
    assert.match(change?.reason ?? '', /^try 500 \(moved at most 20 % of the default towards 500\)$/);
    state = feed(state, up('batch_size', 500), 3).state;
    assert.equal(effectiveValues(SPEC, state)['batch_size'], 140, 'the cap is 20 % of the default, not of the current value');
    state = feed(state, up('temperature', 1), 3).state;
    assert.equal(effectiveValues(SPEC, state)['temperature'], 0.36);
    state = feed(state, up('offset', -50), 3).state;
    assert.equal(effectiveValues(SPEC, state)['offset'], -20, 'a default of 0 caps at 20 % of the range');
  });

  it('snaps integers onto the step grid and treats a target within half a step as no change', () => {
    let state = feed(EMPTY_TUNING_STATE, up('batch_size', 113), 3).state;
    assert.equal(effectiveValues(SPEC, state)['batch_size'], 110);
    const stay = applyProposals(SPEC, state, [up('batch_size', 114)], 5, 'heuristic');
    assert.equal(stay.accepted.length, 0);
    assert.match(stay.refused[0]?.reason ?? '', /already 110/);
    state = feed(state, up('batch_size', 500), 3).state;
    assert.equal(effectiveValues(SPEC, state)['batch_size'], 130, 'two whole steps of 10, the 20 % cap');
  });

  it('changes only after min_signals consecutive signals, and starts counting again after a change', () => {
    let state = EMPTY_TUNING_STATE;
    const counts: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const result = applyProposals(SPEC, state, [up('batch_size', 300)], i, 'heuristic');
      counts.push(result.accepted.length > 0 ? 0 : (result.waiting[0]?.count ?? -1));
      state = result.state;
    }
    assert.deepEqual(counts, [1, 2, 0, 1, 2, 0, 1]);
    assert.deepEqual(state.pending['batch_size'], { direction: 1, count: 1 });
  });

  it('resets the count when the direction changes, and for enums when the proposed value changes', () => {
    let state = feed(EMPTY_TUNING_STATE, up('temperature', 0.9), 2).state;
    state = feed(state, up('temperature', 0.1), 1).state;
    assert.deepEqual(state.pending['temperature'], { direction: -1, count: 1 });
    const back = feed(state, up('temperature', 0.9), 2);
    assert.equal(back.accepted, 0, 'two up after a down are not yet three');
    state = feed(back.state, up('mode', 'thorough'), 2).state;
    state = feed(state, up('mode', 'exhaustive'), 2).state;
    assert.equal(effectiveValues(SPEC, state)['mode'], 'fast', 'a different value of the same direction starts again');
    state = feed(state, up('mode', 'exhaustive'), 1).state;
    assert.equal(effectiveValues(SPEC, state)['mode'], 'exhaustive', 'an enum jumps to the value once it has enough signals');
    state = feed(state, up('verbose', true), 3).state;
    assert.equal(effectiveValues(SPEC, state)['verbose'], true);
  });

  it('refuses forged proposals with a reason and never counts them', () => {
    const forged: unknown[] = [
      up('batch_size', '200'),
      up('batch_size', Number.NaN),
      up('batch_size', Number.POSITIVE_INFINITY),
      up('batch_size', 10_000),
      up('batch_size', 5),
      up('batch_size', 150.5),
      up('batch_size', true),
      up('mode', 'slow'),
      up('verbose', 'true'),
      up('nonexistent', 3),
      null,
      'batch_size=200',
      { param: 7, value: 200 },
    ];
    let state = EMPTY_TUNING_STATE;
    const reasons: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      // A valid signal each round, surrounded by forgeries that must neither count nor reset it.
      const result = applyProposals(SPEC, state, [...forged.slice(0, 6), up('batch_size', 200), ...forged.slice(6)] as Proposal[], round, 'script');
      reasons.push(...result.refused.map((r) => r.reason));
      state = result.state;
    }
    assert.equal(effectiveValues(SPEC, state)['batch_size'], 120, 'the three valid signals moved it once');
    assert.equal(state.changes.length, 1);
    assert.deepEqual(reasons.slice(0, forged.length), [
      '"batch_size" takes a finite number, not "200"',
      '"batch_size" takes a finite number, not NaN',
      '"batch_size" takes a finite number, not Infinity',
      '10000 is outside the bounds of "batch_size" [10, 500]',
      '5 is outside the bounds of "batch_size" [10, 500]',
      '"batch_size" takes a whole number, not 150.5',
      '"batch_size" takes a finite number, not true',
      '"mode" takes one of fast, thorough, exhaustive, not "slow"',
      '"verbose" takes true or false, not "true"',
      '"nonexistent" is not a tunable parameter (tunable: batch_size, temperature, offset, mode, verbose)',
      'not a proposal: it needs `param` (a tunable parameter), `value` and `reason`',
      'not a proposal: it needs `param` (a tunable parameter), `value` and `reason`',
      'not a proposal: it needs `param` (a tunable parameter), `value` and `reason`',
    ]);
  });

  it('counts one proposal per param per round, so a script cannot repeat itself past the wait', () => {
    const result = applyProposals(SPEC, EMPTY_TUNING_STATE, [up('batch_size', 300), up('batch_size', 300), up('batch_size', 300)], 1, 'script');
    assert.equal(result.accepted.length, 0);
    assert.equal(result.waiting.length, 1);
    assert.deepEqual(result.refused.map((r) => r.reason), ['only the first proposal for "batch_size" in a round counts', 'only the first proposal for "batch_size" in a round counts']);
  });

  it('does not change the state it was given', () => {
    const state = feed(EMPTY_TUNING_STATE, up('batch_size', 300), 2).state;
    const before = JSON.stringify(state);
    applyProposals(SPEC, state, [up('batch_size', 300), up('mode', 'thorough')], 9, 'heuristic');
    assert.equal(JSON.stringify(state), before);
  });
});

describe('revertChange and effectiveValues', () => {
  it('reverts a change, and the later changes of the same param that built on it', () => {
    let state = feed(EMPTY_TUNING_STATE, up('batch_size', 500), 6).state;
    state = feed(state, up('verbose', true), 3).state;
    state = feed(state, up('batch_size', 500), 2).state;
    assert.deepEqual(state.changes.map((c) => `${c.id}:${String(c.from)}->${String(c.to)}`), ['c1:100->120', 'c2:120->140', 'c3:false->true']);
    const reverted = revertChange(state, 'c1', 5_000);
    assert.ok(reverted.ok);
    assert.deepEqual(effectiveValues(SPEC, reverted.state), { batch_size: 100, temperature: 0.3, offset: 0, mode: 'fast', verbose: true });
    assert.deepEqual(reverted.state.changes.map((c) => c.revertedAt), [5_000, 5_000, undefined]);
    assert.equal(reverted.state.pending['batch_size'], undefined, 'signals towards the reverted value start again');
    const again = revertChange(reverted.state, 'c2', 6_000);
    assert.deepEqual(again, { ok: false, error: 'Change c2 (batch_size: 120 → 140) was already reverted.' });
    assert.deepEqual(revertChange(reverted.state, 'c9', 6_000), { ok: false, error: 'There is no tuning change "c9"; the active ones are c3.' });
    const next = feed(reverted.state, up('batch_size', 500), 3).state;
    assert.equal(next.changes.at(-1)?.id, 'c4', 'ids are never reused');
  });

  it('overlays tuned values on the defaults, made legal for the spec as it is now', () => {
    const state: TuningState = { values: { batch_size: 9_000, temperature: 'hot', mode: 'thorough', gone: 3 }, changes: [], pending: {} };
    assert.deepEqual(effectiveValues(SPEC, state), { batch_size: 500, temperature: 0.3, offset: 0, mode: 'thorough', verbose: false });
  });
});

// ---- Adversarial feedback ------------------------------------------------------------------------

const int = randomInt;

/** A random spec the parser accepts: bounds, defaults and steps of many magnitudes and signs. */
function randomSpec(random: Random): AdaptationSpec {
  for (;;) {
    const min = pick(random, [0, -1, 10, -1_000, int(random, -500, 500)]);
    const max = min + pick(random, [1, 5, 100, 490, int(random, 1, 5_000)]);
    const whole = int(random, min, max);
    const step = pick(random, [undefined, 1, 2, 5, 10, int(random, 1, 40)]);
    const real = { min: min / 7, max: max / 7, default: whole / 7, ...(random() < 0.5 ? { step: 0.05 } : {}) };
    const result = parseAdaptation({
      adaptation: {
        min_signals: int(random, 1, 5),
        tunable_params: {
          n: { type: 'integer', min, max, default: whole, ...(step !== undefined ? { step } : {}) },
          x: { type: 'number', ...real },
          mode: { type: 'string', enum: ['a', 'b', 'c'], default: pick(random, ['a', 'b', 'c']) },
          flag: { type: 'boolean', default: random() < 0.5 },
        },
      },
      input_schema: { type: 'object', properties: { n: {}, x: {}, mode: {}, flag: {} } },
    });
    if (result?.ok) return result.spec;
  }
}

const FORGED_VALUES: readonly unknown[] = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '42', null, undefined, {}, [], true, 'a', 1e300, -1e300, 0.5];

/** The test's own idea of a legal proposal, written apart from the code under test. */
function legal(spec: AdaptationSpec, proposal: unknown): boolean {
  if (typeof proposal !== 'object' || proposal === null) return false;
  const { param: name, value } = proposal as { param?: unknown; value?: unknown };
  const param = spec.params.find((p) => p.name === name);
  if (!param) return false;
  if (param.type === 'boolean') return typeof value === 'boolean';
  if (param.type === 'string') return typeof value === 'string' && param.enum.includes(value);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < param.min || value > param.max) return false;
  return param.type === 'number' || Number.isInteger(value);
}

function randomProposal(random: Random, spec: AdaptationSpec, current: Record<string, unknown>, round: number): unknown {
  const param = pick(random, spec.params);
  const kind = random();
  if (kind < 0.1) return pick(random, [null, 'n=3', 42, { param: 'n' }, { param: 'ghost', value: 1, reason: 'x' }, { value: 3 }]);
  if (kind < 0.3) return { param: param.name, value: pick(random, FORGED_VALUES), reason: 'forged' };
  if (param.type === 'boolean') return { param: param.name, value: round % 2 === 0, reason: 'alternate' };
  if (param.type === 'string') return { param: param.name, value: kind < 0.6 ? pick(random, param.enum) : param.enum[round % 3], reason: 'enum' };
  const here = current[param.name] as number;
  const span = param.max - param.min;
  if (kind < 0.45) return { param: param.name, value: round % 2 === 0 ? param.max : param.min, reason: 'extreme, alternating' };
  if (kind < 0.6) return { param: param.name, value: pick(random, [param.max + 1, param.min - 1, param.max + span, param.min - span * 1e6]), reason: 'out of bounds' };
  const raw = here + (random() - 0.5) * span * 0.3;
  const value = Math.min(param.max, Math.max(param.min, param.type === 'integer' ? Math.round(raw) : raw));
  return { param: param.name, value: kind < 0.8 ? value : param.max, reason: 'drift' };
}

function checkValues(spec: AdaptationSpec, state: TuningState): void {
  for (const [source, values] of [['effective', effectiveValues(spec, state)], ['stored', state.values]] as const) {
    for (const param of spec.params) {
      const value = values[param.name];
      if (value === undefined && source === 'stored') continue;
      if (param.type === 'boolean') assert.equal(typeof value, 'boolean', `${source} ${param.name}`);
      else if (param.type === 'string') assert.ok(param.enum.includes(value as string), `${source} ${param.name}=${String(value)}`);
      else {
        assert.equal(typeof value, 'number', `${source} ${param.name}`);
        const n = value as number;
        assert.ok(n >= param.min && n <= param.max, `${source} ${param.name}=${n} outside [${param.min}, ${param.max}]`);
        if (param.type === 'integer') assert.ok(Number.isInteger(n), `${source} ${param.name}=${n} is not whole`);
      }
    }
  }
}

function runSequence(seed: number): { accepted: number; refused: number } {
  const random = mulberry32(seed);
  const spec = randomSpec(random);
  let state: TuningState = EMPTY_TUNING_STATE;
  const rounds = int(random, 20, 80);
  let totalSignals = 0;
  let totalAccepted = 0;
  let totalRefused = 0;
  const sinceChange = new Map<string, number>();
  /** Per param, the direction (or enum value) of each legal signal, newest last. */
  const directions = new Map<string, string[]>();
  for (let round = 0; round < rounds; round += 1) {
    if (random() < 0.05 && state.changes.length > 0) {
      const reverted = revertChange(state, pick(random, state.changes).id, round);
      if (reverted.ok) state = reverted.state;
      checkValues(spec, state);
      continue;
    }
    const current = effectiveValues(spec, state);
    const proposals = Array.from({ length: int(random, 1, 6) }, () => randomProposal(random, spec, current, round));
    const counted = new Set<string>();
    for (const proposal of proposals) {
      if (!legal(spec, proposal)) continue;
      const name = (proposal as Proposal).param;
      if (counted.has(name)) continue;
      counted.add(name);
      totalSignals += 1;
      sinceChange.set(name, (sinceChange.get(name) ?? 0) + 1);
      const value = (proposal as Proposal).value;
      const key = typeof value === 'number' ? String(Math.sign(value - (current[name] as number))) : JSON.stringify(value);
      directions.set(name, [...(directions.get(name) ?? []), key]);
    }
    const result = applyProposals(spec, state, proposals as Proposal[], round, random() < 0.5 ? 'script' : 'heuristic');
    for (const change of result.accepted) {
      const param = spec.params.find((p) => p.name === change.param);
      assert.ok(param, `accepted a change of unknown ${change.param}`);
      const proposal = proposals.find((p) => legal(spec, p) && (p as Proposal).param === change.param) as Proposal | undefined;
      assert.ok(proposal, `accepted ${change.param} without a legal proposal`);
      assert.ok((sinceChange.get(change.param) ?? 0) >= spec.minSignals, `${change.param} changed after fewer than ${spec.minSignals} signals`);
      sinceChange.set(change.param, 0);
      const recent = (directions.get(change.param) ?? []).slice(-spec.minSignals);
      assert.ok(recent.length === spec.minSignals && recent.every((key) => key === recent.at(-1)), `${change.param} changed after mixed signals ${recent.join(' ')}`);
      if (param.type === 'integer' || param.type === 'number') {
        const from = change.from as number;
        const to = change.to as number;
        const cap = 0.2 * (param.default !== 0 ? Math.abs(param.default) : param.max - param.min);
        assert.ok(Math.abs(to - from) <= cap * (1 + 1e-9) + 1e-12, `${param.name} moved ${from} → ${to}, more than ${cap}`);
        assert.equal(Math.sign(to - from), Math.sign((proposal.value as number) - from), `${param.name} moved away from the proposal`);
      } else {
        assert.equal(change.to, proposal.value);
      }
    }
    totalAccepted += result.accepted.length;
    totalRefused += result.refused.length;
    assert.ok(totalAccepted <= Math.floor(totalSignals / spec.minSignals), `${totalAccepted} changes from ${totalSignals} signals (min ${spec.minSignals})`);
    assert.equal(result.accepted.length + result.waiting.length + result.refused.length, proposals.length, 'every proposal is answered');
    state = result.state;
    // What the store would write and read back must behave the same.
    if (random() < 0.2) state = JSON.parse(JSON.stringify(state)) as TuningState;
    checkValues(spec, state);
  }
  return { accepted: totalAccepted, refused: totalRefused };
}

describe('applyProposals under adversarial feedback', () => {
  it('1,000 random sequences never leave the bounds, exceed the cap or change faster than min_signals allow', function () {
    this.timeout(60_000);
    const base = Number(process.env['ADAPTATION_SEED'] ?? 0x5eed);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 1_000; i += 1) {
      const seed = base + i;
      try {
        const counts = runSequence(seed);
        accepted += counts.accepted;
        refused += counts.refused;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        assert.fail(`sequence with seed ${seed} failed (rerun with ADAPTATION_SEED=${seed}): ${message}`);
      }
    }
    // The bounds hold trivially if nothing ever changes: the feedback must also move values a lot.
    assert.ok(accepted > 5_000, `only ${accepted} changes were accepted in all sequences`);
    assert.ok(refused > 20_000, `only ${refused} proposals were refused in all sequences`);
  });
});
