import { isPlainObject } from '../skills/model/skillParser';
import type { AdaptationSpec, NumericParam, TunableParam } from './adaptationSpec';
import { gridPoint, gridStep, maxChange, normalizeValue, snapToGrid } from './adaptationSpec';

/**
 * The rules of level-2 tuning. Strategies only propose; nothing changes a value except
 * `applyProposals`, which keeps every value inside its bounds, moves a number by at most 20 % of its
 * default per change, and changes anything only after `minSignals` consecutive same-direction
 * signals, so hostile or noisy feedback can at worst walk a value slowly within its bounds.
 */

export interface Proposal {
  readonly param: string;
  readonly value: unknown;
  readonly reason: string;
}

export type TuningSource = 'heuristic' | 'script';

export interface TuningChange {
  readonly id: string;
  readonly param: string;
  readonly from: unknown;
  readonly to: unknown;
  readonly reason: string;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly source: TuningSource;
  readonly revertedAt?: number;
}

/** Consecutive same-direction signals seen for one param; enum and boolean signals also carry the value. */
export interface PendingSignals {
  readonly direction: 1 | -1;
  readonly count: number;
  readonly value?: string | boolean;
}

export interface TuningState {
  /** Tuned values by param name; params never tuned are absent (their default applies). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Oldest first. */
  readonly changes: readonly TuningChange[];
  readonly pending: Readonly<Record<string, PendingSignals>>;
}

export interface ApplyResult {
  readonly state: TuningState;
  readonly accepted: TuningChange[];
  /** Valid signals counted towards a change that needs more of them. */
  readonly waiting: { readonly proposal: Proposal; readonly count: number; readonly needed: number }[];
  readonly refused: { readonly proposal: Proposal; readonly reason: string }[];
}

export const EMPTY_TUNING_STATE: TuningState = { values: {}, changes: [], pending: {} };
/** Older changes are dropped from the history beyond this. */
export const MAX_CHANGES = 200;
const MAX_REASON_CHARS = 300;

/** Defaults overlaid with tuned values, each made legal for the spec as it is now. */
export function effectiveValues(spec: AdaptationSpec, state: TuningState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const values = isPlainObject(state.values) ? state.values : {};
  for (const param of spec.params) {
    const stored = Object.prototype.hasOwnProperty.call(values, param.name) ? values[param.name] : undefined;
    out[param.name] = normalizeValue(param, stored) ?? param.default;
  }
  return out;
}

/** Applies the rules to a round of proposals; never throws, never mutates its inputs. */
export function applyProposals(spec: AdaptationSpec, state: TuningState, proposals: readonly Proposal[], now: number, source: TuningSource): ApplyResult {
  const base = normalizeState(spec, state);
  const current = effectiveValues(spec, base);
  const values: Record<string, unknown> = { ...base.values };
  const pending: Record<string, PendingSignals> = { ...base.pending };
  const changes = [...base.changes];
  const result: ApplyResult = { state: base, accepted: [], waiting: [], refused: [] };
  const seen = new Set<string>();
  const at = Number.isFinite(now) ? now : 0;

  for (const raw of Array.isArray(proposals) ? (proposals as readonly unknown[]) : []) {
    const proposal = raw as Proposal;
    const refuse = (reason: string): void => void result.refused.push({ proposal, reason });
    if (!isPlainObject(raw) || typeof raw['param'] !== 'string') {
      refuse('not a proposal: it needs `param` (a tunable parameter), `value` and `reason`');
      continue;
    }
    const name = raw['param'];
    const param = spec.params.find((candidate) => candidate.name === name);
    if (!param) {
      refuse(`"${name}" is not a tunable parameter (tunable: ${spec.params.map((p) => p.name).join(', ')})`);
      continue;
    }
    const judged = judge(param, raw['value'], current[name]);
    if ('refusal' in judged) {
      refuse(judged.refusal);
      continue;
    }
    // One signal per param per round: a script repeating a proposal must not skip the wait.
    if (seen.has(name)) {
      refuse(`only the first proposal for "${name}" in a round counts`);
      continue;
    }
    seen.add(name);
    if (judged.direction === 0) {
      dropKey(pending, name);
      refuse(`"${name}" is already ${JSON.stringify(current[name])}; the count of signals starts again`);
      continue;
    }
    const previous = pending[name];
    const discrete = param.type === 'string' || param.type === 'boolean';
    const same = previous !== undefined && previous.direction === judged.direction && (!discrete || previous.value === judged.target);
    const count = same ? previous.count + 1 : 1;
    if (count < spec.minSignals) {
      pending[name] = { direction: judged.direction, count, ...(discrete ? { value: judged.target as string | boolean } : {}) };
      result.waiting.push({ proposal, count, needed: spec.minSignals });
      continue;
    }
    dropKey(pending, name);
    const next = discrete ? judged.target : moveNumber(param, current[name] as number, judged.target as number);
    if (next === current[name]) {
      // Only a spec built by hand (parseAdaptation refuses it) has a step wider than the 20 % cap.
      refuse(`"${name}" cannot move: one step is more than 20 % of its default`);
      continue;
    }
    const change: TuningChange = {
      id: `c${nextId(changes)}`,
      param: name,
      from: current[name],
      to: next,
      reason: describeReason(raw['reason'], next !== judged.target ? `moved at most 20 % of the default towards ${JSON.stringify(judged.target)}` : undefined),
      at,
      source,
    };
    values[name] = next;
    current[name] = next;
    changes.push(change);
    result.accepted.push(change);
  }
  return { ...result, state: { values, changes: changes.slice(-MAX_CHANGES), pending } };
}

export function revertChange(state: TuningState, changeId: string, now: number): { ok: true; state: TuningState } | { ok: false; error: string } {
  const index = state.changes.findIndex((change) => change.id === changeId);
  const change = state.changes[index];
  if (!change) {
    const known = state.changes.filter((c) => c.revertedAt === undefined).map((c) => c.id);
    return { ok: false, error: `There is no tuning change "${changeId}"${known.length > 0 ? `; the active ones are ${known.join(', ')}` : '; nothing has been tuned'}.` };
  }
  if (change.revertedAt !== undefined) {
    return { ok: false, error: `Change ${changeId} (${change.param}: ${JSON.stringify(change.from)} → ${JSON.stringify(change.to)}) was already reverted.` };
  }
  // Later changes of the same param started from this one's result, so they go back with it.
  const changes = state.changes.map((c, i) => (i >= index && c.param === change.param && c.revertedAt === undefined ? { ...c, revertedAt: now } : c));
  const pending = { ...state.pending };
  dropKey(pending, change.param);
  return { ok: true, state: { values: { ...state.values, [change.param]: change.from }, changes, pending } };
}

/**
 * Any stored or passed state made consistent with the spec: unknown params and wrongly typed values
 * dropped, values clamped into the current bounds, malformed history entries left out.
 */
export function normalizeState(spec: AdaptationSpec, raw: unknown): TuningState {
  const data = isPlainObject(raw) ? raw : {};
  const rawValues = isPlainObject(data['values']) ? data['values'] : {};
  const rawPending = isPlainObject(data['pending']) ? data['pending'] : {};
  const values: Record<string, unknown> = {};
  const pending: Record<string, PendingSignals> = {};
  for (const param of spec.params) {
    const value = Object.prototype.hasOwnProperty.call(rawValues, param.name) ? normalizeValue(param, rawValues[param.name]) : undefined;
    if (value !== undefined) values[param.name] = value;
    const signals = Object.prototype.hasOwnProperty.call(rawPending, param.name) ? rawPending[param.name] : undefined;
    const valid = normalizePending(param, signals);
    if (valid) pending[param.name] = valid;
  }
  const changes = (Array.isArray(data['changes']) ? (data['changes'] as unknown[]) : []).filter(isChange).slice(-MAX_CHANGES);
  return { values, changes, pending };
}

function normalizePending(param: TunableParam, raw: unknown): PendingSignals | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { direction, count, value } = raw;
  if ((direction !== 1 && direction !== -1) || typeof count !== 'number' || !Number.isInteger(count) || count < 1) return undefined;
  if (param.type === 'string' || param.type === 'boolean') {
    return normalizeValue(param, value) === undefined ? undefined : { direction, count, value: value as string | boolean };
  }
  return { direction, count };
}

function isChange(raw: unknown): raw is TuningChange {
  if (!isPlainObject(raw)) return false;
  const plain = (value: unknown): boolean => ['string', 'number', 'boolean'].includes(typeof value);
  return (
    typeof raw['id'] === 'string' &&
    typeof raw['param'] === 'string' &&
    plain(raw['from']) &&
    plain(raw['to']) &&
    typeof raw['reason'] === 'string' &&
    typeof raw['at'] === 'number' &&
    Number.isFinite(raw['at']) &&
    (raw['source'] === 'heuristic' || raw['source'] === 'script') &&
    (raw['revertedAt'] === undefined || (typeof raw['revertedAt'] === 'number' && Number.isFinite(raw['revertedAt'])))
  );
}

type Judgement = { readonly refusal: string } | { readonly target: number | string | boolean; readonly direction: -1 | 0 | 1 };

/** Whether a proposed value is a legal target, and which way it points from the current value. */
function judge(param: TunableParam, value: unknown, current: unknown): Judgement {
  const shown = describeValue(value);
  switch (param.type) {
    case 'boolean':
      if (typeof value !== 'boolean') return { refusal: `"${param.name}" takes true or false, not ${shown}` };
      return { target: value, direction: value === current ? 0 : value ? 1 : -1 };
    case 'string': {
      if (typeof value !== 'string' || !param.enum.includes(value)) return { refusal: `"${param.name}" takes one of ${param.enum.join(', ')}, not ${shown}` };
      const delta = param.enum.indexOf(value) - param.enum.indexOf(current as string);
      return { target: value, direction: Math.sign(delta) as -1 | 0 | 1 };
    }
    default: {
      if (typeof value !== 'number' || !Number.isFinite(value)) return { refusal: `"${param.name}" takes a finite number, not ${shown}` };
      if (param.type === 'integer' && !Number.isInteger(value)) return { refusal: `"${param.name}" takes a whole number, not ${shown}` };
      if (value < param.min || value > param.max) return { refusal: `${shown} is outside the bounds of "${param.name}" [${param.min}, ${param.max}]` };
      const step = gridStep(param);
      const target = step === undefined ? value : snapToGrid(param, value, step);
      return { target, direction: Math.sign(target - (current as number)) as -1 | 0 | 1 };
    }
  }
}

/** One capped move from `from` towards `target`: at most maxChange, on the step grid, inside the bounds. */
function moveNumber(param: NumericParam, from: number, target: number): number {
  const limit = maxChange(param);
  const direction = Math.sign(target - from);
  const step = gridStep(param);
  if (step === undefined) {
    const next = from + direction * Math.min(Math.abs(target - from), limit);
    return Math.min(param.max, Math.max(param.min, next));
  }
  const steps = Math.min(Math.round(Math.abs(target - from) / step), Math.floor(limit / step + 1e-9));
  const k = Math.round((from - param.default) / step) + direction * steps;
  return gridPoint(param, k, step);
}

/** Removes a key of a record this module just copied (never one it was given). */
function dropKey(record: Record<string, unknown>, key: string): void {
  Reflect.deleteProperty(record, key);
}

function nextId(changes: readonly TuningChange[]): number {
  let highest = 0;
  for (const change of changes) {
    const n = /^c(\d+)$/.exec(change.id)?.[1];
    if (n !== undefined) highest = Math.max(highest, Number(n));
  }
  return highest + 1;
}

function describeReason(raw: unknown, note: string | undefined): string {
  // The reason is shown in the preview, so control characters and essays are cut.
  const text = typeof raw === 'string' ? raw.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim() : '';
  const base = text === '' ? 'no reason given' : text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
  return note ? `${base} (${note})` : base;
}

function describeValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === undefined) return 'nothing';
  try {
    // JSON.stringify gives undefined for functions and symbols, whatever its type says.
    const json = JSON.stringify(value) as string | undefined;
    const text = json === undefined ? typeof value : json;
    return text.length > 40 ? `${text.slice(0, 39)}…` : text;
  } catch {
    return typeof value;
  }
}
