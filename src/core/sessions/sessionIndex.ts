import * as path from 'node:path';
import type { Disposable } from '../base/disposableStore';
import type { Logger } from '../base/logger';
import { describeError, nullLogger } from '../base/logger';
import type { MarkdownExportOptions } from './sessionExport';
import { renderSessionMarkdown } from './sessionExport';
import type { CatchUpStats, SessionRow } from './sessionIndexDb';
import { SessionIndexDb, indexedText } from './sessionIndexDb';
import type { SessionData, SessionLog } from './sessionLog';
import { isValidSessionId } from './sessionLog';
import type { RankOutcome } from './sessionQuery';
import { SESSION_DOCIDS, snippetAround } from './sessionQuery';
import type { SessionMessageRecord } from './sessionRecords';
import type { SessionAppendEvent } from './sessionWriter';
import type { SqlJsStatic } from './sqlJsTypes';

export type { CatchUpStats } from './sessionIndexDb';
export type { SqlJsDatabase, SqlJsStatement, SqlJsStatic, SqlValue } from './sqlJsTypes';
export { MAX_INDEXED_CHARS, indexedText } from './sessionIndexDb';

/** Loads sql.js on first call only: activation must not pay for the wasm. */
export function sqlJsLoader(wasmDir: string): () => Promise<SqlJsStatic> {
  let loading: Promise<SqlJsStatic> | undefined;
  return () => {
    loading ??= (require('sql.js') as (config: { locateFile(file: string): string }) => Promise<SqlJsStatic>)({ locateFile: (file) => path.join(wasmDir, file) });
    return loading;
  };
}

/** Sessions kept parsed for searches that show the same few again: at most this many, and bytes. */
const SESSION_CACHE = 32;
const SESSION_CACHE_BYTES = 16 * 1024 * 1024;

export interface SessionSummary {
  readonly id: string;
  readonly title: string;
  /** The start of the first user message, for sessions without a title. */
  readonly preview: string;
  readonly created: string;
  readonly updated: string;
  readonly workspace?: string;
  readonly model?: string;
  readonly messageCount: number;
}

export interface SessionSearchHit {
  readonly messageId: string;
  /** Position among the session's messages (0-based). */
  readonly ordinal: number;
  readonly role: SessionMessageRecord['role'];
  readonly at: string;
  /** About 200 characters of the message around the first matching word. */
  readonly snippet: string;
  readonly score: number;
}

export interface SessionSearchMatch extends SessionSummary {
  readonly score: number;
  readonly matches: number;
  readonly hits: readonly SessionSearchHit[];
}

export interface SessionSearchResult {
  readonly query: string;
  readonly mode: RankOutcome['mode'];
  /** Index tokens of the query, for highlighting. */
  readonly terms: readonly string[];
  readonly ignored: readonly string[];
  readonly capped: boolean;
  readonly truncatedQuery: boolean;
  readonly sessions: readonly SessionSearchMatch[];
  /** Set when the first catch-up was still reading session files: the results cover `done` of `total` of them. */
  readonly indexing?: { readonly done: number; readonly total: number };
}

export interface SessionSearchOptions {
  readonly limit?: number;
  readonly excludeSessionId?: string;
  /** Search inside this one session only. */
  readonly sessionId?: string;
  readonly hitsPerSession?: number;
  /**
   * Answer from what is indexed so far while the window's first catch-up still reads the session
   * files (the result says how far it got), instead of waiting for it: the History tab, which
   * must answer at once. The agent's tool waits for the whole index.
   */
  readonly partial?: boolean;
}

export interface SessionIndexOptions {
  readonly log: SessionLog;
  /** The folder holding sql-wasm.wasm (`dist/` in the extension), or a loader for sql.js. */
  readonly sqlJs: string | (() => Promise<SqlJsStatic>);
  /** Default: `session-index.sqlite` beside the `sessions/` folder. */
  readonly indexFile?: string;
  readonly logger?: Logger;
  /** Quiet time before a background save (default 2 s), and the longest a change waits (30 s). */
  readonly saveDelayMs?: number;
  readonly maxSaveDelayMs?: number;
  /** A search re-scans the session folder in the background when the last scan is older (default 30 s). */
  readonly rescanAfterMs?: number;
}

/**
 * The sql.js full-text index over every session message, saved to disk in the background and
 * caught up from the JSONL files (the truth) when it opens. Nothing loads until the first call
 * that needs it. Also the History view's entry point: searchSessions, listSessions, readSession,
 * deleteSession, exportSessionMarkdown.
 */
export class SessionIndex implements Disposable {
  /** Index file size after the last save, and how long export and write took. */
  lastSave: { readonly bytes: number; readonly exportMs: number; readonly writeMs: number } | undefined;
  private readonly logger: Logger;
  private readonly indexFile: string;
  private readonly loadSqlJs: () => Promise<SqlJsStatic>;
  private loading: Promise<void> | undefined;
  private index: SessionIndexDb | undefined;
  private readonly sessionCache = new Map<string, { size: number; data: SessionData }>();
  /** Appends seen while loading, replayed after the catch-up (which skips what it already read). */
  private pending: SessionAppendEvent[] | undefined = [];
  private queue: Promise<unknown> = Promise.resolve();
  private savedChanges = -1;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private firstUnsaved = 0;
  private lastScan = 0;
  private disposed = false;
  /** The saved index is open (the first catch-up may still run). */
  private markOpened: () => void = () => undefined;
  private readonly opened = new Promise<void>((resolve) => (this.markOpened = resolve));
  /** The first catch-up is done. */
  private loaded = false;
  private readonly subscription: Disposable;

  constructor(private readonly options: SessionIndexOptions) {
    this.logger = options.logger ?? nullLogger;
    this.indexFile = options.indexFile ?? path.join(path.dirname(options.log.dir), 'session-index.sqlite');
    this.loadSqlJs = typeof options.sqlJs === 'string' ? sqlJsLoader(options.sqlJs) : options.sqlJs;
    this.subscription = options.log.onDidAppend((event) => this.onAppend(event));
  }

  /** Loads sql.js and the saved index, then catches up from the session files. Idempotent. */
  ready(): Promise<void> {
    if (this.disposed) return Promise.reject(new Error('the session index was disposed'));
    this.loading ??= this.load().catch((error) => {
      this.loading = undefined;
      throw new Error(`the session index could not be opened: ${describeError(error)}`);
    });
    return this.loading;
  }

  get isLoaded(): boolean {
    return this.index !== undefined;
  }

  get stats(): { readonly sessions: number; readonly messages: number; readonly orphans: number } {
    return { sessions: this.index?.rows.size ?? 0, messages: this.index?.documents ?? 0, orphans: this.index?.orphans ?? 0 };
  }

  /** Re-reads the session folder for sessions other windows wrote, or files changed outside. */
  async refresh(): Promise<CatchUpStats> {
    await this.ready();
    return this.exclusive(() => this.catchUp());
  }

  async searchSessions(query: string, options: SessionSearchOptions = {}): Promise<SessionSearchResult> {
    const index = options.partial ? await this.openSoFar() : await this.open();
    const progress = index.catchUpProgress;
    const indexing = this.loaded || !progress ? {} : { indexing: { done: progress.done, total: progress.total } };
    const within = options.sessionId !== undefined ? index.rangeOf(options.sessionId) : undefined;
    const excluding = options.excludeSessionId !== undefined ? index.rangeOf(options.excludeSessionId) : undefined;
    if (options.sessionId !== undefined && !within) {
      const parsed = index.engine.parse(query);
      const terms = [...new Set(parsed.terms.flatMap((term) => term.tokens))];
      return { query, terms, mode: 'none', ignored: [], capped: false, truncatedQuery: parsed.truncated, sessions: [] };
    }
    const outcome = index.engine.rank(query, {
      limit: clampInt(options.limit, 1, 100, 20),
      hitsPerSession: clampInt(options.hitsPerSession, 1, 20, 3),
      ...(within ? { within } : {}),
      ...(excluding ? { excluding } : {}),
    });
    const terms = [...new Set(outcome.terms.flatMap((term) => term.tokens))];
    const byNumber = new Map([...index.rows.values()].map((row) => [row.number, row]));
    const found = await Promise.all(
      outcome.groups.map(async (group): Promise<SessionSearchMatch | undefined> => {
        const row = byNumber.get(group.sessionNumber);
        const session = row ? await this.readSession(row.id) : undefined;
        if (!row || !session) return undefined;
        const hits: SessionSearchHit[] = [];
        for (const hit of group.hits) {
          const ordinal = hit.docid % SESSION_DOCIDS;
          const message = session.messages[ordinal];
          if (message) hits.push({ messageId: message.id, ordinal, role: message.role, at: message.at, snippet: snippetAround(indexedText(message), terms), score: hit.score });
        }
        return hits.length ? { ...summaryOf(row), score: group.score, matches: group.matches, hits } : undefined;
      }),
    );
    const sessions = found.filter((match): match is SessionSearchMatch => match !== undefined);
    return { query, terms, mode: outcome.mode, ignored: outcome.ignored, capped: outcome.capped, truncatedQuery: outcome.truncatedQuery, sessions, ...indexing };
  }

  /** Most recently updated first. */
  async listSessions(options: { readonly limit?: number; readonly offset?: number; readonly excludeSessionId?: string } = {}): Promise<SessionSummary[]> {
    const index = await this.open();
    const offset = clampInt(options.offset, 0, Number.MAX_SAFE_INTEGER, 0);
    return [...index.rows.values()]
      .filter((row) => row.id !== options.excludeSessionId && row.bytes > 0)
      .sort((a, b) => compare(b.updated, a.updated) || b.number - a.number)
      .slice(offset, offset + clampInt(options.limit, 1, 10_000, 50))
      .map(summaryOf);
  }

  async getSummary(id: string): Promise<SessionSummary | undefined> {
    const row = (await this.open()).rows.get(id);
    return row ? summaryOf(row) : undefined;
  }

  /** The session from its file (kept for a while: searches read the same few sessions again). */
  async readSession(id: string): Promise<SessionData | undefined> {
    if (!isValidSessionId(id)) return undefined;
    const stat = await this.options.log.fs.stat(this.options.log.fileOf(id));
    if (!stat) return undefined;
    const cached = this.sessionCache.get(id);
    this.sessionCache.delete(id);
    if (cached && cached.size === stat.size) {
      this.sessionCache.set(id, cached);
      return cached.data;
    }
    const data = await this.options.log.read(id);
    if (!data) return undefined;
    this.sessionCache.set(id, { size: stat.size, data });
    let bytes = [...this.sessionCache.values()].reduce((sum, entry) => sum + entry.size, 0);
    for (const [key, entry] of this.sessionCache) {
      if (this.sessionCache.size <= SESSION_CACHE && bytes <= SESSION_CACHE_BYTES) break;
      this.sessionCache.delete(key);
      bytes -= entry.size;
    }
    return data;
  }

  async exportSessionMarkdown(id: string, options: MarkdownExportOptions = {}): Promise<string | undefined> {
    const session = await this.options.log.read(id);
    return session ? renderSessionMarkdown(session, options) : undefined;
  }

  /** Removes the session file and its index entries; false when there was no such session. */
  async deleteSession(id: string): Promise<boolean> {
    if (!isValidSessionId(id)) return false;
    await this.ready();
    return this.exclusive(async () => {
      // FTS4 needs the indexed text to delete it: read the file before removing it.
      const session = await this.options.log.read(id);
      try {
        await this.options.log.delete(id);
      } catch (error) {
        throw new Error(`could not delete session ${id}: ${describeError(error)}`);
      }
      this.sessionCache.delete(id);
      const removed = this.index?.removeSession(id, session?.messages) ?? false;
      this.scheduleSave();
      return session !== undefined || removed;
    });
  }

  /**
   * Saves now if anything changed (call on deactivate). An index still loading is not waited for:
   * the session files hold everything, and the next start catches up from them.
   */
  async flush(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.index) return;
    await this.exclusive(() => this.save());
  }

  /** Closes the database; call flush() first to keep unsaved index changes (JSONL keeps them anyway). */
  dispose(): void {
    this.disposed = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.subscription.dispose();
    this.index?.close();
    this.index = undefined;
  }

  private async load(): Promise<void> {
    const SQL = await this.loadSqlJs();
    const fs = this.options.log.fs;
    const saved = (await fs.stat(this.indexFile)) ? await fs.readFile(this.indexFile) : undefined;
    const index = SessionIndexDb.open(SQL, saved, this.options.log, this.logger);
    if (this.disposed) {
      index.close();
      return;
    }
    this.index = index;
    this.markOpened();
    const stats = await this.exclusive(() => this.catchUp());
    this.loaded = true;
    const queued = this.pending ?? [];
    this.pending = undefined;
    for (const event of queued) this.onAppend(event);
    this.logger.debug(`Session index ready: ${index.rows.size} sessions, ${index.documents} messages; read ${stats.messages} new messages in ${stats.ms} ms`);
  }

  private async catchUp(): Promise<CatchUpStats> {
    const index = this.index;
    if (!index) return { sessions: 0, updatedSessions: 0, messages: 0, removedSessions: 0, ms: 0 };
    const stats = await index.catchUp();
    this.lastScan = Date.now();
    if (stats.updatedSessions > 0 || stats.removedSessions > 0) this.scheduleSave();
    return stats;
  }

  private onAppend(event: SessionAppendEvent): void {
    if (this.pending) {
      if (this.loading) this.pending.push(event);
      return;
    }
    if (!this.index) return;
    try {
      const outcome = this.index.applyAppend(event);
      if (outcome === 'applied') this.scheduleSave();
      // A gap (a repaired torn line, another window): read the missing part from the file.
      if (outcome === 'gap') void this.exclusive(() => this.catchUp()).catch((error) => this.logger.warn(`Session index catch-up failed: ${describeError(error)}`));
    } catch (error) {
      this.logger.error(`Session index could not add a record of ${event.sessionId}: ${describeError(error)}`);
    }
  }

  /** The index as far as the first catch-up got (once the saved index is open), or the whole one after. */
  private async openSoFar(): Promise<SessionIndexDb> {
    const loading = this.ready();
    await Promise.race([loading, this.opened]);
    if (this.loaded) return this.open();
    if (!this.index) throw new Error('the session index was disposed');
    return this.index;
  }

  private async open(): Promise<SessionIndexDb> {
    await this.ready();
    if (!this.index) throw new Error('the session index was disposed');
    if (Date.now() - this.lastScan >= (this.options.rescanAfterMs ?? 30_000)) {
      // Other windows write sessions too; look in the background so this call stays fast.
      this.lastScan = Date.now();
      void this.exclusive(() => this.catchUp()).catch((error) => this.logger.warn(`Session index catch-up failed: ${describeError(error)}`));
    }
    return this.index;
  }

  private scheduleSave(): void {
    if (this.disposed) return;
    const now = Date.now();
    if (!this.saveTimer) this.firstUnsaved = now;
    else clearTimeout(this.saveTimer);
    const wait = Math.min(this.options.saveDelayMs ?? 2_000, Math.max(0, this.firstUnsaved + (this.options.maxSaveDelayMs ?? 30_000) - now));
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.exclusive(() => this.save()).catch((error) => this.logger.warn(`Session index save failed (it is rebuilt from the session files): ${describeError(error)}`));
    }, wait);
    this.saveTimer.unref?.();
  }

  private async save(): Promise<void> {
    const index = this.index;
    if (!index || index.changes === this.savedChanges) return;
    const changes = index.changes;
    const started = Date.now();
    const bytes = index.export();
    const exported = Date.now();
    await this.options.log.fs.writeFileAtomic(this.indexFile, bytes);
    this.savedChanges = changes;
    this.lastSave = { bytes: bytes.length, exportMs: exported - started, writeMs: Date.now() - exported };
  }

  /** Catch-up, delete and save run one at a time; searches and appends are synchronous. */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function summaryOf(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    title: row.title || row.preview || 'Untitled session',
    preview: row.preview,
    created: row.created,
    updated: row.updated,
    ...(row.workspace ? { workspace: row.workspace } : {}),
    ...(row.model ? { model: row.model } : {}),
    messageCount: row.messages,
  };
}

function clampInt(value: unknown, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
