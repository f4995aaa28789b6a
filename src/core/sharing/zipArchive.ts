/**
 * Unpacks an untrusted zip into a quarantine folder. The central directory is read first (names,
 * modes and sizes as the archive declares them), and the whole archive is refused when any entry
 * would land outside the folder, is a link, or the archive is too big; only then are bytes inflated.
 */
import * as path from 'node:path';
import { unzipSync } from 'fflate';
import type { FileSystemPort } from '../base/fileSystemPort';

export const MAX_ZIP_ENTRIES = 5_000;
export const MAX_ZIP_BYTES = 50 * 1024 * 1024;
const MAX_NAME_LENGTH = 1_024;
const MAX_SEGMENT_BYTES = 255;
/** Names Windows gives to devices, with any extension: writing one there reaches the device. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\..*)?$/i;

export class ZipRefused extends Error {}

export interface ZipEntryInfo {
  readonly name: string;
  readonly directory: boolean;
  readonly size: number;
  /** Unix mode from the external attributes, when the archive was made on Unix. */
  readonly mode?: number;
  readonly encrypted: boolean;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** Why an entry's name is unsafe, or undefined. Backslashes count as separators (Windows tools write them). */
export function zipEntryNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'an entry has an empty name';
  if (name.length > MAX_NAME_LENGTH) return `an entry's name is ${name.length} characters long (limit ${MAX_NAME_LENGTH})`;
  if (/[\u0000-\u001f]/.test(name)) return `the entry ${JSON.stringify(name)} has control characters in its name`;
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/')) return `the entry "${name}" has an absolute path`;
  if (/^[A-Za-z]:/.test(slashed)) return `the entry "${name}" names a drive`;
  const segments = slashed.replace(/\/$/, '').split('/');
  for (const segment of segments) {
    if (segment === '..') return `the entry "${name}" steps out of the archive with ".."`;
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) return `the entry "${name.slice(0, 80)}…" has a name part longer than ${MAX_SEGMENT_BYTES} bytes`;
    // On Windows "a:b" writes to a hidden stream of "a", and device names reach the device.
    if (segment.includes(':')) return `the entry "${name}" has a ":" in its name, which Windows reads as a stream or drive`;
    if (WINDOWS_DEVICE.test(segment)) return `the entry "${name}" is named after a Windows device (${segment})`;
  }
  return undefined;
}

function u16(data: Uint8Array, at: number): number {
  return (data[at] ?? 0) | ((data[at + 1] ?? 0) << 8);
}

function u32(data: Uint8Array, at: number): number {
  return (u16(data, at) | (u16(data, at + 2) << 16)) >>> 0;
}

/** The entries of the central directory, as declared. Throws ZipRefused when it cannot be read. */
export function readZipEntries(data: Uint8Array): ZipEntryInfo[] {
  // The end-of-central-directory record is in the last 22 + 65,535 bytes (its comment is at most that).
  let eocd = -1;
  for (let at = data.length - 22; at >= Math.max(0, data.length - 22 - 0xffff); at--) {
    if (u32(data, at) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new ZipRefused('the file is not a zip archive (no end of central directory)');
  const count = u16(data, eocd + 10);
  const offset = u32(data, eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new ZipRefused('zip64 archives are not supported; they exceed the import limits anyway');
  if (count > MAX_ZIP_ENTRIES) throw new ZipRefused(`the archive has ${count} entries; the limit is ${MAX_ZIP_ENTRIES}`);
  const decoder = new TextDecoder('utf-8');
  const entries: ZipEntryInfo[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > data.length || u32(data, at) !== 0x02014b50) throw new ZipRefused('the zip central directory is damaged');
    const madeBy = u16(data, at + 4) >> 8;
    const flags = u16(data, at + 8);
    const size = u32(data, at + 24);
    const nameLength = u16(data, at + 28);
    const extraLength = u16(data, at + 30);
    const commentLength = u16(data, at + 32);
    const external = u32(data, at + 38);
    const name = decoder.decode(data.subarray(at + 46, at + 46 + nameLength));
    const mode = madeBy === 3 ? external >>> 16 : undefined;
    entries.push({ name, directory: name.endsWith('/') || name.endsWith('\\') || (mode !== undefined && (mode & S_IFMT) === S_IFDIR), size, encrypted: (flags & 1) === 1, ...(mode ? { mode } : {}) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Checks every entry; throws ZipRefused naming the first that is not allowed. */
export function checkZipEntries(entries: readonly ZipEntryInfo[]): void {
  if (entries.length > MAX_ZIP_ENTRIES) throw new ZipRefused(`the archive has ${entries.length} entries; the limit is ${MAX_ZIP_ENTRIES}`);
  let total = 0;
  const seen = new Set<string>();
  for (const entry of entries) {
    const problem = zipEntryNameProblem(entry.name);
    if (problem) throw new ZipRefused(problem);
    if (entry.encrypted) throw new ZipRefused(`the entry "${entry.name}" is encrypted`);
    const type = entry.mode !== undefined ? entry.mode & S_IFMT : 0;
    if (type === S_IFLNK) throw new ZipRefused(`the entry "${entry.name}" is a symbolic link; links are not imported`);
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) throw new ZipRefused(`the entry "${entry.name}" is not a file or folder`);
    // Two names that differ in case or separator would overwrite each other on some systems.
    const key = entry.name.replace(/\\/g, '/').replace(/\/$/, '').toLowerCase();
    if (seen.has(key) && !entry.directory) throw new ZipRefused(`the entry "${entry.name}" appears twice`);
    seen.add(key);
    total += entry.size;
    if (total > MAX_ZIP_BYTES) throw new ZipRefused(`the archive unpacks to more than ${MAX_ZIP_BYTES / 1024 / 1024} MB`);
  }
}

/** Unpacks `data` into `into` (which must exist and be empty). Returns the files written, relative. */
export async function extractZip(fs: FileSystemPort, data: Uint8Array, into: string): Promise<string[]> {
  const entries = readZipEntries(data);
  checkZipEntries(entries);
  const declared = new Map(entries.map((entry) => [entry.name, entry]));
  let files: Record<string, Uint8Array>;
  try {
    // fflate sizes each output by the declared size, so a lying entry cannot inflate past the limit.
    files = unzipSync(data, { filter: (file) => declared.has(file.name) && !declared.get(file.name)?.directory && file.originalSize <= MAX_ZIP_BYTES });
  } catch (error) {
    throw new ZipRefused(`the archive could not be unpacked: ${(error as Error).message}`);
  }
  const root = path.resolve(into);
  const written: string[] = [];
  let total = 0;
  for (const [name, bytes] of Object.entries(files)) {
    if (!declared.has(name)) throw new ZipRefused(`the entry "${name}" is not in the central directory`);
    total += bytes.length;
    if (total > MAX_ZIP_BYTES) throw new ZipRefused(`the archive unpacks to more than ${MAX_ZIP_BYTES / 1024 / 1024} MB`);
    const relative = name.replace(/\\/g, '/');
    const target = path.resolve(root, ...relative.split('/'));
    // Checked above already; kept as the last word before a write.
    if (!target.startsWith(root + path.sep)) throw new ZipRefused(`the entry "${name}" would be written outside the folder`);
    await fs.writeFileAtomic(target, bytes);
    written.push(relative);
  }
  for (const entry of entries) {
    if (entry.directory) await fs.mkdir(path.resolve(root, ...entry.name.replace(/\\/g, '/').replace(/\/$/, '').split('/')));
  }
  return written.sort();
}
