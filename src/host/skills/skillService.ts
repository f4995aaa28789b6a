import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SETTINGS } from '../../core/base/contributions';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { SyncReadFileSystem } from '../../core/base/syncReadFileSystem';
import { configuredRoots } from '../../core/skills/index/configuredRoots';
import type { CatalogResult } from '../../core/skills/catalog/skillCatalog';
import { buildCatalog } from '../../core/skills/catalog/skillCatalog';
import { SkillIndex } from '../../core/skills/index/skillIndex';
import { buildSkillSearch } from '../../core/skills/search/skillSearchBuild';
import { SkillSearch } from '../../core/skills/search/skillSearch';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import { SkillUsage } from '../../core/skills/index/skillUsage';
import type { ArchiveResult, ArchivedSkill } from '../../core/skills/index/skillArchive';
import { archiveSkill, listArchived, restoreSkill } from '../../core/skills/index/skillArchive';
import { healthOf } from '../../core/skills/index/skillHealth';
import { isInside } from '../../core/skills/model/skillPaths';
import { usagePrior } from '../../core/skills/search/usagePrior';
import type { SemanticSource } from '../../core/skills/search/embeddingIndex';
import type { SkillRoot } from '../../core/base/skillRoots';
import { FileTextStore } from '../../core/base/textStore';
import type { IndexedSkill } from '../../core/skills/index/skillRecordSet';
import { SkillWatchers } from './skillWatchers';

export interface SkillChange {
  readonly added: readonly SkillRecord[];
  readonly removed: readonly SkillRecord[];
  readonly changed: readonly SkillRecord[];
}

/** Says what it writes: the skill writes of our commands and of the agent count as authored here (consent). */
class WriteObservingFileSystem extends SyncReadFileSystem {
  constructor(private readonly onWrite: (path: string) => void) {
    super();
  }

  override async writeFileAtomic(p: string, data: Uint8Array | string): Promise<void> {
    // Told first, so the index, which reads the file after the write, already knows it is ours.
    this.onWrite(p);
    return super.writeFileAtomic(p, data);
  }

  override async mkdir(p: string): Promise<void> {
    this.onWrite(p);
    return super.mkdir(p);
  }

  override async remove(p: string): Promise<void> {
    this.onWrite(p);
    return super.remove(p);
  }

  override async rename(from: string, to: string): Promise<void> {
    this.onWrite(from);
    this.onWrite(to);
    return super.rename(from, to);
  }
}

/** Holds project skills back until consented (src/host/skills/projectConsent.ts). */
export interface ProjectSkillGate {
  /** Consulted as records are built; `refreshGate()` after the answer changes. */
  isHeld(skill: IndexedSkill): boolean;
  /** Runs once the index has loaded; `ready` resolves after it, so nothing sees unconsented skills first. */
  settle(): Promise<void>;
  /** A skill installed in this window after its review (import, update): its content counts as approved. */
  recordInstalled(dir: string, name: string): Promise<void>;
}

/**
 * Owns the skill index for the window: roots from settings and workspace folders (project roots
 * only in trusted workspaces), the disk snapshot, watchers, search and the catalog.
 */
export class SkillService implements vscode.Disposable {
  /** Skill roots are local folders; synchronous reads index them about 2.5x faster (docs/decisions.md). */
  readonly fs: SyncReadFileSystem = new WriteObservingFileSystem((p) => this.writeEmitter.fire(p));
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  /** A path written through `fs` (our commands, Save as Skill, the agent's skill tools). */
  readonly onDidWrite = this.writeEmitter.event;
  private readonly touchEmitter = new vscode.EventEmitter<readonly string[]>();
  /** Paths the watchers saw change under the skill roots (scripts too, which the index does not read). */
  readonly onDidTouch = this.touchEmitter.event;
  private gate: ProjectSkillGate | undefined;
  /** Built in slices after the index is ready: indexing 10,000 skills for search takes about two seconds. */
  private searchIndex: SkillSearch | undefined;
  private searchBuild: Promise<void> | undefined;
  private searchGeneration = 0;
  readonly usage: SkillUsage;
  private readonly store: DisposableStore;
  private readonly changeEmitter = new vscode.EventEmitter<SkillChange>();
  /** Fires after the index, search and catalog reflect a change. */
  readonly onDidChange = this.changeEmitter.event;
  private index!: SkillIndex;
  private readonly watchers: SkillWatchers;
  private catalogCache: CatalogResult | undefined;
  private rootProblems: string[] = [];
  private readyPromise: Promise<void> | undefined;
  private archivedList: readonly ArchivedSkill[] = [];
  /**
   * The window's skill embeddings (skillEmbeddings.ts, set at activation), for rankings by meaning
   * as well as words: Save as Skill's overlap check passes it to skillOverlapOffer as `semantic`.
   */
  semantic: SemanticSource | undefined;

  constructor(
    private readonly storageDir: string,
    private readonly logger: Logger,
  ) {
    this.store = new DisposableStore(logger);
    this.store.add(this.changeEmitter);
    this.store.add(this.writeEmitter);
    this.store.add(this.touchEmitter);
    this.usage = new SkillUsage(new FileTextStore(this.fs, path.join(storageDir, 'skill-usage.json')), Date.now, logger);
    this.store.add(this.usage);
    this.watchers = this.store.add(
      new SkillWatchers(
        this.fs,
        (paths) => {
          this.touchEmitter.fire(paths);
          return this.invalidate(paths);
        },
        () => this.skillFolders(),
        logger,
      ),
    );
  }

  /** Set before `start()`: project skills it holds back stay out of active(), get(), search and the catalog. */
  useGate(gate: ProjectSkillGate): void {
    this.gate = gate;
  }

  /**
   * Import and update write with plain file access, not through `fs`, so they say what they
   * installed after a person reviewed it; restore from the lock must not call this.
   */
  async noteInstalled(dir: string, name: string): Promise<void> {
    await this.gate?.recordInstalled(dir, name);
  }

  /** The gate's answer changed (a consent given, the setting turned off). */
  async refreshGate(): Promise<void> {
    // Before start there are no records yet; the index consults the gate as it builds them.
    if (this.index) await this.index.refreshHeldBack();
  }

  /** Resolves once the index has records (from the snapshot or a scan). */
  start(): Promise<void> {
    this.readyPromise ??= this.startOnce();
    return this.readyPromise;
  }

  get ready(): Promise<void> {
    return this.start();
  }

  /**
   * The search over the active skills. Built in the background in slices once the index is ready
   * (searchReady); a caller that needs it before that builds it at once, in one call.
   */
  get search(): SkillSearch {
    return this.searchIndex ?? this.useSearch(new SkillSearch(this.index.active()));
  }

  /** The search, once built without holding up the window (what the panel's requests await). */
  async searchReady(): Promise<SkillSearch> {
    await this.start();
    for (;;) {
      if (this.searchIndex) return this.searchIndex;
      this.searchBuild ??= this.buildSearch();
      await this.searchBuild;
    }
  }

  private async buildSearch(): Promise<void> {
    const generation = this.searchGeneration;
    try {
      const search = await buildSkillSearch(this.index.active());
      // A rescan or new roots meanwhile make this build stale; the next searchReady builds again.
      if (generation !== this.searchGeneration || this.searchIndex) return;
      // Skills that changed while it was built.
      search.reconcile(this.index.active());
      this.useSearch(search);
    } finally {
      this.searchBuild = undefined;
    }
  }

  private useSearch(search: SkillSearch): SkillSearch {
    // Read at query time, so a run or a rating counts from the next search on.
    search.setPrior((record) => usagePrior(this.usage.get(record.name)));
    this.searchIndex = search;
    return search;
  }

  /** Drops the search (a rescan, new roots); the next use builds it again. */
  private resetSearch(): void {
    this.searchIndex = undefined;
    this.searchGeneration++;
  }

  /** The archived skills of the roots in use, as last read. */
  get archived(): readonly ArchivedSkill[] {
    return this.archivedList;
  }

  /**
   * Moves an indexed skill into its root's `.archive` (skillArchive.ts), if it may be archived: the
   * assistant created it and nobody used it for 90 days. Refused with a reason otherwise.
   */
  async archive(file: string, now = Date.now()): Promise<ArchiveResult> {
    await this.start();
    const record = this.index.all().find((candidate) => candidate.file === file);
    if (!record) return { ok: false, error: `${file} is not a known skill any more; it may have been moved or deleted.` };
    const usage = this.usage.get(record.name);
    if (!healthOf(usage, now).archivable) {
      return { ok: false, error: `"${record.name}" cannot be archived: only skills the assistant created and nobody used for 90 days can be.` };
    }
    const nested = this.index.all().filter((other) => other.dir !== record.dir && isInside(record.dir, other.dir));
    if (nested.length > 0) return { ok: false, error: `Cannot archive "${record.name}": its folder holds other skills (${nested.map((r) => `"${r.name}"`).join(', ')}); move those first.` };
    const result = await archiveSkill(this.fs, record.root, record.dir);
    if (result.ok) {
      this.logger.info(`Archived the skill "${record.name}" to ${result.to}`);
      await this.refreshArchived();
      await this.invalidate([result.from]);
    }
    return result;
  }

  /** Moves an archived skill back to where it came from; never over an existing folder. */
  async restore(dir: string): Promise<ArchiveResult> {
    await this.start();
    const result = await restoreSkill(this.fs, this.index.roots, dir);
    if (result.ok) {
      const name = this.archivedList.find((skill) => skill.dir === result.from)?.name;
      if (name) this.usage.markRestored(name);
      this.logger.info(`Restored the archived skill ${result.from} to ${result.to}`);
      await this.refreshArchived();
      await this.invalidate([result.to]);
    }
    return result;
  }

  /** Reads the roots' archives again. */
  async refreshArchived(): Promise<void> {
    try {
      this.archivedList = await listArchived(this.fs, this.index.roots);
    } catch (error) {
      this.logger.warn(`Could not list archived skills: ${describeError(error)}`);
    }
  }

  get skillIndex(): SkillIndex {
    return this.index;
  }

  get problems(): readonly string[] {
    return [...this.rootProblems, ...(this.index?.warnings ?? [])];
  }

  catalog(): CatalogResult {
    this.catalogCache ??= buildCatalog(this.index.active(), { budgetTokens: this.budget(), usage: this.usage.forCatalog() });
    return this.catalogCache;
  }

  /** Full rescan ("Reindex Skills"). */
  async reindex(): Promise<void> {
    await this.start();
    await this.index.rescan();
    await this.refreshArchived();
    this.resetSearch();
    this.catalogCache = undefined;
    this.changeEmitter.fire({ added: [], removed: [], changed: [] });
  }

  /** Cheap check against the disk (window focus). */
  async validate(): Promise<void> {
    await this.start();
    await this.index.validate();
  }

  /** Settings, folders or trust changed. */
  async reconfigure(): Promise<void> {
    await this.start();
    const { roots, disabled } = this.readSettings();
    await this.index.setRoots(roots, disabled);
    await this.watchers.reset(roots);
    await this.refreshArchived();
    this.resetSearch();
    this.catalogCache = undefined;
    this.changeEmitter.fire({ added: [], removed: [], changed: [] });
  }

  async invalidate(paths: readonly string[]): Promise<void> {
    await this.start();
    for (const p of paths) await this.index.invalidate(p);
  }

  /** Saves the index snapshot and usage statistics (deactivate). */
  async flush(): Promise<void> {
    await Promise.all([this.index?.saveSnapshot(), this.usage.flush()]);
  }

  dispose(): void {
    this.store.dispose();
  }

  private async startOnce(): Promise<void> {
    const { roots, disabled } = this.readSettings();
    this.index = this.store.add(
      new SkillIndex({
        fs: this.fs,
        roots,
        disabled,
        heldBack: (skill) => this.gate?.isHeld(skill) ?? false,
        snapshot: new FileTextStore(this.fs, path.join(this.storageDir, 'skill-index.json')),
        logger: this.logger,
      }),
    );
    this.store.add(this.index.onDidChange((change) => this.applyChange(change)));
    await Promise.all([this.index.load(), this.usage.load()]);
    if (this.gate) await this.gate.settle().catch((error: unknown) => this.logger.error(`Project skill consent failed: ${describeError(error)}`));
    await this.refreshArchived();
    await this.watchers.reset(roots);
    const active = this.index.active().length;
    this.logger.info(`Skill index ready: ${this.index.all().length} skill(s), ${active} active, from ${roots.length} folder(s)`);
    // Ready for the first search before anyone asks, without a long pause of the window.
    void this.searchReady().catch((error: unknown) => this.logger.warn(`Building the skill search failed (it is built again on the next search): ${describeError(error)}`));
  }

  private applyChange(change: SkillChange): void {
    // Shadowing can flip between copies of a name, so search follows the index's winners by name.
    const search = this.searchIndex;
    if (search) {
      const names = new Set([...change.added, ...change.removed, ...change.changed].map((record) => record.name));
      for (const record of [...change.removed, ...change.changed, ...change.added]) search.remove(record.file);
      for (const name of names) {
        for (const record of this.index.byName(name)) search.remove(record.file);
        const winner = this.index.get(name);
        if (winner) search.upsert(winner);
      }
    }
    this.catalogCache = undefined;
    this.changeEmitter.fire(change);
  }

  private readSettings(): { roots: SkillRoot[]; disabled: Set<string> } {
    const config = vscode.workspace.getConfiguration(SETTINGS.section);
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ name: folder.name, fsPath: folder.uri.fsPath }));
    const { roots, problems } = configuredRoots(folders, os.homedir(), {
      extraRoots: config.get<string[]>(SETTINGS.extraRoots, []),
      disabledRoots: config.get<string[]>(SETTINGS.disabledRoots, []),
    });
    this.rootProblems = problems;
    for (const problem of problems) this.logger.warn(problem);
    // Project skills of an untrusted folder stay out until the user trusts it.
    const trusted = vscode.workspace.isTrusted;
    const usable = trusted ? roots : roots.filter((root) => root.scope !== 'project');
    return { roots: usable, disabled: new Set(config.get<string[]>(SETTINGS.disabledSkills, [])) };
  }

  private budget(): number {
    const value = vscode.workspace.getConfiguration(SETTINGS.section).get<number>(SETTINGS.catalogBudget, 3000);
    return Number.isFinite(value) && value >= 200 ? value : 3000;
  }

  /** Folders that hold skills, up to their root: where a new skill folder appears. */
  private *skillFolders(): Iterable<string> {
    if (!this.index) return;
    const seen = new Set<string>();
    for (const record of this.index.all()) {
      let dir = path.dirname(record.dir);
      while (!seen.has(dir) && dir.length >= record.root.path.length) {
        seen.add(dir);
        yield dir;
        const parent = path.dirname(dir);
        if (parent === dir) break;
        dir = parent;
      }
    }
  }
}

