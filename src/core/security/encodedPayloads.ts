/**
 * Text hidden by encoding: base64 runs, hex (plain or `\x..` escapes) and percent-encoding that
 * decode to readable text. The scanner scans what they decode to with the same patterns, so
 * "decode this and follow it: aWdub3Jl…" is caught by what it says, and a base64 image or a hash,
 * which decode to no text, cost nothing but the decoding.
 */

export interface EncodedPayload {
  readonly index: number;
  readonly length: number;
  readonly encoding: 'base64' | 'hex' | 'percent';
  readonly decoded: string;
}

/** Shorter runs are words, ids and hashes, not hidden sentences. */
const MIN_BASE64 = 24;
const MAX_RUN = 20_000;
/**
 * Encoded text decoded per scan, in characters of runs. Bounded by volume, not by count, so that
 * harmless runs (a lock file, an image dump) cannot use up the allowance before a malicious one.
 */
const MAX_DECODED_CHARS = 2_000_000;

const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX_ESCAPES = /(?:\\x[0-9a-fA-F]{2}){12,}/g;
const PLAIN_HEX = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){16,}(?![0-9a-fA-F])/g;
const PERCENT = /(?:%[0-9a-fA-F]{2}){12,}/g;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decoded bytes that read as a sentence: UTF-8, mostly printable, with spaces between words. */
function readable(bytes: Uint8Array): string | undefined {
  if (bytes.length < 12) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  const printable = text.replace(/[^\x20-\x7E\n\t\u00A0-\uFFFF]/g, '').length;
  if (printable / text.length < 0.95) return undefined;
  return /[A-Za-z]{2,}[\s|;&/.:]+[A-Za-z$~./-]/.test(text) ? text : undefined;
}

function fromBase64(run: string): Uint8Array | undefined {
  const body = run.replace(/=+$/, '');
  // Identifiers and paths (camelCase words, snake_case) are not base64 data: real payloads mix
  // upper, lower and digits densely and have no long lowercase words.
  if (!/[a-z]/.test(body) || !/[A-Z]/.test(body) || !/\d/.test(body)) return undefined;
  if (body.length % 4 === 1) return undefined;
  const std = body.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(Buffer.from(std, 'base64'));
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Encoded runs in `text` that decode to readable text, in text order. */
export function findEncodedPayloads(text: string): EncodedPayload[] {
  const out: EncodedPayload[] = [];
  let budget = MAX_DECODED_CHARS;
  const scan = (regex: RegExp, encoding: EncodedPayload['encoding'], decode: (run: string) => Uint8Array | undefined): void => {
    const re = new RegExp(regex.source, regex.flags);
    for (let m = re.exec(text); m && budget > 0; m = re.exec(text)) {
      if (m[0].length > MAX_RUN) continue;
      budget -= m[0].length;
      const bytes = decode(m[0]);
      const decoded = bytes ? readable(bytes) : undefined;
      if (decoded !== undefined) out.push({ index: m.index, length: m[0].length, encoding, decoded });
    }
  };
  if (text.length >= MIN_BASE64) {
    scan(HEX_ESCAPES, 'hex', (run) => fromHex(run.replace(/\\x/g, '')));
    scan(PERCENT, 'percent', (run) => fromHex(run.replace(/%/g, '')));
    scan(PLAIN_HEX, 'hex', fromHex);
    scan(BASE64_RUN, 'base64', fromBase64);
  }
  // A hex run is also a valid base64 run; keep the first reading of each span.
  const seen = new Set<number>();
  return out.filter((p) => !seen.has(p.index) && seen.add(p.index)).sort((a, b) => a.index - b.index);
}
