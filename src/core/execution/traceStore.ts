import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { describeError, nullLogger } from '../base/logger';
import type { RunTrace } from './executionTypes';

/** Appends text to a file, creating it when missing (the sessions' NodeAppendPort fits). */
export interface TraceAppendPort {
  append(file: string, text: string): Promise<void>;
}

export interface TraceFilter {
  /** Only runs of this skill, or runs that called it. */
  readonly skill?: string;
  /** Epoch milliseconds: only runs that started at or after it. */
  readonly since?: number;
  readonly sessionId?: string;
  /** Newest first, at most this many (default 200). */
  readonly limit?: number;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** Trace files bigger than this are read from their end only: the newest runs matter most. */
const MAX_READ_BYTES = 8 * 1024 * 1024;

/**
 * Every run's trace, one JSON line each, append-only: beside its session
 * (`sessions/<id>.traces.jsonl`, which the session list ignores) or, for runs outside a chat,
 * in `traces/<day>.jsonl`. Nothing is rewritten, so a crash loses at most the line being written.
 */
export class TraceStore {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly logger: Logger;

  constructor(private readonly options: { readonly fs: FileSystemPort; readonly append: TraceAppendPort; readonly storageDir: string; readonly logger?: Logger }) {
    this.logger = options.logger ?? nullLogger;
  }

  fileFor(trace: Pick<RunTrace, 'sessionId' | 'started'>): string {
    if (trace.sessionId !== undefined && SESSION_ID.test(trace.sessionId)) return path.join(this.options.storageDir, 'sessions', `${trace.sessionId}.traces.jsonl`);
    return path.join(this.options.storageDir, 'traces', `${trace.started.slice(0, 10)}.jsonl`);
  }

  /** Resolves once the line is in the file; appends keep their call order. */
  append(trace: RunTrace): Promise<void> {
    const file = this.fileFor(trace);
    const line = `${JSON.stringify(trace)}\n`;
    const next = this.tail.then(async () => {
      await this.options.fs.mkdir(path.dirname(file));
      await this.options.append.append(file, line);
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  async list(filter: TraceFilter = {}): Promise<RunTrace[]> {
    const limit = filter.limit ?? 200;
    const files = await this.files(filter);
    const out: RunTrace[] = [];
    for (const file of files) {
      for (const trace of await this.read(file)) {
        if (filter.since !== undefined && Date.parse(trace.started) < filter.since) continue;
        if (filter.sessionId !== undefined && trace.sessionId !== filter.sessionId) continue;
        if (filter.skill !== undefined && trace.skill !== filter.skill && !trace.calledSkills.includes(filter.skill)) continue;
        out.push(trace);
      }
    }
    out.sort((a, b) => b.started.localeCompare(a.started));
    return out.slice(0, limit);
  }

  async get(traceId: string): Promise<RunTrace | undefined> {
    return (await this.list({ limit: Number.MAX_SAFE_INTEGER })).find((trace) => trace.trace_id === traceId);
  }

  private async files(filter: TraceFilter): Promise<string[]> {
    const { fs, storageDir } = this.options;
    if (filter.sessionId !== undefined) return SESSION_ID.test(filter.sessionId) ? [path.join(storageDir, 'sessions', `${filter.sessionId}.traces.jsonl`)] : [];
    const found: string[] = [];
    for (const [dir, match] of [
      [path.join(storageDir, 'sessions'), (name: string) => name.endsWith('.traces.jsonl')],
      [path.join(storageDir, 'traces'), (name: string) => name.endsWith('.jsonl')],
    ] as const) {
      const entries = await fs.readDirectory(dir).catch(() => []);
      for (const entry of entries) {
        if (entry.type !== 'file' || !match(entry.name)) continue;
        const file = path.join(dir, entry.name);
        if (filter.since !== undefined) {
          const stat = await fs.stat(file);
          if (stat && stat.mtimeMs < filter.since) continue;
        }
        found.push(file);
      }
    }
    return found;
  }

  private async read(file: string): Promise<RunTrace[]> {
    let bytes: Uint8Array;
    try {
      bytes = await this.options.fs.readFile(file);
    } catch (error) {
      this.logger.warn(`Trace file ${path.basename(file)} could not be read: ${describeError(error)}`);
      return [];
    }
    if (bytes.length > MAX_READ_BYTES) bytes = bytes.subarray(bytes.length - MAX_READ_BYTES);
    const traces: RunTrace[] = [];
    let skipped = 0;
    for (const line of Buffer.from(bytes).toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      const trace = parseTraceLine(line);
      if (trace) traces.push(trace);
      else skipped++;
    }
    if (skipped > 0) this.logger.warn(`Skipped ${skipped} unreadable line(s) in ${path.basename(file)}.`);
    return traces;
  }
}

/** A trace line as written by append, or undefined for anything else (a torn line, garbage). */
export function parseTraceLine(line: string): RunTrace | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  const trace = value as Partial<RunTrace>;
  if (trace.type !== 'trace' || typeof trace.trace_id !== 'string' || typeof trace.skill !== 'string' || typeof trace.started !== 'string') return undefined;
  if (!Array.isArray(trace.steps) || !Array.isArray(trace.calledSkills) || typeof trace.success !== 'boolean' || typeof trace.durationMs !== 'number') return undefined;
  if (Number.isNaN(Date.parse(trace.started))) return undefined;
  return trace as RunTrace;
}
