import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { lineAt, lineStarts } from '../text/lines';
import type { McpConfigSource, McpServerConfig } from './mcpServerConfig';
import { isJsonObject, readServerEntry, shownServerName } from './mcpServerEntry';
import type { McpConfigPath, McpEntryReport } from './mcpServerEntry';

/**
 * Reads the MCP configuration people already have: `.vscode/mcp.json` (`{"inputs", "servers"}`),
 * `.mcp.json` and other tools' files (`{"mcpServers"}`), and the settings objects of the same shape.
 * Nothing here throws on bad input: every problem is reported and the rest still comes back.
 */

export interface McpInputSpec {
  readonly id: string;
  readonly description?: string;
  readonly password: boolean;
  readonly type: 'promptString' | 'pickString';
  readonly options?: readonly string[];
  readonly default?: string;
}

export interface McpConfigProblem {
  /** The source's label: where to look. */
  readonly label: string;
  readonly file?: string;
  /** 1-based, when the problem is in a file. */
  readonly line?: number;
  readonly column?: number;
  readonly server?: string;
  readonly message: string;
}

export interface McpConfigRead {
  readonly servers: McpServerConfig[];
  readonly inputs: McpInputSpec[];
  readonly problems: McpConfigProblem[];
}

/** Syntax errors reported per file; after these the rest would mostly repeat the first. */
const MAX_SYNTAX_PROBLEMS = 5;

const SYNTAX_HINTS: Record<string, string> = {
  InvalidSymbol: 'an unexpected character',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'a property name in double quotes is expected',
  ValueExpected: 'a value is expected',
  ColonExpected: 'a ":" is expected',
  CommaExpected: 'a "," is expected',
  CloseBraceExpected: 'a "}" is expected',
  CloseBracketExpected: 'a "]" is expected',
  EndOfFileExpected: 'the file should end here',
  InvalidCommentToken: 'a malformed comment',
  UnexpectedEndOfComment: 'a comment that is never closed',
  UnexpectedEndOfString: 'a string that is never closed',
  UnexpectedEndOfNumber: 'a number that ends too early',
  InvalidUnicode: 'a malformed \\u escape',
  InvalidEscapeCharacter: 'an unknown escape after "\\"',
  InvalidCharacter: 'a character not allowed in a string',
};

type Locate = (path: McpConfigPath) => { line: number; column: number } | undefined;

class Collector {
  readonly problems: McpConfigProblem[] = [];
  constructor(
    private readonly source: McpConfigSource,
    private readonly locate: Locate,
  ) {}

  readonly report: McpEntryReport = (message, path, server) => {
    const at = this.locate(path);
    this.problems.push({
      label: this.source.label,
      ...(this.source.file !== undefined ? { file: this.source.file } : {}),
      ...(at ?? {}),
      ...(server !== undefined ? { server } : {}),
      message,
    });
  };
}

/**
 * A config file's text (JSON with comments and trailing commas). A file with a syntax error gives
 * no servers at all, only its errors with line and column: a half-read entry could start a program
 * with the wrong arguments.
 */
export function parseMcpConfigText(text: string, source: McpConfigSource): McpConfigRead {
  // A byte-order mark becomes a space so offsets (and so columns) stay those of the file.
  const body = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const starts = lineStarts(body);
  const position = (offset: number) => {
    const line = lineAt(starts, offset);
    return { line: line + 1, column: offset - (starts[line] ?? 0) + 1 };
  };
  const errors: ParseError[] = [];
  const tree = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length > 0) {
    const problems: McpConfigProblem[] = [];
    const shown = errors.slice(0, MAX_SYNTAX_PROBLEMS);
    shown.forEach((error, i) => {
      const at = position(error.offset);
      const what = SYNTAX_HINTS[printParseErrorCode(error.error)] ?? 'a syntax error';
      const tail = i === 0 ? ' None of the servers in this file are used until it parses; fix the JSON there (comments and trailing commas are fine).' : '';
      problems.push({ ...problemBase(source), ...at, message: `Syntax error at line ${at.line}, column ${at.column}: ${what}.${tail}` });
    });
    if (errors.length > shown.length) {
      problems.push({ ...problemBase(source), message: `${errors.length - shown.length} more syntax errors follow; fix the ones above first.` });
    }
    return { servers: [], inputs: [], problems };
  }
  if (!tree) return { servers: [], inputs: [], problems: [] };
  const locate: Locate = (path) => {
    const node = findNodeAtLocation(tree, [...path]);
    return node ? position(node.offset) : undefined;
  };
  return readConfigValue(getNodeValue(tree) as unknown, source, new Collector(source, locate), 'file');
}

function problemBase(source: McpConfigSource): { label: string; file?: string } {
  return { label: source.label, ...(source.file !== undefined ? { file: source.file } : {}) };
}

/**
 * A settings value: the servers map itself (`mcp.servers`, our skillwright.mcp.servers), or an object
 * with `servers` / `mcpServers` and `inputs` (the whole `mcp` setting). Unset is an empty read.
 */
export function mcpConfigFromSetting(value: unknown, source: McpConfigSource): McpConfigRead {
  if (value === undefined || value === null) return { servers: [], inputs: [], problems: [] };
  return readConfigValue(value, source, new Collector(source, () => undefined), 'setting');
}

/** An entry-like object: what a server entry has and a map of entries does not. */
function looksLikeEntry(value: unknown): boolean {
  return isJsonObject(value) && (typeof value['command'] === 'string' || typeof value['url'] === 'string' || typeof value['type'] === 'string');
}

function isWrapper(value: Record<string, unknown>): boolean {
  const map = (key: string) => isJsonObject(value[key]) && !looksLikeEntry(value[key]);
  return map('servers') || map('mcpServers') || Array.isArray(value['inputs']);
}

function readConfigValue(value: unknown, source: McpConfigSource, collector: Collector, kind: 'file' | 'setting'): McpConfigRead {
  const report = collector.report;
  if (!isJsonObject(value)) {
    const shape = kind === 'file' ? 'a JSON object such as {"servers": {"name": {"command": "node", "args": ["server.js"]}}}' : 'an object of server names to entries';
    report(`This must be ${shape}.`, []);
    return { servers: [], inputs: [], problems: collector.problems };
  }
  const servers: McpServerConfig[] = [];
  const seen = new Set<string>();
  const readMap = (map: unknown, path: McpConfigPath) => {
    if (!isJsonObject(map)) {
      report(`"${path.join('.')}" must be an object of server names to entries.`, path);
      return;
    }
    for (const [name, entry] of Object.entries(map)) {
      if (seen.has(name)) {
        report(`Server ${shownServerName(name)} is defined under both "servers" and "mcpServers"; the first is used. Remove one of them.`, [...path, name], name);
        continue;
      }
      const server = readServerEntry(name, entry, source, report, [...path, name]);
      if (server) {
        seen.add(name);
        servers.push(server);
      }
    }
  };
  if (kind === 'setting' && !isWrapper(value)) {
    readMap(value, []);
    return { servers, inputs: [], problems: collector.problems };
  }
  const hasMap = value['servers'] !== undefined || value['mcpServers'] !== undefined;
  if (value['servers'] !== undefined) readMap(value['servers'], ['servers']);
  if (value['mcpServers'] !== undefined) readMap(value['mcpServers'], ['mcpServers']);
  if (!hasMap) {
    const strays = Object.keys(value).filter((key) => looksLikeEntry(value[key]));
    if (strays.length > 0) {
      report(`Server entries (${strays.map(shownServerName).join(', ')}) must sit inside a "servers" object: {"servers": {${shownServerName(strays[0] ?? '')}: {...}}}.`, []);
    }
  }
  const inputs = value['inputs'] === undefined ? [] : readInputs(value['inputs'], report);
  return { servers, inputs, problems: collector.problems };
}

function readInputs(value: unknown, report: McpEntryReport): McpInputSpec[] {
  if (!Array.isArray(value)) {
    report('"inputs" must be a list such as [{"id": "token", "type": "promptString", "password": true}].', ['inputs']);
    return [];
  }
  const inputs: McpInputSpec[] = [];
  value.forEach((raw: unknown, i) => {
    const path = ['inputs', i];
    const id = isJsonObject(raw) ? raw['id'] : undefined;
    if (!isJsonObject(raw) || typeof id !== 'string' || id.trim() === '') {
      report(`Input ${i + 1} needs an "id" (a non-empty string) that servers refer to as \${input:id}.`, path);
      return;
    }
    if (inputs.some((input) => input.id === id)) {
      report(`Input "${id}" is defined twice; the first is used. Remove or rename the other.`, path);
      return;
    }
    const type = raw['type'] ?? 'promptString';
    if (type !== 'promptString' && type !== 'pickString') {
      report(`Input "${id}": type ${JSON.stringify(type)} is not supported; use "promptString" or "pickString". Skillwright asks for the value as free text.`, [...path, 'type']);
      return;
    }
    const text = (key: string) => (typeof raw[key] === 'string' ? raw[key] : undefined);
    const description = text('description');
    const fallback = text('default');
    let options: string[] | undefined;
    if (type === 'pickString') {
      const list = Array.isArray(raw['options']) ? (raw['options'] as unknown[]) : [];
      // VS Code takes plain strings or {label, value} objects.
      options = list.flatMap((o) => (typeof o === 'string' ? [o] : isJsonObject(o) && typeof o['value'] === 'string' ? [o['value']] : []));
      if (options.length === 0) {
        report(`Input "${id}" is a pickString without "options"; add a list such as ["a", "b"].`, [...path, 'options']);
        return;
      }
    }
    inputs.push({
      id,
      type,
      password: raw['password'] === true,
      ...(description !== undefined ? { description } : {}),
      ...(options ? { options } : {}),
      ...(fallback !== undefined ? { default: fallback } : {}),
    });
  });
  return inputs;
}

/**
 * The first read in this order wins a name: skillwright.mcp.servers (ours, the most deliberate),
 * then `.vscode/mcp.json`, then other workspace files (`.mcp.json`), then the user's `mcp.servers`
 * (workspace over user, as VS Code settings go). Ties keep the order given (first workspace folder
 * first). Each loser is reported; inputs with the same id keep the first.
 */
export function mergeMcpConfigs(reads: readonly McpConfigRead[]): McpConfigRead {
  const ranked = reads.map((read, index) => ({ read, index, rank: Math.min(3, ...read.servers.map(rankOf)) }));
  const servers: McpServerConfig[] = [];
  const winners = new Map<string, McpServerConfig>();
  const problems: McpConfigProblem[] = reads.flatMap((read) => read.problems);
  const all = ranked.flatMap(({ read, index }) => read.servers.map((server) => ({ server, index })));
  all.sort((a, b) => rankOf(a.server) - rankOf(b.server) || a.index - b.index);
  for (const { server } of all) {
    const winner = winners.get(server.name);
    if (!winner) {
      winners.set(server.name, server);
      servers.push(server);
      continue;
    }
    problems.push({
      label: server.source.label,
      ...(server.source.file !== undefined ? { file: server.source.file } : {}),
      server: server.name,
      message: `Server ${shownServerName(server.name)} is also defined in ${winner.source.label}, which wins; this one is not used. Rename one of them to use both.`,
    });
  }
  const inputs = new Map<string, McpInputSpec>();
  for (const { read } of [...ranked].sort((a, b) => a.rank - b.rank || a.index - b.index)) {
    for (const input of read.inputs) if (!inputs.has(input.id)) inputs.set(input.id, input);
  }
  return { servers, inputs: [...inputs.values()], problems };
}

function rankOf(server: McpServerConfig): number {
  const { origin, file } = server.source;
  if (origin === 'skillwright') return 0;
  if (origin === 'user') return 3;
  return file !== undefined && /(^|[/\\])\.vscode[/\\]mcp\.json$/.test(file) ? 1 : 2;
}
