import type { FileSystemPort } from '../base/fileSystemPort';
import type { ChatMessage, TokenUsage } from '../llm/chatTypes';
import { describeError } from '../base/logger';
import type { SessionCompactionRecord, SessionMessageRecord, SessionRecord, TitleSource } from './sessionRecords';
import { serializeRecord } from './sessionRecords';
import { cleanTitle, draftTitle } from './sessionTitle';

/** Appends text to a file, creating it when missing. FileSystemPort only rewrites whole files. */
export interface AppendPort {
  append(path: string, text: string): Promise<void>;
}

/** Told after each record reaches the file, with the byte range it occupies. */
export interface SessionAppendEvent {
  readonly sessionId: string;
  readonly record: SessionRecord;
  readonly start: number;
  readonly end: number;
}

/** What a writer needs of the log that opened it (SessionLog): its clock, its files, and whom to tell. */
export interface WriterLog {
  now(): Date;
  readonly fs: FileSystemPort;
  notify(event: SessionAppendEvent): void;
}

/** A message to append: the record's fields, with `id` optional and `started` as a Date. */
export type NewMessage = Omit<SessionMessageRecord, 'type' | 'id' | 'at' | 'started'> & {
  /** When the message started (e.g. when streaming began); `at` is when it was appended. */
  readonly started?: Date;
  /** Unique within the session; the writer numbers messages `m1`, `m2`, … when absent. */
  readonly id?: string;
};

/** A compaction to append: the record without its `type` (AgentSession's `onCompaction` hands one over). */
export type NewCompaction = Omit<SessionCompactionRecord, 'type'>;

/**
 * Appends the records of one open session, one JSON line each, in call order. Each append resolves
 * once its line is in the file, so a crash loses at most the message not yet appended.
 */
export class SessionWriter {
  private tail: Promise<unknown> = Promise.resolve();
  private firstUser: string | undefined;
  private count: number;
  private currentTitle: string | undefined;
  /** Unknown after a failed append: the next append re-reads the file size. */
  private offset: number | undefined;

  constructor(
    private readonly log: WriterLog,
    private readonly port: AppendPort,
    readonly id: string,
    readonly file: string,
    offset: number,
    messages: readonly SessionMessageRecord[],
    title: string | undefined,
    private readonly autoTitle: boolean,
  ) {
    this.offset = offset;
    this.count = messages.length;
    this.firstUser = messages.find((message) => message.role === 'user')?.content;
    this.currentTitle = title;
  }

  get messageCount(): number {
    return this.count;
  }

  get title(): string | undefined {
    return this.currentTitle;
  }

  async appendMessage(message: NewMessage): Promise<SessionMessageRecord> {
    this.count += 1;
    const { started, id, role, content, ...extra } = message;
    const record: SessionMessageRecord = {
      type: 'message',
      id: id ?? `m${this.count}`,
      role,
      content,
      ...extra,
      at: this.log.now().toISOString(),
      ...(started ? { started: started.toISOString() } : {}),
    };
    const written = this.appendRecord(record);
    if (message.role === 'user' && this.firstUser === undefined) this.firstUser = message.content;
    if (this.autoTitle && this.currentTitle === undefined && message.role === 'assistant' && message.content.trim() && this.firstUser !== undefined) {
      void this.setTitle(draftTitle(this.firstUser, message.content), 'draft').catch(() => undefined);
    }
    await written;
    return record;
  }

  /** Appends a provider-neutral chat message as the agent loop holds it. */
  appendChat(message: ChatMessage, extra: Omit<NewMessage, 'role' | 'content' | 'toolCalls' | 'toolCallId'> = {}): Promise<SessionMessageRecord> {
    switch (message.role) {
      case 'assistant':
        return this.appendMessage({ ...extra, role: 'assistant', content: message.content, ...(message.toolCalls?.length ? { toolCalls: message.toolCalls } : {}) });
      case 'tool':
        return this.appendMessage({ ...extra, role: 'tool', content: message.content, toolCallId: message.toolCallId });
      default:
        return this.appendMessage({ ...extra, role: message.role, content: message.content });
    }
  }

  async appendUsage(usage: TokenUsage, extra: { readonly model?: string; readonly messageId?: string } = {}): Promise<void> {
    await this.appendRecord({ type: 'usage', at: this.log.now().toISOString(), usage, ...extra });
  }

  /**
   * Appends a compaction. Call it in the same order as the messages (right after the last message
   * appended before the compaction): its `kept` counts the messages just before it.
   */
  async appendCompaction(compaction: NewCompaction): Promise<SessionCompactionRecord> {
    const record: SessionCompactionRecord = { type: 'compaction', ...compaction };
    await this.appendRecord(record);
    return record;
  }

  async setTitle(title: string, source: TitleSource = 'user'): Promise<void> {
    const clean = cleanTitle(title);
    if (clean === undefined) throw new Error('a session title needs at least one visible character');
    this.currentTitle = clean;
    await this.appendRecord({ type: 'title', at: this.log.now().toISOString(), title: clean, source });
  }

  /** Resolves when every append made so far has settled. */
  async flush(): Promise<void> {
    await this.tail.catch(() => undefined);
  }

  /** @internal Serialises appends so lines keep call order and byte offsets stay exact. */
  appendRecord(record: SessionRecord): Promise<void> {
    const line = serializeRecord(record);
    const run = async (): Promise<void> => {
      let prefix = '';
      if (this.offset === undefined) {
        const bytes = (await this.log.fs.stat(this.file)) ? await this.log.fs.readFile(this.file) : new Uint8Array();
        prefix = bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? '\n' : '';
        this.offset = bytes.length;
      }
      try {
        await this.port.append(this.file, prefix + line);
      } catch (error) {
        this.offset = undefined;
        throw new Error(`could not save to session ${this.id}: ${describeError(error)}`, { cause: error });
      }
      const start = this.offset + utf8Length(prefix);
      this.offset = start + utf8Length(line);
      this.log.notify({ sessionId: this.id, record, start, end: this.offset });
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** UTF-8 byte length without encoding, to keep byte offsets of appended lines. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: 2 UTF-16 units, 4 bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
