import type { Proposal } from './adaptation';
import type { AdaptationSpec, TunableParam } from './adaptationSpec';
import { maxChange, normalizeValue } from './adaptationSpec';
import { isPlainObject } from '../skills/model/skillParser';

/** What one finished run tells the tuner. */
export interface RunSummary {
  /** Epoch milliseconds. */
  readonly at: number;
  readonly success: boolean;
  readonly latencyMs: number;
  /** The values of the tunable params the run used. */
  readonly params: Readonly<Record<string, unknown>>;
  /** A person's thumbs up or down; it outweighs `success`. */
  readonly rating?: 1 | -1;
}

const DAY_MS = 86_400_000;
/** Runs sent to a tuning script at most (the newest), to bound its stdin. */
export const MAX_SCRIPT_RUNS = 1_000;
const MAX_SCRIPT_PROPOSALS = 50;

/** The well-formed summaries inside the feedback window, oldest first; summaries from the future are ignored. */
export function windowRuns(spec: AdaptationSpec, summaries: readonly RunSummary[], now: number): RunSummary[] {
  const from = now - spec.windowDays * DAY_MS;
  return (Array.isArray(summaries) ? summaries : [])
    .filter(
      (run) =>
        isPlainObject(run) &&
        typeof run.at === 'number' &&
        run.at >= from &&
        run.at <= now &&
        typeof run.success === 'boolean' &&
        typeof run.latencyMs === 'number' &&
        Number.isFinite(run.latencyMs) &&
        run.latencyMs >= 0 &&
        isPlainObject(run.params),
    )
    .sort((a, b) => a.at - b.at);
}

interface Tally {
  readonly key: string;
  readonly values: unknown[];
  good: number;
  runs: number;
  readonly latencies: number[];
}

/**
 * The built-in strategy. Runs in the window are grouped per param: enums and booleans by value,
 * numbers into bands one change wide (20 % of the default) around the current value, so nearby
 * values of a continuous param pool their evidence. The group with the best success rate
 * (Laplace-smoothed, so one lucky run does not beat a long record; the median latency of good runs
 * breaks ties) wins, and the proposal points at its best value; the rules then cap how far one change
 * goes. Nothing is proposed from fewer than `minSignals` runs, or for a param whose runs all fall in
 * one group: without variation there is nothing to compare.
 */
export function heuristicProposals(spec: AdaptationSpec, summaries: readonly RunSummary[], current: Readonly<Record<string, unknown>>, now: number): Proposal[] {
  const runs = windowRuns(spec, summaries, now);
  if (runs.length < spec.minSignals) return [];
  const proposals: Proposal[] = [];
  for (const param of spec.params) {
    const here = normalizeValue(param, current[param.name]) ?? param.default;
    const tallies = tally(param, runs, (used) => groupOf(param, used, here));
    const [best, second] = [...tallies].sort(compareTallies);
    const home = groupOf(param, here, here);
    if (!best || !second || best.key === home) continue;
    const numeric = param.type === 'integer' || param.type === 'number';
    const target = numeric ? bestValue(param, best, runs) : best.values[0];
    const rival = tallies.find((t) => t.key === home) ?? second;
    proposals.push({
      param: param.name,
      value: target,
      reason: `${param.name}: runs ${shown(best)} did better (${describe(best)}) than ${shown(rival)} (${describe(rival)}), over ${runs.length} runs in the last ${spec.windowDays} days`,
    });
  }
  return proposals;
}

function tally(param: TunableParam, runs: readonly RunSummary[], label: (used: unknown) => string | undefined): Tally[] {
  const groups = new Map<string, Tally>();
  for (const run of runs) {
    const used = run.params[param.name];
    // A run with an illegal value (an explicit argument outside the bounds) says nothing about legal ones.
    if (used === undefined || normalizeValue(param, used) !== used) continue;
    const key = label(used);
    if (key === undefined) continue;
    const group = groups.get(key) ?? { key, values: [], good: 0, runs: 0, latencies: [] };
    groups.set(key, group);
    const good = run.rating === 1 ? true : run.rating === -1 ? false : run.success;
    group.values.push(used);
    group.runs += 1;
    if (good) {
      group.good += 1;
      group.latencies.push(run.latencyMs);
    }
  }
  return [...groups.values()];
}

function groupOf(param: TunableParam, value: unknown, here: unknown): string {
  if (param.type === 'integer' || param.type === 'number') {
    return `band ${String(Math.round(((value as number) - (here as number)) / maxChange(param)) || 0)}`;
  }
  return JSON.stringify(value);
}

function shown(t: Tally): string {
  const distinct = [...new Set(t.values)];
  if (typeof distinct[0] !== 'number') return `with ${JSON.stringify(distinct[0])}`;
  const numbers = (distinct as number[]).sort((a, b) => a - b);
  return numbers.length === 1 ? `at ${String(numbers[0])}` : `at ${String(numbers[0])}–${String(numbers.at(-1))}`;
}

function smoothedRate(t: Tally): number {
  return (t.good + 1) / (t.runs + 2);
}

function medianLatency(t: Tally): number {
  if (t.latencies.length === 0) return Number.POSITIVE_INFINITY;
  const sorted = [...t.latencies].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function compareTallies(a: Tally, b: Tally): number {
  const rate = smoothedRate(b) - smoothedRate(a);
  if (Math.abs(rate) > 1e-9) return rate;
  const latency = medianLatency(a) - medianLatency(b);
  if (latency !== 0 && !Number.isNaN(latency)) return latency;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Within the winning group, the single value with the best record; the rules cap how far one change goes. */
function bestValue(param: TunableParam, side: Tally, runs: readonly RunSummary[]): unknown {
  const [winner] = tally(param, runs, (used) => (side.values.includes(used) ? String(used) : undefined)).sort(compareTallies);
  return winner?.values[0];
}

function describe(t: Tally): string {
  const latency = medianLatency(t);
  const median = Number.isFinite(latency) ? `, median ${latency >= 1000 ? `${(latency / 1000).toFixed(1)} s` : `${Math.round(latency)} ms`}` : '';
  return `${t.good}/${t.runs} good${median}`;
}

/** The JSON a tuning script receives on stdin. */
export function scriptInput(spec: AdaptationSpec, summaries: readonly RunSummary[], current: Readonly<Record<string, unknown>>, now: number = Date.now()): Record<string, unknown> {
  const runs = windowRuns(spec, summaries, now).slice(-MAX_SCRIPT_RUNS);
  return {
    version: 1,
    now: new Date(now).toISOString(),
    window_days: spec.windowDays,
    min_signals: spec.minSignals,
    max_change_ratio: 0.2,
    params: spec.params.map((param) => ({ ...param, current: normalizeValue(param, current[param.name]) ?? param.default })),
    runs: runs.map((run) => ({
      at: new Date(run.at).toISOString(),
      success: run.success,
      latency_ms: run.latencyMs,
      params: run.params,
      ...(run.rating !== undefined ? { rating: run.rating } : {}),
    })),
  };
}

const EXPECTED = 'print JSON like {"proposals": [{"param": "batch_size", "value": 120, "reason": "larger batches failed less"}]} (an empty list when there is nothing to propose)';

/** Reads a tuning script's stdout (text or already parsed); the values are judged later by applyProposals. */
export function parseScriptProposals(stdout: unknown): { ok: true; proposals: Proposal[] } | { ok: false; error: string } {
  let data = stdout;
  if (typeof stdout === 'string') {
    if (stdout.trim() === '') return { ok: false, error: `The tuning script printed nothing; it must ${EXPECTED}.` };
    try {
      data = JSON.parse(stdout) as unknown;
    } catch (error) {
      return { ok: false, error: `The tuning script's output is not JSON (${error instanceof Error ? error.message : String(error)}); it must ${EXPECTED}.` };
    }
  }
  const list = Array.isArray(data) ? data : isPlainObject(data) ? data['proposals'] : undefined;
  if (!Array.isArray(list)) return { ok: false, error: `The tuning script's output has no \`proposals\` list; it must ${EXPECTED}.` };
  if (list.length > MAX_SCRIPT_PROPOSALS) return { ok: false, error: `The tuning script proposed ${list.length} changes; at most ${MAX_SCRIPT_PROPOSALS} are read per run.` };
  const proposals: Proposal[] = [];
  for (const [index, item] of list.entries()) {
    const where = `Proposal ${index + 1} of the tuning script`;
    if (!isPlainObject(item)) return { ok: false, error: `${where} is not an object; each proposal is {"param", "value", "reason"}.` };
    if (typeof item['param'] !== 'string' || item['param'] === '') return { ok: false, error: `${where} has no \`param\` naming the parameter to change.` };
    if (!Object.prototype.hasOwnProperty.call(item, 'value')) return { ok: false, error: `${where} (${item['param']}) has no \`value\`.` };
    if (typeof item['reason'] !== 'string' || item['reason'].trim() === '') {
      return { ok: false, error: `${where} (${item['param']}) has no \`reason\`; every change is recorded with why it was made.` };
    }
    proposals.push({ param: item['param'], value: item['value'], reason: item['reason'] });
  }
  return { ok: true, proposals };
}
