import * as fs from 'node:fs';
import type { DirEntry, FileStat } from './fileSystemPort';
import { NodeFileSystem, typeOf } from './nodeFileSystem';

function statOf(stat: fs.Stats | undefined): FileStat | undefined {
  return stat ? { type: typeOf(stat), size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
}

/**
 * NodeFileSystem whose reads are synchronous calls behind the same Promise API, for indexing many
 * small files on a local disk. Each async fs call costs tens of microseconds of thread handoff and
 * promise work, a synchronous one a few; a skill needs three calls, so at 10,000 skills that is
 * ~0.5 s against ~0.15 s. The index runs its bulk work in slices of ~10 ms (see runBounded), so
 * the event loop still turns. Do not use it for network or virtual file systems, where one call
 * can block for long: keep NodeFileSystem there. Writes are NodeFileSystem's (async, atomic).
 */
export class SyncReadFileSystem extends NodeFileSystem {
  override async readDirectory(dir: string): Promise<DirEntry[]> {
    return fs.readdirSync(dir, { withFileTypes: true }).map((entry) => ({ name: entry.name, type: typeOf(entry) }));
  }

  override async stat(p: string): Promise<FileStat | undefined> {
    try {
      return statOf(fs.statSync(p, { throwIfNoEntry: false }));
    } catch {
      return undefined;
    }
  }

  override async lstat(p: string): Promise<FileStat | undefined> {
    try {
      return statOf(fs.lstatSync(p, { throwIfNoEntry: false }));
    } catch {
      return undefined;
    }
  }

  override async realPath(p: string): Promise<string> {
    return fs.realpathSync(p);
  }

  override async readFile(p: string): Promise<Uint8Array> {
    return fs.readFileSync(p);
  }
}
