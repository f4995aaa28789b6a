import { performance } from 'node:perf_hooks';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../core/base/contributions';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { browserSearch } from '../../core/skills/search/browserSearch';
import type { SemanticSource } from '../../core/skills/search/embeddingIndex';
import { hybridBrowserSearch } from '../../core/skills/search/embeddingRanker';
import { browserArchivedSkills, browserCatalogSummary, browserSkills } from '../../core/skills/catalog/skillListItems';
import type { LintCounts } from '../../core/skills/catalog/skillListItems';
import { declaredSkills } from '../../core/skills/index/skillHealth';
import { calledSkills } from '../../core/skills/index/skillUsage';
import { parseSkillBytes } from '../../core/skills/model/skillParser';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import type { AreaMessage, SkillsList, WebviewToHost } from '../../shared/protocol';
import { assertNever } from '../../shared/protocol';
import type { PanelArea, PanelPort } from '../panel/panelArea';
import type { SkillActions } from './skillActions';
import type { SkillDiagnostics } from './skillDiagnostics';
import type { SkillService } from './skillService';
import type { LockStatusService } from '../sharing/lockStatus';
import { isRelocatable } from '../sharing/relocateAction';

/**
 * Changes arrive in bursts (a folder moved in, a lint pass). The first change after a quiet spell
 * is sent at once, so a skill created or renamed from the panel shows up before the editor that
 * opens it keeps the workbench busy; the rest of a burst becomes one more list at its end.
 */
const DEBOUNCE_MS = 150;
/**
 * A big list is a big message (10,000 skills are about 3 MB) that the webview validates and
 * renders again; during a lint pass over all of them, diagnostics change every few milliseconds.
 * Lists are therefore spaced by up to 2 s for the biggest indexes, and ~0.1 s for a few hundred.
 */
const MS_PER_SKILL_BETWEEN_LISTS = 0.2;
const MAX_LIST_SPACING_MS = 2_000;

/** The skills tab: the list of every skill, the search, and the actions on a skill. */
export class SkillsController implements PanelArea<'skills'>, vscode.Disposable {
  private readonly store = new DisposableStore();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A change arrived while the timer was running: send one more list when it ends. */
  private trailing = false;
  private lastPostAt = Number.NEGATIVE_INFINITY;
  private lastCount = 0;
  /**
   * What each SKILL.md declares it calls, by file, for the "calls `x`, not declared" health note;
   * read only for skills whose runs called other skills, again when the file changes.
   */
  private readonly declaredCache = new Map<string, { readonly mtimeMs: number; readonly size: number; names?: readonly string[] }>();
  private semantic: SemanticSource | undefined;
  private lockStatus: LockStatusService | undefined;

  constructor(
    private readonly skills: SkillService,
    private readonly diagnostics: SkillDiagnostics,
    private readonly port: PanelPort,
    readonly actions: SkillActions,
    private readonly logger: Logger,
  ) {
    this.store.add(skills.onDidChange(() => this.schedule()));
    this.store.add(
      vscode.languages.onDidChangeDiagnostics((event) => {
        if (event.uris.some((uri) => path.basename(uri.fsPath) === SKILL_FILE)) this.schedule();
      }),
    );
    this.store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => this.schedule()));
    this.store.addCallback(() => this.timer && clearTimeout(this.timer));
    // The index loads in the background; the first list replaces the "loading" state.
    void skills.ready.then(() => this.schedule(), () => undefined);
  }

  async handle(message: AreaMessage<WebviewToHost, 'skills'>): Promise<void> {
    switch (message.type) {
      case 'skills/search':
        return this.search(message.query);
      case 'skills/open':
        await this.actions.open(message.file);
        return;
      case 'skills/preview':
        return this.actions.preview(message.file);
      case 'skills/run': {
        const record = this.skills.skillIndex.all().find((r) => r.file === message.file);
        if (!record) throw new Error('That skill is no longer indexed; the list was out of date.');
        await vscode.commands.executeCommand(COMMANDS.runSkill, { name: record.name });
        return;
      }
      case 'skills/lastRuns': {
        const record = this.skills.skillIndex.all().find((r) => r.file === message.file);
        if (!record) throw new Error('That skill is no longer indexed; the list was out of date.');
        await vscode.commands.executeCommand(COMMANDS.showTrace, { skill: record.name });
        return;
      }
      case 'skills/testTriggering':
        await vscode.commands.executeCommand(COMMANDS.testTriggering, { file: message.file });
        return;
      case 'skills/new':
        await this.actions.newFromTemplate();
        return;
      case 'skills/duplicate':
        await this.actions.duplicate(message.file);
        return;
      case 'skills/rename':
        await this.actions.rename(message.file);
        return;
      case 'skills/delete':
        await this.actions.delete(message.file);
        return;
      case 'skills/reveal':
        return this.actions.reveal(message.file);
      case 'skills/setEnabled':
        await this.actions.setEnabled(message.file, message.enabled);
        return;
      case 'skills/reindex':
        await vscode.commands.executeCommand(COMMANDS.reindexSkills);
        return;
      case 'skills/archive': {
        const result = await this.skills.archive(message.file);
        if (!result.ok) throw new Error(result.error);
        this.port.post({ type: 'panel/notice', level: 'info', message: `Archived to ${result.to}. Restore it from "Archived skills" at the end of the Skills tab.` });
        return;
      }
      case 'skills/restore': {
        const result = await this.skills.restore(message.dir);
        if (!result.ok) throw new Error(result.error);
        this.port.post({ type: 'panel/notice', level: 'info', message: `Restored to ${result.to}.` });
        return;
      }
      case 'skills/relocate':
        await vscode.commands.executeCommand(message.move ? COMMANDS.moveToAgentsSkills : COMMANDS.copyToAgentsSkills, { file: message.file });
        return;
      case 'skills/restoreLocked':
        await vscode.commands.executeCommand(COMMANDS.restoreSkillsFromLock, { folder: message.folder });
        return;
      case 'skills/import':
        await vscode.commands.executeCommand(COMMANDS.importSkills);
        return;
      case 'skills/checkUpdates': {
        const record = message.file !== undefined ? this.skills.skillIndex.all().find((r) => r.file === message.file) : undefined;
        if (message.file !== undefined && !record) throw new Error('That skill is no longer indexed; the list was out of date.');
        // Lock keys are the names the lock gives (the folder names), not always the frontmatter name.
        const lockName = record ? (this.lockStatus?.statusOf(record.dir)?.name ?? record.name) : undefined;
        await vscode.commands.executeCommand(COMMANDS.checkSkillUpdates, record && lockName ? { names: [lockName], ...(record.root.folder ? { folder: record.root.folder } : {}) } : undefined);
        return;
      }
      case 'skills/rate':
        await this.skills.ready;
        if (this.skills.skillIndex.byName(message.name).length === 0) {
          this.logger.info(`A rating for "${message.name.slice(0, 60)}" was ignored: no skill of that name is indexed`);
          return;
        }
        this.skills.usage.rate(message.name, message.rating);
        this.schedule();
        return;
      default:
        return assertNever(message);
    }
  }

  sync(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.trailing = false;
    this.post();
  }

  /** The list as the panel would receive it now (also used by tests). */
  list(): SkillsList {
    const trusted = vscode.workspace.isTrusted;
    const index = this.skills.skillIndex;
    if (!index) return { loading: true, skills: [], trusted };
    const lint = (file: string): LintCounts | undefined => {
      // No findings: either clean or not linted yet; the index's read errors tell the two apart well enough.
      const findings = this.diagnostics.findingsFor(vscode.Uri.file(file));
      if (findings.length === 0) return undefined;
      let errors = 0;
      let warnings = 0;
      for (const finding of findings) {
        if (finding.severity === 'error') errors++;
        else if (finding.severity === 'warning') warnings++;
      }
      return { errors, warnings };
    };
    const catalog = this.skills.catalog();
    const skills = browserSkills({
      records: index.all(),
      lint,
      usage: (name) => this.skills.usage.get(name),
      catalog,
      declared: (record) => this.declared(record),
    });
    const archived = browserArchivedSkills(this.skills.archived);
    const lockStatus = this.lockStatus;
    const missing = lockStatus?.missing.map(({ name, source, folder }) => ({ name, source, folder })) ?? [];
    // Copy/Move to .agents/skills are offered for skills in other tools' folders.
    const relocatable = new Set(index.all().filter(isRelocatable).map((record) => record.file));
    const withLock = skills.map((item) => {
      const state = lockStatus?.statusOf(path.dirname(item.file));
      const lock = state ? { lock: { status: state.status, source: state.source } } : {};
      return state || relocatable.has(item.file) ? { ...item, ...lock, ...(relocatable.has(item.file) ? { relocatable: true } : {}) } : item;
    });
    return { loading: false, skills: withLock, catalog: browserCatalogSummary(catalog), trusted, ...(archived.length > 0 ? { archived } : {}), ...(missing.length > 0 ? { missing } : {}) };
  }

  /** The cached declaration of a skill whose runs called others; a missing or outdated one is read, and a list follows. */
  private declared(record: SkillRecord): readonly string[] | undefined {
    if (calledSkills(this.skills.usage.get(record.name)).length === 0) return undefined;
    const cached = this.declaredCache.get(record.file);
    if (cached && cached.mtimeMs === record.mtimeMs && cached.size === record.size) return cached.names;
    const entry: { mtimeMs: number; size: number; names?: readonly string[] } = { mtimeMs: record.mtimeMs, size: record.size };
    this.declaredCache.set(record.file, entry);
    void this.skills.fs.readFile(record.file).then(
      (bytes) => {
        entry.names = declaredSkills(parseSkillBytes(bytes).frontmatter);
        this.schedule();
      },
      (error: unknown) => this.logger.debug(`Could not read ${record.file} for its declared skills: ${String(error)}`),
    );
    return undefined;
  }

  dispose(): void {
    this.store.dispose();
  }

  /** Skill embeddings: searches then also rank by meaning (a second result follows the lexical one). */
  useEmbeddings(semantic: SemanticSource): void {
    this.semantic = semantic;
  }

  /** skills-lock.json's view: "changed locally" markers and the missing skills, listed again when it changes. */
  useLockStatus(lockStatus: LockStatusService): void {
    this.lockStatus = lockStatus;
    this.store.add(lockStatus.onDidChange(() => this.schedule()));
  }

  private async search(query: string): Promise<void> {
    const search = await this.skills.searchReady();
    const started = performance.now();
    const files = browserSearch(query, search, this.skills.skillIndex.all());
    const tookMs = performance.now() - started;
    this.logger.debug(`Skill browser search "${query.slice(0, 60)}": ${files.length} hit(s) in ${tookMs.toFixed(1)} ms`);
    this.port.post({ type: 'skills/searchResult', query, files, tookMs });
    // The words' ranking shows at once; the fused one replaces it when the query's embedding is back
    // (the tab keeps only results for the query in its box).
    if (!this.semantic) return;
    const fused = await hybridBrowserSearch(query, files, this.semantic);
    if (!fused || (fused.length === files.length && fused.every((file, i) => file === files[i]))) return;
    const fusedMs = performance.now() - started;
    this.logger.debug(`Skill browser search "${query.slice(0, 60)}" by meaning as well: ${fused.length} hit(s) in ${fusedMs.toFixed(1)} ms`);
    this.port.post({ type: 'skills/searchResult', query, files: fused, tookMs: fusedMs });
  }

  private schedule(): void {
    // Nothing to send to a hidden panel; its next `panel/ready` asks for a fresh list anyway.
    if (!this.port.isReady) return;
    if (this.timer) {
      this.trailing = true;
      return;
    }
    const gap = Math.max(DEBOUNCE_MS, Math.min(MAX_LIST_SPACING_MS, this.lastCount * MS_PER_SKILL_BETWEEN_LISTS));
    const wait = this.lastPostAt + gap - performance.now();
    if (wait <= 0) {
      this.post();
      this.trailing = false;
    } else {
      this.trailing = true;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.trailing) return;
      this.trailing = false;
      this.post();
    }, wait > 0 ? wait : gap);
  }

  private post(): void {
    if (!this.port.isReady) return;
    const started = performance.now();
    const list = this.list();
    this.lastPostAt = performance.now();
    this.lastCount = list.skills.length;
    this.logger.trace(`Skill browser list: ${list.skills.length} skill(s) built in ${(this.lastPostAt - started).toFixed(1)} ms`);
    this.port.post({ type: 'skills/list', list });
  }
}
