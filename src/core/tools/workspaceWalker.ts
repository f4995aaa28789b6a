import * as path from 'node:path';
import type { EntryType, FileSystemPort } from '../base/fileSystemPort';
import type { IgnoreRules } from './ignoreRules';

/**
 * Walks one workspace folder for list_files, find_files and the JavaScript text search. Entries come
 * sorted by name within each folder (UTF-16 order, which is byte order for nearly every name), so a
 * depth-first walk visits files in the order `rg --sort path` prints them. `.git` is never entered,
 * ignored entries are skipped, and symbolic links are reported but never followed (ripgrep's
 * default too), which also keeps links out of the workspace from being read.
 */

export interface WalkEntry {
  /** `/`-separated, relative to the folder root. */
  readonly relative: string;
  readonly name: string;
  /** As listed: `symlink` is not resolved. */
  readonly type: EntryType;
  /** 1 for an entry directly inside the start folder. */
  readonly depth: number;
}

export type WalkStop = 'visitor' | 'limit' | 'aborted';

export interface WalkOptions {
  /** Folder to start in, relative to the root (`''` for the root). */
  readonly start: string;
  /** Deepest level visited (1 = only the start folder's own entries). */
  readonly maxDepth?: number;
  readonly order?: 'depth' | 'breadth';
  /** Entries visited at most; the walk stops with `limit` after that. */
  readonly maxEntries?: number;
  readonly signal?: AbortSignal;
  /** Return `stop` to end the walk, `skip` to not descend into this folder. */
  visit(entry: WalkEntry): 'stop' | 'skip' | void | Promise<'stop' | 'skip' | void>;
}

export interface WalkOutcome {
  readonly stopped: WalkStop | undefined;
  readonly visited: number;
  /** Folders that could not be listed (permissions, removed during the walk). */
  readonly unreadable: number;
}

export const NEVER_ENTERED = new Set(['.git']);
/** Enough for any real project; a walk over more entries is almost surely in a dependency or cache tree. */
export const DEFAULT_MAX_ENTRIES = 200_000;

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function walkFolder(fs: FileSystemPort, rules: IgnoreRules, options: WalkOptions): Promise<WalkOutcome> {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  let visited = 0;
  let unreadable = 0;
  let stopped: WalkStop | undefined;

  const parts = options.start.split('/').filter(Boolean);
  for (let i = 0; i <= parts.length; i++) await rules.load(parts.slice(0, i).join('/'));

  /** Lists one folder's entries to visit; undefined when the walk must end. */
  const list = async (dir: string, depth: number): Promise<WalkEntry[] | undefined> => {
    if (options.signal?.aborted) {
      stopped = 'aborted';
      return undefined;
    }
    let entries;
    try {
      entries = await fs.readDirectory(path.join(rules.root, ...dir.split('/').filter(Boolean)));
    } catch {
      unreadable++;
      return [];
    }
    await rules.load(dir);
    entries.sort(byName);
    const kept: WalkEntry[] = [];
    for (const entry of entries) {
      if (NEVER_ENTERED.has(entry.name)) continue;
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (rules.matches(relative, entry.type === 'directory')) continue;
      kept.push({ relative, name: entry.name, type: entry.type, depth });
    }
    return kept;
  };

  /** Visits one entry; true when the walk must end. */
  const visitOne = async (entry: WalkEntry): Promise<{ end: boolean; descend: boolean }> => {
    if (visited >= maxEntries) {
      stopped = 'limit';
      return { end: true, descend: false };
    }
    visited++;
    const answer = await options.visit(entry);
    if (answer === 'stop') {
      stopped = 'visitor';
      return { end: true, descend: false };
    }
    return { end: false, descend: answer !== 'skip' && entry.type === 'directory' && entry.depth < maxDepth };
  };

  if (options.order === 'breadth') {
    const queue: { dir: string; depth: number }[] = [{ dir: options.start, depth: 1 }];
    for (let next = queue.shift(); next; next = queue.shift()) {
      const entries = await list(next.dir, next.depth);
      if (!entries) break;
      for (const entry of entries) {
        const { end, descend } = await visitOne(entry);
        if (end) return { stopped, visited, unreadable };
        if (descend) queue.push({ dir: entry.relative, depth: entry.depth + 1 });
      }
    }
    return { stopped, visited, unreadable };
  }

  const walk = async (dir: string, depth: number): Promise<boolean> => {
    const entries = await list(dir, depth);
    if (!entries) return true;
    for (const entry of entries) {
      const { end, descend } = await visitOne(entry);
      if (end) return true;
      if (descend && (await walk(entry.relative, depth + 1))) return true;
    }
    return false;
  };
  await walk(options.start, 1);
  return { stopped, visited, unreadable };
}
