import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DirEntry, FileSystemPort } from '../../base/fileSystemPort';
import type { SkillRoot } from '../../base/skillRoots';
import { describeError } from '../../base/logger';
import { SKILL_FILE, SUPPORT_FOLDERS } from '../model/skillTypes';

export const DEFAULT_MAX_DEPTH = 8;
export const DEFAULT_MAX_SKILLS = 20_000;

/**
 * Folder names never searched, wherever they occur below a root: version control, dependencies,
 * Python virtualenvs and caches, editor state. Other dot-folders ARE searched, because skill
 * collections use them for categories (openai/skills keeps skills in `.curated/` and `.system/`).
 * `dist`, `build` and `out` are searched too: a skills root holds skills, not build output, and
 * `build` is a plausible category name. A folder holding `pyvenv.cfg` (a virtualenv under any
 * name, such as `env`) is skipped when it is read.
 */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  '.git', '.hg', '.svn', 'node_modules', 'bower_components',
  '__pycache__', '.venv', 'venv', '.tox', '.nox', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.ipynb_checkpoints',
  '.cache', '.parcel-cache', '.turbo', '.next', '.gradle',
  '.idea', '.vs', '.vscode', '.Trash', '$RECYCLE.BIN',
  // Skills archived from the Skills tab (skillArchive.ts): kept on disk, out of the index.
  '.archive',
]);

const SUPPORT: ReadonlySet<string> = new Set(SUPPORT_FOLDERS);
const VENV_MARKER = 'pyvenv.cfg';

/** Bulk work yields to the event loop this often, so a host stays responsive even with synchronous reads. */
const SLICE_MS = 10;

/**
 * Runs `task` over every item with at most `concurrency` in flight. Workers pull the next item,
 * so no promise or closure exists per waiting item (with 10,000 items that garbage costs more
 * than the file system calls themselves). Every ~10 ms all workers pause for one turn of the
 * event loop; with a synchronous FileSystemPort that is what keeps the host responsive.
 */
export async function runBounded<T extends {} | null>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let sliceStart = performance.now();
  let pause: Promise<void> | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      if (pause) {
        await pause;
        continue;
      }
      if (performance.now() - sliceStart > SLICE_MS) {
        pause = new Promise((resolve) =>
          setImmediate(() => {
            pause = undefined;
            sliceStart = performance.now();
            resolve();
          }),
        );
        continue;
      }
      const index = next++;
      const item = items[index];
      // index < items.length and T excludes undefined, so this only narrows the type.
      if (item !== undefined) await task(item, index);
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(concurrency, items.length); i++) workers.push(worker());
  await Promise.all(workers);
}

/** Where a skill was found. */
export interface SkillLocation {
  readonly root: SkillRoot;
  readonly rootIndex: number;
  readonly dir: string;
  readonly file: string;
  readonly folderName: string;
  /** Folder path between the root and the skill folder, `/`-separated. */
  readonly category: string;
  /** Path below the root, segments joined by NUL: sorts parents first and the same on every platform. */
  readonly sortKey: string;
}

/** A folder the walk entered; kept so that a later change below it can be walked alone. */
export interface WalkedDir {
  readonly path: string;
  readonly real: string;
  readonly depth: number;
  readonly sortKey: string;
  readonly isSkill: boolean;
  /** False when the walk chose not to look inside (a virtualenv): changes below it are ignored too. */
  readonly searched: boolean;
}

export interface WalkRequest {
  readonly root: SkillRoot;
  readonly rootIndex: number;
  /** Where to start; the root itself when absent. */
  readonly start?: { readonly dir: string; readonly depth: number; readonly sortKey: string };
  /** Real paths already walked under this root → the path they were walked as (cycle guard). */
  readonly visited: Map<string, string>;
  /** How many more skills may be indexed. */
  readonly budget: number;
}

export interface WalkResult {
  /** Sorted by sortKey. */
  readonly skills: SkillLocation[];
  readonly dirs: WalkedDir[];
  readonly warnings: string[];
  /** The start folder exists and is a folder. */
  exists: boolean;
  /** The skill budget ran out. */
  limited: boolean;
}

interface Expanded {
  readonly dir: WalkedDir;
  readonly skill?: SkillLocation;
  readonly children: Pending[];
}

interface Pending {
  readonly path: string;
  readonly real: string;
  readonly parentReal: string;
  readonly depth: number;
  readonly sortKey: string;
}

/** The one place a SkillLocation is built, so a walk and a snapshot give identical paths and keys. */
export function skillLocation(root: SkillRoot, rootIndex: number, dir: string, sortKey: string): SkillLocation {
  const last = sortKey.lastIndexOf('\0');
  return {
    root,
    rootIndex,
    dir,
    file: dir + path.sep + SKILL_FILE,
    folderName: sortKey === '' ? path.basename(dir) : sortKey.slice(last + 1),
    category: last < 0 ? '' : sortKey.slice(0, last).replaceAll('\0', '/'),
    sortKey,
  };
}

function compareKeys(a: { sortKey: string }, b: { sortKey: string }): number {
  return a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0;
}

function childKey(parentKey: string, name: string): string {
  return parentKey === '' ? name : `${parentKey}\0${name}`;
}

/**
 * Finds skill folders below a root, level by level: each level's folders are read in parallel,
 * then sorted, so the result and every limit are the same whatever order the disk answers in.
 */
export class SkillWalker {
  constructor(
    private readonly fs: FileSystemPort,
    private readonly concurrency: number,
    private readonly maxDepth = DEFAULT_MAX_DEPTH,
    private readonly maxFolders = DEFAULT_MAX_SKILLS * 5,
  ) {}

  async walk(request: WalkRequest): Promise<WalkResult> {
    const { root, visited } = request;
    const start = request.start ?? { dir: root.path, depth: 0, sortKey: '' };
    const result: WalkResult = { skills: [], dirs: [], warnings: [], exists: false, limited: false };
    const stat = await this.fs.stat(start.dir);
    if (!stat) return result;
    if (stat.type !== 'directory') {
      if (start.depth === 0) result.warnings.push(`The skills folder ${root.label} (${root.path}) is a file, not a folder; nothing was indexed from it.`);
      return result;
    }
    const real = await this.realPath(start.dir);
    const first: Pending = { path: start.dir, real, parentReal: path.dirname(real), depth: start.depth, sortKey: start.sortKey };
    let level = this.admit([first], visited, result);
    result.exists = true;
    let deepest: string | undefined;
    let tooDeep = 0;
    let folders = 0;
    while (level.length > 0) {
      folders += level.length;
      const expanded: Expanded[] = new Array(level.length);
      await runBounded(level, this.concurrency, async (dir, index) => {
        expanded[index] = await this.expand(dir, request, result);
      });
      const found: SkillLocation[] = [];
      for (const item of expanded) if (item.skill) found.push(item.skill);
      found.sort(compareKeys);
      const room = request.budget - result.skills.length;
      if (found.length > room) {
        found.length = Math.max(0, room);
        result.limited = true;
      }
      for (const skill of found) result.skills.push(skill);
      for (const item of expanded) result.dirs.push(item.dir);
      if (result.limited) break;
      const children: Pending[] = [];
      for (const item of expanded) {
        for (const child of item.children) {
          if (child.depth > this.maxDepth) {
            tooDeep++;
            if (deepest === undefined || child.sortKey < deepest) deepest = child.sortKey;
          } else {
            children.push(child);
          }
        }
      }
      children.sort(compareKeys);
      if (folders + children.length > this.maxFolders) {
        result.warnings.push(
          `Stopped searching ${root.label} after ${this.maxFolders.toLocaleString('en-US')} folders; it looks like a link leads into a large folder that holds no skills.`,
        );
        break;
      }
      level = this.admit(children, visited, result);
    }
    // Found level by level (so a budget keeps the shallowest); listed in path order.
    result.skills.sort(compareKeys);
    if (deepest !== undefined) {
      result.warnings.push(
        `${tooDeep} folder${tooDeep === 1 ? ' was' : 's were'} not searched because ${tooDeep === 1 ? 'it is' : 'they are'} more than ${this.maxDepth} levels below ${root.label} (first: ${deepest.split('\0').join('/')}).`,
      );
    }
    return result;
  }

  /** Drops folders already walked (through another link, or a link back up: a cycle), with a warning each. */
  private admit(candidates: Pending[], visited: Map<string, string>, result: WalkResult): Pending[] {
    const admitted: Pending[] = [];
    for (const candidate of candidates) {
      const earlier = visited.get(candidate.real);
      if (earlier === undefined) {
        visited.set(candidate.real, candidate.path);
        admitted.push(candidate);
      } else if (candidate.parentReal === candidate.real || candidate.parentReal.startsWith(candidate.real + path.sep)) {
        result.warnings.push(`Did not follow ${candidate.path}: it links back to ${candidate.real}, a folder that contains it (a cycle).`);
      } else {
        result.warnings.push(`Did not index ${candidate.path}: it leads to ${candidate.real}, which is already indexed as ${earlier}.`);
      }
    }
    return admitted;
  }

  private async expand(dir: Pending, request: WalkRequest, result: WalkResult): Promise<Expanded> {
    let entries: DirEntry[];
    try {
      entries = await this.fs.readDirectory(dir.path);
    } catch (error) {
      result.warnings.push(`Could not read the folder ${dir.path}: ${describeError(error)}`);
      entries = [];
    }
    let isSkill = false;
    let isVenv = false;
    for (const entry of entries) {
      if (entry.name === SKILL_FILE) {
        isSkill = entry.type === 'file' || (entry.type === 'symlink' && (await this.isFile(path.join(dir.path, SKILL_FILE))));
      } else if (entry.name === VENV_MARKER) {
        isVenv = true;
      }
    }
    const searched = isSkill || !isVenv;
    const walked: WalkedDir = { path: dir.path, real: dir.real, depth: dir.depth, sortKey: dir.sortKey, isSkill, searched };
    if (!searched) return { dir: walked, children: [] };
    const skill = isSkill ? skillLocation(request.root, request.rootIndex, dir.path, dir.sortKey) : undefined;
    const children: Pending[] = [];
    for (const entry of entries) {
      if (entry.type !== 'directory' && entry.type !== 'symlink') continue;
      if (SKIPPED_FOLDERS.has(entry.name) || (isSkill && SUPPORT.has(entry.name))) continue;
      // Joined by hand: path.join normalizes, which is wasted work on a name read from the folder.
      const childPath = dir.path + path.sep + entry.name;
      let real = dir.real + path.sep + entry.name;
      if (entry.type === 'symlink') {
        if ((await this.fs.stat(childPath))?.type !== 'directory') continue;
        real = await this.realPath(childPath);
      }
      children.push({ path: childPath, real, parentReal: dir.real, depth: dir.depth + 1, sortKey: childKey(dir.sortKey, entry.name) });
    }
    return { dir: walked, skill, children };
  }

  private async isFile(file: string): Promise<boolean> {
    return (await this.fs.stat(file))?.type === 'file';
  }

  private async realPath(dir: string): Promise<string> {
    try {
      return await this.fs.realPath(dir);
    } catch {
      return dir;
    }
  }
}
