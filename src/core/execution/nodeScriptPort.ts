import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { ScriptOutcome, ScriptPort, ScriptRequest } from './executionTypes';

/**
 * Runs script skills as real child processes. Each script leads a process group of its own
 * (`detached` on POSIX), so a timeout, a Stop, an overflow or the window closing kills the script
 * and everything it started, not only the first process.
 */

/** How long to wait for the pipes after the script has exited and its group was killed. */
const PIPE_DRAIN_MS = 1000;

/** Kill functions of the groups still running, by leader pid: what killAllScripts ends. */
const liveGroups = new Map<number, () => void>();

/**
 * Kills every script group this module started that is still running (the host calls it when the
 * window closes). Their runs resolve as aborted.
 */
export function killAllScripts(): void {
  for (const kill of [...liveGroups.values()]) kill();
}

function killGroup(pid: number): void {
  try {
    if (process.platform === 'win32') {
      spawn('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true, stdio: 'ignore' }).on('error', () => undefined);
    } else {
      // The negative pid addresses the whole group the detached script leads.
      process.kill(-pid, 'SIGKILL');
    }
  } catch {
    // The group is already gone.
  }
}

/** Keeps the last `limit` bytes of a stream without holding all of it. */
class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit <= 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    let tail = all.subarray(Math.max(0, all.length - this.limit));
    // A cut through a multi-byte character would show as a replacement character.
    let skip = 0;
    while (skip < tail.length && skip < 4 && ((tail[skip] ?? 0) & 0xc0) === 0x80) skip++;
    tail = tail.subarray(skip);
    return tail.toString('utf8');
  }
}

export class NodeScriptPort implements ScriptPort {
  run(request: ScriptRequest): Promise<ScriptOutcome> {
    const started = Date.now();
    const empty = { exitCode: null, signal: null, stdout: '', stdoutOverflow: false, stderrTail: '', timedOut: false, aborted: false };
    if (request.signal?.aborted) return Promise.resolve({ ...empty, aborted: true, durationMs: 0 });
    const [program, ...args] = request.command;
    if (program === undefined) {
      return Promise.resolve({ ...empty, durationMs: 0, spawnError: { message: 'no program to run (the command is empty)' } });
    }
    let child: ChildProcess;
    try {
      child = spawn(program, args, {
        cwd: request.cwd,
        env: { ...request.env },
        detached: process.platform !== 'win32',
        windowsHide: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return Promise.resolve({ ...empty, durationMs: 0, spawnError: { ...(code ? { code } : {}), message: error instanceof Error ? error.message : String(error) } });
    }

    return new Promise<ScriptOutcome>((resolve) => {
      const stdoutChunks: Buffer[] = [];
      let stdoutBytes = 0;
      let stdoutOverflow = false;
      const stderr = new ByteTail(request.stderrTailBytes);
      let timedOut = false;
      let aborted = false;
      let settled = false;
      let exit: { code: number | null; signal: string | null } | undefined;
      let drainTimer: ReturnType<typeof setTimeout> | undefined;
      const pid = child.pid;

      const kill = (): void => {
        if (pid !== undefined) killGroup(pid);
      };
      const onAbort = (): void => {
        aborted = true;
        kill();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, request.timeoutMs);
      if (pid !== undefined) liveGroups.set(pid, onAbort);

      const finish = (spawnError?: ScriptOutcome['spawnError']): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (drainTimer !== undefined) clearTimeout(drainTimer);
        request.signal?.removeEventListener('abort', onAbort);
        if (pid !== undefined) liveGroups.delete(pid);
        // An escaped grandchild may still hold the pipes; nothing more is read from them.
        child.stdout?.destroy();
        child.stderr?.destroy();
        child.stdin?.destroy();
        resolve({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          stdout: Buffer.concat(stdoutChunks).toString('utf8'),
          stdoutOverflow,
          stderrTail: stderr.text(),
          timedOut,
          aborted,
          durationMs: Date.now() - started,
          ...(spawnError ? { spawnError } : {}),
        });
      };

      child.stdout?.on('data', (chunk: Buffer) => {
        if (stdoutOverflow) return;
        const room = request.maxStdoutBytes - stdoutBytes;
        if (chunk.length > room) {
          if (room > 0) stdoutChunks.push(chunk.subarray(0, room));
          stdoutBytes = request.maxStdoutBytes;
          stdoutOverflow = true;
          kill();
          return;
        }
        stdoutChunks.push(chunk);
        stdoutBytes += chunk.length;
      });
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
      // A script that exits without reading its input makes the write fail with EPIPE: not an error.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(request.stdin);

      child.on('error', (error: NodeJS.ErrnoException) => {
        // After a successful spawn, 'error' only reports a failed kill or message; close still comes.
        if (pid !== undefined) return;
        finish({ ...(error.code ? { code: error.code } : {}), message: error.message });
      });
      child.on('exit', (code, signal) => {
        exit = { code, signal };
        // Whatever the script left behind goes with it; a grandchild holding stdout would otherwise
        // keep the run open until it ends.
        kill();
        drainTimer = setTimeout(() => finish(), PIPE_DRAIN_MS);
      });
      child.on('close', (code, signal) => {
        // A failed spawn closes with a negative errno after its 'error'; that is no exit code.
        if (pid !== undefined) exit ??= { code, signal };
        finish();
      });
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
