import * as assert from 'node:assert/strict';
import { MCP_DESCRIPTION_CHARS, MCP_SHORT_DESCRIPTION_CHARS, mcpToolListing } from '../../../src/core/mcp/mcpToolListing';
import type { McpListedTool } from '../../../src/core/mcp/mcpToolListing';
import { estimateTokens } from '../../../src/core/text/tokenEstimate';

function tools(server: string, count: number, description = (i: number) => `Does thing number ${i} for the ${server} server, carefully and well.`): McpListedTool[] {
  return Array.from({ length: count }, (_, i) => ({ name: `mcp__${server}__tool_${i}`, description: description(i) }));
}

/** Tool lines under each server header: `### name (…)` then `- …` lines. */
function linesPerServer(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let current = '';
  for (const line of text.split('\n')) {
    const header = /^### (\S+) /.exec(line);
    if (header) {
      current = header[1] ?? '';
      counts.set(current, 0);
    } else if (line.startsWith('- ')) {
      counts.set(current, (counts.get(current) ?? 0) + 1);
    }
  }
  return counts;
}

describe('MCP tool listing', () => {
  it('lists every tool on one line under its server when the budget allows', () => {
    const result = mcpToolListing(
      [
        { server: 'everything', tools: [{ name: 'mcp__everything__echo', description: 'Echoes back\n  the input.\n\nUse it to test.' }, { name: 'mcp__everything__add', description: '' }] },
        { server: 'idle', tools: [] },
        { server: 'fs', tools: [{ name: 'mcp__fs__read_file', description: 'Read a file.' }] },
      ],
      1000,
      estimateTokens,
    );
    assert.equal(
      result.text,
      [
        '## MCP tools',
        '',
        "Tools of connected MCP servers, one per line. mcp_tool_schema(name) shows a tool's parameters; mcp_call(name, arguments) calls it.",
        '',
        '### everything (2 tools)',
        '- mcp__everything__echo: Echoes back the input. Use it to test.',
        '- mcp__everything__add',
        '',
        '### fs (1 tool)',
        '- mcp__fs__read_file: Read a file.',
        '',
      ].join('\n'),
    );
    assert.equal(result.tokens, estimateTokens(result.text));
    assert.equal(result.listed, 3);
    assert.equal(result.omitted, 0);
  });

  it('clips long descriptions, and shortens them further before leaving any tool out', () => {
    const long = 'word '.repeat(100);
    const servers = [{ server: 's', tools: tools('s', 20, () => long) }];
    const roomy = mcpToolListing(servers, 100_000, estimateTokens);
    const described = roomy.text.split('\n').filter((l) => l.startsWith('- '));
    assert.equal(described.length, 20);
    for (const line of described) assert.ok(line.length - line.indexOf(': ') - 2 <= MCP_DESCRIPTION_CHARS && line.endsWith('…'));
    const tighter = mcpToolListing(servers, roomy.tokens - 1, estimateTokens);
    assert.equal(tighter.listed, 20);
    assert.ok(tighter.tokens < roomy.tokens);
    for (const line of tighter.text.split('\n').filter((l) => l.startsWith('- '))) {
      assert.ok(line.length - line.indexOf(': ') - 2 <= MCP_SHORT_DESCRIPTION_CHARS);
    }
  });

  it('fits 500 tools into the budget, leaving tools out fairly across servers and saying how many per server', () => {
    const servers = [
      { server: 'big', tools: tools('big', 400) },
      { server: 'mid', tools: tools('mid', 90) },
      { server: 'small', tools: tools('small', 10) },
    ];
    const budget = 2000;
    let calls = 0;
    const result = mcpToolListing(servers, budget, (text) => {
      calls++;
      return estimateTokens(text);
    });
    assert.ok(result.tokens <= budget);
    assert.equal(result.tokens, estimateTokens(result.text));
    assert.equal(result.listed + result.omitted, 500);
    assert.ok(result.omitted > 0);
    assert.ok(calls < 30, `countTokens ran ${calls} times`);
    const counts = linesPerServer(result.text);
    assert.equal(counts.get('small'), 10, 'a server with few tools keeps them all');
    const big = counts.get('big') ?? 0;
    const mid = counts.get('mid') ?? 0;
    assert.ok(Math.abs(big - mid) <= 1, `big ${big}, mid ${mid}`);
    assert.equal(big + mid + 10, result.listed);
    assert.match(result.text, new RegExp(`### big \\(${big} of 400 tools listed, ${400 - big} left out\\)`));
    assert.match(result.text, new RegExp(`### mid \\(${mid} of 90 tools listed, ${90 - mid} left out\\)`));
    assert.match(result.text, /### small \(10 tools\)/);
    assert.match(result.text, /mcp_tool_schema\(name\) and mcp_call\(name, arguments\) still reach them by name/);
    // The first tools of each server stay, in the server's order.
    assert.match(result.text, /- mcp__big__tool_0: .*\n- mcp__big__tool_1: /);
    // Nearly all the budget is used: one more line would not fit.
    const oneLine = estimateTokens('- mcp__big__tool_100: Does thing number 100 for the big server, carefully and…\n');
    assert.ok(result.tokens > budget - 2 * oneLine, `${result.tokens} of ${budget}`);
    assert.deepEqual(mcpToolListing(servers, budget, estimateTokens), result, 'deterministic');
  });

  it('gives no text for a budget of 0 or no tools, and a pointer when not even the headers fit', () => {
    const servers = [{ server: 'a', tools: tools('a', 50) }, { server: 'b', tools: tools('b', 50) }];
    assert.deepEqual(mcpToolListing(servers, 0, estimateTokens), { text: '', tokens: 0, listed: 0, omitted: 100 });
    assert.deepEqual(mcpToolListing(servers, Number.NaN, estimateTokens), { text: '', tokens: 0, listed: 0, omitted: 100 });
    assert.deepEqual(mcpToolListing([], 1000, estimateTokens), { text: '', tokens: 0, listed: 0, omitted: 0 });
    const pointer = mcpToolListing(servers, 45, estimateTokens);
    assert.equal(pointer.text, '## MCP tools\n100 tools of MCP servers (a, b) are not listed; mcp_tool_schema(name) and mcp_call(name, arguments) reach them by name.\n');
    assert.ok(pointer.tokens <= 45);
    assert.equal(pointer.listed, 0);
    assert.deepEqual(mcpToolListing(servers, 5, estimateTokens), { text: '', tokens: 0, listed: 0, omitted: 100 });
  });

  it('clips a 300-character server name in its header', () => {
    const server = 'n'.repeat(300);
    const result = mcpToolListing([{ server, tools: [{ name: 'mcp__n__t', description: 'd' }] }], 1000, estimateTokens);
    const header = result.text.split('\n').find((l) => l.startsWith('### '));
    assert.ok(header && header.length < 120 && header.includes('…'));
  });
});
