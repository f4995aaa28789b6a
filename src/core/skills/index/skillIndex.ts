import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FileSystemPort } from '../../base/fileSystemPort';
import type { SkillRoot } from '../../base/skillRoots';
import type { Disposable } from '../../base/disposableStore';
import { Emitter } from '../../base/emitter';
import type { Logger } from '../../base/logger';
import { describeError, nullLogger } from '../../base/logger';
import type { SkillRecord } from '../model/skillTypes';
import { SKILL_FILE, SUPPORT_FOLDERS } from '../model/skillTypes';
import type { SnapshotStore } from './indexSnapshot';
import { decodeIndexSnapshot, encodeIndexSnapshot } from './indexSnapshot';
import { emptyHeader, readSkillHeader } from '../model/skillHeader';
import type { HeldBack, IndexedSkill, SkillChange, SkillPlatform } from './skillRecordSet';
import { SkillRecordSet } from './skillRecordSet';
import type { SkillLocation, WalkedDir } from './skillWalker';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_SKILLS, SKIPPED_FOLDERS, SkillWalker, runBounded, skillLocation } from './skillWalker';

export interface SkillIndexOptions {
  fs: FileSystemPort;
  roots: readonly SkillRoot[];
  platform?: SkillPlatform;
  disabled?: ReadonlySet<string>;
  /** Project skills waiting for consent: kept out of `active()` and `get()` (skillRecordSet.ts). */
  heldBack?: HeldBack;
  snapshot?: SnapshotStore;
  logger?: Logger;
  maxDepth?: number;
  maxSkills?: number;
  /** File operations in flight at once; the default suits Node's 4 I/O threads. */
  concurrency?: number;
}

export type SkillChangeEvent = SkillChange;

/** Files bigger than this are not read at all (FileSystemPort has no partial read); a SKILL.md this big is a mistake. */
const MAX_READ_BYTES = 64 * 1024 * 1024;
const SNAPSHOT_DELAY_MS = 1000;
const SUPPORT: ReadonlySet<string> = new Set(SUPPORT_FOLDERS);

interface RootState {
  readonly root: SkillRoot;
  readonly index: number;
  readonly path: string;
  dirs: Map<string, WalkedDir>;
  visited: Map<string, string>;
  warnings: string[];
}

export function currentPlatform(): SkillPlatform {
  return process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'macos' : 'linux';
}

function normalizePath(p: string): string {
  const normal = path.normalize(p);
  return normal.length > 1 && normal.endsWith(path.sep) && path.dirname(normal) !== normal ? normal.slice(0, -1) : normal;
}

function isInside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * Every skill under the configured roots, kept current cheaply: a disk snapshot for a fast start,
 * (mtime, size) checks so unchanged files are never re-read, and `invalidate` for one file or
 * folder at a time. File watcher events are hints (they drop and coalesce), so `validate()` is the
 * cheap full check behind them. All mutations run one at a time, in call order.
 */
export class SkillIndex {
  /** Resolves when the records served from a snapshot have been checked against the disk. */
  validated: Promise<void> = Promise.resolve();

  private readonly fs: FileSystemPort;
  private readonly logger: Logger;
  private readonly snapshot?: SnapshotStore;
  private readonly maxSkills: number;
  private readonly maxDepth: number;
  private readonly walker: SkillWalker;
  private readonly concurrency: number;
  private readonly records: SkillRecordSet;
  private currentRoots: readonly SkillRoot[];
  private states: RootState[];
  private readonly changes: Emitter<SkillChangeEvent>;
  private limitWarning?: string;
  private queue: Promise<unknown> = Promise.resolve();
  private saveTimer?: ReturnType<typeof setTimeout>;
  private saving: Promise<void> = Promise.resolve();

  constructor(options: SkillIndexOptions) {
    this.fs = options.fs;
    this.logger = options.logger ?? nullLogger;
    this.changes = new Emitter<SkillChangeEvent>('Skill index', this.logger);
    this.snapshot = options.snapshot;
    this.maxSkills = options.maxSkills ?? DEFAULT_MAX_SKILLS;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.concurrency = options.concurrency ?? 32;
    this.walker = new SkillWalker(this.fs, this.concurrency, this.maxDepth, Math.max(this.maxSkills * 5, 10_000));
    this.records = new SkillRecordSet(options.platform ?? currentPlatform(), options.disabled, options.heldBack);
    this.currentRoots = options.roots;
    this.states = this.createStates(options.roots);
  }

  /** The roots in precedence order, as last given to the constructor or setRoots. */
  get roots(): readonly SkillRoot[] {
    return this.currentRoots;
  }

  get warnings(): readonly string[] {
    const all = this.states.flatMap((state) => state.warnings);
    if (this.limitWarning) all.push(this.limitWarning);
    return all;
  }

  /** Serves the snapshot when there is a usable one (then checks it against the disk in `validated`), else scans. */
  load(): Promise<void> {
    return this.enqueue(async () => {
      const started = performance.now();
      if (await this.loadSnapshot()) {
        this.logDone('served from the snapshot', started);
        this.validated = this.enqueue(() => this.walkAll(false, 'checked the snapshot against the disk')).catch((error) => {
          this.logger.error(`Skill index: checking the snapshot against the disk failed: ${describeError(error)}`);
        });
        return;
      }
      await this.walkAll(false, 'scanned');
    });
  }

  /** Walks everything and re-reads every SKILL.md ("Reindex"). */
  rescan(): Promise<void> {
    return this.enqueue(() => this.walkAll(true, 'rescanned'));
  }

  /** Walks everything but re-reads only files whose (mtime, size) changed: for window focus and missed events. */
  validate(): Promise<void> {
    return this.enqueue(() => this.walkAll(false, 'validated'));
  }

  /** A file or folder changed, appeared or disappeared; updates the index before resolving. */
  invalidate(target: string): Promise<void> {
    return this.enqueue(() => this.invalidateNow(normalizePath(target)));
  }

  setRoots(roots: readonly SkillRoot[], disabled?: ReadonlySet<string>): Promise<void> {
    return this.enqueue(async () => {
      if (disabled) this.records.setDisabled(disabled);
      if (JSON.stringify(roots) !== JSON.stringify(this.currentRoots)) {
        this.currentRoots = roots;
        this.states = this.createStates(roots);
        await this.walkAll(false, 'walked the new folders');
      } else {
        this.commit();
      }
    });
  }

  /** The `heldBack` answer changed (a consent was given or the gate turned off): applies it. */
  refreshHeldBack(): Promise<void> {
    return this.enqueue(() => {
      this.records.refreshHeldBack();
      this.commit();
      return Promise.resolve();
    });
  }

  all(): readonly SkillRecord[] {
    return this.records.all();
  }

  active(): readonly SkillRecord[] {
    return this.records.active();
  }

  byName(name: string): readonly SkillRecord[] {
    return this.records.byName(name);
  }

  get(name: string): SkillRecord | undefined {
    return this.records.get(name);
  }

  onDidChange(listener: (event: SkillChangeEvent) => void): Disposable {
    return this.changes.event(listener);
  }

  /** Writes the snapshot now (it is otherwise written shortly after each change). */
  saveSnapshot(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const store = this.snapshot;
    if (!store) return Promise.resolve();
    this.saving = this.saving.then(async () => {
      try {
        await store.write(
          encodeIndexSnapshot(
            (function* (skills: Iterable<IndexedSkill>) {
              for (const { location, header, mtimeMs, size } of skills) {
                yield { rootPath: location.root.path, sortKey: location.sortKey, mtimeMs, size, header };
              }
            })(this.records.skills()),
          ),
        );
      } catch (error) {
        this.logger.warn(`Skill index: could not write the snapshot: ${describeError(error)}`);
      }
    });
    return this.saving;
  }

  dispose(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.changes.dispose();
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private createStates(roots: readonly SkillRoot[]): RootState[] {
    return roots.map((root, index) => ({ root, index, path: normalizePath(root.path), dirs: new Map(), visited: new Map(), warnings: [] }));
  }

  private async loadSnapshot(): Promise<boolean> {
    if (!this.snapshot) return false;
    let text: string | undefined;
    try {
      text = await this.snapshot.read();
      if (text === undefined) return false;
      const byRoot = new Map(this.states.map((state) => [state.path, state]));
      for (const entry of decodeIndexSnapshot(text)) {
        const state = byRoot.get(normalizePath(entry.rootPath));
        // Roots removed from the settings since the snapshot was written are simply left out.
        if (!state) continue;
        const key = entry.sortKey;
        // Joined the way the walker joins, so validation finds the same keys.
        const dir = key === '' ? state.path : state.path + path.sep + key.replaceAll('\0', path.sep);
        const location = skillLocation(state.root, state.index, dir, key);
        if (this.records.size < this.maxSkills) this.upsertOwned({ location, header: entry.header, mtimeMs: entry.mtimeMs, size: entry.size });
      }
    } catch (error) {
      this.logger.warn(`Skill index: ignoring the snapshot (${describeError(error)}); scanning the skill folders instead.`);
      for (const skill of [...this.records.skills()]) this.records.remove(skill.location.file);
      this.records.commit();
      return false;
    }
    this.commit(false);
    return true;
  }

  private async walkAll(force: boolean, what = 'walked'): Promise<void> {
    const started = performance.now();
    const kept: SkillLocation[] = [];
    this.limitWarning = undefined;
    for (const state of this.states) {
      state.visited = new Map();
      const result = await this.walker.walk({
        root: state.root,
        rootIndex: state.index,
        start: { dir: state.path, depth: 0, sortKey: '' },
        visited: state.visited,
        budget: this.maxSkills - kept.length,
      });
      state.dirs = new Map(result.dirs.map((dir) => [dir.path, dir]));
      state.warnings = result.warnings;
      kept.push(...result.skills);
      if (result.limited) this.noteLimit(state);
    }
    const skills = await this.readSkills(kept, (location) => (force ? undefined : this.records.skill(location.file)));
    const keep = new Set<string>();
    for (const skill of skills) {
      // A file under two nested roots belongs to the first of them.
      if (!skill || keep.has(skill.location.file)) continue;
      keep.add(skill.location.file);
      this.records.upsert(skill);
    }
    for (const skill of [...this.records.skills()]) {
      if (!keep.has(skill.location.file)) this.records.remove(skill.location.file);
    }
    this.commit();
    this.logDone(what, started);
  }

  private logDone(what: string, started: number): void {
    const ms = Math.round(performance.now() - started);
    this.logger.info(`Skill index: ${what}: ${this.records.size} skills from ${this.states.length} folders in ${ms} ms.`);
  }

  private async readSkills(locations: readonly SkillLocation[], cache: (location: SkillLocation) => IndexedSkill | undefined): Promise<(IndexedSkill | undefined)[]> {
    const skills: (IndexedSkill | undefined)[] = new Array(locations.length);
    await runBounded(locations, this.concurrency, async (location, index) => {
      skills[index] = await this.readSkill(location, cache(location));
    });
    return skills;
  }

  private noteLimit(state: RootState): void {
    this.limitWarning = `Indexing stopped at ${this.maxSkills.toLocaleString('en-US')} skills; the rest of ${state.root.label} and the folders after it were not indexed. Remove unused skill folders or raise the limit.`;
  }

  /** Stats and reads one SKILL.md; `cached` is reused when (mtime, size) match. */
  private async readSkill(location: SkillLocation, cached: IndexedSkill | undefined): Promise<IndexedSkill | undefined> {
    let stat;
    try {
      stat = await this.fs.stat(location.file);
    } catch (error) {
      this.logger.warn(`Skill index: could not stat ${location.file}: ${describeError(error)}`);
      return undefined;
    }
    if (!stat || stat.type !== 'file') return undefined;
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) {
      return { location, header: cached.header, mtimeMs: stat.mtimeMs, size: stat.size };
    }
    let header;
    if (stat.size > MAX_READ_BYTES) {
      header = emptyHeader([`SKILL.md is ${Math.round(stat.size / (1024 * 1024))} MB, too large to index (limit ${MAX_READ_BYTES / (1024 * 1024)} MB).`]);
    } else {
      try {
        const bytes = await this.fs.readFile(location.file);
        header = readSkillHeader(bytes, bytes.length);
      } catch (error) {
        header = emptyHeader([`SKILL.md could not be read: ${describeError(error)}`]);
      }
    }
    return { location, header, mtimeMs: stat.mtimeMs, size: stat.size };
  }

  private async invalidateNow(target: string): Promise<void> {
    for (const state of this.states) {
      if (isInside(state.path, target) || state.dirs.size === 0) {
        // The root itself or a folder above it changed, or the root has not existed so far.
        if (isInside(target, state.path) || isInside(state.path, target)) await this.rewalk(state, state.path);
        continue;
      }
      if (isInside(target, state.path)) await this.invalidateInRoot(state, target);
    }
    this.commit();
  }

  private async invalidateInRoot(state: RootState, target: string): Promise<void> {
    if (state.dirs.has(target)) {
      await this.rewalk(state, target);
      return;
    }
    const parent = path.dirname(target);
    const known = this.records.skill(target);
    if (known && known.location.rootIndex === state.index) {
      const stat = await this.fs.stat(target);
      if (stat?.type === 'file') {
        // Unchanged (mtime, size): typically our own write followed by the watcher's event.
        if (stat.mtimeMs === known.mtimeMs && stat.size === known.size) return;
        const skill = await this.readSkill(known.location, undefined);
        if (skill) this.upsertOwned(skill);
        return;
      }
      // The folder stopped being a skill: its support folders may now hold skills of their own.
      await this.rewalk(state, parent);
      return;
    }
    // Find the deepest folder the walk knows, then look at the next path segment below it.
    let child = target;
    let ancestor = parent;
    while (!state.dirs.has(ancestor)) {
      if (ancestor === state.path || path.dirname(ancestor) === ancestor) return this.rewalk(state, state.path);
      child = ancestor;
      ancestor = path.dirname(ancestor);
    }
    if (child === target && path.basename(target) === SKILL_FILE) {
      await this.rewalk(state, ancestor);
      return;
    }
    const stat = await this.fs.stat(child);
    if (stat && stat.type !== 'directory') return;
    await this.rewalk(state, child);
  }

  /** Forgets everything at and below `dir` and walks it again (or only forgets, when it is gone). */
  private async rewalk(state: RootState, dir: string): Promise<void> {
    let start = { dir, depth: 0, sortKey: '' };
    if (dir !== state.path) {
      const parent = state.dirs.get(path.dirname(dir));
      if (!parent) return this.rewalk(state, state.path);
      const name = path.basename(dir);
      if (!parent.searched || SKIPPED_FOLDERS.has(name) || (parent.isSkill && SUPPORT.has(name)) || parent.depth + 1 > this.maxDepth) return;
      start = { dir, depth: parent.depth + 1, sortKey: parent.sortKey === '' ? name : `${parent.sortKey}\0${name}` };
    }
    for (const [dirPath, walked] of state.dirs) {
      if (isInside(dirPath, dir)) {
        state.dirs.delete(dirPath);
        state.visited.delete(walked.real);
      }
    }
    const previous = new Map<string, IndexedSkill>();
    for (const skill of [...this.records.skills()]) {
      if (skill.location.rootIndex === state.index && isInside(skill.location.dir, dir)) {
        previous.set(skill.location.file, skill);
        this.records.remove(skill.location.file);
      }
    }
    if (dir === state.path) state.visited = new Map();
    const result = await this.walker.walk({ root: state.root, rootIndex: state.index, start, visited: state.visited, budget: this.maxSkills - this.records.size });
    for (const walked of result.dirs) state.dirs.set(walked.path, walked);
    state.warnings = dir === state.path ? result.warnings : [...new Set([...state.warnings, ...result.warnings])];
    if (result.limited) this.noteLimit(state);
    for (const skill of await this.readSkills(result.skills, (location) => previous.get(location.file))) {
      if (skill) this.upsertOwned(skill);
    }
  }

  /** Adds or updates a skill unless the same file is already indexed under an earlier (nested) root. */
  private upsertOwned(skill: IndexedSkill): void {
    const existing = this.records.skill(skill.location.file);
    if (!existing || existing.location.rootIndex >= skill.location.rootIndex) this.records.upsert(skill);
  }

  private commit(save = true): void {
    const change = this.records.commit();
    if (change.added.length + change.removed.length + change.changed.length === 0) return;
    if (save) this.scheduleSave();
    this.changes.fire(change);
  }

  private scheduleSave(): void {
    if (!this.snapshot || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.saveSnapshot();
    }, SNAPSHOT_DELAY_MS);
    this.saveTimer.unref?.();
  }
}
