import type { Logger } from '../../base/logger';
import { describeError, nullLogger } from '../../base/logger';
import type { TextStore } from '../../base/textStore';

export type UsageKind = 'view' | 'run' | 'edit';

export interface SkillUsageEntry {
  readonly views: number;
  readonly runs: number;
  readonly edits: number;
  readonly successes: number;
  readonly failures: number;
  /** Sum of run latencies, for the average shown in the browser. */
  readonly totalLatencyMs: number;
  readonly lastUsed?: number;
}

const EMPTY: SkillUsageEntry = { views: 0, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0 };
const SAVE_DELAY_MS = 2_000;

/**
 * Per-skill usage kept in the extension's storage. Writes are batched: usage is a ranking prior,
 * so losing the last seconds of it in a crash is acceptable; blocking a tool call on a write is not.
 */
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
      const data = text ? (JSON.parse(text) as { skills?: Record<string, Partial<SkillUsageEntry>> }) : {};
      for (const [name, raw] of Object.entries(data.skills ?? {})) {
        this.entries.set(name, { ...EMPTY, ...sanitize(raw) });
      }
    } catch (error) {
      this.logger.warn(`Skill usage statistics were unreadable and start afresh: ${describeError(error)}`);
    }
    this.loaded = true;
  }

  get(name: string): SkillUsageEntry {
    return this.entries.get(name) ?? EMPTY;
  }

  /** Usage in the shape the catalog ranks by. */
  forCatalog(): Record<string, { uses: number; lastUsed?: number }> {
    const out: Record<string, { uses: number; lastUsed?: number }> = {};
    for (const [name, entry] of this.entries) {
      out[name] = { uses: entry.views + entry.runs, ...(entry.lastUsed !== undefined ? { lastUsed: entry.lastUsed } : {}) };
    }
    return out;
  }

  record(name: string, kind: UsageKind, outcome?: { ok: boolean; latencyMs?: number }): void {
    const entry = this.get(name);
    this.entries.set(name, {
      views: entry.views + (kind === 'view' ? 1 : 0),
      runs: entry.runs + (kind === 'run' ? 1 : 0),
      edits: entry.edits + (kind === 'edit' ? 1 : 0),
      successes: entry.successes + (outcome?.ok === true ? 1 : 0),
      failures: entry.failures + (outcome?.ok === false ? 1 : 0),
      totalLatencyMs: entry.totalLatencyMs + (outcome?.latencyMs ?? 0),
      lastUsed: this.now(),
    });
    this.scheduleSave();
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
      await this.store.write(JSON.stringify({ version: 1, skills }));
    } catch (error) {
      this.logger.warn(`Could not save skill usage statistics: ${describeError(error)}`);
    }
  }

  dispose(): void {
    void this.flush();
  }

  private scheduleSave(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, SAVE_DELAY_MS);
  }
}

function sanitize(raw: Partial<SkillUsageEntry>): Partial<SkillUsageEntry> {
  const out: Record<string, number> = {};
  for (const key of ['views', 'runs', 'edits', 'successes', 'failures', 'totalLatencyMs', 'lastUsed'] as const) {
    const value = raw[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}
