import { createHash } from 'node:crypto';
import { clipLine } from '../text/clip';
import { DEFAULT_MCP_TIMEOUTS } from './mcpServerConfig';
import type { McpConfigSource, McpServerConfig, McpTimeouts, McpTransportKind } from './mcpServerConfig';

/**
 * One server entry of any of the config shapes we read (`servers` / `mcpServers` maps, the settings)
 * turned into an McpServerConfig, or a problem. Kept apart from mcpConfig.ts, which finds the maps.
 */

/** A JSON path inside the file, for line numbers: ['servers', 'github', 'args']. */
export type McpConfigPath = readonly (string | number)[];

/** Reports one problem about an entry; `path` lets a file reader add its line and column. */
export type McpEntryReport = (message: string, path: McpConfigPath, server?: string) => void;

export const MCP_SERVER_NAME_MAX = 100;

/** Timeout bounds in seconds: below a second nothing connects; above these a hung server blocks too long. */
export const MCP_TIMEOUT_BOUNDS = {
  connect: { min: 1, max: 300 },
  list: { min: 1, max: 300 },
  call: { min: 1, max: 3600 },
} as const;

type Json = Record<string, unknown>;

export function isJsonObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** How a server name is shown in messages: on one line and short enough to read. */
export function shownServerName(name: string): string {
  return `"${clipLine(name, 60)}"`;
}

/** Why `name` cannot name a server, or undefined when it can. Names end up in tool names, logs and folders. */
export function mcpServerNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'Server names cannot be empty; give the entry a short name such as "github".';
  if (name.length > MCP_SERVER_NAME_MAX) {
    return `Server name ${shownServerName(name)} is ${name.length} characters long; the limit is ${MCP_SERVER_NAME_MAX}. Use a shorter key.`;
  }
  if (/[/\\]/.test(name) || /^\.+$/.test(name)) {
    return `Server name ${shownServerName(name)} looks like a path; use a plain name without "/", "\\" or a name made of dots.`;
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) return `Server name ${shownServerName(name)} holds control characters; use a plain name.`;
  return undefined;
}

/** `stdio`, `http`, `sse`, and the other spellings in use (`streamable-http`, `streamableHttp`). */
export function transportOf(type: string): McpTransportKind | undefined {
  const key = type.toLowerCase().replace(/[-_\s]/g, '');
  if (key === 'stdio') return 'stdio';
  if (key === 'http' || key === 'streamablehttp') return 'http';
  if (key === 'sse') return 'sse';
  return undefined;
}

/**
 * sha256 over a canonical JSON of what would run. The workspace folder is part of it: the same
 * `node ${workspaceFolder}/server.js` runs a different file in another folder, so consent given in
 * one folder must not carry over. Computed before variables are resolved, so no secret enters it.
 */
export function mcpServerHash(server: Pick<McpServerConfig, 'transport' | 'command' | 'args' | 'env' | 'envFile' | 'cwd' | 'url' | 'headers' | 'source'>): string {
  const sorted = (map: Readonly<Record<string, string>> | undefined) => (map ? Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : []);
  const canonical = [
    server.transport,
    server.command ?? null,
    server.args ?? [],
    sorted(server.env),
    server.envFile ?? null,
    server.cwd ?? null,
    server.url ?? null,
    sorted(server.headers),
    server.source.folder ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** A string map (env, headers): numbers are written as strings, `null` values (unset) are dropped. */
function stringMap(value: unknown, key: string, shown: string, report: McpEntryReport, path: McpConfigPath, name: string): Record<string, string> | undefined | false {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) {
    report(`Server ${shown}: "${key}" must be an object of names to strings, such as {"TOKEN": "\${env:TOKEN}"}.`, [...path, key], name);
    return false;
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' && Number.isFinite(v)) out[k] = String(v);
    else if (v !== null) {
      report(`Server ${shown}: "${key}.${k}" must be a string (it is ${describe(v)}).`, [...path, key, k], name);
      return false;
    }
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function optionalString(entry: Json, key: string, shown: string, report: McpEntryReport, path: McpConfigPath, name: string): string | undefined | false {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  report(`Server ${shown}: "${key}" must be a string (it is ${describe(value)}).`, [...path, key], name);
  return false;
}

function readTimeouts(value: unknown, shown: string, report: McpEntryReport, path: McpConfigPath, name: string): McpTimeouts {
  if (value === undefined) return DEFAULT_MCP_TIMEOUTS;
  if (!isJsonObject(value)) {
    report(`Server ${shown}: "timeouts" must be an object such as {"connect": 20, "list": 20, "call": 60} (seconds); the defaults are used.`, [...path, 'timeouts'], name);
    return DEFAULT_MCP_TIMEOUTS;
  }
  const ms = (key: keyof typeof MCP_TIMEOUT_BOUNDS, fallback: number): number => {
    const seconds = value[key];
    if (seconds === undefined) return fallback;
    const { min, max } = MCP_TIMEOUT_BOUNDS[key];
    if (typeof seconds !== 'number' || !Number.isFinite(seconds)) {
      report(`Server ${shown}: "timeouts.${key}" must be a number of seconds (${min}–${max}); the default ${fallback / 1000} s is used.`, [...path, 'timeouts', key], name);
      return fallback;
    }
    const clamped = Math.min(max, Math.max(min, seconds));
    if (clamped !== seconds) report(`Server ${shown}: "timeouts.${key}" is ${seconds} s; it must be ${min}–${max} s, so ${clamped} s is used.`, [...path, 'timeouts', key], name);
    return Math.round(clamped * 1000);
  };
  return { connectMs: ms('connect', DEFAULT_MCP_TIMEOUTS.connectMs), listMs: ms('list', DEFAULT_MCP_TIMEOUTS.listMs), callMs: ms('call', DEFAULT_MCP_TIMEOUTS.callMs) };
}

function readTransport(entry: Json, shown: string, report: McpEntryReport, path: McpConfigPath, name: string): McpTransportKind | undefined {
  const type = entry['type'];
  if (type === undefined) {
    // By presence, not type, so a wrong type is reported as such.
    if (entry['command'] !== undefined) return 'stdio';
    if (entry['url'] !== undefined) return 'http';
    report(`Server ${shown} has neither "command" (a program to start) nor "url" (a server to connect to); add one of them.`, path, name);
    return undefined;
  }
  const kind = typeof type === 'string' ? transportOf(type) : undefined;
  if (!kind) {
    report(`Server ${shown}: "type" ${JSON.stringify(type)} is not one we know; use "stdio", "http" (also "streamable-http") or "sse".`, [...path, 'type'], name);
  }
  return kind;
}

/** The entry as a server, or undefined after reporting why not. Our own keys with a bad value are reported and ignored. */
export function readServerEntry(name: string, value: unknown, source: McpConfigSource, report: McpEntryReport, path: McpConfigPath): McpServerConfig | undefined {
  const nameProblem = mcpServerNameProblem(name);
  if (nameProblem) {
    report(nameProblem, path, clipLine(name, 60));
    return undefined;
  }
  const shown = shownServerName(name);
  if (!isJsonObject(value)) {
    report(`Server ${shown} must be an object such as {"command": "node", "args": ["server.js"]} (it is ${describe(value)}).`, path, name);
    return undefined;
  }
  const transport = readTransport(value, shown, report, path, name);
  if (!transport) return undefined;
  // Counted, not flagged: a flag set inside the closure looks constant to the type checker.
  const failures: number[] = [];
  const fail = <T>(read: T | false): T | undefined => {
    if (read === false) failures.push(1);
    return read === false ? undefined : read;
  };
  const ok = () => failures.length === 0;
  let run: Pick<McpServerConfig, 'command' | 'args' | 'env' | 'envFile' | 'cwd' | 'url' | 'headers'>;
  if (transport === 'stdio') {
    const command = fail(optionalString(value, 'command', shown, report, path, name));
    if (ok() && (command === undefined || command.trim() === '')) {
      report(`Server ${shown} is a stdio server but has no "command"; add the program to start, such as "node" or "uvx".`, path, name);
      return undefined;
    }
    const args = value['args'];
    if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) {
      report(`Server ${shown}: "args" must be a list of strings, such as ["server.js", "--port", "3000"].`, [...path, 'args'], name);
      failures.push(1);
    }
    run = {
      command,
      args: Array.isArray(args) ? (args as string[]) : undefined,
      env: fail(stringMap(value['env'], 'env', shown, report, path, name)),
      envFile: fail(optionalString(value, 'envFile', shown, report, path, name)),
      cwd: fail(optionalString(value, 'cwd', shown, report, path, name)),
    };
  } else {
    const url = fail(optionalString(value, 'url', shown, report, path, name));
    if (ok() && (url === undefined || url.trim() === '')) {
      report(`Server ${shown} is an ${transport} server but has no "url"; add the address, such as "http://127.0.0.1:3000/mcp".`, path, name);
      return undefined;
    }
    if (ok() && url !== undefined && !url.includes('${') && !isHttpUrl(url)) {
      report(`Server ${shown}: "url" ${JSON.stringify(clipLine(url, 80))} is not an http:// or https:// address.`, [...path, 'url'], name);
      return undefined;
    }
    run = { url, headers: fail(stringMap(value['headers'], 'headers', shown, report, path, name)) };
  }
  if (!ok()) return undefined;

  const flag = (key: string): boolean | undefined => {
    const v = value[key];
    if (v === undefined || typeof v === 'boolean') return v;
    report(`Server ${shown}: "${key}" must be true or false; it is ignored.`, [...path, key], name);
    return undefined;
  };
  const exposeTools = flag('exposeTools');
  const disabled = flag('disabled');
  const autoApprove = readAutoApprove(value['autoApprove'], source, shown, report, path, name);
  const timeouts = readTimeouts(value['timeouts'], shown, report, path, name);
  const server: McpServerConfig = {
    name,
    source,
    transport,
    ...defined(run),
    ...(exposeTools !== undefined ? { exposeTools } : {}),
    ...(autoApprove !== undefined ? { autoApprove } : {}),
    ...(disabled !== undefined ? { disabled } : {}),
    timeouts,
    hash: '',
  };
  return { ...server, hash: mcpServerHash(server) };
}

function readAutoApprove(value: unknown, source: McpConfigSource, shown: string, report: McpEntryReport, path: McpConfigPath, name: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (source.origin !== 'skillwright') {
    report(
      `Server ${shown}: "autoApprove" is only honoured in the skillwright.mcp.servers user setting, so a shared or workspace file cannot approve calls for you; it is ignored here. Move the list to that setting to use it.`,
      [...path, 'autoApprove'],
      name,
    );
    return undefined;
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    report(`Server ${shown}: "autoApprove" must be a list of tool names as the server names them, such as ["echo"]; it is ignored.`, [...path, 'autoApprove'], name);
    return undefined;
  }
  return value;
}

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Only the keys that hold a value, so two configs of the same entry compare equal. */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
