/**
 * All configured MCP servers of a window: one McpConnection each, started only when something
 * needs their tools (ensure), in parallel, and only after the host's consent hook agreed to that
 * exact configuration (by hash). A changed configuration restarts just that server, and only if it
 * was running; a disabled one never starts.
 */
import type { Disposable } from '../base/disposableStore';
import { Emitter } from '../base/emitter';
import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import type { McpServerState, McpToolInfo } from './mcpConnection';
import { McpConnection } from './mcpConnection';
import type { McpServerConfig } from './mcpServerConfig';

export interface McpServerManagerOptions {
  readonly logger: Logger;
  readonly clientInfo: { name: string; version: string };
  /**
   * The host's trust and consent check, asked once per config hash before that configuration first
   * starts. False (or a throw) leaves the server failed with a "not confirmed" reason until restart().
   */
  readonly canStart?: (config: McpServerConfig) => Promise<boolean>;
}

export interface McpServerEntry {
  readonly config: McpServerConfig;
  readonly state: McpServerState;
  readonly tools: readonly McpToolInfo[];
}

export const MCP_NOT_CONFIRMED_PREFIX = 'Not confirmed';

export class McpServerManager {
  private configs: McpServerConfig[] = [];
  private readonly connections = new Map<string, McpConnection>();
  private readonly subscriptions = new Map<string, Disposable>();
  private readonly disabledOverride = new Map<string, boolean>();
  private readonly confirmed = new Set<string>();
  /** Hashes the user declined: not asked again by ensure(), only by restart(). */
  private readonly declined = new Set<string>();
  private readonly asking = new Map<string, Promise<boolean>>();
  private readonly closing = new Set<Promise<void>>();
  private disposed = false;
  private readonly changed: Emitter<void>;

  constructor(private readonly options: McpServerManagerOptions) {
    this.changed = new Emitter<void>('MCP servers', options.logger);
  }

  onDidChange(listener: () => void): Disposable {
    return this.changed.event(listener);
  }

  get servers(): readonly McpServerEntry[] {
    return this.configs.map((config) => {
      const connection = this.connections.get(config.name);
      return { config, state: this.stateOf(config), tools: connection && !this.isDisabled(config) ? connection.tools : [] };
    });
  }

  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  setConfigs(configs: readonly McpServerConfig[]): void {
    if (this.disposed) return;
    const next: McpServerConfig[] = [];
    const names = new Set<string>();
    for (const config of configs) {
      if (names.has(config.name)) {
        this.options.logger.warn(`MCP: a second server named "${config.name}" was ignored (from ${config.source.label}).`);
        continue;
      }
      names.add(config.name);
      next.push(config);
    }
    for (const name of [...this.connections.keys()]) {
      if (!names.has(name)) this.drop(name);
    }
    const restart: string[] = [];
    for (const config of next) {
      const old = this.connections.get(config.name);
      if (!old) {
        this.create(config);
      } else if (old.config.hash === config.hash) {
        old.updateConfig(forConnection(config));
        if (this.isDisabled(config) && isRunning(old.state)) this.replace(config);
      } else {
        const wasRunning = isRunning(old.state);
        this.replace(config);
        if (wasRunning && !this.isDisabled(config)) restart.push(config.name);
      }
    }
    this.configs = next;
    this.changed.fire();
    for (const name of restart) {
      this.options.logger.info(`MCP server "${name}" changed its configuration; restarting it.`);
      void this.startOne(name);
    }
  }

  /** Starts the named servers (or all enabled ones) in parallel; resolves when each is connected or failed. */
  async ensure(names?: readonly string[]): Promise<void> {
    const wanted = names ? new Set(names) : undefined;
    const targets = this.configs.filter((config) => (!wanted || wanted.has(config.name)) && !this.isDisabled(config));
    await Promise.all(targets.map((config) => this.startOne(config.name)));
  }

  /** Restarts one server; one the user declined is asked about again. */
  async restart(name: string): Promise<void> {
    const connection = this.connections.get(name);
    if (!connection || this.isDisabled(connection.config)) return;
    this.declined.delete(connection.config.hash);
    if (connection.state.kind === 'idle') {
      await this.startOne(name);
      return;
    }
    await connection.restart();
  }

  setDisabled(name: string, disabled: boolean): void {
    const config = this.configs.find((candidate) => candidate.name === name);
    this.disabledOverride.set(name, disabled);
    if (!config) return;
    const connection = this.connections.get(name);
    if (disabled && connection && connection.state.kind !== 'idle') this.replace(config);
    this.options.logger.info(`MCP server "${name}" ${disabled ? 'disabled' : 'enabled'}.`);
    this.changed.fire();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const subscription of this.subscriptions.values()) subscription.dispose();
    this.subscriptions.clear();
    const connections = [...this.connections.values()];
    this.connections.clear();
    await Promise.all([...connections.map((connection) => connection.dispose()), ...this.closing]);
    this.changed.dispose();
  }

  private async startOne(name: string): Promise<void> {
    const connection = this.connections.get(name);
    if (!connection || this.disposed || this.isDisabled(connection.config)) return;
    if (connection.state.kind !== 'idle') return connection.start();
    const config = connection.config;
    const allowed = await this.consent(config);
    if (this.connections.get(name) !== connection || this.disposed) return;
    if (!allowed) {
      this.changed.fire();
      return;
    }
    await connection.start();
  }

  private consent(config: McpServerConfig): Promise<boolean> {
    const canStart = this.options.canStart;
    if (!canStart || this.confirmed.has(config.hash)) return Promise.resolve(true);
    if (this.declined.has(config.hash)) return Promise.resolve(false);
    let pending = this.asking.get(config.hash);
    if (!pending) {
      pending = canStart(config)
        .catch((error: unknown) => {
          this.options.logger.warn(`MCP server "${config.name}": asking whether it may start failed: ${describeError(error)}`);
          return false;
        })
        .then((allowed) => {
          this.asking.delete(config.hash);
          if (allowed) this.confirmed.add(config.hash);
          else {
            this.declined.add(config.hash);
            this.options.logger.info(`MCP server "${config.name}" was not confirmed and stays stopped.`);
          }
          return allowed;
        });
      this.asking.set(config.hash, pending);
    }
    return pending;
  }

  private stateOf(config: McpServerConfig): McpServerState {
    if (this.isDisabled(config)) return { kind: 'disabled' };
    const connection = this.connections.get(config.name);
    if (!connection) return { kind: 'idle' };
    if (connection.state.kind === 'idle' && this.declined.has(config.hash)) {
      return {
        kind: 'failed',
        reason: `${MCP_NOT_CONFIRMED_PREFIX}: this server from ${config.source.label} starts only after you allow it. Use Restart to be asked again.`,
        stderr: [],
      };
    }
    return connection.state;
  }

  private isDisabled(config: McpServerConfig): boolean {
    return this.disabledOverride.get(config.name) ?? config.disabled ?? false;
  }

  private create(config: McpServerConfig): void {
    const connection = new McpConnection(forConnection(config), { logger: this.options.logger, clientInfo: this.options.clientInfo });
    this.connections.set(config.name, connection);
    this.subscriptions.set(config.name, connection.onDidChange(() => this.changed.fire()));
  }

  /** A fresh idle connection in place of the old one, which is closed in the background. */
  private replace(config: McpServerConfig): void {
    this.drop(config.name);
    this.create(config);
  }

  private drop(name: string): void {
    this.subscriptions.get(name)?.dispose();
    this.subscriptions.delete(name);
    const connection = this.connections.get(name);
    this.connections.delete(name);
    if (!connection) return;
    const closing = connection.dispose().finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }
}

/** The manager decides about disabled itself (setDisabled may override the config), so its connections never refuse for it. */
function forConnection(config: McpServerConfig): McpServerConfig {
  return config.disabled ? { ...config, disabled: false } : config;
}

function isRunning(state: McpServerState): boolean {
  return state.kind === 'starting' || state.kind === 'connected';
}
