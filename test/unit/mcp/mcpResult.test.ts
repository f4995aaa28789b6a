import * as assert from 'node:assert/strict';
import { capText, mcpCallResult, mcpFailedCall } from '../../../src/core/mcp/mcpResult';

const limits = { textMax: 100, imageInlineMaxBytes: 1024 };

describe('mcpCallResult', () => {
  it('joins text blocks and keeps isError and the timing', () => {
    const result = mcpCallResult({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }], isError: true }, 12);
    assert.equal(result.text, 'one\ntwo');
    assert.equal(result.isError, true);
    assert.equal(result.ms, 12);
    assert.equal(result.failure, undefined);
  });

  it('cuts long text and says how much was cut', () => {
    const result = mcpCallResult({ content: [{ type: 'text', text: 'x'.repeat(250) }] }, 1, limits);
    assert.ok(result.text.startsWith('x'.repeat(100)));
    assert.ok(!result.text.startsWith('x'.repeat(101)));
    assert.match(result.text, /150 of 250 characters not shown/);
  });

  it('never cuts inside a surrogate pair', () => {
    const text = `${'a'.repeat(9)}😀tail`;
    const cut = capText(text, 10);
    assert.ok(cut.startsWith('a'.repeat(9) + '\n'));
    assert.ok(!cut.includes('\ud83d'));
  });

  it('inlines a small image as a data URI and only describes a large one', () => {
    const small = Buffer.alloc(600, 1).toString('base64');
    const large = Buffer.alloc(2000, 1).toString('base64');
    const result = mcpCallResult(
      {
        content: [
          { type: 'image', mimeType: 'image/png', data: small },
          { type: 'image', mimeType: 'image/png', data: large },
        ],
      },
      1,
      { textMax: 10_000, imageInlineMaxBytes: 1024 },
    );
    assert.equal(result.images.length, 2);
    assert.equal(result.images[0]?.dataUri, `data:image/png;base64,${small}`);
    assert.equal(result.images[0]?.bytes, 600);
    assert.equal(result.images[1]?.dataUri, undefined);
    assert.equal(result.images[1]?.bytes, 2000);
    assert.match(result.text, /too large to show/);
  });

  it('does not turn a non-image or non-base64 payload into a data URI', () => {
    const result = mcpCallResult(
      {
        content: [
          { type: 'image', mimeType: 'text/html', data: 'PGgxPg==' },
          { type: 'image', mimeType: 'image/png', data: '"><script>' },
        ],
      },
      1,
    );
    assert.deepEqual(
      result.images.map((image) => image.dataUri),
      [undefined, undefined],
    );
  });

  it('keeps resource links and embedded resources as references; embedded text counts against the cap', () => {
    const result = mcpCallResult(
      {
        content: [
          { type: 'resource_link', uri: 'file:///a.md', name: 'a.md', mimeType: 'text/markdown' },
          { type: 'resource', resource: { uri: 'file:///b.txt', mimeType: 'text/plain', text: 'b'.repeat(500) } },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAA' } },
          { type: 'resource_link', name: 'no uri' },
        ],
      },
      1,
      limits,
    );
    assert.deepEqual(result.resources, [
      { uri: 'file:///a.md', name: 'a.md', mimeType: 'text/markdown' },
      { uri: 'file:///b.txt', mimeType: 'text/plain' },
      { uri: 'file:///c.bin' },
    ]);
    assert.match(result.text, /characters not shown/);
    assert.ok(result.text.length < 200);
  });

  it('keeps structured content and shows it as text when there is no text', () => {
    const result = mcpCallResult({ content: [], structuredContent: { answer: 42 } }, 1);
    assert.deepEqual(result.structured, { answer: 42 });
    assert.equal(result.text, '{"answer":42}');
  });

  it('describes unknown content types and odd answers instead of failing', () => {
    assert.match(mcpCallResult({ content: [{ type: 'hologram' }] }, 1).text, /type "hologram" not shown/);
    assert.match(mcpCallResult('just a string', 1).text, /not an MCP tool result/);
    assert.equal(mcpCallResult({}, 1).text, '');
  });

  it('marks calls the server never answered', () => {
    const failed = mcpFailedCall('timeout', 'did not answer', 5);
    assert.equal(failed.isError, true);
    assert.equal(failed.failure, 'timeout');
    assert.equal(failed.text, 'did not answer');
  });
});
