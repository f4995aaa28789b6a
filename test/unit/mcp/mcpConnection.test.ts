import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { McpConnection } from '../../../src/core/mcp/mcpConnection';
import type { McpServerConfig } from '../../../src/core/mcp/mcpServerConfig';
import type { RecordingLogger } from './mcpTestServers';
import {
  clientInfo,
  everythingServer,
  fakeConfig,
  fakePid,
  filesystemServer,
  freePort,
  httpConfig,
  isAlive,
  recordingLogger,
  startEverythingHttp,
  stdioConfig,
} from './mcpTestServers';

const started: McpConnection[] = [];
const pids = new Set<number>();

function connect(config: McpServerConfig, logger: RecordingLogger = recordingLogger()): McpConnection {
  const connection = new McpConnection(config, { logger, clientInfo });
  started.push(connection);
  return connection;
}

function remember(connection: McpConnection): number {
  const pid = connection.pid ?? fakePid(connection.stderrTail);
  pids.add(pid);
  return pid;
}

function until(connection: McpConnection, condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (condition()) return resolve();
    const subscription = connection.onDidChange(() => {
      if (condition()) {
        subscription.dispose();
        resolve();
      }
    });
  });
}

function failedReason(connection: McpConnection): string {
  const state = connection.state;
  assert.equal(state.kind, 'failed', `expected failed, got ${JSON.stringify(state)}`);
  return state.kind === 'failed' ? state.reason : '';
}

describe('McpConnection', function () {
  this.timeout(30_000);

  after(async () => {
    await Promise.all(started.map((connection) => connection.dispose()));
    const alive = [...pids].filter(isAlive);
    assert.deepEqual(alive, [], 'server processes left running');
  });

  describe('with the reference servers', () => {
    it('starts only when asked, then lists and calls everything\'s tools over stdio', async () => {
      const connection = connect(stdioConfig('everything', [everythingServer, 'stdio']));
      assert.deepEqual(connection.state, { kind: 'idle' });
      assert.equal(connection.pid, undefined);
      await Promise.all([connection.start(), connection.start()]);
      assert.equal(connection.state.kind, 'connected');
      const pid = remember(connection);
      const echo = connection.tools.find((tool) => tool.name === 'echo');
      assert.equal(echo?.readOnlyHint, true);
      assert.equal(echo?.title, 'Echo Tool');
      assert.deepEqual(connection.state, { kind: 'connected', tools: connection.tools.length });

      const echoed = await connection.callTool('echo', { message: 'hello' });
      assert.equal(echoed.text, 'Echo: hello');
      assert.equal(echoed.isError, false);

      const image = await connection.callTool('get-tiny-image', {});
      assert.match(image.images[0]?.dataUri ?? '', /^data:image\/png;base64,/);

      const links = await connection.callTool('get-resource-links', { count: 2 });
      assert.equal(links.resources.length, 2);
      assert.match(links.resources[0]?.uri ?? '', /^demo:\/\//);

      const structured = await connection.callTool('get-structured-content', { location: 'New York' });
      assert.equal(typeof (structured.structured as { temperature?: unknown }).temperature, 'number');

      const unknown = await connection.callTool('no-such-tool', {});
      assert.equal(unknown.failure, 'unknown-tool');
      assert.match(unknown.text, /has no tool "no-such-tool".*echo/);

      const stop = new AbortController();
      const long = connection.callTool('trigger-long-running-operation', { duration: 30, steps: 30 }, stop.signal);
      setImmediate(() => stop.abort());
      const cancelled = await long;
      assert.equal(cancelled.failure, 'cancelled');

      connection.updateConfig({ ...connection.config, timeouts: { ...connection.config.timeouts, callMs: 300 } });
      const timedOut = await connection.callTool('trigger-long-running-operation', { duration: 5, steps: 5 });
      assert.equal(timedOut.failure, 'timeout');
      assert.match(timedOut.text, /did not answer within 0.3 s/);

      assert.equal((await connection.callTool('echo', { message: 'still here' })).text, 'Echo: still here');
      await connection.dispose();
      assert.equal(isAlive(pid), false);
    });

    it('writes and reads a file through the filesystem server', async () => {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-mcp-fs-')));
      try {
        const connection = connect(stdioConfig('files', [filesystemServer, dir]));
        await connection.start();
        remember(connection);
        assert.ok(connection.tools.some((tool) => tool.name === 'write_file'));
        const file = path.join(dir, 'note.txt');
        const written = await connection.callTool('write_file', { path: file, content: 'from the test' });
        assert.equal(written.isError, false, written.text);
        assert.equal(fs.readFileSync(file, 'utf8'), 'from the test');
        const outside = await connection.callTool('write_file', { path: path.join(os.tmpdir(), 'outside.txt'), content: 'x' });
        assert.equal(outside.isError, true);
        await connection.dispose();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('connects to everything over Streamable HTTP', async () => {
      const server = await startEverythingHttp('streamableHttp');
      try {
        const logger = recordingLogger();
        const connection = connect(httpConfig('remote', server.url), logger);
        await connection.start();
        assert.equal(connection.state.kind, 'connected', JSON.stringify(connection.state));
        assert.ok(logger.has('info', /over http/));
        assert.equal((await connection.callTool('echo', { message: 'over http' })).text, 'Echo: over http');
        await connection.dispose();
      } finally {
        await server.close();
      }
    });

    it('falls back to SSE when the server does not speak Streamable HTTP', async () => {
      const server = await startEverythingHttp('sse');
      try {
        const logger = recordingLogger();
        const connection = connect(httpConfig('old', server.url), logger);
        await connection.start();
        assert.equal(connection.state.kind, 'connected', JSON.stringify(connection.state));
        assert.ok(logger.has('info', /over sse/));
        assert.equal((await connection.callTool('echo', { message: 'over sse' })).text, 'Echo: over sse');
        await connection.dispose();
      } finally {
        await server.close();
      }
    });

    it('says what is wrong with an HTTP address that is not an MCP server', async () => {
      const server = http.createServer((_request, response) => {
        response.statusCode = 404;
        response.end('not here');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        const notMcp = connect(httpConfig('wrong', `http://127.0.0.1:${port}/mcp`));
        await notMcp.start();
        assert.match(failedReason(notMcp), /HTTP 404.*SSE/);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      const nobody = connect(httpConfig('gone', `http://127.0.0.1:${await freePort()}/mcp`));
      await nobody.start();
      assert.match(failedReason(nobody), /Nothing is listening/);
      const bad = connect(httpConfig('typo', 'localhost:3000'));
      await bad.start();
      assert.match(failedReason(bad), /http:\/\/ or https:\/\//);
    });
  });

  describe('with a misbehaving server', () => {
    it('caps a 5 MB result, keeps isError, describes large images and ends a hanging call on abort', async () => {
      const connection = connect(fakeConfig('fake', 'ok'));
      await connection.start();
      const pid = remember(connection);

      const big = await connection.callTool('big', { mb: 5 });
      assert.ok(big.text.length < 100_200);
      assert.match(big.text, /5,142,880 of 5,242,880 characters not shown/);

      const failed = await connection.callTool('fails', {});
      assert.equal(failed.isError, true);
      assert.equal(failed.failure, undefined);
      assert.equal(failed.text, 'The disk is full.');

      const refused = await connection.callTool('protocol_error', {});
      assert.equal(refused.failure, 'protocol');
      assert.match(refused.text, /refused the call to "protocol_error": Invalid arguments/);

      const small = await connection.callTool('image', { kb: 1 });
      assert.match(small.images[0]?.dataUri ?? '', /^data:image\/png;base64,/);
      const large = await connection.callTool('image', { kb: 300 });
      assert.equal(large.images[0]?.dataUri, undefined);
      assert.equal(large.images[0]?.bytes, 300 * 1024);

      const resources = await connection.callTool('resources', {});
      assert.deepEqual(
        resources.resources.map((resource) => resource.uri),
        ['file:///notes/a.md', 'file:///notes/b.txt', 'file:///notes/c.bin'],
      );
      assert.match(resources.text, /inside b/);

      const stop = new AbortController();
      const hanging = connection.callTool('hang', {}, stop.signal);
      setImmediate(() => stop.abort());
      assert.equal((await hanging).failure, 'cancelled');
      assert.equal((await connection.callTool('echo', { message: 'after' })).text, 'Echo: after');

      await connection.dispose();
      assert.equal(isAlive(pid), false);
    });

    it('kills a server that ignores the end of stdin and SIGTERM', async () => {
      const connection = connect(fakeConfig('stubborn', 'ok', ['stubborn=1']));
      await connection.start();
      const pid = remember(connection);
      const stop = new AbortController();
      const hanging = connection.callTool('hang', {}, stop.signal);
      setImmediate(() => stop.abort());
      assert.equal((await hanging).failure, 'cancelled');
      await connection.dispose();
      assert.equal(isAlive(pid), false);
    });

    it('fails a server that never answers initialize within the connect timeout', async () => {
      const connection = connect(fakeConfig('silent', 'no-initialize', [], { connectMs: 800 }));
      await connection.start();
      assert.match(failedReason(connection), /did not answer "initialize" within 0.8 s/);
      const pid = fakePid(connection.stderrTail);
      pids.add(pid);
      assert.equal(isAlive(pid), false);
    });

    it('fails a server that exits at once, with its exit code and stderr', async () => {
      const connection = connect(fakeConfig('quitter', 'exit'));
      await connection.start();
      assert.match(failedReason(connection), /exited with code 3/);
      const state = connection.state;
      assert.ok(state.kind === 'failed' && state.stderr.includes('fatal: the configuration file fake.toml is missing'));
      const callResult = await connection.callTool('echo', { message: 'x' });
      assert.equal(callResult.failure, 'not-connected');
      assert.match(callResult.text, /exited with code 3/);
    });

    it('names a command that is not on PATH, and a working folder that does not exist', async () => {
      const missing = connect(stdioConfig('missing', [], { command: 'skillwright-no-such-command' }));
      await missing.start();
      assert.match(failedReason(missing), /Command not found: "skillwright-no-such-command".*PATH.*absolute path/);
      const nowhere = connect(stdioConfig('nowhere', ['-e', '0'], { cwd: path.join(os.tmpdir(), 'skillwright-no-such-folder') }));
      await nowhere.start();
      assert.match(failedReason(nowhere), /working folder .* does not exist/);
    });

    it('ignores garbage on stdout', async () => {
      const logger = recordingLogger();
      const connection = connect(fakeConfig('noisy', 'garbage'), logger);
      await connection.start();
      remember(connection);
      assert.equal((await connection.callTool('echo', { message: 'through the noise' })).text, 'Echo: through the noise');
      assert.ok(logger.has('debug', /not JSON-RPC/));
    });

    it('keeps only a bounded tail of a stderr flood', async () => {
      const logger = recordingLogger();
      const connection = connect(fakeConfig('flood', 'flood-stderr', ['mb=8']), logger);
      await connection.start();
      remember(connection);
      assert.equal(connection.state.kind, 'connected');
      const tail = connection.stderrTail;
      assert.ok(tail.length <= 50);
      assert.ok(tail.every((line) => line.length <= 1_001));
      assert.ok(tail.includes('flood done'));
      assert.ok(logger.lines.filter((line) => /stderr\]/.test(line.message)).length <= 2_001);
    });

    it('follows tools/list pages, and cuts a list above 1,000 tools with a warning', async () => {
      const many = connect(fakeConfig('many', 'many-tools'));
      await many.start();
      remember(many);
      assert.equal(many.tools.length, 500);
      assert.equal(many.tools[499]?.name, 'tool_499');

      const logger = recordingLogger();
      const tooMany = connect(fakeConfig('tooMany', 'many-tools', ['tools=1500', 'page=300']), logger);
      await tooMany.start();
      remember(tooMany);
      assert.equal(tooMany.tools.length, 1_000);
      assert.ok(logger.has('warn', /more than 1000 tools/));

      const endlessLogger = recordingLogger();
      const endless = connect(fakeConfig('endless', 'endless-cursor', ['tools=3', 'page=3']), endlessLogger);
      await endless.start();
      remember(endless);
      assert.equal(endless.state.kind, 'connected');
      assert.ok(endlessLogger.has('warn', /cursor repeats/));
    });

    it('keeps tools with invalid or huge schemas, with a replaced schema and a logged reason', async () => {
      const logger = recordingLogger();
      const connection = connect(fakeConfig('sloppy', 'bad-schemas'), logger);
      await connection.start();
      remember(connection);
      assert.deepEqual(
        connection.tools.map((tool) => tool.name),
        ['fine', 'no_schema', 'string_schema', 'array_schema', 'huge_schema'],
      );
      assert.deepEqual(
        connection.tools.map((tool) => tool.schemaNote !== undefined),
        [false, true, true, true, true],
      );
      assert.ok(connection.tools.every((tool) => tool.inputSchema.type === 'object'));
      assert.ok(logger.has('warn', /huge_schema.*KB/));
      assert.ok(logger.has('warn', /no name/));
      assert.ok(logger.has('warn', /listed twice/));
    });

    it('re-lists when the server says its tools changed, and a renamed tool resolves to the new name', async () => {
      const connection = connect(fakeConfig('shifty', 'rename'));
      await connection.start();
      remember(connection);
      assert.deepEqual(
        connection.tools.map((tool) => tool.name),
        ['search_v1', 'rename'],
      );
      const renamed = until(connection, () => connection.tools.some((tool) => tool.name === 'search_v2'));
      await connection.callTool('rename', {});
      await renamed;
      const old = await connection.callTool('search_v1', {});
      assert.equal(old.failure, 'unknown-tool');
      assert.match(old.text, /search_v2/);
      assert.equal((await connection.callTool('search_v2', {})).text, 'searched with generation 2');
    });

    it('restarts with a new process and ends the old one', async () => {
      const connection = connect(fakeConfig('again', 'ok'));
      await connection.start();
      const first = remember(connection);
      await connection.restart();
      const second = remember(connection);
      assert.notEqual(first, second);
      assert.equal(connection.state.kind, 'connected');
      assert.equal(isAlive(first), false);
    });

    it('reports a server that stops after connecting', async () => {
      const connection = connect(fakeConfig('crash', 'ok'));
      await connection.start();
      const pid = remember(connection);
      const failed = until(connection, () => connection.state.kind === 'failed');
      process.kill(pid, 'SIGKILL');
      await failed;
      assert.match(failedReason(connection), /stopped \(ended by SIGKILL\)/);
      assert.deepEqual(connection.tools, []);
    });
  });
});
