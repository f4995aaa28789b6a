/**
 * Opens one SDK Client for one server: picks the transport, runs initialize within the connect
 * timeout, falls back from Streamable HTTP to the older SSE transport when the server does not
 * speak the newer one, and turns every way of failing into a message a user can act on.
 */
import * as fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../base/logger';
import type { McpServerConfig, McpTransportKind } from './mcpServerConfig';
import { McpStdioTransport } from './mcpStdioTransport';

export interface McpClientHooks {
  readonly onStderrLine: (line: string) => void;
  readonly onGarbage: (line: string) => void;
  /** Registers notification handlers on a fresh Client before it connects. */
  readonly prepare: (client: Client) => void;
}

export interface McpOpenClient {
  readonly client: Client;
  readonly transport: Transport;
  /** The transport actually used: `http` may have fallen back to `sse`. */
  readonly kind: McpTransportKind;
  readonly stdio?: McpStdioTransport;
}

/** A connect failure already worded for the user. */
export class McpConnectError extends Error {}

export async function openMcpClient(
  config: McpServerConfig,
  clientInfo: { name: string; version: string },
  hooks: McpClientHooks,
  signal: AbortSignal,
): Promise<McpOpenClient> {
  if (config.transport === 'stdio') return openStdio(config, clientInfo, hooks, signal);
  const url = parseUrl(config);
  if (config.transport === 'sse') return openHttp(config, 'sse', url, clientInfo, hooks, signal);
  try {
    return await openHttp(config, 'http', url, clientInfo, hooks, signal);
  } catch (error) {
    if (!shouldTrySse(error) || signal.aborted) throw wordHttpError(config, error);
    try {
      return await openHttp(config, 'sse', url, clientInfo, hooks, signal);
    } catch (sseError) {
      throw new McpConnectError(
        `${wordHttpError(config, error).message} Trying the older SSE transport also failed: ${wordHttpError(config, sseError).message}`,
      );
    }
  }
}

async function openStdio(
  config: McpServerConfig,
  clientInfo: { name: string; version: string },
  hooks: McpClientHooks,
  signal: AbortSignal,
): Promise<McpOpenClient> {
  const command = config.command?.trim() ?? '';
  if (command === '') throw new McpConnectError('No command is configured. Add "command" (and "args") to this server\'s entry.');
  if (config.cwd !== undefined && !isDirectory(config.cwd)) {
    throw new McpConnectError(`The working folder "${config.cwd}" does not exist. Fix "cwd" in this server's entry.`);
  }
  const stdio = new McpStdioTransport({
    command,
    args: config.args ?? [],
    // The SDK's safe default environment (PATH, HOME, …) rather than ours, so API keys in the
    // editor's environment do not reach every server; `env` adds what a server needs.
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    onStderrLine: hooks.onStderrLine,
    onGarbage: hooks.onGarbage,
  });
  const client = newClient(clientInfo, hooks);
  try {
    await client.connect(stdio, { timeout: config.timeouts.connectMs, signal });
  } catch (error) {
    // Worded before closing, which would give a timed-out server an exit code of its own.
    const worded = wordStdioError(config, command, error, stdio);
    await stdio.close();
    throw worded;
  }
  return { client, transport: stdio, kind: 'stdio', stdio };
}

async function openHttp(
  config: McpServerConfig,
  kind: 'http' | 'sse',
  url: URL,
  clientInfo: { name: string; version: string },
  hooks: McpClientHooks,
  signal: AbortSignal,
): Promise<McpOpenClient> {
  const requestInit: RequestInit = config.headers ? { headers: { ...config.headers } } : {};
  const transport = kind === 'http' ? new StreamableHTTPClientTransport(url, { requestInit }) : new SSEClientTransport(url, { requestInit });
  const client = newClient(clientInfo, hooks);
  try {
    await client.connect(transport, { timeout: config.timeouts.connectMs, signal });
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  }
  return { client, transport, kind };
}

function newClient(clientInfo: { name: string; version: string }, hooks: McpClientHooks): Client {
  const client = new Client(clientInfo, { capabilities: {} });
  hooks.prepare(client);
  return client;
}

function parseUrl(config: McpServerConfig): URL {
  const raw = config.url?.trim() ?? '';
  if (raw === '') throw new McpConnectError('No URL is configured. Add "url" to this server\'s entry.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new McpConnectError(`"${raw}" is not a valid URL. Write it in full, like "http://localhost:3000/mcp".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new McpConnectError(`The URL "${raw}" must start with http:// or https://.`);
  }
  return url;
}

/** A 4xx other than an auth refusal at initialize means the server may speak only the older SSE transport. */
function shouldTrySse(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  const code = error.code ?? 0;
  return code >= 400 && code < 500 && code !== 401 && code !== 403;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

function wordStdioError(config: McpServerConfig, command: string, error: unknown, stdio: McpStdioTransport): McpConnectError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') {
    return new McpConnectError(
      `Command not found: "${command}". Check that it is installed and on the PATH the editor was started with, or use an absolute path in "command".`,
    );
  }
  if (code === 'EACCES') return new McpConnectError(`"${command}" cannot be run (permission denied). Make it executable or use another command.`);
  const exit = stdio.exit;
  if (exit) {
    const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
    return new McpConnectError(`The server ${how} before it finished starting. Its last stderr lines are shown below.`);
  }
  if (isTimeout(error)) {
    return new McpConnectError(
      `The server did not answer "initialize" within ${seconds(config.timeouts.connectMs)}. Check that "${command}" starts an MCP server on stdio (its stderr is shown below), or raise the connect timeout.`,
    );
  }
  return new McpConnectError(`Could not start the server: ${describeError(error)}`);
}

function wordHttpError(config: McpServerConfig, error: unknown): McpConnectError {
  if (error instanceof McpConnectError) return error;
  const url = config.url ?? '';
  if (isTimeout(error)) {
    return new McpConnectError(`${url} did not answer "initialize" within ${seconds(config.timeouts.connectMs)}. Check the URL, or raise the connect timeout.`);
  }
  const status = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  if (status === 401 || status === 403) {
    return new McpConnectError(`${url} refused the connection (HTTP ${status}). Add the credentials it needs to "headers" (for example an Authorization header).`);
  }
  if (typeof status === 'number' && status > 0) {
    return new McpConnectError(`${url} answered HTTP ${status}. Check that the URL is the server's MCP endpoint (often ending in /mcp or /sse).`);
  }
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  if (cause === 'ECONNREFUSED') return new McpConnectError(`Nothing is listening at ${url} (connection refused). Start the server, or check the port.`);
  if (cause === 'ENOTFOUND') return new McpConnectError(`The host of ${url} was not found. Check the URL.`);
  return new McpConnectError(`Could not connect to ${url}: ${describeError(error)}`);
}

function isDirectory(folder: string): boolean {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}
