/**
 * The file that keeps skill embeddings between sessions: vectors by content hash, for one model.
 * Binary, because 10,000 vectors of 768 numbers are 30 MB as float32 and three times that as JSON:
 *
 *   "SWEMB01\n"                      8 bytes, the format and its version
 *   header length                    uint32, little-endian
 *   header                           UTF-8 JSON { model, dimensions, hashes: string[] }
 *   padding                          zero bytes up to a multiple of 4
 *   vectors                          hashes.length × dimensions float32, little-endian, in hash order
 *
 * Anything else (another format, a cut file, a header that does not match the data, a number that
 * is not finite) is reported as corrupt, and the owner starts afresh.
 */

import type { FileSystemPort } from '../../base/fileSystemPort';

const MAGIC = 'SWEMB01\n';
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const MAX_DIMENSIONS = 65_536;

export interface EmbeddingCacheContent {
  readonly model: string;
  readonly dimensions: number;
  /** Unit-length vectors by content hash (embeddingText.ts). */
  readonly vectors: ReadonlyMap<string, Float32Array>;
}

export type DecodedCache = { readonly ok: true; readonly content: EmbeddingCacheContent } | { readonly ok: false; readonly reason: string };

export function encodeEmbeddingCache(content: EmbeddingCacheContent): Uint8Array {
  const hashes = [...content.vectors.keys()];
  const header = new TextEncoder().encode(JSON.stringify({ model: content.model, dimensions: content.dimensions, hashes }));
  const start = align(MAGIC.length + 4 + header.length);
  const bytes = new Uint8Array(start + hashes.length * content.dimensions * 4);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(MAGIC.length, header.length, true);
  bytes.set(header, MAGIC.length + 4);
  let offset = start;
  // On little-endian machines (all that run VS Code today) a vector is copied whole: 10,000 × 768
  // numbers one DataView call at a time block the extension host for tens of milliseconds.
  const floats = LITTLE_ENDIAN ? new Float32Array(bytes.buffer, start, hashes.length * content.dimensions) : undefined;
  for (const [i, hash] of hashes.entries()) {
    const vector = content.vectors.get(hash) as Float32Array;
    if (vector.length !== content.dimensions) throw new RangeError(`The vector of ${hash} has ${vector.length} dimensions, not ${content.dimensions}.`);
    if (floats) floats.set(vector, i * content.dimensions);
    else for (let j = 0; j < vector.length; j++, offset += 4) view.setFloat32(offset, vector[j] as number, true);
  }
  return bytes;
}

export function decodeEmbeddingCache(bytes: Uint8Array): DecodedCache {
  const fail = (reason: string): DecodedCache => ({ ok: false, reason });
  if (bytes.length < MAGIC.length + 4 || new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) {
    return fail('it is not a Skillwright embeddings cache (or of another version)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(MAGIC.length, true);
  const headerEnd = MAGIC.length + 4 + headerLength;
  if (headerEnd > bytes.length) return fail('its header is cut off');
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(MAGIC.length + 4, headerEnd)));
  } catch {
    return fail('its header is not valid JSON');
  }
  if (typeof header !== 'object' || header === null) return fail('its header is not an object');
  const { model, dimensions, hashes } = header as Record<string, unknown>;
  if (typeof model !== 'string' || model === '') return fail('its header names no model');
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions <= 0 || dimensions > MAX_DIMENSIONS) {
    return fail(`its dimension count (${String(dimensions)}) is not a positive integer up to ${MAX_DIMENSIONS}`);
  }
  if (!Array.isArray(hashes) || !hashes.every((hash) => typeof hash === 'string')) return fail('its header has no list of hashes');
  const start = align(headerEnd);
  const expected = start + hashes.length * dimensions * 4;
  if (bytes.length !== expected) return fail(`it holds ${bytes.length} bytes where its header promises ${expected}`);
  const vectors = new Map<string, Float32Array>();
  // One aligned copy of the data, viewed per vector (the file's bytes may start anywhere in a buffer).
  const data = new Float32Array(hashes.length * dimensions);
  if (LITTLE_ENDIAN) new Uint8Array(data.buffer).set(bytes.subarray(start, expected));
  else for (let i = 0, offset = start; i < data.length; i++, offset += 4) data[i] = view.getFloat32(offset, true);
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) return fail(`the vector of ${hashes[Math.floor(i / dimensions)] ?? '?'} holds a number that is not finite`);
  }
  for (const [i, hash] of hashes.entries()) vectors.set(hash, data.subarray(i * dimensions, (i + 1) * dimensions));
  return { ok: true, content: { model, dimensions, vectors } };
}

function align(offset: number): number {
  return Math.ceil(offset / 4) * 4;
}

/** The cache file through a file system port (EmbeddingStore of embeddingIndex.ts); a missing file is no cache. */
export function fileEmbeddingStore(fs: FileSystemPort, file: string): { read(): Promise<Uint8Array | undefined>; write(bytes: Uint8Array): Promise<void> } {
  return {
    read: async () => ((await fs.stat(file))?.type === 'file' ? fs.readFile(file) : undefined),
    write: (bytes) => fs.writeFileAtomic(file, bytes),
  };
}
