import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/base/logger';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SessionIndexOptions } from '../../../src/core/sessions/sessionIndex';
import { SessionIndex, sqlJsLoader } from '../../../src/core/sessions/sessionIndex';
import type { SessionLogOptions } from '../../../src/core/sessions/sessionLog';
import { NodeAppendPort, SessionLog } from '../../../src/core/sessions/sessionLog';
import type { AppendPort, SessionWriter } from '../../../src/core/sessions/sessionWriter';
import { repoRoot } from '../../repoRoot';

export const wasmDir = path.join(repoRoot(), 'node_modules', 'sql.js', 'dist');
/** One sql.js instance for the whole run: loading the wasm again per test only costs time. */
export const sharedSqlJs = sqlJsLoader(wasmDir);

/** A temporary storage folder with a session log and indexes over it, all released by cleanup(). */
export class SessionFixture {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-sessions-'));
  readonly fs = new NodeFileSystem();
  private readonly indexes: SessionIndex[] = [];
  private tick = Date.UTC(2025, 4, 1, 9, 0, 0);
  /** A clock that moves one second per reading, so times are distinct and ordered. */
  readonly now = (): Date => new Date((this.tick += 1_000));
  readonly log: SessionLog;

  constructor(options: Partial<SessionLogOptions> = {}) {
    this.log = this.newLog(options);
  }

  newLog(options: Partial<SessionLogOptions> = {}): SessionLog {
    return new SessionLog({ fs: this.fs, append: new NodeAppendPort(), storageDir: this.dir, now: this.now, ...options });
  }

  newIndex(options: Partial<SessionIndexOptions> = {}): SessionIndex {
    const index = new SessionIndex({ log: this.log, sqlJs: sharedSqlJs, saveDelayMs: 60_000, ...options });
    this.indexes.push(index);
    return index;
  }

  file(id: string): string {
    return path.join(this.dir, 'sessions', `${id}.jsonl`);
  }

  /** A session with the given exchanges (user text, assistant text), appended in order. */
  async session(id: string, exchanges: readonly (readonly [string, string])[], options: { workspace?: string; log?: SessionLog } = {}): Promise<SessionWriter> {
    const writer = await (options.log ?? this.log).create({ id, model: 'test-model', systemPrompt: `System prompt of ${id}`, ...(options.workspace ? { workspace: options.workspace } : {}) });
    for (const [user, reply] of exchanges) {
      await writer.appendMessage({ role: 'user', content: user });
      await writer.appendMessage({ role: 'assistant', content: reply });
    }
    await writer.flush();
    return writer;
  }

  cleanup(): void {
    for (const index of this.indexes) index.dispose();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** An AppendPort that fails the next `failures` appends, then behaves like Node's. */
export class FlakyAppendPort implements AppendPort {
  private readonly real = new NodeAppendPort();
  constructor(public failures: number) {}

  append(file: string, text: string): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error('ENOSPC: no space left on device'));
    }
    return this.real.append(file, text);
  }
}

/** A Logger that keeps what it was told, as `level: message` lines. */
export class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  trace(): void {
    // Not kept: nothing here logs at trace, and trace may hold prompts.
  }
  debug(message: string): void {
    this.lines.push(`debug: ${message}`);
  }
  info(message: string): void {
    this.lines.push(`info: ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn: ${message}`);
  }
  error(message: string | Error): void {
    this.lines.push(`error: ${String(message)}`);
  }
}
