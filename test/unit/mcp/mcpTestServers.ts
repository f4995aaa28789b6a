/**
 * What the MCP client tests start: the reference servers from npm (everything, filesystem) over
 * stdio and HTTP, and our misbehaving fake, all as real processes; plus configs and a logger that
 * records what it was told.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/base/logger';
import type { McpServerConfig, McpTimeouts } from '../../../src/core/mcp/mcpServerConfig';
import { DEFAULT_MCP_TIMEOUTS } from '../../../src/core/mcp/mcpServerConfig';

export const everythingServer = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const filesystemServer = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
/** Compiled next to this test: out/test/fakes/misbehavingMcpServer.js. */
export const fakeServer = path.join(__dirname, '..', '..', 'fakes', 'misbehavingMcpServer.js');

export const clientInfo = { name: 'skillwright-test', version: '0.0.0' };

export function stdioConfig(
  name: string,
  args: readonly string[],
  extra: { command?: string; timeouts?: Partial<McpTimeouts>; hash?: string; disabled?: boolean; cwd?: string } = {},
): McpServerConfig {
  const command = extra.command ?? process.execPath;
  return {
    name,
    source: { origin: 'user', label: 'test settings' },
    transport: 'stdio',
    command,
    args,
    timeouts: { ...DEFAULT_MCP_TIMEOUTS, ...extra.timeouts },
    hash: extra.hash ?? `${command} ${args.join(' ')}`,
    ...(extra.disabled !== undefined ? { disabled: extra.disabled } : {}),
    ...(extra.cwd !== undefined ? { cwd: extra.cwd } : {}),
  };
}

export function fakeConfig(name: string, mode: string, options: readonly string[] = [], timeouts: Partial<McpTimeouts> = {}): McpServerConfig {
  return stdioConfig(name, [fakeServer, mode, ...options], { timeouts });
}

export function httpConfig(name: string, url: string, transport: 'http' | 'sse' = 'http', timeouts: Partial<McpTimeouts> = {}): McpServerConfig {
  return {
    name,
    source: { origin: 'user', label: 'test settings' },
    transport,
    url,
    timeouts: { ...DEFAULT_MCP_TIMEOUTS, ...timeouts },
    hash: `${transport} ${url}`,
  };
}

export interface RecordingLogger extends Logger {
  readonly lines: { level: string; message: string }[];
  has(level: string, pattern: RegExp): boolean;
}

export function recordingLogger(): RecordingLogger {
  const lines: { level: string; message: string }[] = [];
  const record = (level: string) => (message: string | Error) => {
    lines.push({ level, message: message instanceof Error ? message.message : message });
  };
  return {
    lines,
    trace: record('trace'),
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    has: (level, pattern) => lines.some((line) => line.level === level && pattern.test(line.message)),
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid our fake server writes as its first stderr line. */
export function fakePid(stderr: readonly string[]): number {
  const line = stderr.find((candidate) => candidate.startsWith('pid='));
  if (!line) throw new Error(`no pid line in stderr: ${stderr.slice(0, 3).join(' | ')}`);
  return Number(line.slice(4));
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface RunningHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

/** server-everything in `streamableHttp` (serves /mcp) or `sse` (serves /sse) mode on a free port. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse'): Promise<RunningHttpServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingServer, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await waitForLine(child, /port/i);
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    close: () => endProcess(child),
  };
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      seen += chunk;
      if (pattern.test(seen)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${seen}`)));
  });
}

function endProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
