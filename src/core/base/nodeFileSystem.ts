import type { Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { DirEntry, EntryType, FileStat, FileSystemPort } from './fileSystemPort';

/** The entry type of a Dirent or Stats. */
export function typeOf(entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): EntryType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  return 'other';
}

async function statWith(fn: (p: string) => Promise<Stats>, p: string): Promise<FileStat | undefined> {
  try {
    const stat = await fn(p);
    return { type: typeOf(stat), size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/** Bytes a file name may have on nearly every file system. */
const MAX_NAME_BYTES = 255;

/**
 * The temp file an atomic write renames into place: `.<name>.<random>.tmp` beside the target. The
 * name is shortened (at a character boundary) so that a target name near the 255-byte limit still
 * gets a temp name the file system takes.
 */
export function tempName(base: string): string {
  const suffix = `.${randomBytes(6).toString('hex')}.tmp`;
  const room = MAX_NAME_BYTES - 1 - suffix.length;
  const chars = [...base];
  let bytes = Buffer.byteLength(base, 'utf8');
  while (bytes > room) bytes -= Buffer.byteLength(chars.pop() ?? '', 'utf8');
  return `.${chars.join('')}${suffix}`;
}

/** FileSystemPort over Node's fs: used by the host, the CLI and tests. */
export class NodeFileSystem implements FileSystemPort {
  async readDirectory(dir: string): Promise<DirEntry[]> {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    return entries.map((entry) => ({ name: entry.name, type: typeOf(entry) }));
  }

  stat(p: string): Promise<FileStat | undefined> {
    return statWith(fs.stat, p);
  }

  lstat(p: string): Promise<FileStat | undefined> {
    return statWith(fs.lstat, p);
  }

  realPath(p: string): Promise<string> {
    return fs.realpath(p);
  }

  async readFile(p: string): Promise<Uint8Array> {
    return fs.readFile(p);
  }

  async writeFileAtomic(p: string, data: Uint8Array | string): Promise<void> {
    await fs.mkdir(path.dirname(p), { recursive: true });
    const temp = path.join(path.dirname(p), tempName(path.basename(p)));
    try {
      await fs.writeFile(temp, data);
      await fs.rename(temp, p);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async mkdir(p: string): Promise<void> {
    await fs.mkdir(p, { recursive: true });
  }

  async remove(p: string): Promise<void> {
    await fs.rm(p, { recursive: true, force: true });
  }

  async rename(from: string, to: string): Promise<void> {
    await fs.rename(from, to);
  }
}
