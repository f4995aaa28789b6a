import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mcpConfigFromSetting, mergeMcpConfigs, parseMcpConfigText } from '../../../src/core/mcp/mcpConfig';
import { DEFAULT_MCP_TIMEOUTS } from '../../../src/core/mcp/mcpServerConfig';
import type { McpConfigSource } from '../../../src/core/mcp/mcpServerConfig';
import { MCP_SERVER_NAME_MAX, mcpServerHash } from '../../../src/core/mcp/mcpServerEntry';

const vscodeFile: McpConfigSource = { origin: 'workspace', label: '.vscode/mcp.json in app', file: '/p/app/.vscode/mcp.json', folder: '/p/app' };
const dotMcp: McpConfigSource = { origin: 'workspace', label: '.mcp.json in app', file: '/p/app/.mcp.json', folder: '/p/app' };
const user: McpConfigSource = { origin: 'user', label: 'User settings (mcp.servers)' };
const ours: McpConfigSource = { origin: 'skillwright', label: 'skillwright.mcp.servers' };

describe('MCP config reader', () => {
  it('reads .vscode/mcp.json with comments, trailing commas, inputs and unknown keys', () => {
    const text = `// shared with the team
{
  "inputs": [
    { "type": "promptString", "id": "token", "description": "GitHub token", "password": true, },
    { "type": "pickString", "id": "region", "options": ["eu", { "label": "US", "value": "us" }], "default": "eu" },
  ],
  /* servers */
  "servers": {
    "everything": { "type": "stdio", "command": "node", "args": ["server.js", "stdio",], "env": { "PORT": 3000, "UNSET": null }, "dev": { "watch": "src/**" } },
    "remote": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
  },
}`;
    const read = parseMcpConfigText(text, vscodeFile);
    assert.deepEqual(read.problems, []);
    assert.deepEqual(read.inputs, [
      { id: 'token', type: 'promptString', password: true, description: 'GitHub token' },
      { id: 'region', type: 'pickString', password: false, options: ['eu', 'us'], default: 'eu' },
    ]);
    const [everything, remote] = read.servers;
    assert.equal(read.servers.length, 2);
    assert.ok(everything && remote);
    assert.equal(everything.transport, 'stdio');
    assert.equal(everything.command, 'node');
    assert.deepEqual(everything.args, ['server.js', 'stdio']);
    assert.deepEqual(everything.env, { PORT: '3000' });
    assert.equal(everything.source, vscodeFile);
    assert.deepEqual(everything.timeouts, DEFAULT_MCP_TIMEOUTS);
    assert.ok(!('dev' in everything));
    assert.equal(remote.transport, 'http');
    assert.deepEqual(remote.headers, { Authorization: 'Bearer ${input:token}' });
  });

  it('reads an mcpServers map and infers the transport from command or url; accepts every transport spelling', () => {
    const text = JSON.stringify({
      mcpServers: {
        local: { command: 'uvx', args: ['mcp-server-git'] },
        remote: { url: 'http://127.0.0.1:9/mcp' },
        a: { type: 'streamable-http', url: 'http://h/a' },
        b: { type: 'streamableHttp', url: 'http://h/b' },
        c: { type: 'SSE', url: 'http://h/c' },
        d: { type: 'http', url: 'http://h/d' },
      },
    });
    const read = parseMcpConfigText(text, dotMcp);
    assert.deepEqual(read.problems, []);
    assert.deepEqual(
      read.servers.map((s) => [s.name, s.transport]),
      [['local', 'stdio'], ['remote', 'http'], ['a', 'http'], ['b', 'http'], ['c', 'sse'], ['d', 'http']],
    );
  });

  it('reports a syntax error with its line and column, returns no servers from that file, and the other files still work', () => {
    const text = '{\n  "servers": {\n    "a": { "command": "node" }\n    "b": { "command": "node" }\n  }\n}\n';
    const broken = parseMcpConfigText(text, vscodeFile);
    assert.deepEqual(broken.servers, []);
    const first = broken.problems[0];
    assert.ok(first);
    assert.equal(first.line, 4);
    assert.equal(first.column, 5);
    assert.equal(first.file, vscodeFile.file);
    assert.match(first.message, /line 4, column 5: a "," is expected\. None of the servers in this file are used/);
    const fine = parseMcpConfigText('{"mcpServers": {"c": {"command": "node"}}}', dotMcp);
    const merged = mergeMcpConfigs([broken, fine]);
    assert.deepEqual(merged.servers.map((s) => s.name), ['c']);
    assert.equal(merged.problems.length, broken.problems.length);
  });

  it('counts lines after a byte-order mark and CRLF line ends', () => {
    const read = parseMcpConfigText('\ufeff{\r\n"servers": {\r\n  "a": {"command": 1}\r\n}}', vscodeFile);
    assert.equal(read.servers.length, 0);
    const first = read.problems[0];
    assert.ok(first);
    assert.equal(first.line, 3);
    assert.equal(first.column, 20);
    assert.match(first.message, /"a": "command" must be a string \(it is a number\)/);
  });

  it('reports each bad entry by name and line and keeps the good ones', () => {
    const long = 'x'.repeat(300);
    const text = `{
  "servers": {
    "good": { "command": "node" },
    "../x": { "command": "node" },
    "": { "command": "node" },
    "${long}": { "command": "node" },
    "nothing": { "args": ["a"] },
    "badargs": { "command": "node", "args": "a b" },
    "badenv": { "command": "node", "env": { "A": true } },
    "badtype": { "type": "websocket", "url": "ws://h" },
    "nourl": { "type": "sse", "command": "node" },
    "ftp": { "url": "ftp://h/x" },
    "list": [1, 2],
    "also-good": { "url": "http://127.0.0.1:1/mcp" }
  }
}`;
    const read = parseMcpConfigText(text, vscodeFile);
    assert.deepEqual(read.servers.map((s) => s.name), ['good', 'also-good']);
    const by = (server: string) => read.problems.find((p) => p.server === server);
    assert.match(by('../x')?.message ?? '', /looks like a path/);
    assert.equal(by('../x')?.line, 4);
    assert.match(by('')?.message ?? '', /cannot be empty/);
    const longProblem = read.problems.find((p) => /300 characters long; the limit is 100/.test(p.message));
    assert.ok(longProblem, 'the 300-character name is reported');
    assert.ok((longProblem.server ?? '').length <= 60);
    assert.equal(longProblem.line, 6);
    assert.match(by('nothing')?.message ?? '', /neither "command" .* nor "url"/);
    assert.match(by('badargs')?.message ?? '', /"args" must be a list of strings/);
    assert.equal(by('badargs')?.line, 8);
    assert.match(by('badenv')?.message ?? '', /"env\.A" must be a string \(it is a boolean\)/);
    assert.match(by('badtype')?.message ?? '', /"websocket" is not one we know; use "stdio", "http"/);
    assert.match(by('nourl')?.message ?? '', /sse server but has no "url"/);
    assert.match(by('ftp')?.message ?? '', /not an http:\/\/ or https:\/\/ address/);
    assert.match(by('list')?.message ?? '', /must be an object .* \(it is a list\)/);
    assert.equal(read.problems.length, 10);
    assert.equal(MCP_SERVER_NAME_MAX, 100);
  });

  it('keeps autoApprove only from skillwright.mcp.servers and says so elsewhere', () => {
    const entry = { command: 'node', autoApprove: ['echo'], exposeTools: true, disabled: false };
    const fromOurs = mcpConfigFromSetting({ s: entry }, ours);
    assert.deepEqual(fromOurs.problems, []);
    const s = fromOurs.servers[0];
    assert.ok(s);
    assert.deepEqual(s.autoApprove, ['echo']);
    assert.equal(s.exposeTools, true);
    assert.equal(s.disabled, false);
    for (const read of [parseMcpConfigText(JSON.stringify({ servers: { s: entry } }), vscodeFile), mcpConfigFromSetting({ s: entry }, user)]) {
      assert.equal(read.servers[0]?.autoApprove, undefined);
      assert.equal(read.servers[0]?.exposeTools, true);
      assert.equal(read.problems.length, 1);
      const problem = read.problems[0];
      assert.ok(problem);
      assert.equal(problem.server, 's');
      assert.match(problem.message, /only honoured in the skillwright\.mcp\.servers user setting/);
    }
    const bad = mcpConfigFromSetting({ s: { command: 'node', autoApprove: 'echo', exposeTools: 'yes' } }, ours);
    assert.equal(bad.servers.length, 1, 'a bad value of our own keys is ignored, the server kept');
    assert.equal(bad.servers[0]?.autoApprove, undefined);
    assert.equal(bad.problems.length, 2);
  });

  it('reads timeouts in seconds and clamps them, reporting the clamp', () => {
    const read = mcpConfigFromSetting({ s: { command: 'node', timeouts: { connect: 5, list: 0, call: 99999 } }, t: { command: 'node', timeouts: { call: 'long' } } }, ours);
    assert.deepEqual(read.servers[0]?.timeouts, { connectMs: 5000, listMs: 1000, callMs: 3_600_000 });
    assert.deepEqual(read.servers[1]?.timeouts, DEFAULT_MCP_TIMEOUTS);
    assert.deepEqual(read.problems.map((p) => p.server), ['s', 's', 't']);
    assert.match(read.problems[0]?.message ?? '', /"timeouts\.list" is 0 s; it must be 1–300 s, so 1 s is used/);
  });

  it('takes a setting as a bare servers map or as an {servers, inputs} object; unset is empty', () => {
    const bare = mcpConfigFromSetting({ servers: { command: 'node' } }, user);
    assert.deepEqual(bare.servers.map((s) => s.name), ['servers'], 'a server named "servers" is still a server');
    const wrapped = mcpConfigFromSetting({ servers: { a: { command: 'node' } }, inputs: [{ id: 'k', type: 'promptString' }] }, user);
    assert.deepEqual(wrapped.servers.map((s) => s.name), ['a']);
    assert.deepEqual(wrapped.inputs.map((i) => i.id), ['k']);
    assert.deepEqual(mcpConfigFromSetting(undefined, user), { servers: [], inputs: [], problems: [] });
    const wrong = mcpConfigFromSetting('node server.js', user);
    assert.equal(wrong.servers.length, 0);
    assert.match(wrong.problems[0]?.message ?? '', /must be an object of server names/);
    assert.equal(wrong.problems[0]?.line, undefined);
  });

  it('reports entries outside "servers", bad inputs, and an empty file as nothing', () => {
    const stray = parseMcpConfigText('{"github": {"command": "node"}}', vscodeFile);
    assert.equal(stray.servers.length, 0);
    assert.match(stray.problems[0]?.message ?? '', /must sit inside a "servers" object/);
    const inputs = parseMcpConfigText('{"inputs": [{"type": "promptString"}, {"id": "a", "type": "command"}, {"id": "b", "type": "pickString"}, {"id": "c"}, {"id": "c"}], "servers": {}}', vscodeFile);
    assert.deepEqual(inputs.inputs.map((i) => [i.id, i.type]), [['c', 'promptString']]);
    assert.equal(inputs.problems.length, 4);
    assert.match(inputs.problems[1]?.message ?? '', /type "command" is not supported/);
    assert.deepEqual(parseMcpConfigText('  // nothing yet\n', vscodeFile), { servers: [], inputs: [], problems: [] });
  });

  it('hashes what would run: the same entry gives the same hash, any change to it or to the folder another, our own keys none', () => {
    const read = (entry: object, source = vscodeFile) => mcpConfigFromSetting({ s: entry }, source).servers[0]?.hash ?? '';
    const base = { command: 'node', args: ['a'], env: { B: '2', A: '1' } };
    const hash = read(base);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(read({ env: { A: '1', B: '2' }, args: ['a'], command: 'node' }), hash, 'key order does not matter');
    assert.equal(read({ ...base, exposeTools: true, timeouts: { call: 5 } }), hash);
    for (const changed of [{ ...base, args: ['b'] }, { ...base, env: { A: '1' } }, { ...base, cwd: 'x' }, { ...base, envFile: '.env' }, { ...base, command: 'nodejs' }]) {
      assert.notEqual(read(changed), hash);
    }
    assert.notEqual(read(base, { ...vscodeFile, folder: '/p/other' }), hash);
    const server = mcpConfigFromSetting({ s: base }, vscodeFile).servers[0];
    assert.ok(server);
    const expected = createHash('sha256')
      .update(JSON.stringify(['stdio', 'node', ['a'], [['A', '1'], ['B', '2']], null, null, null, [], '/p/app']))
      .digest('hex');
    assert.equal(mcpServerHash(server), expected);
  });

  it('merges: skillwright setting over .vscode/mcp.json over .mcp.json over user settings, each loser reported', () => {
    const names = (entries: string[]) => Object.fromEntries(entries.map((n) => [n, { command: `node-${n}` }]));
    const userRead = mcpConfigFromSetting(names(['a', 'b', 'c', 'd']), user);
    const dotRead = parseMcpConfigText(JSON.stringify({ mcpServers: names(['a', 'b', 'c']) }), dotMcp);
    const vscodeRead = parseMcpConfigText(JSON.stringify({ servers: names(['a', 'b']), inputs: [{ id: 'k', description: 'from vscode' }] }), vscodeFile);
    const oursRead = mcpConfigFromSetting({ servers: names(['a']), inputs: [{ id: 'k', description: 'from ours' }] }, ours);
    const merged = mergeMcpConfigs([userRead, dotRead, vscodeRead, oursRead]);
    const from = Object.fromEntries(merged.servers.map((s) => [s.name, s.source.label]));
    assert.deepEqual(from, { a: ours.label, b: vscodeFile.label, c: dotMcp.label, d: user.label });
    assert.equal(merged.problems.length, 6);
    const aLosers = merged.problems.filter((p) => p.server === 'a');
    assert.deepEqual(aLosers.map((p) => p.label).sort(), [dotMcp.label, user.label, vscodeFile.label].sort());
    assert.match(aLosers[0]?.message ?? '', /also defined in skillwright\.mcp\.servers, which wins; this one is not used\. Rename one of them/);
    assert.deepEqual(merged.inputs, [{ id: 'k', type: 'promptString', password: false, description: 'from ours' }]);
  });

  it('merges two workspace folders in the order given and reports a duplicate inside one file', () => {
    const first = parseMcpConfigText('{"servers": {"x": {"command": "one"}}}', vscodeFile);
    const second = parseMcpConfigText('{"servers": {"x": {"command": "two"}}}', { ...vscodeFile, label: '.vscode/mcp.json in lib', file: '/p/lib/.vscode/mcp.json', folder: '/p/lib' });
    const merged = mergeMcpConfigs([first, second]);
    assert.deepEqual(merged.servers.map((s) => s.command), ['one']);
    assert.equal(merged.problems[0]?.label, '.vscode/mcp.json in lib');
    const both = parseMcpConfigText('{"servers": {"x": {"command": "one"}}, "mcpServers": {"x": {"command": "two"}}}', vscodeFile);
    assert.deepEqual(both.servers.map((s) => s.command), ['one']);
    assert.match(both.problems[0]?.message ?? '', /under both "servers" and "mcpServers"/);
  });
});
