/**
 * A small MCP server of our own for the bad-input tests: plain Node, newline-delimited JSON-RPC on
 * stdio, no SDK (so its misbehaviour is exactly what we choose). Run it as
 * `node misbehavingMcpServer.js <mode> [key=value …]`.
 *
 * Modes:
 * - `ok`               well behaved; tools echo, big, fails, hang, image, resources, structured
 * - `no-initialize`    reads requests and never answers
 * - `exit`             writes a line to stderr and exits at once with code 3
 * - `garbage`          prints non-JSON lines on stdout around every answer
 * - `flood-stderr`     writes `mb=<n>` megabytes (default 8) to stderr, then behaves
 * - `many-tools`       lists `tools=<n>` tools (default 500), `page=<n>` per page (default 100)
 * - `endless-cursor`   every tools/list page returns the same cursor
 * - `bad-schemas`      tools with a missing, non-object, huge (> 64 KB) schema and one without a name
 * - `rename`           tool names carry a generation; calling `rename` bumps it and sends list_changed
 *
 * `stubborn=1` (any mode) ignores SIGTERM and the end of stdin, so only SIGKILL ends it.
 * Every mode first writes `pid=<pid>` to stderr, so tests can check the process is gone after dispose.
 */
import * as readline from 'node:readline';

type Json = Record<string, unknown>;

const mode = process.argv[2] ?? 'ok';
const options = new Map<string, string>();
for (const arg of process.argv.slice(3)) {
  const eq = arg.indexOf('=');
  if (eq > 0) options.set(arg.slice(0, eq), arg.slice(eq + 1));
}
const numberOption = (key: string, fallback: number): number => {
  const value = Number(options.get(key));
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

process.stderr.write(`pid=${process.pid}\n`);

if (mode === 'exit') {
  process.stderr.write('fatal: the configuration file fake.toml is missing\n');
  process.exit(3);
}

let generation = 1;

function send(message: Json): void {
  if (mode === 'garbage') process.stdout.write('this is not JSON {{{\n');
  process.stdout.write(`${JSON.stringify(message)}\n`);
  if (mode === 'garbage') process.stdout.write('[1, 2, 3 not closed\n');
}

function answer(id: unknown, result: Json): void {
  send({ jsonrpc: '2.0', id, result });
}

function fail(id: unknown, code: number, message: string): void {
  send({ jsonrpc: '2.0', id, error: { code, message } });
}

function tool(name: string, inputSchema?: unknown, extra: Json = {}): Json {
  const result: Json = { name, description: `The ${name} tool`, ...extra };
  if (inputSchema !== undefined) result.inputSchema = inputSchema;
  return result;
}

const emptySchema = { type: 'object', properties: {} };

function allTools(): Json[] {
  switch (mode) {
    case 'many-tools':
    case 'endless-cursor': {
      const count = numberOption('tools', 500);
      return Array.from({ length: count }, (_, i) => tool(`tool_${i}`, emptySchema));
    }
    case 'bad-schemas': {
      const properties: Json = {};
      for (let i = 0; i < 2000; i++) properties[`field_${i}`] = { type: 'string', description: 'x'.repeat(40) };
      return [
        tool('fine', emptySchema),
        tool('no_schema'),
        tool('string_schema', { type: 'string' }),
        tool('array_schema', [1, 2]),
        tool('huge_schema', { type: 'object', properties }),
        { description: 'a tool without a name', inputSchema: emptySchema },
        tool('fine', emptySchema),
      ];
    }
    case 'rename':
      return [tool(`search_v${generation}`, emptySchema), tool('rename', emptySchema)];
    default:
      return [
        tool('echo', { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] }, {
          title: 'Echo',
          annotations: { readOnlyHint: true },
        }),
        tool('big', { type: 'object', properties: { mb: { type: 'number' } } }),
        tool('fails', emptySchema),
        tool('hang', emptySchema),
        tool('image', { type: 'object', properties: { kb: { type: 'number' } } }),
        tool('resources', emptySchema),
        tool('structured', emptySchema),
        tool('protocol_error', emptySchema),
      ];
  }
}

function listTools(id: unknown, params: Json | undefined): void {
  const tools = allTools();
  const page = mode === 'many-tools' || mode === 'endless-cursor' ? numberOption('page', 100) : tools.length;
  const cursor = typeof params?.cursor === 'string' ? params.cursor : '0';
  const start = mode === 'endless-cursor' ? 0 : Number(cursor);
  const end = start + page;
  const result: Json = { tools: tools.slice(start, end) };
  if (mode === 'endless-cursor') result.nextCursor = 'again';
  else if (end < tools.length) result.nextCursor = String(end);
  answer(id, result);
}

function text(value: string): Json {
  return { type: 'text', text: value };
}

function callTool(id: unknown, params: Json | undefined): void {
  const name = typeof params?.name === 'string' ? params.name : '';
  const args = (params?.arguments ?? {}) as Json;
  switch (name) {
    case 'echo':
      return answer(id, { content: [text(`Echo: ${String(args.message)}`)] });
    case 'big':
      return answer(id, { content: [text('y'.repeat(Math.round(Number(args.mb ?? 5) * 1024 * 1024)))] });
    case 'fails':
      return answer(id, { content: [text('The disk is full.')], isError: true });
    case 'hang':
      return; // never answers
    case 'image': {
      const bytes = Math.round(Number(args.kb ?? 1) * 1024);
      return answer(id, { content: [text('an image:'), { type: 'image', mimeType: 'image/png', data: Buffer.alloc(bytes, 7).toString('base64') }] });
    }
    case 'resources':
      return answer(id, {
        content: [
          { type: 'resource_link', uri: 'file:///notes/a.md', name: 'a.md', mimeType: 'text/markdown' },
          { type: 'resource', resource: { uri: 'file:///notes/b.txt', mimeType: 'text/plain', text: 'inside b' } },
          { type: 'resource', resource: { uri: 'file:///notes/c.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
        ],
      });
    case 'structured':
      return answer(id, { content: [], structuredContent: { answer: 42 } });
    case 'protocol_error':
      return fail(id, -32602, 'Invalid arguments for protocol_error');
    case 'rename':
      generation++;
      answer(id, { content: [text(`now generation ${generation}`)] });
      return send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    default:
      if (name === `search_v${generation}`) return answer(id, { content: [text(`searched with generation ${generation}`)] });
      return fail(id, -32602, `Unknown tool: ${name}`);
  }
}

function handle(message: Json): void {
  const id = message.id;
  const params = message.params as Json | undefined;
  if (id === undefined) return; // notifications: initialized, cancelled
  if (mode === 'no-initialize') return;
  switch (message.method) {
    case 'initialize':
      return answer(id, {
        protocolVersion: typeof params?.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: `misbehaving-${mode}`, version: '0.0.1' },
      });
    case 'tools/list':
      return listTools(id, params);
    case 'tools/call':
      return callTool(id, params);
    case 'ping':
      return answer(id, {});
    default:
      return fail(id, -32601, `Method not found: ${String(message.method)}`);
  }
}

function floodStderr(): Promise<void> {
  const total = numberOption('mb', 8) * 1024 * 1024;
  const line = `${'e'.repeat(1000)}\n`;
  const unbroken = 'u'.repeat(200_000); // a very long line without a newline
  let written = 0;
  return new Promise((resolve) => {
    const writeSome = (): void => {
      while (written < total) {
        const chunk = written % (10 * line.length) === 0 ? unbroken : line;
        written += chunk.length;
        if (!process.stderr.write(chunk)) {
          process.stderr.once('drain', writeSome);
          return;
        }
      }
      process.stderr.write('\nflood done\n');
      resolve();
    };
    writeSome();
  });
}

async function main(): Promise<void> {
  if (mode === 'flood-stderr') await floodStderr();
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    try {
      handle(JSON.parse(line) as Json);
    } catch {
      process.stderr.write(`could not read: ${line.slice(0, 80)}\n`);
    }
  });
  if (options.get('stubborn') === '1') {
    process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\n'));
    setInterval(() => undefined, 60_000);
  } else {
    lines.on('close', () => process.exit(0));
  }
}

void main();
