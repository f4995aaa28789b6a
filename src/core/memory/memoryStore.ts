/**
 * The two memory files on disk: project `<folder>/.agents/memory/MEMORY.md` and user
 * `~/.agents/memory/USER.md`. Writes take the file's lock, re-read it, apply the actions to that
 * fresh content (so edits from another window are merged, not overwritten) and write atomically.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { describeError, nullLogger } from '../base/logger';
import type { EditSuccess, MemoryAction, MemoryChange, MemoryFailure, MemoryTarget } from './memoryEdit';
import { DEFAULT_MEMORY_LIMITS, MEMORY_TARGETS, TARGET_FILES, applyMemoryActions } from './memoryEdit';
import { parseMemoryFile, serializeMemoryFile, serializedSize } from './memoryFile';
import type { LockHandle, LockPort } from './memoryLock';
import { LockBusyError } from './memoryLock';
import type { MemorySnapshot } from './memorySnapshot';
import { renderMemorySnapshot } from './memorySnapshot';

export const MEMORY_DIR = path.join('.agents', 'memory');

export interface MemoryStoreOptions {
  readonly fs: FileSystemPort;
  readonly lock: LockPort;
  /** The workspace folder. Absent: no project memory (no folder open, or Restricted Mode). */
  readonly projectRoot?: string;
  /** Why project memory is unavailable, for the model, e.g. "the folder is not trusted (Restricted Mode)". */
  readonly projectUnavailableReason?: string;
  /** The user's home folder; USER.md lives in `<home>/.agents/memory/`. */
  readonly userHome: string;
  /** Character limits per file (settings); defaults 2,200 and 1,375. */
  readonly limits?: Partial<Record<MemoryTarget, number>>;
  readonly logger?: Logger;
}

export interface MemoryFileView {
  readonly target: MemoryTarget;
  readonly path: string;
  readonly entries: readonly string[];
  readonly chars: number;
  readonly limit: number;
}

export interface MemoryApplySuccess {
  readonly ok: true;
  readonly changes: readonly MemoryChange[];
  /** The touched files after the actions (as they are on disk now, unless a dry run). */
  readonly files: readonly MemoryFileView[];
  readonly written: boolean;
}

export type MemoryApplyResult = MemoryApplySuccess | MemoryFailure;

const decoder = new TextDecoder('utf-8', { fatal: true });

export class MemoryStore {
  private readonly fs: FileSystemPort;
  private readonly lock: LockPort;
  private readonly logger: Logger;
  private readonly limits: Record<MemoryTarget, number>;

  constructor(private readonly options: MemoryStoreOptions) {
    this.fs = options.fs;
    this.lock = options.lock;
    this.logger = options.logger ?? nullLogger;
    const limit = (target: MemoryTarget): number => {
      const value = options.limits?.[target];
      return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : DEFAULT_MEMORY_LIMITS[target];
    };
    this.limits = { memory: limit('memory'), user: limit('user') };
  }

  /** The file of a target, or undefined when project memory is unavailable. */
  pathOf(target: MemoryTarget): string | undefined {
    if (target === 'user') return path.join(this.options.userHome, MEMORY_DIR, TARGET_FILES.user);
    return this.options.projectRoot ? path.join(this.options.projectRoot, MEMORY_DIR, TARGET_FILES.memory) : undefined;
  }

  limitOf(target: MemoryTarget): number {
    return this.limits[target];
  }

  /** Reads one file for display (the panel's memory view). Undefined when the target is unavailable. */
  async read(target: MemoryTarget): Promise<MemoryFileView | MemoryFailure | undefined> {
    const file = this.pathOf(target);
    if (!file) return undefined;
    const loaded = await this.load(target, file);
    if (!Array.isArray(loaded)) return loaded;
    return this.view(target, file, loaded);
  }

  /**
   * The prompt snapshot: both files as they are now, every entry re-scanned. Call it once at
   * session start and keep the result with the session; later writes do not change it.
   */
  async takeMemorySnapshot(): Promise<MemorySnapshot> {
    const entriesOf = async (target: MemoryTarget): Promise<string[]> => {
      const file = this.pathOf(target);
      if (!file) return [];
      const loaded = await this.load(target, file);
      if (Array.isArray(loaded)) return loaded;
      this.logger.warn(`memory: ${loaded.error}; leaving it out of the prompt`);
      return [];
    };
    const project = this.pathOf('memory') ? { entries: await entriesOf('memory'), limit: this.limits.memory } : undefined;
    return renderMemorySnapshot(project, { entries: await entriesOf('user'), limit: this.limits.user });
  }

  /**
   * Applies actions, all or nothing. With `dryRun`, reads and checks without a lock and writes
   * nothing (for proposals awaiting review).
   */
  async apply(actions: readonly MemoryAction[], options: { dryRun?: boolean } = {}): Promise<MemoryApplyResult> {
    const targets = MEMORY_TARGETS.filter((t) => actions.some((a) => a.target === t));
    const files = new Map<MemoryTarget, string>();
    for (const target of targets) {
      const file = this.pathOf(target);
      if (!file) {
        const reason = this.options.projectUnavailableReason ?? 'no workspace folder is open';
        return { ok: false, code: 'unavailable', error: `project memory is unavailable: ${reason}. Use target "user" for facts about the user, or leave it unsaved.`, target };
      }
      files.set(target, file);
    }
    for (const [target, file] of files) {
      const escape = await this.linkEscape(target, file);
      if (escape) return escape;
    }
    if (options.dryRun) return this.applyTo(files, actions, false);

    const held: LockHandle[] = [];
    try {
      // Fixed order (memory, then user), so two batches touching both files cannot deadlock.
      for (const [target, file] of files) {
        try {
          held.push(await this.lock.acquire(`${file}.lock`));
        } catch (error) {
          if (error instanceof LockBusyError) {
            return { ok: false, code: 'busy', error: `${TARGET_FILES[target]} is being written by another window; nothing was saved. Try again in a moment.`, target };
          }
          return { ok: false, code: 'io', error: `could not lock ${TARGET_FILES[target]}: ${describeError(error)}`, target };
        }
      }
      return await this.applyTo(files, actions, true);
    } finally {
      for (const handle of held.reverse()) await handle.release();
    }
  }

  private async applyTo(files: ReadonlyMap<MemoryTarget, string>, actions: readonly MemoryAction[], write: boolean): Promise<MemoryApplyResult> {
    const current = new Map<MemoryTarget, string[]>();
    for (const [target, file] of files) {
      const loaded = await this.load(target, file);
      if (!Array.isArray(loaded)) return loaded;
      current.set(target, loaded);
    }
    const edit: EditSuccess | MemoryFailure = applyMemoryActions(current, actions, this.limits);
    if (!edit.ok) return edit;
    const changed = [...edit.result].filter(([target, entries]) => serializeMemoryFile(entries) !== serializeMemoryFile(current.get(target) ?? []));
    if (write) {
      const done: MemoryTarget[] = [];
      for (const [target, entries] of changed) {
        const file = files.get(target) as string;
        try {
          await this.fs.writeFileAtomic(file, serializeMemoryFile(entries));
          done.push(target);
        } catch (error) {
          await this.rollBack(done, files, current);
          return { ok: false, code: 'io', error: `could not write ${TARGET_FILES[target]}: ${describeError(error)}; nothing was saved`, target };
        }
      }
    }
    return {
      ok: true,
      changes: edit.changes,
      files: [...edit.result].map(([target, entries]) => this.view(target, files.get(target) as string, entries)),
      written: write && changed.length > 0,
    };
  }

  /** Best effort: a batch over both files stays all-or-nothing when the second write fails. */
  private async rollBack(done: readonly MemoryTarget[], files: ReadonlyMap<MemoryTarget, string>, previous: ReadonlyMap<MemoryTarget, readonly string[]>): Promise<void> {
    for (const target of done) {
      try {
        await this.fs.writeFileAtomic(files.get(target) as string, serializeMemoryFile(previous.get(target) ?? []));
      } catch (error) {
        this.logger.error(`memory: could not restore ${TARGET_FILES[target]} after a failed batch: ${describeError(error)}`);
      }
    }
  }

  /**
   * Project memory is part of the repository, so a cloned repository decides what `.agents/memory`
   * is: a symbolic link there (or of MEMORY.md) that leads out of the folder would let memory read
   * a file elsewhere into the prompt, or write (and lock) beside it. User memory is the user's own
   * and may be linked anywhere (dotfiles).
   */
  private async linkEscape(target: MemoryTarget, file: string): Promise<MemoryFailure | undefined> {
    const root = this.options.projectRoot;
    if (target !== 'memory' || !root) return undefined;
    let existing = file;
    while (!(await this.fs.lstat(existing)) && path.dirname(existing) !== existing && existing !== root) existing = path.dirname(existing);
    const [realRoot, real] = await Promise.all([this.fs.realPath(root), this.fs.realPath(existing)]).catch(() => [undefined, undefined]);
    const relative = realRoot && real ? path.relative(realRoot, real) : '..';
    if (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)) return undefined;
    const shown = path.relative(root, existing).split(path.sep).join('/') || '.';
    return { ok: false, code: 'io', error: `${shown} is a symbolic link that leads out of the project (or is broken), so project memory is not read or written; replace it with a real folder or file`, target };
  }

  private async load(target: MemoryTarget, file: string): Promise<string[] | MemoryFailure> {
    const escape = await this.linkEscape(target, file);
    if (escape) return escape;
    const stat = await this.fs.stat(file);
    if (!stat) return [];
    if (stat.type !== 'file') return { ok: false, code: 'io', error: `${file} is not a file; move it aside to use ${TARGET_FILES[target]}`, target };
    try {
      return parseMemoryFile(decoder.decode(await this.fs.readFile(file)));
    } catch (error) {
      const why = error instanceof TypeError ? 'it is not valid UTF-8 text' : describeError(error);
      return { ok: false, code: 'io', error: `could not read ${TARGET_FILES[target]} (${why}); fix or remove ${file}`, target };
    }
  }

  private view(target: MemoryTarget, file: string, entries: readonly string[]): MemoryFileView {
    return { target, path: file, entries, chars: serializedSize(entries), limit: this.limits[target] };
  }
}
