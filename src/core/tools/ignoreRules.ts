import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { globToRegExp } from './globPattern';

/**
 * What the listing and search tools leave out: `.gitignore` files (the workspace folder's and
 * every nested one, each applying to its own subtree) and the host's exclude globs (VS Code's
 * `files.exclude` / `search.exclude`, relative to the workspace folder). Ignore files above the
 * workspace folder, `.git/info/exclude` and git's global excludes are not read, like VS Code's
 * search with its default settings.
 */

export interface IgnoreRule {
  /** The line as written, for explanations and tests. */
  readonly pattern: string;
  /** `!pattern`: brings back what an earlier pattern ignored. */
  readonly negate: boolean;
  /** `pattern/`: only folders match. */
  readonly dirOnly: boolean;
  /** Matches a path relative to the folder holding the `.gitignore`. */
  readonly regex: RegExp;
}

export const GITIGNORE_FILE = '.gitignore';

/** Strips trailing spaces unless the last one is escaped with a backslash. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ') {
    if (line[end - 2] === '\\') return `${line.slice(0, end - 2)} `;
    end--;
  }
  return line.slice(0, end);
}

/** Parses `.gitignore` text into rules, in file order; lines that cannot mean anything are skipped. */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split('\n')) {
    let line = trimTrailingSpaces(raw.replace(/\r$/, ''));
    if (line === '' || line.startsWith('#')) continue;
    const pattern = line;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    let dirOnly = false;
    while (line.endsWith('/') && !line.endsWith('\\/')) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    if (line === '' || line === '/') continue;
    // A slash at the start or in the middle anchors the pattern to the .gitignore's folder;
    // without one it matches a name at any depth below it.
    const anchored = line.includes('/');
    const body = anchored ? line.replace(/^\/+/, '') : `**/${line}`;
    try {
      rules.push({ pattern, negate, dirOnly, regex: globToRegExp(body, { braces: false }) });
    } catch {
      // A pattern git would not understand either; leaving it out is what git effectively does.
    }
  }
  return rules;
}

/** The folders that can hold `.gitignore` files applying to `relative`: the root first. */
function ancestorsOf(relative: string): string[] {
  const dirs = [''];
  const parts = relative.split('/');
  for (let i = 1; i < parts.length; i++) dirs.push(parts.slice(0, i).join('/'));
  return dirs;
}

/**
 * The ignore rules of one workspace folder. Paths are `/`-separated and relative to `root`.
 * Walkers call `load(dir)` before listing a folder and `matches()` for each entry (they never
 * descend into an ignored folder); a single path found another way goes through `isIgnored()`.
 */
export class IgnoreRules {
  private readonly byDir = new Map<string, readonly IgnoreRule[]>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly excludes: readonly RegExp[];
  /** The host's exclude globs, cleaned (no leading `./` or `/`, no trailing `/`). */
  readonly excludeGlobs: readonly string[];

  constructor(
    private readonly fs: FileSystemPort,
    readonly root: string,
    excludeGlobs: readonly string[] = [],
  ) {
    this.excludeGlobs = excludeGlobs.map((glob) => glob.trim().replace(/^\.?\/+/, '').replace(/\/+$/, '')).filter((glob) => glob !== '');
    this.excludes = this.excludeGlobs.flatMap((glob) => {
      try {
        return [globToRegExp(glob)];
      } catch {
        return [];
      }
    });
  }

  /** Reads `<dir>/.gitignore` once; an unreadable file counts as empty. */
  load(dir: string): Promise<void> {
    if (this.byDir.has(dir)) return Promise.resolve();
    let loading = this.pending.get(dir);
    if (!loading) {
      loading = (async () => {
        let rules: readonly IgnoreRule[] = [];
        try {
          const file = path.join(this.root, ...dir.split('/').filter(Boolean), GITIGNORE_FILE);
          rules = parseGitignore(new TextDecoder().decode(await this.fs.readFile(file)));
        } catch {
          // no .gitignore here
        }
        this.byDir.set(dir, rules);
        this.pending.delete(dir);
      })();
      this.pending.set(dir, loading);
    }
    return loading;
  }

  /** True when one of the host's exclude globs matches the path itself. */
  excluded(relative: string): boolean {
    return this.excludes.some((regex) => regex.test(relative));
  }

  /**
   * Whether the entry itself is ignored, looking only at rules already loaded for its ancestors.
   * The last matching rule wins, and deeper `.gitignore` files come after shallower ones.
   */
  matches(relative: string, isDir: boolean): boolean {
    if (this.excluded(relative)) return true;
    let ignored = false;
    for (const dir of ancestorsOf(relative)) {
      const rules = this.byDir.get(dir);
      if (!rules || rules.length === 0) continue;
      const local = dir === '' ? relative : relative.slice(dir.length + 1);
      for (const rule of rules) {
        if (rule.dirOnly && !isDir) continue;
        if (rule.negate === ignored && rule.regex.test(local)) ignored = !rule.negate;
      }
    }
    return ignored;
  }

  /**
   * Whether a path is left out because it, or any folder above it, is ignored or excluded, using
   * only the `.gitignore` files loaded so far (see `isIgnored` to load them first).
   */
  ignoredByLoaded(relative: string, isDir: boolean): boolean {
    if (relative === '') return false;
    const parts = relative.split('/');
    for (let i = 1; i <= parts.length; i++) {
      if (this.matches(parts.slice(0, i).join('/'), i < parts.length || isDir)) return true;
    }
    return false;
  }

  /** Whether a path is left out because it, or any folder above it, is ignored or excluded. */
  async isIgnored(relative: string, isDir: boolean): Promise<boolean> {
    const parts = relative.split('/').filter(Boolean);
    for (let i = 0; i < parts.length; i++) await this.load(parts.slice(0, i).join('/'));
    return this.ignoredByLoaded(parts.join('/'), isDir);
  }
}
