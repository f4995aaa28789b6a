import type { Logger } from '../../base/logger';
import { describeError, nullLogger } from '../../base/logger';
import type { TextStore } from '../../base/textStore';
import { clipLine } from '../../text/clip';

/** `create`: written by skill_manage `create` (the model, or Save as Skill); counts as an edit too. */
export type UsageKind = 'view' | 'run' | 'edit' | 'create';
export type SkillCreator = 'agent' | 'user';

export interface SkillFailure {
  readonly at: number;
  /** One line, at most MAX_FAILURE_CHARS. */
  readonly message: string;
}

/** What one run of a skill reports (the executor's feedback). */
export interface SkillRunReport {
  readonly success: boolean;
  readonly latencyMs: number;
  /** The output did not match what the skill declares (its output schema). */
  readonly drift: boolean;
  readonly error?: string;
  /** Other skills the run called, for the "calls `x`, not declared" check. */
  readonly calledSkills?: readonly string[];
}

/**
 * Per-skill statistics. The optional fields were added after the first format and are absent while
 * zero or empty, so files written before them load unchanged and still read the same.
 */
export interface SkillUsageEntry {
  readonly views: number;
  readonly runs: number;
  readonly edits: number;
  readonly successes: number;
  readonly failures: number;
  /** Sum of run latencies, for the average shown in the browser. */
  readonly totalLatencyMs: number;
  readonly lastUsed?: number;
  /** Runs whose output drifted from what the skill declares. */
  readonly drift?: number;
  readonly thumbsUp?: number;
  readonly thumbsDown?: number;
  readonly lastFailure?: SkillFailure;
  /** Latencies of the latest runs, oldest first, at most MAX_LATENCY_SAMPLES: the median. */
  readonly latencies?: readonly number[];
  /** The skills each of the latest MAX_CALL_RUNS runs called, oldest first. */
  readonly calls?: readonly (readonly string[])[];
  readonly createdBy?: SkillCreator;
  readonly createdAt?: number;
  /** Last restored from the archive: an old skill brought back is not stale at once. */
  readonly restoredAt?: number;
  /** Chat turns whose per-turn suggestions named the skill. */
  readonly suggested?: number;
  /** Chat turns that loaded it (skill_view), counted once per turn however many files were viewed. */
  readonly loadedTurns?: number;
  /** Of those, turns in which it had been suggested: how often a suggestion led to a load. */
  readonly loadedWhenSuggested?: number;
  /** Chat turns that ran it (skill_run). */
  readonly ranTurns?: number;
  /** The latest Test Triggering result (see core/agent/triggerTest.ts). */
  readonly triggerTest?: TriggerTestRecord;
}

/** One query of a kept trigger test. */
export interface TriggerQueryRecord {
  /** At most MAX_TRIGGER_QUERY_CHARS. */
  readonly query: string;
  readonly runs: number;
  readonly loaded: number;
  /** Runs that loaded other skills instead, by name (at most MAX_TRIGGER_OTHERS). */
  readonly others: readonly { readonly name: string; readonly runs: number }[];
}

/** What Test Triggering keeps with the skill's health: enough for the preview's line and its table. */
export interface TriggerTestRecord {
  readonly at: number;
  /** SHA-256 (hex, first 16 characters) of the SKILL.md tested: a later edit makes the result outdated. */
  readonly contentHash: string;
  readonly model: string;
  /** Runs that got an answer (model failures are not counted). */
  readonly runs: number;
  readonly loaded: number;
  readonly queries: readonly TriggerQueryRecord[];
}

/** Which skills one chat turn touched: what the lead's turn recording reports (see turnTriggers.ts). */
export interface TurnTriggers {
  readonly suggested: readonly string[];
  readonly loaded: readonly string[];
  readonly run: readonly string[];
}

export const MAX_LATENCY_SAMPLES = 50;
export const MAX_CALL_RUNS = 20;
export const MAX_CALLED_PER_RUN = 50;
export const MAX_FAILURE_CHARS = 300;
export const MAX_TRIGGER_QUERIES = 30;
export const MAX_TRIGGER_QUERY_CHARS = 300;
export const MAX_TRIGGER_OTHERS = 5;
/** More names than this in one turn is not a turn a person had: the rest is ignored. */
const MAX_TURN_NAMES = 50;

const EMPTY: SkillUsageEntry = { views: 0, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0 };
const SAVE_DELAY_MS = 2_000;

/** The median of the latest run latencies; undefined before any timed run. */
export function medianLatencyMs(entry: SkillUsageEntry): number | undefined {
  const sorted = [...(entry.latencies ?? [])].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid];
  if (upper === undefined) return undefined;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}

/** Every skill the latest runs called, each once, in first-called order. */
export function calledSkills(entry: SkillUsageEntry): string[] {
  return [...new Set((entry.calls ?? []).flat())];
}

/** The called skills that `declared` does not name (a workflow's steps and fallbacks), sorted. */
export function undeclaredCalls(declared: readonly string[], called: readonly string[]): string[] {
  const known = new Set(declared.map((name) => name.trim().toLowerCase()));
  const out = new Set<string>();
  for (const name of called) if (name.trim() !== '' && !known.has(name.trim().toLowerCase())) out.add(name.trim());
  return [...out].sort();
}

function keepLast<T>(list: readonly T[] | undefined, item: T, max: number): T[] {
  const next = [...(list ?? []), item];
  return next.length > max ? next.slice(next.length - max) : next;
}

/**
 * Per-skill usage kept in the extension's storage. Writes are batched: usage is a ranking prior,
 * so losing the last seconds of it in a crash is acceptable; blocking a tool call on a write is not.
 */
/** A skill's use and outcomes as the catalog reads them (its CatalogSkillUsage, which lives above this folder). */
export interface UsageForCatalog {
  readonly uses: number;
  readonly lastUsed?: number;
  readonly successes: number;
  readonly failures: number;
  readonly thumbsUp?: number;
  readonly thumbsDown?: number;
}

export class SkillUsage {
  private entries = new Map<string, SkillUsageEntry>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loaded = false;

  constructor(
    private readonly store: TextStore,
    private readonly now: () => number = Date.now,
    private readonly logger: Logger = nullLogger,
  ) {}

  async load(): Promise<void> {
    try {
      const text = await this.store.read();
      const data = text ? (JSON.parse(text) as { skills?: Record<string, unknown> }) : {};
      for (const [name, raw] of Object.entries(data.skills ?? {})) {
        this.entries.set(name, sanitize(raw));
      }
    } catch (error) {
      this.logger.warn(`Skill usage statistics were unreadable and start afresh: ${describeError(error)}`);
    }
    this.loaded = true;
  }

  get(name: string): SkillUsageEntry {
    return this.entries.get(name) ?? EMPTY;
  }

  /** Names with any usage recorded, sorted. */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** Usage in the shape the catalog ranks by. */
  /** What the catalog weighs when not every description fits: use, and how well the skill did (runs and ratings). */
  forCatalog(): Record<string, UsageForCatalog> {
    const out: Record<string, UsageForCatalog> = {};
    for (const [name, entry] of this.entries) {
      out[name] = {
        uses: entry.views + entry.runs,
        ...(entry.lastUsed !== undefined ? { lastUsed: entry.lastUsed } : {}),
        successes: entry.successes,
        failures: entry.failures,
        ...(entry.thumbsUp !== undefined ? { thumbsUp: entry.thumbsUp } : {}),
        ...(entry.thumbsDown !== undefined ? { thumbsDown: entry.thumbsDown } : {}),
      };
    }
    return out;
  }

  record(name: string, kind: UsageKind, outcome?: { ok: boolean; latencyMs?: number }): void {
    if (kind === 'run' && outcome) {
      this.recordRun(name, { success: outcome.ok, latencyMs: outcome.latencyMs ?? Number.NaN, drift: false });
      return;
    }
    this.update(name, (entry) => ({
      ...entry,
      views: entry.views + (kind === 'view' ? 1 : 0),
      runs: entry.runs + (kind === 'run' ? 1 : 0),
      edits: entry.edits + (kind === 'edit' || kind === 'create' ? 1 : 0),
      lastUsed: this.now(),
      ...(kind === 'create' ? { createdBy: 'agent' as const, createdAt: this.now() } : {}),
    }));
  }

  /** One finished run: outcome, latency (a sample for the median), drift, the failure message and the skills it called. */
  recordRun(name: string, run: SkillRunReport): void {
    const at = this.now();
    const latency = Number.isFinite(run.latencyMs) && run.latencyMs >= 0 ? run.latencyMs : undefined;
    const called = [...new Set((run.calledSkills ?? []).filter((skill) => typeof skill === 'string' && skill.trim() !== ''))]
      .slice(0, MAX_CALLED_PER_RUN)
      .map((skill) => clipLine(skill, 200));
    this.update(name, (entry) => ({
      ...entry,
      runs: entry.runs + 1,
      successes: entry.successes + (run.success ? 1 : 0),
      failures: entry.failures + (run.success ? 0 : 1),
      totalLatencyMs: entry.totalLatencyMs + (latency ?? 0),
      lastUsed: at,
      ...(latency !== undefined ? { latencies: keepLast(entry.latencies, latency, MAX_LATENCY_SAMPLES) } : {}),
      ...(run.drift ? { drift: (entry.drift ?? 0) + 1 } : {}),
      ...(run.success ? {} : { lastFailure: { at, message: clipLine(run.error?.trim() || 'failed without a message', MAX_FAILURE_CHARS) } }),
      ...(run.calledSkills !== undefined || entry.calls ? { calls: keepLast(entry.calls, called, MAX_CALL_RUNS) } : {}),
    }));
  }

  /** A thumbs up (1) or down (-1) on a chat turn that loaded or ran the skill. Not a use: the time of last use stays. */
  rate(name: string, rating: 1 | -1): void {
    // Callers outside TypeScript (a webview message passed on) may send anything else.
    if (![1, -1].includes(rating)) return;
    this.update(name, (entry) => (rating === 1 ? { ...entry, thumbsUp: (entry.thumbsUp ?? 0) + 1 } : { ...entry, thumbsDown: (entry.thumbsDown ?? 0) + 1 }));
  }

  /**
   * One chat turn: the skills suggested with the message, loaded and run. Not a use (the time of
   * last use is skill_view's and skill_run's to set); counts once per skill per turn.
   */
  recordTurn(turn: TurnTriggers): void {
    const clean = (names: readonly string[]) => new Set(names.filter((name) => typeof name === 'string' && name.trim() !== '').slice(0, MAX_TURN_NAMES).map((name) => clipLine(name.trim(), 200)));
    const suggested = clean(turn.suggested);
    const loaded = clean(turn.loaded);
    const ran = clean(turn.run);
    for (const name of new Set([...suggested, ...loaded, ...ran])) {
      this.update(name, (entry) => ({
        ...entry,
        ...(suggested.has(name) ? { suggested: (entry.suggested ?? 0) + 1 } : {}),
        ...(loaded.has(name) ? { loadedTurns: (entry.loadedTurns ?? 0) + 1 } : {}),
        ...(loaded.has(name) && suggested.has(name) ? { loadedWhenSuggested: (entry.loadedWhenSuggested ?? 0) + 1 } : {}),
        ...(ran.has(name) ? { ranTurns: (entry.ranTurns ?? 0) + 1 } : {}),
      }));
    }
  }

  /** Keeps the latest trigger test of a skill (replacing the one before); not a use either. */
  recordTriggerTest(name: string, test: TriggerTestRecord): void {
    const clean = sanitizeTriggerTest(test);
    if (!clean) return;
    this.update(name, (entry) => ({ ...entry, triggerTest: clean }));
  }

  /** Who created the skill; `record(name, 'create')` marks the assistant's own. */
  markCreated(name: string, by: SkillCreator): void {
    this.update(name, (entry) => ({ ...entry, createdBy: by, createdAt: this.now() }));
  }

  /** The skill came back from the archive: its idle time starts again. */
  markRestored(name: string): void {
    this.update(name, (entry) => ({ ...entry, restoredAt: this.now() }));
  }

  /** Writes pending changes now (on deactivate). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.loaded) return;
    const skills = Object.fromEntries([...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    try {
      // Still version 1: every field added since is optional, so older builds read these files too.
      await this.store.write(JSON.stringify({ version: 1, skills }));
    } catch (error) {
      this.logger.warn(`Could not save skill usage statistics: ${describeError(error)}`);
    }
  }

  dispose(): void {
    void this.flush();
  }

  private update(name: string, change: (entry: SkillUsageEntry) => SkillUsageEntry): void {
    this.entries.set(name, change(this.get(name)));
    this.scheduleSave();
  }

  private scheduleSave(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, SAVE_DELAY_MS);
  }
}

const COUNTS = [
  'views', 'runs', 'edits', 'successes', 'failures', 'totalLatencyMs', 'lastUsed', 'drift', 'thumbsUp', 'thumbsDown', 'createdAt', 'restoredAt',
  'suggested', 'loadedTurns', 'loadedWhenSuggested', 'ranTurns',
] as const;

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** A saved entry as far as it is well-formed: a bad field is dropped (reads as zero), never the whole entry. */
function sanitize(input: unknown): SkillUsageEntry {
  const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...EMPTY };
  for (const key of COUNTS) if (isCount(raw[key])) out[key] = raw[key];
  const failure = raw['lastFailure'] as { at?: unknown; message?: unknown } | undefined;
  if (failure && isCount(failure.at) && typeof failure.message === 'string') {
    out['lastFailure'] = { at: failure.at, message: clipLine(failure.message, MAX_FAILURE_CHARS) };
  }
  if (Array.isArray(raw['latencies'])) {
    const latencies = raw['latencies'].filter(isCount).slice(-MAX_LATENCY_SAMPLES);
    if (latencies.length > 0) out['latencies'] = latencies;
  }
  if (Array.isArray(raw['calls'])) {
    const calls = raw['calls']
      .filter((run): run is unknown[] => Array.isArray(run))
      .slice(-MAX_CALL_RUNS)
      .map((run) => run.filter((name): name is string => typeof name === 'string' && name.trim() !== '').slice(0, MAX_CALLED_PER_RUN).map((name) => clipLine(name, 200)));
    if (calls.length > 0) out['calls'] = calls;
  }
  if (raw['createdBy'] === 'agent' || raw['createdBy'] === 'user') out['createdBy'] = raw['createdBy'];
  const test = sanitizeTriggerTest(raw['triggerTest']);
  if (test) out['triggerTest'] = test;
  return out as unknown as SkillUsageEntry;
}

/** A trigger test as far as it makes sense (loaded never above runs); undefined when it is not one at all. */
function sanitizeTriggerTest(input: unknown): TriggerTestRecord | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const raw = input as Record<string, unknown>;
  if (!isCount(raw['at']) || typeof raw['contentHash'] !== 'string' || !isCount(raw['runs']) || !isCount(raw['loaded'])) return undefined;
  const queries: TriggerQueryRecord[] = [];
  for (const item of Array.isArray(raw['queries']) ? raw['queries'].slice(0, MAX_TRIGGER_QUERIES) : []) {
    const query = item as Record<string, unknown> | null;
    if (!query || typeof query['query'] !== 'string' || !isCount(query['runs']) || !isCount(query['loaded'])) continue;
    const others = (Array.isArray(query['others']) ? query['others'] : [])
      .filter((other): other is { name: string; runs: number } => typeof other === 'object' && other !== null && typeof (other as { name?: unknown }).name === 'string' && isCount((other as { runs?: unknown }).runs))
      .slice(0, MAX_TRIGGER_OTHERS)
      .map((other) => ({ name: clipLine(other.name, 200), runs: Math.floor(other.runs) }));
    const runs = Math.floor(query['runs']);
    queries.push({ query: clipLine(query['query'], MAX_TRIGGER_QUERY_CHARS), runs, loaded: Math.min(runs, Math.floor(query['loaded'])), others });
  }
  const runs = Math.floor(raw['runs']);
  return {
    at: raw['at'],
    contentHash: clipLine(raw['contentHash'], 64),
    model: typeof raw['model'] === 'string' ? clipLine(raw['model'], 200) : '',
    runs,
    loaded: Math.min(runs, Math.floor(raw['loaded'])),
    queries,
  };
}
