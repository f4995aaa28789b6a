import { createHash } from 'node:crypto';

/**
 * The names the model calls MCP tools by: `mcp__<server>__<tool>`, in the characters and length
 * every provider accepts for a function name (`^[A-Za-z0-9_-]{1,64}$`).
 */

export const MCP_TOOL_NAME_MAX = 64;

const HASH_CHARS = 8;

function sanitize(part: string): string {
  const clean = part.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

function shortHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, HASH_CHARS);
}

/** `name` ending in `_<hash of key>`, cut so the whole stays within the limit. */
function withHash(name: string, key: string): string {
  const suffix = `_${shortHash(key)}`;
  return name.length + suffix.length <= MCP_TOOL_NAME_MAX ? name + suffix : name.slice(0, MCP_TOOL_NAME_MAX - suffix.length) + suffix;
}

function hashKey(server: string, tool: string, attempt = 0): string {
  return attempt === 0 ? `${server}\u0000${tool}` : `${server}\u0000${tool}\u0000${attempt}`;
}

/**
 * The plain name of a server's tool. Past MCP_TOOL_NAME_MAX it is cut and ends in a hash of the
 * full server and tool names, so two long names that share a beginning stay apart.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${sanitize(server)}__${sanitize(tool)}`;
  return full.length <= MCP_TOOL_NAME_MAX ? full : withHash(full, hashKey(server, tool));
}

/** What a model may have done to a name: swapped `-` and `_`, changed case. */
function looseKey(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Owner {
  readonly server: string;
  readonly tool: string;
}

/**
 * Unique names for the tools of every connected server. A name that is taken (two servers or two
 * tools sanitise alike, `a.b` and `a_b`) gets a hash suffix. A server that lists its tools again
 * keeps the names it had, so the names a conversation already used stay valid; among new tools the
 * one whose own name is clean gets the plain name, whatever order the server lists them in.
 */
export class McpToolNameTable {
  private readonly owners = new Map<string, Owner>();
  private readonly byServer = new Map<string, Map<string, string>>();
  private readonly loose = new Map<string, Set<string>>();

  /** Tool (as the server names it) → its unique name, in the order given. Replaces the server's earlier assignment. */
  assign(server: string, tools: readonly string[]): Map<string, string> {
    const previous = this.byServer.get(server) ?? new Map<string, string>();
    this.removeServer(server);
    const unique = [...new Set(tools)];
    const kept = unique.filter((tool) => previous.has(tool));
    const fresh = unique
      .filter((tool) => !previous.has(tool))
      .sort((a, b) => Number(sanitize(b) === b) - Number(sanitize(a) === a) || compareText(a, b));
    const names = new Map<string, string>();
    for (const tool of kept) {
      const name = previous.get(tool) as string;
      this.add(server, tool, this.owners.has(name) ? this.pick(server, tool) : name, names);
    }
    for (const tool of fresh) this.add(server, tool, this.pick(server, tool), names);
    this.byServer.set(server, names);
    return new Map(unique.map((tool) => [tool, names.get(tool) as string]));
  }

  /** The server and tool a name stands for; also a name with `-`/`_` swapped or another case, when only one name matches. */
  resolve(name: string): Owner | undefined {
    const exact = this.owners.get(name);
    if (exact) return exact;
    const matches = this.loose.get(looseKey(name));
    if (!matches || matches.size !== 1) return undefined;
    const [only] = matches;
    return only === undefined ? undefined : this.owners.get(only);
  }

  /** The name assigned to a server's tool, if any. */
  nameOf(server: string, tool: string): string | undefined {
    return this.byServer.get(server)?.get(tool);
  }

  /** Every assigned name, sorted. */
  names(): string[] {
    return [...this.owners.keys()].sort(compareText);
  }

  removeServer(server: string): void {
    const names = this.byServer.get(server);
    if (!names) return;
    for (const name of names.values()) {
      this.owners.delete(name);
      const key = looseKey(name);
      const set = this.loose.get(key);
      set?.delete(name);
      if (set?.size === 0) this.loose.delete(key);
    }
    this.byServer.delete(server);
  }

  private pick(server: string, tool: string): string {
    const plain = mcpToolName(server, tool);
    if (!this.owners.has(plain)) return plain;
    const full = `mcp__${sanitize(server)}__${sanitize(tool)}`;
    for (let attempt = 0; ; attempt++) {
      const name = withHash(full, hashKey(server, tool, attempt));
      if (!this.owners.has(name)) return name;
    }
  }

  private add(server: string, tool: string, name: string, names: Map<string, string>): void {
    this.owners.set(name, { server, tool });
    const key = looseKey(name);
    const set = this.loose.get(key) ?? new Set<string>();
    set.add(name);
    this.loose.set(key, set);
    names.set(tool, name);
  }
}
