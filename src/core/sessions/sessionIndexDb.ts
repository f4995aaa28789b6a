import type { Logger } from '../base/logger';
import type { SessionFileInfo, SessionLog } from './sessionLog';
import { lineHead } from './sessionLog';
import { SESSION_DOCIDS, SessionQueryEngine } from './sessionQuery';
import type { SessionMessageRecord, SessionRecord } from './sessionRecords';
import type { SessionAppendEvent } from './sessionWriter';
import type { SqlJsDatabase, SqlJsStatement, SqlJsStatic } from './sqlJsTypes';

const SCHEMA_VERSION = 2;
/** Text beyond this per message is not indexed (huge tool output would bloat the index). */
export const MAX_INDEXED_CHARS = 16_000;
/** Index entries whose text is gone (a session file deleted or rewritten outside): rebuilt past this share. */
const ORPHAN_SHARE = 0.2;
const READ_BATCH = 32;

/**
 * The FTS4 table keeps only the index, not the text: its external content table stays empty
 * except while a session is being deleted (FTS4 needs the old text to delete, and it is read back
 * from the session file). That halves the index file and sql.js memory. docid = session number ×
 * 2^20 + message ordinal. Bump SCHEMA_VERSION when this or indexedText() changes.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  number INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, preview TEXT NOT NULL,
  created TEXT NOT NULL, updated TEXT NOT NULL, workspace TEXT NOT NULL, model TEXT NOT NULL,
  messages INTEGER NOT NULL, bytes INTEGER NOT NULL, head TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS message_body (docid INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS message_text USING fts4(content="message_body", body, tokenize=unicode61 "remove_diacritics=2", order=DESC);
CREATE TABLE IF NOT EXISTS index_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
PRAGMA user_version = ${SCHEMA_VERSION};`;

/** The text of a message that search looks at: content, tool name, tool calls with their arguments. */
export function indexedText(message: SessionMessageRecord): string {
  let text = message.content;
  if (message.toolName) text = `${message.toolName}\n${text}`;
  for (const call of message.toolCalls ?? []) text += `\n${call.name} ${call.arguments}`;
  return text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text;
}

/** What the index knows of one session; `bytes` is how far its file has been read. */
export interface SessionRow {
  number: number;
  id: string;
  title: string;
  preview: string;
  created: string;
  updated: string;
  workspace: string;
  model: string;
  messages: number;
  bytes: number;
  /** lineHead() of the file as indexed: a different one means the file was replaced. */
  head: string;
}

export interface CatchUpStats {
  readonly sessions: number;
  readonly updatedSessions: number;
  readonly messages: number;
  readonly removedSessions: number;
  readonly ms: number;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The open database: session rows mirrored in memory, the FTS4 table, and the catch-up that
 * brings both level with the session files. Every write is synchronous; only file reads await.
 */
export class SessionIndexDb {
  readonly rows = new Map<string, SessionRow>();
  readonly engine: SessionQueryEngine;
  /** Grows with every change, so the owner knows whether a save is due. */
  changes = 0;
  /** Sessions read so far of those a running catch-up reads; undefined when none runs. */
  catchUpProgress: { readonly done: number; readonly total: number } | undefined;
  private documentCount = 0;
  private orphanCount = 0;
  private readonly insertText: SqlJsStatement;
  private readonly insertRow: SqlJsStatement;
  private readonly updateRow: SqlJsStatement;
  private transactionDepth = 0;
  private closed = false;
  private closeWhenIdle = false;
  private recentCache: { want: number; sessions: number; documents: number; value: { low: number; docs: number } } | undefined;

  private constructor(
    private readonly db: SqlJsDatabase,
    private readonly log: SessionLog,
    private readonly logger: Logger,
  ) {
    // The database lives in memory and reaches disk only by export(): a rollback journal or syncs would be wasted copies.
    db.run('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF');
    this.readRows();
    this.orphanCount = Number(db.exec(`SELECT value FROM index_state WHERE key = 'orphans'`)[0]?.values[0]?.[0] ?? 0);
    this.documentCount = [...this.rows.values()].reduce((sum, row) => sum + Math.min(row.messages, SESSION_DOCIDS), 0);
    this.insertText = db.prepare('INSERT INTO message_text(docid, body) VALUES (?, ?)');
    this.insertRow = db.prepare(`INSERT INTO sessions (id, title, preview, created, updated, workspace, model, messages, bytes, head) VALUES (?, '', '', '', '', '', '', 0, 0, '') RETURNING number`);
    this.updateRow = db.prepare('UPDATE sessions SET title = ?, preview = ?, created = ?, updated = ?, workspace = ?, model = ?, messages = ?, bytes = ?, head = ? WHERE number = ?');
    this.engine = new SessionQueryEngine(db, { documents: () => this.documentCount, recent: (docs) => this.recent(docs) });
  }

  /** The saved index when it is usable, else a new empty one (the catch-up then reads every session). */
  static open(SQL: SqlJsStatic, saved: Uint8Array | undefined, log: SessionLog, logger: Logger): SessionIndexDb {
    if (saved) {
      let db: SqlJsDatabase | undefined;
      try {
        db = new SQL.Database(saved);
        const version = db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
        if (version !== SCHEMA_VERSION) throw new Error(`it has schema version ${String(version)}, this build uses ${SCHEMA_VERSION}`);
        const opened = new SessionIndexDb(db, log, logger);
        if (opened.orphanCount > Math.max(1_000, opened.documentCount * ORPHAN_SHARE)) {
          throw new Error(`${opened.orphanCount} entries point at text that is gone`);
        }
        return opened;
      } catch (error) {
        logger.info(`Rebuilding the session index from the session files: the saved index is unusable (${error instanceof Error ? error.message : String(error)})`);
        db?.close();
      }
    }
    const db = new SQL.Database();
    db.run(SCHEMA);
    const fresh = new SessionIndexDb(db, log, logger);
    fresh.changes++;
    return fresh;
  }

  get documents(): number {
    return this.documentCount;
  }

  get orphans(): number {
    return this.orphanCount;
  }

  export(): Uint8Array {
    return this.db.export();
  }

  close(): void {
    this.closed = true;
    // A catch-up waiting on a file read finds the database closed and stops.
    if (this.transactionDepth === 0) this.db.close();
    else this.closeWhenIdle = true;
  }

  /** The lowest docid of the newest sessions that hold at least `want` messages (or all of them). */
  recent(want: number): { low: number; docs: number } {
    const cached = this.recentCache;
    if (cached && cached.want === want && cached.sessions === this.rows.size && Math.abs(cached.documents - this.documentCount) <= this.documentCount * 0.01) {
      return cached.value;
    }
    let docs = 0;
    let low = 0;
    for (const row of [...this.rows.values()].sort((a, b) => b.number - a.number)) {
      docs += Math.min(row.messages, SESSION_DOCIDS);
      low = row.number * SESSION_DOCIDS;
      if (docs >= want) break;
    }
    this.recentCache = { want, sessions: this.rows.size, documents: this.documentCount, value: { low, docs } };
    return { low, docs };
  }

  rangeOf(id: string): [number, number] | undefined {
    const row = this.rows.get(id);
    return row ? [row.number * SESSION_DOCIDS, (row.number + 1) * SESSION_DOCIDS - 1] : undefined;
  }

  /** Brings the index level with the session files: new and grown files, rewritten and deleted ones. */
  async catchUp(): Promise<CatchUpStats> {
    const started = Date.now();
    const files = await this.log.list();
    if (this.closed) return { sessions: 0, updatedSessions: 0, messages: 0, removedSessions: 0, ms: 0 };
    // One transaction for the whole catch-up: FTS4 writes its pending terms at each commit, and
    // fewer, larger segments are much cheaper to build. Saves and deletes wait for the catch-up.
    this.begin();
    try {
      return await this.catchUpFiles(files, started);
    } finally {
      this.end();
    }
  }

  private async catchUpFiles(files: readonly SessionFileInfo[], started: number): Promise<CatchUpStats> {
    const onDisk = new Set(files.map((file) => file.id));
    let removedSessions = 0;
    for (const row of [...this.rows.values()]) {
      if (!onDisk.has(row.id)) {
        this.removeSession(row.id, undefined);
        removedSessions++;
      }
    }
    const stale = files.filter((file) => this.rows.get(file.id)?.bytes !== file.size);
    // Numbered in file-name order before any read, so docids follow creation time.
    for (const file of stale) if (!this.rows.has(file.id)) this.addRow(file.id);
    let messages = 0;
    this.catchUpProgress = { done: 0, total: stale.length };
    try {
      messages = await this.readStale(stale);
    } finally {
      this.catchUpProgress = undefined;
    }
    return { sessions: files.length, updatedSessions: stale.length, messages, removedSessions, ms: Date.now() - started };
  }

  private async readStale(stale: readonly SessionFileInfo[]): Promise<number> {
    let messages = 0;
    for (let i = 0; i < stale.length; i += READ_BATCH) {
      const batch = stale.slice(i, i + READ_BATCH).map((file) => this.rows.get(file.id) as SessionRow);
      const chunks = await Promise.all(batch.map(async (row) => ({ row, from: row.bytes, chunk: await this.log.readFrom(row.id, row.bytes) })));
      if (this.closed) break;
      const rewritten: SessionRow[] = [];
      for (const { row, from, chunk } of chunks) {
        // An append or a delete may have moved the session on while the file was read.
        if (this.rows.get(row.id) !== row || row.bytes !== from) continue;
        if (!chunk) this.removeSession(row.id, undefined);
        else if (chunk.size < row.bytes || (row.head !== '' && chunk.head !== row.head)) rewritten.push(row);
        else messages += this.applyChunk(row, chunk.records, chunk.end, chunk.head);
      }
      for (const row of rewritten) {
        if (this.closed) break;
        // The old text is gone, so its entries cannot be deleted: the session starts over under a new number.
        this.logger.info(`Session ${row.id} was rewritten on disk; indexing it again`);
        this.removeSession(row.id, undefined);
        const fresh = this.addRow(row.id);
        const chunk = await this.log.readFrom(row.id, 0);
        if (chunk && !this.closed && this.rows.get(row.id) === fresh && fresh.bytes === 0) messages += this.applyChunk(fresh, chunk.records, chunk.end, chunk.head);
      }
      this.catchUpProgress = { done: Math.min(stale.length, i + READ_BATCH), total: stale.length };
    }
    return messages;
  }

  /** Adds a record a writer just appended; `gap` when the file holds more than the index has read. */
  applyAppend(event: SessionAppendEvent): 'applied' | 'known' | 'gap' {
    let row = this.rows.get(event.sessionId);
    const head = event.start === 0 ? lineHead(JSON.stringify(event.record)) : undefined;
    if (row && head !== undefined && row.bytes > 0 && row.head !== '' && row.head !== head) {
      // A new file under a known id (the old one was deleted outside): start the session over.
      this.removeSession(row.id, undefined);
      row = undefined;
    }
    if (!row && head !== undefined) row = this.addRow(event.sessionId);
    if (!row || row.bytes < event.start) return 'gap';
    if (row.bytes > event.start) return 'known';
    this.applyChunk(row, [event.record], event.end, head ?? row.head);
    return 'applied';
  }

  /**
   * Drops a session from the index. With its messages (as indexed), the FTS entries are deleted;
   * without them they stay as orphans that no result shows, and enough orphans cause a rebuild.
   */
  removeSession(id: string, messages: readonly SessionMessageRecord[] | undefined): boolean {
    const row = this.rows.get(id);
    if (!row) return false;
    const indexed = Math.min(row.messages, SESSION_DOCIDS);
    const low = row.number * SESSION_DOCIDS;
    this.transaction(() => {
      if (messages && messages.length >= indexed) {
        const insert = this.db.prepare('INSERT INTO message_body (docid, body) VALUES (?, ?)');
        try {
          for (let ordinal = 0; ordinal < indexed; ordinal++) insert.run([low + ordinal, indexedText(messages[ordinal] as SessionMessageRecord)]);
          this.db.run('DELETE FROM message_text WHERE docid BETWEEN ? AND ?', [low, low + SESSION_DOCIDS - 1]);
        } finally {
          insert.free();
          this.db.run('DELETE FROM message_body');
        }
      } else if (indexed > 0) {
        this.orphanCount += indexed;
        this.db.run(`INSERT OR REPLACE INTO index_state (key, value) VALUES ('orphans', ?)`, [this.orphanCount]);
      }
      this.db.run('DELETE FROM sessions WHERE number = ?', [row.number]);
    });
    this.rows.delete(row.id);
    this.documentCount -= indexed;
    this.engine.invalidate();
    this.changes++;
    return true;
  }

  /**
   * Runs synchronous writes in one transaction (nested calls join the outer one). It commits even
   * when the work throws: the in-memory rows already moved on, and a rollback would part them from
   * the database.
   */
  private transaction(work: () => void): void {
    this.begin();
    try {
      work();
    } finally {
      this.end();
    }
  }

  private begin(): void {
    if (this.transactionDepth++ === 0) this.db.run('BEGIN');
  }

  private end(): void {
    if (--this.transactionDepth > 0) return;
    this.db.run('COMMIT');
    if (this.closeWhenIdle) this.db.close();
  }

  private readRows(): void {
    const result = this.db.exec('SELECT number, id, title, preview, created, updated, workspace, model, messages, bytes, head FROM sessions')[0];
    for (const values of result?.values ?? []) {
      const [number, id, title, preview, created, updated, workspace, model, messages, bytes, head] = values;
      this.rows.set(String(id), {
        number: Number(number),
        id: String(id),
        title: String(title),
        preview: String(preview),
        created: String(created),
        updated: String(updated),
        workspace: String(workspace),
        model: String(model),
        messages: Number(messages),
        bytes: Number(bytes),
        head: String(head),
      });
    }
  }

  private applyChunk(row: SessionRow, records: readonly SessionRecord[], end: number, head: string): number {
    let count = 0;
    for (const record of records) count += this.applyRecord(row, record);
    row.bytes = end;
    if (row.head === '') row.head = head;
    this.updateRow.run([row.title, row.preview, row.created, row.updated, row.workspace, row.model, row.messages, row.bytes, row.head, row.number]);
    this.changes++;
    return count;
  }

  private applyRecord(row: SessionRow, record: SessionRecord): number {
    switch (record.type) {
      case 'session':
        Object.assign(row, { created: record.created, model: record.model, workspace: record.workspace ?? '', title: row.title || (record.title ?? '') });
        if (compare(record.created, row.updated) > 0) row.updated = record.created;
        return 0;
      case 'title':
        row.title = record.title;
        return 0;
      case 'usage':
      case 'compaction':
        return 0;
      case 'message': {
        const ordinal = row.messages++;
        if (!row.created) row.created = record.at;
        if (compare(record.at, row.updated) > 0) row.updated = record.at;
        if (!row.preview && record.role === 'user') row.preview = record.content.replace(/\s+/g, ' ').trim().slice(0, 120);
        // Past 2^20 messages a session's docid range is full; such messages are kept but not searchable.
        if (ordinal >= SESSION_DOCIDS) return 0;
        this.insertText.run([row.number * SESSION_DOCIDS + ordinal, indexedText(record)]);
        this.documentCount++;
        return 1;
      }
    }
  }

  private addRow(id: string): SessionRow {
    let number: number;
    this.insertRow.bind([id]);
    try {
      this.insertRow.step();
      number = Number(this.insertRow.get()[0]);
      this.insertRow.step();
    } finally {
      this.insertRow.reset();
    }
    const row: SessionRow = { number, id, title: '', preview: '', created: '', updated: '', workspace: '', model: '', messages: 0, bytes: 0, head: '' };
    this.rows.set(id, row);
    this.changes++;
    return row;
  }
}
