import * as assert from 'node:assert/strict';
import { listMcpTools, MCP_TOOL_SCHEMA_MAX_CHARS, readMcpTool } from '../../../src/core/mcp/mcpToolList';

const schema = { type: 'object', properties: { q: { type: 'string' } } };

describe('mcpToolList', () => {
  it('keeps name, title, description, schema and the read-only hint', () => {
    const { tool, note } = readMcpTool({ name: 'find', title: 'Find', description: 'Finds', inputSchema: schema, annotations: { readOnlyHint: true } });
    assert.equal(note, undefined);
    assert.deepEqual(tool, { name: 'find', title: 'Find', description: 'Finds', inputSchema: schema, readOnlyHint: true });
  });

  it('replaces a missing, non-object or huge schema and says why', () => {
    const huge = { type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(MCP_TOOL_SCHEMA_MAX_CHARS) } } };
    for (const [inputSchema, reason] of [
      [undefined, /no input schema/],
      [{ type: 'string' }, /type "string"/],
      [[1], /an array/],
      [{ type: 'object', properties: 3 }, /"properties" is not an object/],
      [huge, /KB, more than the 64 KB/],
    ] as const) {
      const { tool, note } = readMcpTool({ name: 't', inputSchema });
      assert.equal(tool?.inputSchema.type, 'object');
      assert.match(tool?.schemaNote ?? '', reason);
      assert.match(note ?? '', /permissive schema/);
    }
  });

  it('skips a nameless tool with a note', () => {
    const { tool, note } = readMcpTool({ description: 'mystery' });
    assert.equal(tool, undefined);
    assert.match(note ?? '', /no name.*mystery/);
  });

  it('follows cursors, drops duplicates and caps the count with a note', async () => {
    const pages = new Map<string | undefined, unknown>([
      [undefined, { tools: [{ name: 'a', inputSchema: schema }, { name: 'b', inputSchema: schema }], nextCursor: 'p2' }],
      ['p2', { tools: [{ name: 'a', inputSchema: schema }, { name: 'c', inputSchema: schema }], nextCursor: 'p3' }],
      ['p3', { tools: [{ name: 'd', inputSchema: schema }, { name: 'e', inputSchema: schema }] }],
    ]);
    const asked: (string | undefined)[] = [];
    const read = await listMcpTools(async (cursor) => {
      asked.push(cursor);
      return pages.get(cursor);
    }, 4);
    assert.deepEqual(asked, [undefined, 'p2', 'p3']);
    assert.deepEqual(
      read.tools.map((tool) => tool.name),
      ['a', 'b', 'c', 'd'],
    );
    assert.ok(read.notes.some((note) => /listed twice/.test(note)));
    assert.ok(read.notes.some((note) => /more than 4 tools/.test(note)));
  });

  it('stops a cursor that repeats', async () => {
    let calls = 0;
    const read = await listMcpTools(async () => {
      calls++;
      return { tools: [{ name: `t${calls}`, inputSchema: schema }], nextCursor: 'same' };
    });
    assert.equal(calls, 2);
    assert.ok(read.notes.some((note) => /cursor repeats/.test(note)));
  });
});
