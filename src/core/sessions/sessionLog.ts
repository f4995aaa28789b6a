import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import * as path from 'node:path';
import type { ChatMessage } from '../llm/chatTypes';
import type { Disposable } from '../base/disposableStore';
import type { FileSystemPort } from '../base/fileSystemPort';
import { Emitter } from '../base/emitter';
import type { Logger } from '../base/logger';
import { nullLogger } from '../base/logger';
import type { SessionCompactionRecord, SessionHeaderRecord, SessionMessageRecord, SessionRecord, SessionUsageRecord, SkippedLine } from './sessionRecords';
import { parseSessionLines, SESSION_FORMAT_VERSION } from './sessionRecords';
import type { AppendPort, SessionAppendEvent } from './sessionWriter';
import { SessionWriter } from './sessionWriter';

/** A session as read back from its file. */
export interface SessionData {
  readonly id: string;
  /** Missing only when the first line was lost; the session is still readable. */
  readonly header?: SessionHeaderRecord;
  readonly messages: readonly SessionMessageRecord[];
  readonly usage: readonly SessionUsageRecord[];
  readonly title?: string;
  readonly created?: string;
  readonly updated?: string;
  /** Lines that were not records: a torn last line after a crash, or damage. */
  readonly skippedLines: number;
  /** Compactions in file order, each with how many messages came before it (compactedHistory.ts reads them). */
  readonly compactions?: readonly SessionCompactionEntry[];
}

export interface SessionCompactionEntry {
  readonly record: SessionCompactionRecord;
  /** Message records before this one in the file. */
  readonly messagesBefore: number;
}

export function sessionFromRecords(id: string, records: readonly SessionRecord[], skippedLines = 0): SessionData {
  let header: SessionHeaderRecord | undefined;
  let title: string | undefined;
  let updated: string | undefined;
  const messages: SessionMessageRecord[] = [];
  const usage: SessionUsageRecord[] = [];
  const compactions: SessionCompactionEntry[] = [];
  for (const record of records) {
    switch (record.type) {
      case 'session':
        header ??= record;
        title ??= record.title;
        updated ??= record.created;
        continue;
      case 'message':
        messages.push(record);
        break;
      case 'usage':
        usage.push(record);
        break;
      case 'title':
        title = record.title;
        break;
      case 'compaction':
        compactions.push({ record, messagesBefore: messages.length });
        break;
    }
    updated = record.at;
  }
  const created = header?.created ?? messages[0]?.at;
  return {
    id,
    messages,
    usage,
    skippedLines,
    ...(compactions.length > 0 ? { compactions } : {}),
    ...(header ? { header } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(created !== undefined ? { created } : {}),
    ...(updated !== undefined ? { updated } : {}),
  };
}

/** A whole session file's text; a torn last line (no newline yet) is skipped like any bad line, and told to `onSkipped`. */
export function parseSessionText(id: string, text: string, onSkipped?: (skipped: readonly SkippedLine[]) => void): SessionData {
  const { records, skipped } = parseSessionLines(text);
  if (skipped.length > 0) onSkipped?.(skipped);
  return sessionFromRecords(id, records, skipped.length);
}

/** The conversation to send when resuming: the stored system prompt, then every message. */
export function toChatMessages(session: SessionData): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (session.header) out.push({ role: 'system', content: session.header.systemPrompt });
  for (const message of session.messages) {
    if (message.role === 'assistant') {
      out.push({ role: 'assistant', content: message.content, ...(message.toolCalls?.length ? { toolCalls: message.toolCalls } : {}) });
    } else if (message.role === 'tool') {
      out.push({ role: 'tool', toolCallId: message.toolCallId ?? '', content: message.content });
    } else {
      out.push({ role: message.role, content: message.content });
    }
  }
  return out;
}

/**
 * AppendPort over Node's fs. Without fsync a finished append is in the OS page cache: it survives
 * the extension host or VS Code being killed, not a power cut. With `fsync: true` each append is
 * flushed to the disk before it resolves (slower; see docs/sessions.md for the measured cost).
 */
export class NodeAppendPort implements AppendPort {
  constructor(private readonly options: { readonly fsync?: boolean } = {}) {}

  async append(file: string, text: string): Promise<void> {
    if (!this.options.fsync) {
      await nodeFs.appendFile(file, text, 'utf8');
      return;
    }
    const handle = await nodeFs.open(file, 'a');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }
}

/** The fingerprint of a session file: the start of its first line, which appends never change. */
export function lineHead(line: string): string {
  return line.slice(0, 100);
}

/** Skipped lines logged per read; a file of garbage gets a count, not a flood. */
const MAX_REPORTED_LINES = 3;

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) count++;
  return count;
}

/** Session ids become file names, so only a safe alphabet is accepted from callers and the model. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isValidSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id);
}

/** Sortable by creation time (the index numbers sessions in file-name order), unique by a random tail. */
export function newSessionId(now: Date, random = (): string => randomBytes(4).toString('hex')): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${random()}`;
}

export interface NewSession {
  readonly model: string;
  /** The exact system prompt sent on every request; stored so a resumed session sends the same bytes. */
  readonly systemPrompt: string;
  readonly promptLayers?: { readonly stable: string; readonly context: string; readonly volatile: string };
  readonly workspace?: string;
  readonly title?: string;
  /** Chosen by the log when absent. */
  readonly id?: string;
}

export interface SessionFileInfo {
  readonly id: string;
  readonly file: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Complete records of one session file from a byte offset on; a torn last line is left for later. */
export interface SessionChunk {
  readonly records: SessionRecord[];
  /** The start of the file's first line: it tells a file that was replaced from one that grew. */
  readonly head: string;
  /** Offset just past the last complete line. */
  readonly end: number;
  readonly size: number;
  readonly skippedLines: number;
}

export interface SessionLogOptions {
  readonly fs: FileSystemPort;
  readonly append: AppendPort;
  /** The host's storage folder; sessions live in its `sessions/` subfolder. */
  readonly storageDir: string;
  readonly logger?: Logger;
  readonly now?: () => Date;
  /** Titles drafted from the first exchange (default on); the host may set a better one later. */
  readonly autoTitle?: boolean;
}

/** The folder of append-only session files: creates, resumes, reads, lists and deletes them. */
export class SessionLog {
  readonly dir: string;
  readonly fs: FileSystemPort;
  private readonly appends: Emitter<SessionAppendEvent>;
  private readonly logger: Logger;
  /** Skipped lines already logged, as `id:line:kind`. */
  private readonly reported = new Set<string>();

  constructor(private readonly options: SessionLogOptions) {
    this.dir = path.join(options.storageDir, 'sessions');
    this.fs = options.fs;
    this.logger = options.logger ?? nullLogger;
    this.appends = new Emitter<SessionAppendEvent>('Session log', this.logger);
  }

  now(): Date {
    return this.options.now ? this.options.now() : new Date();
  }

  fileOf(id: string): string {
    if (!isValidSessionId(id)) throw new Error(`"${String(id).slice(0, 80)}" is not a session id (letters, digits, "-" and "_" only)`);
    return path.join(this.dir, `${id}.jsonl`);
  }

  async create(init: NewSession): Promise<SessionWriter> {
    const id = init.id ?? newSessionId(this.now());
    const file = this.fileOf(id);
    if (await this.fs.stat(file)) throw new Error(`session ${id} already exists; resume it instead`);
    await this.fs.mkdir(this.dir);
    const writer = new SessionWriter(this, this.options.append, id, file, 0, [], undefined, this.options.autoTitle !== false);
    await writer.appendRecord({
      type: 'session',
      v: SESSION_FORMAT_VERSION,
      id,
      created: this.now().toISOString(),
      model: init.model,
      systemPrompt: init.systemPrompt,
      ...(init.promptLayers ? { promptLayers: init.promptLayers } : {}),
      ...(init.workspace !== undefined ? { workspace: init.workspace } : {}),
      ...(init.title !== undefined ? { title: init.title } : {}),
    });
    return writer;
  }

  /** Reopens a session to continue it; undefined when it does not exist. */
  async resume(id: string): Promise<{ writer: SessionWriter; session: SessionData } | undefined> {
    const file = this.fileOf(id);
    const bytes = await this.readBytes(file);
    if (!bytes) return undefined;
    let size = bytes.length;
    if (size > 0 && bytes[size - 1] !== 0x0a) {
      // A crash tore the last line; end it so the next record starts on a line of its own.
      await this.options.append.append(file, '\n');
      size += 1;
    }
    const session = parseSessionText(id, new TextDecoder().decode(bytes), (skipped) => this.reportSkipped(id, skipped, 1));
    const writer = new SessionWriter(this, this.options.append, id, file, size, session.messages, session.title, this.options.autoTitle !== false);
    return { writer, session };
  }

  async read(id: string): Promise<SessionData | undefined> {
    if (!isValidSessionId(id)) return undefined;
    const bytes = await this.readBytes(this.fileOf(id));
    return bytes ? parseSessionText(id, new TextDecoder().decode(bytes), (skipped) => this.reportSkipped(id, skipped, 1)) : undefined;
  }

  /** Records after `offset`; undefined when the file is gone. `size < offset` means it was rewritten. */
  async readFrom(id: string, offset: number): Promise<SessionChunk | undefined> {
    const bytes = await this.readBytes(this.fileOf(id));
    if (!bytes) return undefined;
    const firstLine = bytes.subarray(0, Math.min(512, bytes.length));
    const newline = firstLine.indexOf(0x0a);
    const head = lineHead(new TextDecoder().decode(newline >= 0 ? firstLine.subarray(0, newline) : firstLine));
    const last = bytes.lastIndexOf(0x0a);
    if (bytes.length < offset || last < offset) return { records: [], head, end: offset, size: bytes.length, skippedLines: 0 };
    const parsed = parseSessionLines(new TextDecoder().decode(bytes.subarray(offset, last + 1)));
    if (parsed.skipped.length > 0) this.reportSkipped(id, parsed.skipped, countNewlines(bytes.subarray(0, offset)) + 1);
    return { records: parsed.records, head, end: last + 1, size: bytes.length, skippedLines: parsed.skipped.length };
  }

  async list(): Promise<SessionFileInfo[]> {
    if (!(await this.fs.stat(this.dir))) return [];
    const entries = await this.fs.readDirectory(this.dir);
    const files = entries
      .filter((entry) => entry.type === 'file' && entry.name.endsWith('.jsonl') && isValidSessionId(entry.name.slice(0, -6)))
      .map((entry) => entry.name)
      .sort();
    const infos = await Promise.all(
      files.map(async (name) => {
        const file = path.join(this.dir, name);
        const stat = await this.fs.stat(file);
        return stat ? { id: name.slice(0, -6), file, size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
      }),
    );
    return infos.filter((info): info is SessionFileInfo => info !== undefined);
  }

  /** Removes the session file; false when there was none. */
  async delete(id: string): Promise<boolean> {
    if (!isValidSessionId(id)) return false;
    const file = this.fileOf(id);
    if (!(await this.fs.stat(file))) return false;
    await this.fs.remove(file);
    return true;
  }

  onDidAppend(listener: (event: SessionAppendEvent) => void): Disposable {
    return this.appends.event(listener);
  }

  /** @internal Called by writers after each successful append. */
  notify(event: SessionAppendEvent): void {
    this.appends.fire(event);
  }

  /**
   * Logs why lines were skipped, once per line of a session (the index and the History tab read
   * the same file again and again). Damage is a warning; an unfinished last line is what a crash
   * leaves, or an append still under way, so it is only information.
   */
  private reportSkipped(id: string, skipped: readonly SkippedLine[], firstLine: number): void {
    if (this.reported.size > 10_000) this.reported.clear();
    const fresh = skipped.filter((entry) => {
      const key = `${id}:${firstLine + entry.line - 1}:${entry.unfinished ? 'unfinished' : 'damaged'}`;
      if (this.reported.has(key)) return false;
      this.reported.add(key);
      return true;
    });
    for (const entry of fresh.slice(0, MAX_REPORTED_LINES)) {
      const message = `Session ${id}: skipped line ${firstLine + entry.line - 1}: ${entry.reason}; the rest of the session is read as usual`;
      if (entry.unfinished) this.logger.info(message);
      else this.logger.warn(message);
    }
    if (fresh.length > MAX_REPORTED_LINES) this.logger.warn(`Session ${id}: skipped ${fresh.length - MAX_REPORTED_LINES} more unreadable lines`);
  }

  private async readBytes(file: string): Promise<Uint8Array | undefined> {
    if (!(await this.fs.stat(file))) return undefined;
    return this.fs.readFile(file);
  }
}
