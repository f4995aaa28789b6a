import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { FileSystemPort } from '../core/base/fileSystemPort';
import type { SkillRoot } from '../core/base/skillRoots';
import type { SnapshotStore } from '../core/skills/index/indexSnapshot';

/**
 * The user's cache folder for Skillwright's CLI: SKILLWRIGHT_CACHE_DIR when set, else the
 * platform's place for caches (XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
 * %LOCALAPPDATA% on Windows). Everything in it can be deleted at any time.
 */
export function cliCacheDir(homeDir: string, platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): string {
  if (env.SKILLWRIGHT_CACHE_DIR) return env.SKILLWRIGHT_CACHE_DIR;
  if (platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(homeDir, 'AppData', 'Local'), 'skillwright', 'Cache');
  if (platform === 'darwin') return path.join(homeDir, 'Library', 'Caches', 'skillwright');
  // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(homeDir, '.cache');
  return path.join(xdg, 'skillwright');
}

/**
 * One snapshot per list of skill folders: the same folders in the same order share a file, so
 * running in two projects does not make each throw the other's snapshot away. The entries inside
 * name their roots too, so a collision of the short hash only costs a rescan.
 */
export function snapshotFile(cacheDir: string, roots: readonly SkillRoot[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify(roots.map((root) => path.resolve(root.path))))
    .digest('hex')
    .slice(0, 16);
  return path.join(cacheDir, 'index', `${key}.json`);
}

/**
 * The index snapshot of one CLI run, in a file of the cache folder (or, with no file, only in
 * memory: `--no-cache`). A snapshot that cannot be read counts as absent (the index then scans and
 * this run writes a fresh one); writes are atomic (temp file + rename), so two runs at once leave
 * one whole snapshot.
 */
export class CliSnapshotStore implements SnapshotStore {
  /** The text last read or written: after the index's check and save, the snapshot of what it holds. */
  text: string | undefined;

  constructor(
    private readonly fs: FileSystemPort,
    readonly file: string | undefined,
  ) {}

  async read(): Promise<string | undefined> {
    if (this.file === undefined) return undefined;
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.readFile(this.file);
    } catch {
      return undefined;
    }
    this.text = new TextDecoder().decode(bytes);
    return this.text;
  }

  async write(text: string): Promise<void> {
    this.text = text;
    if (this.file !== undefined) await this.fs.writeFileAtomic(this.file, text);
  }
}
