import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * How core starts processes: `run_command` (a shell command line) and ripgrep (a program with
 * arguments, read line by line). The host, the CLI and tests use NodeProcessPort; a remote or
 * sandboxed host could supply its own.
 */

export interface CommandRequest {
  readonly command: string;
  /** Absolute folder the command runs in. */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Combined stdout and stderr kept at most; the middle is dropped, keeping the start and the end. */
  readonly maxOutputBytes: number;
  /** Aborting kills the command and everything it started (its process group). */
  readonly signal?: AbortSignal;
}

export interface CommandResult {
  /** Null when the process was ended by a signal or never started. */
  readonly exitCode: number | null;
  /** The signal that ended the process, e.g. `SIGTERM`. */
  readonly signal: string | null;
  /** Combined stdout and stderr in arrival order, cut in the middle when over the cap. */
  readonly output: string;
  readonly totalBytes: number;
  readonly omittedBytes: number;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly durationMs: number;
  /** Set when the process could not be started at all. */
  readonly spawnError?: string;
}

export interface LineRunRequest {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly signal?: AbortSignal;
  /** Called with each stdout line (no line break); return false to stop the process early. */
  onLine(line: string): boolean | void;
}

export interface LineRunResult {
  readonly exitCode: number | null;
  /** The first 8 KB of stderr. */
  readonly stderr: string;
  /** True when onLine asked to stop or the signal aborted the run. */
  readonly stopped: boolean;
  readonly spawnError?: { readonly code?: string; readonly message: string };
}

export interface ProcessPort {
  runCommand(request: CommandRequest): Promise<CommandResult>;
  runLines(request: LineRunRequest): Promise<LineRunResult>;
}

/** Keeps the first quarter and the last three quarters of a byte stream: results and errors come last. */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  constructor(private readonly maxBytes: number) {}

  private get headLimit(): number {
    return Math.floor(this.maxBytes / 4);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headBytes);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    const tailLimit = this.maxBytes - this.headLimit;
    while (this.tailBytes > tailLimit) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  get omitted(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  text(): string {
    if (this.omitted === 0) return stripAnsi(new TextDecoder().decode(Buffer.concat([...this.head, ...this.tail])));
    // A streaming decode leaves a character cut by the head limit out instead of mangling it.
    const head = new TextDecoder().decode(Buffer.concat(this.head), { stream: true });
    const tailBuffer = Buffer.concat(this.tail);
    let skip = 0;
    while (skip < tailBuffer.length && skip < 4 && ((tailBuffer[skip] as number) & 0xc0) === 0x80) skip++;
    const tail = new TextDecoder().decode(tailBuffer.subarray(skip));
    return stripAnsi(`${head}\n[... ${this.omitted.toLocaleString('en-US')} bytes of output omitted ...]\n${tail}`);
  }
}

/** Colour and cursor escapes mean nothing to a model and cost tokens. */
export function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, '');
}

export interface NodeProcessOptions {
  /** POSIX shell for run_command; bash when present, else sh. */
  readonly shell?: string;
  /** Environment for commands; defaults to this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long a killed command gets between SIGTERM and SIGKILL. */
  readonly killGraceMs?: number;
}

/** How long to wait for output pipes after the shell exits, when a background child keeps them open. */
const PIPE_DRAIN_MS = 1000;

export class NodeProcessPort implements ProcessPort {
  private readonly shell: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly killGraceMs: number;

  constructor(options: NodeProcessOptions = {}) {
    this.shell = options.shell ?? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh');
    this.env = options.env ?? process.env;
    this.killGraceMs = options.killGraceMs ?? 2000;
  }

  runCommand(request: CommandRequest): Promise<CommandResult> {
    const started = Date.now();
    const output = new CappedOutput(request.maxOutputBytes);
    const base = { output: '', totalBytes: 0, omittedBytes: 0, timedOut: false, signal: null, exitCode: null };
    if (request.signal?.aborted) return Promise.resolve({ ...base, aborted: true, durationMs: 0 });
    // Pagers and credential prompts would wait forever for a person who is not there.
    const env = { ...this.env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', NO_COLOR: '1' };
    let child: ChildProcess;
    try {
      child =
        process.platform === 'win32'
          ? spawn(request.command, { cwd: request.cwd, env, shell: true, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] })
          : spawn(this.shell, ['-c', request.command], { cwd: request.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      return Promise.resolve({ ...base, aborted: false, durationMs: 0, spawnError: error instanceof Error ? error.message : String(error) });
    }
    return new Promise((resolve) => {
      let timedOut = false;
      let aborted = false;
      let settled = false;
      let exit: { code: number | null; signal: string | null } | undefined;
      const timers: ReturnType<typeof setTimeout>[] = [];
      const kill = (): void => {
        this.killTree(child, 'SIGTERM');
        timers.push(setTimeout(() => this.killTree(child, 'SIGKILL'), this.killGraceMs));
      };
      const onAbort = (): void => {
        aborted = true;
        kill();
      };
      const finish = (spawnError?: string): void => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        // Something in the group may have ignored SIGTERM and still hold the pipes.
        if (timedOut || aborted) this.killTree(child, 'SIGKILL');
        request.signal?.removeEventListener('abort', onAbort);
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          output: output.text(),
          totalBytes: output.total,
          omittedBytes: output.omitted,
          timedOut,
          aborted,
          durationMs: Date.now() - started,
          ...(spawnError ? { spawnError } : {}),
        });
      };
      child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
      child.on('error', (error) => finish(error.message));
      child.on('exit', (code, signal) => {
        exit = { code, signal };
        timers.push(setTimeout(() => finish(), PIPE_DRAIN_MS));
      });
      child.on('close', () => finish());
      timers.push(
        setTimeout(() => {
          timedOut = true;
          kill();
        }, request.timeoutMs),
      );
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private killTree(child: ChildProcess, signal: NodeJS.Signals): void {
    if (child.pid === undefined) return;
    try {
      if (process.platform === 'win32') {
        spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' }).on('error', () => undefined);
      } else {
        // The negative pid addresses the whole group the detached shell leads.
        process.kill(-child.pid, signal);
      }
    } catch {
      // already gone
    }
  }

  runLines(request: LineRunRequest): Promise<LineRunResult> {
    if (request.signal?.aborted) return Promise.resolve({ exitCode: null, stderr: '', stopped: true });
    return new Promise((resolve) => {
      let stopped = false;
      let settled = false;
      let stderr = '';
      let pending = '';
      const decoder = new TextDecoder();
      let child: ChildProcess;
      const stop = (): void => {
        if (stopped) return;
        stopped = true;
        child.kill('SIGTERM');
      };
      const finish = (result: Omit<LineRunResult, 'stderr' | 'stopped'>): void => {
        if (settled) return;
        settled = true;
        request.signal?.removeEventListener('abort', stop);
        resolve({ ...result, stderr, stopped });
      };
      try {
        child = spawn(request.file, [...request.args], { cwd: request.cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      } catch (error) {
        resolve({ exitCode: null, stderr: '', stopped: false, spawnError: { message: error instanceof Error ? error.message : String(error) } });
        return;
      }
      const deliver = (line: string): void => {
        if (!stopped && request.onLine(line) === false) stop();
      };
      child.stdout?.on('data', (chunk: Buffer) => {
        if (stopped) return;
        pending += decoder.decode(chunk, { stream: true });
        let newline = pending.indexOf('\n');
        while (newline !== -1 && !stopped) {
          deliver(pending.slice(0, newline).replace(/\r$/, ''));
          pending = pending.slice(newline + 1);
          newline = pending.indexOf('\n');
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        if (stderr.length < 8192) stderr += chunk.toString('utf8').slice(0, 8192 - stderr.length);
      });
      child.on('error', (error: NodeJS.ErrnoException) => finish({ exitCode: null, spawnError: { ...(error.code ? { code: error.code } : {}), message: error.message } }));
      child.on('close', (code) => {
        if (!stopped && pending !== '') deliver(pending);
        finish({ exitCode: code });
      });
      request.signal?.addEventListener('abort', stop, { once: true });
    });
  }
}
