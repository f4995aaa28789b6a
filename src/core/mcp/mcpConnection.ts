/**
 * One MCP server, one SDK Client: started on demand (never at construction), its tools listed and
 * re-listed when the server says they changed, calls bounded by the server's timeouts and the
 * caller's AbortSignal. Every way of failing ends in a `failed` state with a reason and the last
 * lines of stderr, never in a thrown error, so one bad server cannot block the others.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, ResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Disposable } from '../base/disposableStore';
import { Emitter } from '../base/emitter';
import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import type { McpOpenClient } from './mcpConnect';
import { McpConnectError, openMcpClient } from './mcpConnect';
import type { McpCallResult } from './mcpResult';
import { mcpCallResult, mcpFailedCall, safeJson } from './mcpResult';
import type { McpServerConfig } from './mcpServerConfig';
import type { McpToolInfo } from './mcpToolList';
import { listMcpTools } from './mcpToolList';

export type { McpToolInfo } from './mcpToolList';

export type McpServerState =
  | { kind: 'idle' }
  | { kind: 'starting' }
  | { kind: 'connected'; tools: number }
  | { kind: 'failed'; reason: string; stderr: readonly string[] }
  | { kind: 'disabled' };

export interface McpConnectionOptions {
  readonly logger: Logger;
  readonly clientInfo: { name: string; version: string };
}

export const MCP_STDERR_TAIL_LINES = 50;
/** Stderr lines written to the log per start; a flooding server keeps only its ring after that. */
const STDERR_LOG_MAX = 2_000;
const GARBAGE_LOG_MAX = 20;

export class McpConnection {
  private current: McpServerConfig;
  private stateValue: McpServerState;
  private toolList: readonly McpToolInfo[] = [];
  private readonly stderr: string[] = [];
  private open: McpOpenClient | undefined;
  private starting: Promise<void> | undefined;
  private abort: AbortController | undefined;
  /** Bumped by every start, restart and dispose: callbacks of an older client see a new number and do nothing. */
  private generation = 0;
  private relisting: Promise<void> | undefined;
  private relistAgain = false;
  private disposed = false;
  private disposing: Promise<void> | undefined;
  private readonly changed: Emitter<void>;

  constructor(
    config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {
    this.current = config;
    this.stateValue = config.disabled ? { kind: 'disabled' } : { kind: 'idle' };
    this.changed = new Emitter<void>(`MCP server "${config.name}"`, options.logger);
  }

  get config(): McpServerConfig {
    return this.current;
  }

  get state(): McpServerState {
    return this.stateValue;
  }

  get tools(): readonly McpToolInfo[] {
    return this.toolList;
  }

  get stderrTail(): readonly string[] {
    return [...this.stderr];
  }

  /** The stdio server's process id while it runs. */
  get pid(): number | undefined {
    return this.open?.stdio?.pid;
  }

  /**
   * Takes settings that do not change what runs (timeouts, autoApprove, exposeTools): same hash only;
   * a different hash needs a new connection.
   */
  updateConfig(config: McpServerConfig): void {
    if (config.hash !== this.current.hash || config.name !== this.current.name) {
      throw new Error(`updateConfig needs the same server and hash; "${config.name}" changed what runs.`);
    }
    this.current = config;
  }

  onDidChange(listener: () => void): Disposable {
    return this.changed.event(listener);
  }

  /** Idempotent and never throws; ends connected or failed. A failed server starts again only by restart(). */
  start(): Promise<void> {
    if (this.starting) return this.starting;
    if (this.disposed || this.stateValue.kind !== 'idle') return Promise.resolve();
    const generation = ++this.generation;
    const run = this.run(generation).finally(() => {
      if (this.generation === generation) this.starting = undefined;
    });
    this.starting = run;
    return run;
  }

  async restart(): Promise<void> {
    if (this.disposed || this.current.disabled) return;
    await this.stop();
    this.setState({ kind: 'idle' });
    await this.start();
  }

  /** Ends the server process; every call returns the same promise, resolved once it is gone. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      this.disposed = true;
      await this.stop();
      this.changed.dispose();
    })();
    return this.disposing;
  }

  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult> {
    const began = Date.now();
    const elapsed = (): number => Date.now() - began;
    const server = this.current.name;
    await this.start();
    const open = this.open;
    if (this.stateValue.kind !== 'connected' || !open) {
      const why = this.stateValue.kind === 'failed' ? `: ${this.stateValue.reason}` : ` (${this.stateValue.kind})`;
      return mcpFailedCall('not-connected', `MCP server "${server}" is not connected${why}`, elapsed());
    }
    if (!this.toolList.some((known) => known.name === tool)) {
      const names = this.toolList.map((known) => known.name);
      const shown = names.slice(0, 20).join(', ') + (names.length > 20 ? `, and ${names.length - 20} more` : '');
      return mcpFailedCall('unknown-tool', `MCP server "${server}" has no tool "${tool}". Its tools: ${shown || 'none'}.`, elapsed());
    }
    if (signal?.aborted) return mcpFailedCall('cancelled', `The call to "${tool}" on "${server}" was cancelled.`, elapsed());
    this.options.logger.trace(`MCP ${server}/${tool} arguments: ${safeJson(args)}`);
    try {
      const raw = await open.client.request(
        { method: 'tools/call', params: { name: tool, arguments: args } },
        ResultSchema,
        { timeout: this.current.timeouts.callMs, ...(signal ? { signal } : {}) },
      );
      const result = mcpCallResult(raw, elapsed());
      this.options.logger.debug(`MCP ${server}/${tool} answered in ${result.ms} ms${result.isError ? ' with isError' : ''}`);
      this.options.logger.trace(`MCP ${server}/${tool} result: ${result.text}`);
      return result;
    } catch (error) {
      return this.failedCall(tool, error, signal, elapsed());
    }
  }

  private failedCall(tool: string, error: unknown, signal: AbortSignal | undefined, ms: number): McpCallResult {
    const server = this.current.name;
    this.options.logger.debug(`MCP ${server}/${tool} failed after ${ms} ms: ${describeError(error)}`);
    if (signal?.aborted) return mcpFailedCall('cancelled', `The call to "${tool}" on "${server}" was cancelled.`, ms);
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return mcpFailedCall(
        'timeout',
        `"${tool}" on "${server}" did not answer within ${seconds(this.current.timeouts.callMs)}; the call was cancelled. Raise the call timeout if the tool needs longer.`,
        ms,
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return mcpFailedCall('not-connected', `MCP server "${server}" closed the connection during the call to "${tool}".`, ms);
    }
    const message = describeError(error).replace(/^MCP error -?\d+: /, '');
    return mcpFailedCall('protocol', `MCP server "${server}" refused the call to "${tool}": ${message}`, ms);
  }

  private async run(generation: number): Promise<void> {
    const config = this.current;
    const logger = this.options.logger;
    this.stderr.length = 0;
    this.setState({ kind: 'starting' });
    const abort = new AbortController();
    this.abort = abort;
    const began = Date.now();
    let open: McpOpenClient;
    try {
      open = await openMcpClient(config, this.options.clientInfo, this.hooks(generation), abort.signal);
    } catch (error) {
      if (this.generation !== generation) return;
      const reason = error instanceof McpConnectError ? error.message : `Could not connect: ${describeError(error)}`;
      this.fail(reason);
      return;
    }
    if (this.generation !== generation) {
      await closeQuietly(open);
      return;
    }
    this.open = open;
    open.client.onclose = () => this.closedUnexpectedly(generation);
    open.client.onerror = (error) => logger.debug(`MCP server "${config.name}": ${describeError(error)}`);
    try {
      const tools = await this.listTools(open.client, abort.signal);
      if (this.generation !== generation) return;
      this.toolList = tools;
    } catch (error) {
      if (this.generation !== generation) return;
      this.open = undefined;
      await closeQuietly(open);
      this.fail(`Connected, but listing its tools failed: ${describeError(error).replace(/^MCP error -?\d+: /, '')}`);
      return;
    }
    logger.info(`MCP server "${config.name}" connected over ${open.kind} in ${Date.now() - began} ms with ${this.toolList.length} tools.`);
    this.setState({ kind: 'connected', tools: this.toolList.length });
  }

  private hooks(generation: number): Parameters<typeof openMcpClient>[2] {
    const logger = this.options.logger;
    const name = this.current.name;
    let logged = 0;
    let garbage = 0;
    return {
      onStderrLine: (line) => {
        if (this.generation !== generation) return;
        this.stderr.push(line);
        if (this.stderr.length > MCP_STDERR_TAIL_LINES) this.stderr.splice(0, this.stderr.length - MCP_STDERR_TAIL_LINES);
        logged++;
        if (logged <= STDERR_LOG_MAX) logger.debug(`[${name} stderr] ${line}`);
        else if (logged === STDERR_LOG_MAX + 1) logger.debug(`[${name} stderr] … more than ${STDERR_LOG_MAX} lines; later ones are kept only for the failure view.`);
      },
      onGarbage: (line) => {
        garbage++;
        if (garbage <= GARBAGE_LOG_MAX) logger.debug(`MCP server "${name}" printed a stdout line that is not JSON-RPC (ignored): ${line}`);
      },
      prepare: (client) => {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          if (this.generation === generation) void this.relist(generation);
        });
      },
    };
  }

  private async listTools(client: Client, signal: AbortSignal): Promise<readonly McpToolInfo[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const read = await listMcpTools((cursor) =>
      client.request({ method: 'tools/list', params: cursor !== undefined ? { cursor } : {} }, ResultSchema, {
        timeout: this.current.timeouts.listMs,
        signal,
      }),
    );
    for (const note of read.notes) this.options.logger.warn(`MCP server "${this.current.name}": ${note}`);
    return read.tools;
  }

  /** Re-lists after notifications/tools/list_changed; notifications during a re-list cause one more. */
  private async relist(generation: number): Promise<void> {
    if (this.relisting) {
      this.relistAgain = true;
      return this.relisting;
    }
    this.relisting = (async () => {
      do {
        this.relistAgain = false;
        const open = this.open;
        if (!open || this.generation !== generation || this.stateValue.kind !== 'connected') return;
        try {
          const tools = await this.listTools(open.client, this.abort?.signal ?? new AbortController().signal);
          if (this.generation !== generation) return;
          this.toolList = tools;
          this.options.logger.info(`MCP server "${this.current.name}" changed its tools: now ${tools.length}.`);
          this.setState({ kind: 'connected', tools: tools.length });
        } catch (error) {
          this.options.logger.warn(`MCP server "${this.current.name}" said its tools changed, but listing them failed: ${describeError(error)}`);
        }
      } while (this.relistAgain);
    })().finally(() => {
      this.relisting = undefined;
    });
    return this.relisting;
  }

  private closedUnexpectedly(generation: number): void {
    if (this.generation !== generation || this.disposed) return;
    const exit = this.open?.stdio?.exit;
    this.open = undefined;
    this.toolList = [];
    const how = exit ? (exit.signal ? ` (ended by ${exit.signal})` : ` (exit code ${exit.code ?? 'unknown'})`) : '';
    this.fail(`The server stopped${how}. Restart it to try again.`);
  }

  /** Ends whatever runs now: an in-flight start is aborted and awaited, the client closed (its process ended). */
  private async stop(): Promise<void> {
    this.generation++;
    this.abort?.abort();
    this.abort = undefined;
    const starting = this.starting;
    this.starting = undefined;
    const open = this.open;
    this.open = undefined;
    this.toolList = [];
    await starting;
    if (open) await closeQuietly(open);
  }

  private fail(reason: string): void {
    this.options.logger.warn(`MCP server "${this.current.name}" failed: ${reason}`);
    this.setState({ kind: 'failed', reason, stderr: [...this.stderr] });
  }

  private setState(state: McpServerState): void {
    this.stateValue = state;
    if (!this.disposed) this.changed.fire();
  }
}

async function closeQuietly(open: McpOpenClient): Promise<void> {
  try {
    await open.client.close();
  } catch {
    // Closing a broken connection may fail; the process is ended by the transport either way.
  }
  await open.stdio?.close();
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
