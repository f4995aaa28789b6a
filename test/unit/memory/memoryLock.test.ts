import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LockBusyError, NodeFileLock } from '../../../src/core/memory/memoryLock';

describe('memory file lock', () => {
  let dir: string;
  let lockPath: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-lock-'));
    lockPath = path.join(dir, 'sub', 'MEMORY.md.lock');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates the lock file (and its folder) and removes it on release', async () => {
    const handle = await new NodeFileLock().acquire(lockPath);
    assert.ok(fs.existsSync(lockPath));
    await handle.release();
    assert.ok(!fs.existsSync(lockPath));
    await handle.release();
  });

  it('refuses a held lock with LockBusyError once the wait is over', async () => {
    const holder = await new NodeFileLock().acquire(lockPath);
    await assert.rejects(new NodeFileLock({ waitMs: 30, retryMs: 5 }).acquire(lockPath), (error: unknown) => {
      assert.ok(error instanceof LockBusyError);
      assert.equal(error.lockPath, lockPath);
      assert.match(error.message, /MEMORY\.md\.lock is held by another writer/);
      return true;
    });
    await holder.release();
  });

  it('hands the lock to a waiting writer when the holder releases it', async () => {
    const holder = await new NodeFileLock().acquire(lockPath);
    const order: string[] = [];
    const waiting = new NodeFileLock({ retryMs: 5 }).acquire(lockPath).then((handle) => {
      order.push('second acquired');
      return handle;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    order.push('first released');
    await holder.release();
    const second = await waiting;
    assert.deepEqual(order, ['first released', 'second acquired']);
    await second.release();
  });

  it('breaks a stale lock left by a crashed writer', async () => {
    fs.mkdirSync(path.dirname(lockPath), { recursive: true });
    fs.writeFileSync(lockPath, '{"token":"crashed"}');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lockPath, old, old);
    const handle = await new NodeFileLock({ staleMs: 10_000, waitMs: 0 }).acquire(lockPath);
    assert.doesNotMatch(fs.readFileSync(lockPath, 'utf8'), /crashed/);
    await handle.release();
    assert.deepEqual(fs.readdirSync(path.dirname(lockPath)), [], 'no lock or stale leftovers remain');
  });

  it('breaks a fresh lock at once when its writer on this machine no longer runs, but not one of a running writer or another machine', async () => {
    // A process that has ended: its pid is free (reuse within the test is vanishingly unlikely).
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    assert.ok(ended && ended > 0);
    fs.mkdirSync(path.dirname(lockPath), { recursive: true });
    const write = (holder: object) => fs.writeFileSync(lockPath, JSON.stringify({ token: 'killed', ...holder }));
    write({ pid: ended, host: os.hostname() });
    const handle = await new NodeFileLock({ staleMs: 60_000, waitMs: 0 }).acquire(lockPath);
    assert.doesNotMatch(fs.readFileSync(lockPath, 'utf8'), /killed/);
    await handle.release();

    write({ pid: process.ppid, host: os.hostname() });
    await assert.rejects(new NodeFileLock({ staleMs: 60_000, waitMs: 20, retryMs: 5 }).acquire(lockPath), LockBusyError);
    write({ pid: ended, host: `${os.hostname()}-elsewhere` });
    await assert.rejects(new NodeFileLock({ staleMs: 60_000, waitMs: 20, retryMs: 5 }).acquire(lockPath), LockBusyError);
  });

  it('does not break a fresh lock', async () => {
    fs.mkdirSync(path.dirname(lockPath), { recursive: true });
    fs.writeFileSync(lockPath, '{"token":"alive"}');
    await assert.rejects(new NodeFileLock({ staleMs: 60_000, waitMs: 20, retryMs: 5 }).acquire(lockPath), LockBusyError);
    assert.match(fs.readFileSync(lockPath, 'utf8'), /alive/);
  });

  it('leaves a lock alone on release when another writer owns it now', async () => {
    const handle = await new NodeFileLock().acquire(lockPath);
    fs.writeFileSync(lockPath, '{"token":"someone else"}');
    await handle.release();
    assert.match(fs.readFileSync(lockPath, 'utf8'), /someone else/);
  });
});
