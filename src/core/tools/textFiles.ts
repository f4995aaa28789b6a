/**
 * Deciding whether bytes are text, and decoding them, the same way for read_file and the
 * JavaScript search. UTF-8 (with or without BOM) and UTF-16 with a BOM are text; anything else
 * with a NUL byte is binary (ripgrep's rule too). Other bytes decode with replacement characters.
 */

export type DecodedFile =
  | {
      readonly kind: 'text';
      readonly text: string;
      readonly encoding: TextEncodingName;
      /** The file starts with a byte order mark (not part of `text`). */
      readonly bom: boolean;
      /** Invalid UTF-8 was replaced by U+FFFD: writing `text` back would change the file. */
      readonly lossy: boolean;
    }
  | { readonly kind: 'binary' };

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be';

export function decodeTextFile(bytes: Uint8Array): DecodedFile {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decodeUtf16(bytes, 'utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decodeUtf16(bytes, 'utf-16be');
  if (bytes.includes(0)) return { kind: 'binary' };
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = bytes.subarray(start);
  try {
    return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf-8', bom: start > 0, lossy: false };
  } catch {
    return { kind: 'text', text: new TextDecoder('utf-8').decode(body), encoding: 'utf-8', bom: start > 0, lossy: true };
  }
}

function decodeUtf16(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): DecodedFile {
  try {
    return { kind: 'text', text: new TextDecoder(encoding, { fatal: true, ignoreBOM: false }).decode(bytes), encoding, bom: true, lossy: false };
  } catch {
    return { kind: 'binary' };
  }
}

/** Encodes text the way the file it came from was encoded, byte order mark included. */
export function encodeText(text: string, encoding: TextEncodingName, bom: boolean): Uint8Array {
  if (encoding === 'utf-8') return Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text, 'utf8')]);
  const little = Buffer.from(text, 'utf16le');
  if (encoding === 'utf-16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), little]);
  const big = Buffer.from(little);
  big.swap16();
  return Buffer.concat([Buffer.from([0xfe, 0xff]), big]);
}

/** Splits text into lines without their line breaks (`\n` or `\r\n`); a final break adds no empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

const BINARY_TYPES: Readonly<Record<string, string>> = {
  png: 'PNG image', jpg: 'JPEG image', jpeg: 'JPEG image', gif: 'GIF image', webp: 'WebP image', ico: 'icon', bmp: 'bitmap image',
  pdf: 'PDF file', zip: 'zip archive', gz: 'gzip archive', tgz: 'gzip archive', tar: 'tar archive', jar: 'Java archive',
  exe: 'executable', dll: 'library', so: 'shared library', dylib: 'shared library', o: 'object file', class: 'Java class file',
  pyc: 'Python bytecode', wasm: 'WebAssembly module', sqlite: 'SQLite database', db: 'database',
  ttf: 'font', otf: 'font', woff: 'font', woff2: 'font', mp3: 'audio file', wav: 'audio file', mp4: 'video', mov: 'video',
};

/** A human name for a binary file, from its extension. */
export function binaryKind(fileName: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
  return BINARY_TYPES[ext] ?? 'binary file';
}
