/**
 * The stdio transport for the SDK's Client: spawns the server, frames newline-delimited JSON-RPC
 * (parsed by the SDK's own deserializeMessage), and keeps what a failed state needs to explain
 * itself: the exit code or signal, the spawn error, and the last lines of stderr.
 *
 * Ours rather than the SDK's StdioClientTransport because that one hides the exit code and kills
 * only the direct child: a server started through `npx`, `uvx` or a shell script leaves its real
 * process running. Here a POSIX server gets its own process group and close() ends the group.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface McpStdioOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Every complete stderr line (already capped in length). */
  readonly onStderrLine: (line: string) => void;
  /** Called for a stdout line that is not JSON-RPC (counted, the connection goes on). */
  readonly onGarbage?: (line: string) => void;
  /** A single stdout message larger than this closes the connection. */
  readonly maxMessageBytes?: number;
}

export interface McpProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export const MCP_STDERR_LINE_MAX = 1_000;
const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** How long a server gets to exit on its own after stdin closes, then after SIGTERM. */
const GRACE_MS = 1_000;
const TERM_MS = 2_000;

export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private exitInfo: McpProcessExit | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stdoutChunks: Buffer[] = [];
  private stdoutBytes = 0;
  private stderrPartial = '';
  private closing = false;

  constructor(private readonly options: McpStdioOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Set once the process has exited. */
  get exit(): McpProcessExit | undefined {
    return this.exitInfo;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('This stdio transport was already started.'));
    const windows = process.platform === 'win32';
    const child = spawn(this.options.command, [...this.options.args], {
      env: { ...this.options.env },
      cwd: this.options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so close() reaches whatever the command starts in turn.
      detached: !windows,
      windowsHide: true,
      // `npx`, `uvx` and friends are .cmd shims on Windows, which only a shell can run.
      shell: windows && !/\.exe$/i.test(this.options.command),
    });
    this.child = child;
    let markExited: () => void = () => undefined;
    this.exited = new Promise((resolve) => {
      markExited = resolve;
    });
    return new Promise((resolve, reject) => {
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.on('error', (error) => {
        if (spawned) {
          this.onerror?.(error);
          return;
        }
        // Never ran (not found, not executable): nothing to wait for or kill.
        this.child = undefined;
        markExited();
        reject(error);
      });
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
      });
      child.once('close', (code, signal) => {
        this.exitInfo ??= { code, signal };
        this.flushStderr();
        markExited();
        if (spawned) this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.readStdout(chunk));
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => this.readStderr(chunk));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.exitInfo) {
      return Promise.reject(new Error('The server process is not running.'));
    }
    return new Promise((resolve, reject) => {
      const ok = stdin.write(serializeMessage(message), (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the server: stdin closed, then SIGTERM, then SIGKILL, each after a grace period; resolves when it is gone. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closing) return this.exited;
    this.closing = true;
    if (!this.exitInfo) {
      child.stdin?.end();
      if (!(await this.exitsWithin(GRACE_MS))) {
        this.signal('SIGTERM');
        if (!(await this.exitsWithin(TERM_MS))) {
          this.signal('SIGKILL');
        }
      }
    }
    // Whatever the server started and left behind in its group.
    this.signal('SIGTERM');
    await this.exited;
  }

  private async exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.exited.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') this.child?.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }

  private readStdout(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      this.stdoutChunks.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.stdoutChunks).toString('utf8').replace(/\r$/, '');
      this.stdoutChunks = [];
      this.stdoutBytes = 0;
      this.readLine(line);
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      this.stdoutChunks.push(chunk.subarray(start));
      this.stdoutBytes += chunk.length - start;
      const max = this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
      if (this.stdoutBytes > max) {
        this.stdoutChunks = [];
        this.stdoutBytes = 0;
        this.onerror?.(new Error(`The server sent a message larger than ${Math.round(max / (1024 * 1024))} MB; the connection was closed.`));
        void this.close();
      }
    }
  }

  private readLine(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      this.options.onGarbage?.(line.length > 200 ? `${line.slice(0, 200)}…` : line);
      return;
    }
    this.onmessage?.(message);
  }

  private readStderr(chunk: string): void {
    const lines = (this.stderrPartial + chunk).split(/\r?\n/);
    this.stderrPartial = capLine(lines.pop() ?? '');
    for (const line of lines) this.options.onStderrLine(capLine(line));
  }

  private flushStderr(): void {
    if (this.stderrPartial !== '') this.options.onStderrLine(this.stderrPartial);
    this.stderrPartial = '';
  }
}

function capLine(line: string): string {
  return line.length > MCP_STDERR_LINE_MAX ? `${line.slice(0, MCP_STDERR_LINE_MAX)}…` : line;
}
