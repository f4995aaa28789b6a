import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { decodeEmbeddingCache, encodeEmbeddingCache, fileEmbeddingStore } from '../../../src/core/skills/search/embeddingCache';

function content() {
  return {
    model: 'nomic-embed-text @ http://localhost:11434/v1',
    dimensions: 3,
    vectors: new Map([
      ['hash-a', Float32Array.from([0.6, 0.8, 0])],
      ['hash-b', Float32Array.from([0, 0, 1])],
    ]),
  };
}

function reason(bytes: Uint8Array): string {
  const decoded = decodeEmbeddingCache(bytes);
  assert.equal(decoded.ok, false);
  return decoded.ok ? '' : decoded.reason;
}

describe('embedding cache file', () => {
  it('reads back what it wrote', () => {
    const decoded = decodeEmbeddingCache(encodeEmbeddingCache(content()));
    assert.ok(decoded.ok);
    assert.equal(decoded.content.model, 'nomic-embed-text @ http://localhost:11434/v1');
    assert.equal(decoded.content.dimensions, 3);
    assert.deepEqual(
      [...decoded.content.vectors].map(([hash, vector]) => [hash, [...vector]]),
      [...content().vectors].map(([hash, vector]) => [hash, [...vector]]),
    );
  });

  it('reads a file whose bytes do not start at an aligned offset', () => {
    const bytes = encodeEmbeddingCache(content());
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    assert.ok(decodeEmbeddingCache(shifted).ok);
  });

  it('says what is wrong with a corrupt or foreign file', () => {
    assert.match(reason(new TextEncoder().encode('{"not":"ours"}')), /not a Skillwright embeddings cache/);
    assert.match(reason(new Uint8Array(0)), /not a Skillwright embeddings cache/);
    const good = encodeEmbeddingCache(content());
    assert.match(reason(good.subarray(0, good.length - 4)), /holds \d+ bytes where its header promises \d+/);
    assert.match(reason(good.subarray(0, 20)), /header is cut off/);
    const badJson = good.slice();
    badJson[12] = 0x7b;
    badJson[13] = 0x7b;
    assert.match(reason(badJson), /header is not valid JSON/);
    const nan = good.slice();
    new DataView(nan.buffer).setFloat32(nan.length - 4, Number.NaN, true);
    assert.match(reason(nan), /the vector of hash-b holds a number that is not finite/);
  });

  it('refuses a header without a model, with odd dimensions, or without hashes', () => {
    const encode = (header: unknown) => {
      const json = new TextEncoder().encode(JSON.stringify(header));
      const bytes = new Uint8Array(Math.ceil((12 + json.length) / 4) * 4);
      bytes.set(new TextEncoder().encode('SWEMB01\n'));
      new DataView(bytes.buffer).setUint32(8, json.length, true);
      bytes.set(json, 12);
      return bytes;
    };
    assert.match(reason(encode({ dimensions: 3, hashes: [] })), /names no model/);
    assert.match(reason(encode({ model: 'm', dimensions: 0, hashes: [] })), /dimension count \(0\)/);
    assert.match(reason(encode({ model: 'm', dimensions: 2.5, hashes: [] })), /dimension count \(2.5\)/);
    assert.match(reason(encode({ model: 'm', dimensions: 3, hashes: [1] })), /no list of hashes/);
    assert.ok(decodeEmbeddingCache(encode({ model: 'm', dimensions: 3, hashes: [] })).ok);
  });
});

describe('fileEmbeddingStore', () => {
  it('reads nothing before the first write, then what was written, through a temp file and a rename', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-embeddings-'));
    try {
      const file = path.join(dir, 'storage', 'skill-embeddings.bin');
      const store = fileEmbeddingStore(new NodeFileSystem(), file);
      assert.equal(await store.read(), undefined);
      const bytes = encodeEmbeddingCache(content());
      await store.write(bytes);
      assert.deepEqual(new Uint8Array(await store.read() ?? []), bytes);
      assert.deepEqual(fs.readdirSync(path.dirname(file)), ['skill-embeddings.bin']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
