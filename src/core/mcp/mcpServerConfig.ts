/**
 * One MCP server as configured, after reading (mcpConfig.ts) and before variables are resolved.
 * Shared by the config reader, the connection manager and the host, so each reads the same shape.
 */

/** Where a server's entry came from; decides trust (workspace files need consent) and what may auto-approve. */
export type McpConfigOrigin = 'workspace' | 'user' | 'skillwright';

export interface McpConfigSource {
  readonly origin: McpConfigOrigin;
  /** What the user sees: ".vscode/mcp.json in app", "User settings (mcp.servers)", our skillwright.mcp.servers setting. */
  readonly label: string;
  /** The file it was read from, when it was a file. */
  readonly file?: string;
  /** The workspace folder that `${workspaceFolder}` stands for, for workspace entries. */
  readonly folder?: string;
}

export type McpTransportKind = 'stdio' | 'http' | 'sse';

export interface McpTimeouts {
  readonly connectMs: number;
  readonly listMs: number;
  readonly callMs: number;
}

export const DEFAULT_MCP_TIMEOUTS: McpTimeouts = { connectMs: 20_000, listMs: 20_000, callMs: 60_000 };

export interface McpServerConfig {
  /** The key of the entry, as written (may be anything; tool names sanitise it). */
  readonly name: string;
  readonly source: McpConfigSource;
  readonly transport: McpTransportKind;
  /** stdio */
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly envFile?: string;
  readonly cwd?: string;
  /** http / sse */
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Ours: list this server's tools as native function tools instead of the budgeted listing. */
  readonly exposeTools?: boolean;
  /** Ours: tool names (as the server names them) called without asking. Honoured only from the `skillwright` origin. */
  readonly autoApprove?: readonly string[];
  readonly disabled?: boolean;
  readonly timeouts: McpTimeouts;
  /** A hash of what would run (transport, command, args, env, url, headers): consent is remembered per hash. */
  readonly hash: string;
}
