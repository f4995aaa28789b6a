/**
 * A cross-process lock for memory writes: two VS Code windows (or the CLI) on the same memory
 * file take turns, so each re-reads the file under the lock and merges instead of overwriting.
 *
 * FileSystemPort has no exclusive create, hence this small port. The Node implementation creates
 * `<file>.lock` as a hard link (fails if it exists) and removes it on release. A lock older than the
 * stale timeout is left over from a crashed writer and is broken; so, at once, is a lock whose
 * writer on this machine is no longer running (killed between taking and releasing it).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { hostname } from 'node:os';
import * as path from 'node:path';

export interface LockHandle {
  /** Removes the lock if it is still ours; never throws. */
  release(): Promise<void>;
}

export interface LockPort {
  /** Takes the lock file at `lockPath`, waiting a while if another writer holds it; rejects with LockBusyError when it stays taken. */
  acquire(lockPath: string): Promise<LockHandle>;
}

export class LockBusyError extends Error {
  constructor(readonly lockPath: string, waitedMs: number) {
    super(`${path.basename(lockPath)} is held by another writer (waited ${waitedMs} ms)`);
    this.name = 'LockBusyError';
  }
}

export interface NodeFileLockOptions {
  /** A lock file older than this is a crashed writer's and is removed. Default 10 s. */
  readonly staleMs?: number;
  /** How long acquire waits for a live lock before giving up. Default 5 s. */
  readonly waitMs?: number;
  /** Pause between attempts. Default 20 ms (plus jitter). */
  readonly retryMs?: number;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class NodeFileLock implements LockPort {
  private readonly staleMs: number;
  private readonly waitMs: number;
  private readonly retryMs: number;

  constructor(options: NodeFileLockOptions = {}) {
    this.staleMs = options.staleMs ?? 10_000;
    this.waitMs = options.waitMs ?? 5_000;
    this.retryMs = options.retryMs ?? 20;
  }

  async acquire(lockPath: string): Promise<LockHandle> {
    await fs.mkdir(path.dirname(lockPath), { recursive: true });
    const token = `${process.pid}-${randomBytes(8).toString('hex')}`;
    const started = Date.now();
    for (;;) {
      if (await this.tryCreate(lockPath, token)) {
        return { release: () => this.release(lockPath, token) };
      }
      if (await this.breakIfStale(lockPath)) continue;
      const waited = Date.now() - started;
      if (waited >= this.waitMs) throw new LockBusyError(lockPath, waited);
      await sleep(this.retryMs + Math.floor(Math.random() * this.retryMs));
    }
  }

  /**
   * Creates the lock with its content in one step: written to a temp file, then hard-linked to the
   * lock's name (which fails if it exists), so a writer killed at any point never leaves an empty
   * lock that only its age could break.
   */
  private async tryCreate(lockPath: string, token: string): Promise<boolean> {
    const temp = `${lockPath}.${randomBytes(4).toString('hex')}.new`;
    await fs.writeFile(temp, JSON.stringify({ token, pid: process.pid, host: hostname(), createdAt: new Date().toISOString() }));
    try {
      await fs.link(temp, lockPath);
      return true;
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      throw error;
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  /** True when the lock is gone (or was stale and is now removed), so creating it may be retried at once. */
  private async breakIfStale(lockPath: string): Promise<boolean> {
    let mtimeMs: number;
    try {
      mtimeMs = (await fs.stat(lockPath)).mtimeMs;
    } catch (error) {
      return errorCode(error) === 'ENOENT';
    }
    if (Date.now() - mtimeMs < this.staleMs && !(await this.holderIsGone(lockPath))) return false;
    // Rename first: of two windows breaking the same stale lock, only one rename succeeds, and
    // the loser retries instead of deleting the winner's fresh lock.
    const grave = `${lockPath}.${randomBytes(4).toString('hex')}.stale`;
    try {
      await fs.rename(lockPath, grave);
    } catch (error) {
      return errorCode(error) === 'ENOENT';
    }
    await fs.rm(grave, { force: true });
    return true;
  }

  /** True when the lock names a writer on this machine that no longer runs. */
  private async holderIsGone(lockPath: string): Promise<boolean> {
    let holder: unknown;
    try {
      holder = JSON.parse(await fs.readFile(lockPath, 'utf8'));
    } catch {
      // Being written this moment, or unreadable: only its age can tell.
      return false;
    }
    if (typeof holder !== 'object' || holder === null) return false;
    const { pid, host } = holder as { pid?: unknown; host?: unknown };
    // A lock from another machine (a shared folder) says nothing about processes here.
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || host !== hostname()) return false;
    if (pid === process.pid) return false;
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      // EPERM: alive, owned by someone else.
      return errorCode(error) === 'ESRCH';
    }
  }

  private async release(lockPath: string, token: string): Promise<void> {
    try {
      const text = await fs.readFile(lockPath, 'utf8');
      // After a stale break another writer may own the file now: leave theirs alone.
      if (text.includes(token)) await fs.rm(lockPath, { force: true });
    } catch {
      // Already gone.
    }
  }
}
