import * as os from 'node:os';
import * as path from 'node:path';
import type { McpInputSpec } from './mcpConfig';
import type { McpServerConfig } from './mcpServerConfig';
import { isHttpUrl, shownServerName } from './mcpServerEntry';

/**
 * Fills in the variables of a server entry (`${workspaceFolder}`, `${env:NAME}`, `${input:id}`, …)
 * just before it starts, and folds its envFile into `env`. The entry's hash stays that of the
 * unresolved entry, so no secret value ever enters it.
 */

export interface McpVariableResolver {
  /** `${workspaceFolder}` when the entry's source names no folder (user settings). */
  readonly workspaceFolder?: string;
  /** `${userHome}`; os.homedir() when absent. */
  readonly userHome?: string;
  env(name: string): string | undefined;
  /** Asks for `${input:id}` (the host keeps answers in SecretStorage); undefined when none was given. */
  input(spec: McpInputSpec | undefined, id: string): Promise<string | undefined>;
}

export type McpResolveResult = { ok: true; server: McpServerConfig } | { ok: false; error: string };

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

const VARIABLE = /\$\{([^}]*)\}/g;

/**
 * KEY=VALUE lines as dotenv writes them: `#` comments, an optional `export ` prefix, values in
 * single quotes (taken as they are) or double quotes (\n, \t, \" and \\ escapes), and unquoted
 * values trimmed and cut at ` #`. Lines without a valid name are skipped.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r\n|\n|\r/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(raw);
    if (!match) continue;
    const [, key = '', rest = ''] = match;
    out[key] = envValue(rest);
  }
  return out;
}

function envValue(rest: string): string {
  const quote = rest[0];
  if (quote === "'" || quote === '"' || quote === '`') {
    const end = rest.indexOf(quote, 1);
    if (end > 0) {
      const inner = rest.slice(1, end);
      if (quote !== '"') return inner;
      // A closing quote preceded by a backslash is escaped: find the real end.
      const full = /^"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1] ?? inner;
      return full.replace(/\\([nrt"\\])/g, (_, c: string) => ESCAPES[c] ?? c);
    }
  }
  return rest.replace(/\s+#.*$/, '').trim();
}

/** Every string of the entry that may hold variables. */
function stringsOf(server: McpServerConfig): string[] {
  return [
    server.command,
    ...(server.args ?? []),
    ...Object.values(server.env ?? {}),
    server.envFile,
    server.cwd,
    server.url,
    ...Object.values(server.headers ?? {}),
  ].filter((s): s is string => s !== undefined);
}

function basename(folder: string): string {
  const parts = folder.split(/[/\\]+/).filter((p) => p !== '');
  return parts[parts.length - 1] ?? folder;
}

/**
 * The entry with every variable filled in, its envFile read into `env` (explicit `env` entries win)
 * and a relative `cwd` or `envFile` taken from the workspace folder. Each `${input:id}` is asked once
 * per call however often it appears, and only after every variable name was checked, so a broken
 * entry never asks for a password first. An unknown variable, a missing folder, input or envFile is
 * an error that names the variable and the server.
 */
export async function resolveMcpServer(
  server: McpServerConfig,
  inputs: readonly McpInputSpec[],
  resolver: McpVariableResolver,
  readEnvFile: (file: string) => Promise<string | undefined>,
): Promise<McpResolveResult> {
  const who = `MCP server ${shownServerName(server.name)} (${server.source.label})`;
  const folder = server.source.folder ?? resolver.workspaceFolder;
  const values = new Map<string, string>();
  const asks: string[] = [];
  for (const text of stringsOf(server)) {
    for (const match of text.matchAll(VARIABLE)) {
      const name = match[1] ?? '';
      if (values.has(name) || asks.includes(name)) continue;
      const known = knownValue(name, folder, resolver);
      if (typeof known === 'object') values.set(name, known.value);
      else if (known === 'input') asks.push(name);
      else if (known === 'no-folder') return { ok: false, error: `${who} uses \${${name}}, but no workspace folder is open. Open the folder, or write the path out in the entry.` };
      else {
        return {
          ok: false,
          error: `${who} uses \${${name}}, which is not a variable Skillwright knows. Use \${workspaceFolder}, \${workspaceFolderBasename}, \${userHome}, \${env:NAME} or \${input:id}.`,
        };
      }
    }
  }
  for (const name of asks) {
    const id = name.slice('input:'.length);
    const spec = inputs.find((input) => input.id === id);
    const answer = await resolver.input(spec, id);
    if (answer === undefined) {
      const what = spec?.description ? ` ("${spec.description}")` : '';
      return { ok: false, error: `${who} needs a value for \${input:${id}}${what}, and none was entered. Start the server again and enter the value.` };
    }
    values.set(name, answer);
  }
  const fill = (text: string) => text.replace(VARIABLE, (_, name: string) => values.get(name) ?? '');
  const fillMap = (map: Readonly<Record<string, string>> | undefined) => (map ? Object.fromEntries(Object.entries(map).map(([k, v]) => [k, fill(v)])) : undefined);
  const inFolder = (p: string) => (folder !== undefined && !path.isAbsolute(p) ? path.resolve(folder, p) : p);

  const envFile = server.envFile !== undefined ? inFolder(fill(server.envFile)) : undefined;
  let env = fillMap(server.env);
  if (envFile !== undefined) {
    const text = await readEnvFile(envFile);
    if (text === undefined) return { ok: false, error: `${who}: its envFile ${JSON.stringify(envFile)} could not be read. Create the file or fix the "envFile" path.` };
    env = { ...parseEnvFile(text), ...env };
  }
  const url = server.url !== undefined ? fill(server.url) : undefined;
  if (url !== undefined && !isHttpUrl(url)) {
    return { ok: false, error: `${who}: its url is not an http:// or https:// address once variables are filled in; check the "url" and the values it uses.` };
  }
  const resolved: McpServerConfig = {
    ...server,
    ...(server.command !== undefined ? { command: fill(server.command) } : {}),
    ...(server.args !== undefined ? { args: server.args.map(fill) } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(envFile !== undefined ? { envFile } : {}),
    ...(server.cwd !== undefined ? { cwd: inFolder(fill(server.cwd)) } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(server.headers !== undefined ? { headers: fillMap(server.headers) } : {}),
  };
  return { ok: true, server: resolved };
}

/** A variable's value, 'input' for one to ask, or why it has none. */
function knownValue(name: string, folder: string | undefined, resolver: McpVariableResolver): { value: string } | 'input' | 'no-folder' | 'unknown' {
  if (name === 'workspaceFolder') return folder !== undefined ? { value: folder } : 'no-folder';
  if (name === 'workspaceFolderBasename') return folder !== undefined ? { value: basename(folder) } : 'no-folder';
  if (name === 'userHome') return { value: resolver.userHome ?? os.homedir() };
  if (name === 'pathSeparator' || name === '/') return { value: path.sep };
  // An unset variable is empty, as in VS Code.
  if (name.startsWith('env:') && name.length > 'env:'.length) return { value: resolver.env(name.slice('env:'.length)) ?? '' };
  if (name.startsWith('input:') && name.length > 'input:'.length) return 'input';
  return 'unknown';
}
