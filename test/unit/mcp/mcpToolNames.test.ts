import * as assert from 'node:assert/strict';
import { MCP_TOOL_NAME_MAX, McpToolNameTable, mcpToolName } from '../../../src/core/mcp/mcpToolNames';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe('MCP tool names', () => {
  it('names tools mcp__server__tool with other characters as _', () => {
    assert.equal(mcpToolName('github', 'create_issue'), 'mcp__github__create_issue');
    assert.equal(mcpToolName('my server.v2', 'get-item/ä'), 'mcp__my_server_v2__get-item__');
    assert.equal(mcpToolName('s', ''), 'mcp__s___');
  });

  it('keeps long names within 64 characters, ending in a hash that tells two long names apart', () => {
    const server = 'x'.repeat(300);
    const a = mcpToolName(server, 'read');
    const b = mcpToolName(server, 'write');
    for (const name of [a, b]) {
      assert.equal(name.length, MCP_TOOL_NAME_MAX);
      assert.match(name, VALID);
      assert.match(name, /^mcp__x+_[0-9a-f]{8}$/);
    }
    assert.notEqual(a, b);
    assert.equal(mcpToolName(server, 'read'), a, 'deterministic');
    const exactly = `mcp__${'s'.repeat(MCP_TOOL_NAME_MAX - 'mcp____t'.length)}__t`;
    assert.equal(mcpToolName('s'.repeat(MCP_TOOL_NAME_MAX - 'mcp____t'.length), 't'), exactly, 'a name of exactly 64 is not cut');
  });

  it('gives unique names when tools or servers sanitise alike, the clean name to the tool that owns it', () => {
    const table = new McpToolNameTable();
    const first = table.assign('s', ['a.b', 'a_b']);
    assert.equal(first.get('a_b'), 'mcp__s__a_b');
    assert.match(first.get('a.b') ?? '', /^mcp__s__a_b_[0-9a-f]{8}$/);
    const reversed = new McpToolNameTable().assign('s', ['a_b', 'a.b']);
    assert.deepEqual([...reversed.entries()].sort(), [...first.entries()].sort(), 'the server\'s order does not matter');
    const other = table.assign('s.', ['a_b']);
    assert.equal(other.get('a_b'), 'mcp__s___a_b', '"s." sanitises to "s_": a different name, no hash needed');
    // Server "a" with tool "b__c" and server "a__b" with tool "c" reach the same name.
    const clash = table.assign('a', ['b__c']);
    const clash2 = table.assign('a__b', ['c']);
    assert.equal(clash.get('b__c'), 'mcp__a__b__c');
    assert.match(clash2.get('c') ?? '', /^mcp__a__b__c_[0-9a-f]{8}$/);
    const names = table.names();
    assert.equal(new Set(names).size, names.length);
    assert.deepEqual(names, [...names].sort());
    for (const name of names) assert.match(name, VALID);
  });

  it('keeps a server\'s names when it lists its tools again, and frees them when it goes', () => {
    const table = new McpToolNameTable();
    table.assign('s', ['a.b']);
    const again = table.assign('s', ['a_b', 'a.b', 'a.b']);
    assert.equal(again.get('a.b'), 'mcp__s__a_b', 'the name already in use stays');
    assert.match(again.get('a_b') ?? '', /^mcp__s__a_b_[0-9a-f]{8}$/);
    assert.equal(again.size, 2);
    table.assign('s', ['x']);
    assert.deepEqual(table.names(), ['mcp__s__x']);
    assert.equal(table.resolve('mcp__s__a_b'), undefined);
    table.removeServer('s');
    assert.deepEqual(table.names(), []);
    assert.equal(table.nameOf('s', 'x'), undefined);
  });

  it('resolves names a model rewrote when only one name matches', () => {
    const table = new McpToolNameTable();
    table.assign('git-hub', ['create_issue', 'Get-Item']);
    table.assign('other', ['do-it', 'do_it']);
    assert.deepEqual(table.resolve('mcp__git-hub__create_issue'), { server: 'git-hub', tool: 'create_issue' });
    assert.deepEqual(table.resolve('mcp__git_hub__create-issue'), { server: 'git-hub', tool: 'create_issue' });
    assert.deepEqual(table.resolve('MCP__GIT_HUB__GET_ITEM'), { server: 'git-hub', tool: 'Get-Item' });
    assert.deepEqual(table.resolve('mcp__other__do-it'), { server: 'other', tool: 'do-it' }, 'an exact name always resolves');
    assert.equal(table.resolve('mcp__other__DO_IT'), undefined, 'two names match: ambiguous');
    assert.equal(table.resolve('mcp__git-hub__delete'), undefined);
    assert.equal(table.nameOf('git-hub', 'Get-Item'), 'mcp__git-hub__Get-Item');
  });

  it('names 500 tools of a server with a 300-character name uniquely and validly', () => {
    const table = new McpToolNameTable();
    const tools = Array.from({ length: 500 }, (_, i) => `tool ${i}`);
    const names = table.assign('y'.repeat(300), tools);
    assert.equal(new Set(names.values()).size, 500);
    for (const name of names.values()) assert.match(name, VALID);
    assert.deepEqual(table.resolve(names.get('tool 42') ?? ''), { server: 'y'.repeat(300), tool: 'tool 42' });
  });
});
