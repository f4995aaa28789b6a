import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS, SETTINGS, STATE_KEYS } from '../../core/base/contributions';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { MemoryScanCache } from '../../core/security/scanCache';
import { scanSkillFolder } from '../../core/security/skillScan';
import { computeSkillFolderHash } from '../../core/sharing/skillsLock';
import type { ConsentSkillSummary } from '../../core/skills/consent/consentSummary';
import { consentSummary } from '../../core/skills/consent/consentSummary';
import type { ConsentEntry, ConsentResult, ConsentStore, ConsentSubject } from '../../core/skills/consent/projectConsent';
import { declinedDirs, evaluateConsent, needsConsent, parseConsentStore, withDecisions, withRecords } from '../../core/skills/consent/projectConsent';
import type { IndexedSkill } from '../../core/skills/index/skillRecordSet';
import { parseSkillBytes } from '../../core/skills/model/skillParser';
import type { ConsentCardView, WebviewToHost } from '../../shared/protocol';
import { assertNever } from '../../shared/protocol';
import type { AreaMessage } from '../../shared/protocol';
import type { PanelArea, PanelPort } from '../panel/panelArea';
import type { ProjectSkillGate, SkillService } from './skillService';

/** A write noted but not yet matched to an indexed skill is forgotten after this. */
const AUTHORED_TTL_MS = 30_000;
/**
 * A write counts for this long: a save lands on the disk, in the watchers and in the index at
 * different moments, and every version hashed meanwhile is the person's own.
 */
const AUTHORED_SETTLE_MS = 2_000;
const SETTLE_MS = 150;

function versionOf(skill: { readonly mtimeMs: number; readonly size: number }): string {
  return `${skill.mtimeMs}:${skill.size}`;
}

function isInside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

export interface ProjectConsentDeps {
  readonly skills: SkillService;
  /** Where decisions are kept: the workspace's state, so each folder asks for itself. */
  readonly state: vscode.Memento;
  readonly panel: PanelPort;
  /** Reveals the panel's Chat tab, where the card is. */
  readonly showCard: () => Promise<void>;
  readonly logger: Logger;
}

/**
 * Consent for project skills in a trusted folder (core/skills/consent/projectConsent.ts): hashes
 * the project skill folders after the index is ready, holds back the ones nobody consented to,
 * and serves the Chat tab's consent card. Writes through the skill service's file system (our
 * commands, the agent) and saves from the editor count as written here.
 */
export class ProjectConsent implements vscode.Disposable, ProjectSkillGate, PanelArea<'consent'> {
  private readonly store = new DisposableStore();
  private decisions: ConsentStore;
  /** SKILL.md → the (mtime, size) of the version consented to. */
  private allowed = new Map<string, string>();
  /** Paths written here and not yet hashed into a decision → when. */
  private readonly authored = new Map<string, number>();
  /** Skill folder → its hash, for the SKILL.md version it was computed at; dropped when a file in it changes. */
  private readonly hashes = new Map<string, { version: string; hash: string }>();
  private readonly summaries = new Map<string, ConsentSkillSummary>();
  private readonly scanCache = new MemoryScanCache();
  private enabledNow: boolean;
  private last: ConsentResult | undefined;
  private reviewing = false;
  private announced = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Fires after each evaluation (tests wait on it through `result`). */
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly deps: ProjectConsentDeps) {
    this.decisions = parseConsentStore(deps.state.get<unknown>(STATE_KEYS.projectConsent));
    this.enabledNow = this.readEnabled();
    deps.skills.useGate(this);
    this.store.add(this.changeEmitter);
    this.store.add(deps.skills.onDidChange(() => this.schedule()));
    this.store.add(
      deps.skills.onDidTouch((paths) => {
        for (const dir of [...this.hashes.keys()]) if (paths.some((p) => isInside(p, dir) || isInside(dir, p))) this.hashes.delete(dir);
        this.schedule();
      }),
    );
    this.store.add(deps.skills.onDidWrite((p) => this.noteAuthored(p)));
    // Before the write, so the index, which reads the file after it, already counts it as ours.
    this.store.add(vscode.workspace.onWillSaveTextDocument((event) => event.document.uri.scheme === 'file' && this.noteAuthored(event.document.uri.fsPath)));
    this.store.add(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SETTINGS.section}.${SETTINGS.projectConsent}`)) this.reconsider();
      }),
    );
    this.store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => this.reconsider()));
  }

  /** On in a trusted folder unless the (user-level) setting turns it off. */
  get enabled(): boolean {
    return this.enabledNow;
  }

  /** The last evaluation; undefined while consent is off or before the index is ready. */
  get result(): ConsentResult | undefined {
    return this.last;
  }

  isHeld(skill: IndexedSkill): boolean {
    if (!this.enabledNow || skill.location.root.scope !== 'project') return false;
    if (this.allowed.get(skill.location.file) === versionOf(skill)) return false;
    // A write into a declined folder (a rename onto it, a save) does not let it in: only an approval does.
    return !this.authoredIn(skill.location.dir) || declinedDirs(this.decisions).has(skill.location.dir);
  }

  /**
   * An install in this window after its review (Import Skills…, Check for Skill Updates) approves
   * what it installed, at the hash it has now. Not for Restore from Lock: the lock came with the
   * repository, and restoring what it names is no review, so those skills still ask.
   */
  async recordInstalled(dir: string, name: string): Promise<void> {
    if (!this.enabledNow) return;
    let hash: string;
    try {
      hash = await computeSkillFolderHash(this.deps.skills.fs, dir);
    } catch (error) {
      this.deps.logger.warn(`Project skill consent: could not read the installed ${dir}: ${describeError(error)}`);
      return;
    }
    this.hashes.delete(dir);
    this.decisions = withRecords(this.decisions, { [hash]: { decision: 'approved', name, dir, at: new Date().toISOString(), by: 'installed' } });
    await this.persist();
    this.deps.logger.info(`Project skill consent: "${name}" approved as installed after its review`);
    await this.evaluate();
  }

  settle(): Promise<void> {
    return this.evaluate();
  }

  /** Looks again now: every folder hashed afresh (scripts may have changed without an event). */
  refresh(): Promise<void> {
    this.hashes.clear();
    return this.evaluate();
  }

  /** "Review Project Skills…": the card with the declined skills too. */
  async review(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showInformationMessage('Skillwright: in Restricted Mode every project skill stays out. Trust this folder first; its skills then ask for consent.');
      return;
    }
    if (!this.enabledNow) {
      void vscode.window.showInformationMessage(`Skillwright: consent for project skills is off (skillwright.${SETTINGS.projectConsent}), so every project skill is in the catalog.`);
      return;
    }
    this.reviewing = true;
    await this.refresh();
    if (this.listed().length === 0) {
      this.reviewing = false;
      void vscode.window.showInformationMessage('Skillwright: no project skill is waiting for consent. Each one was approved, written in this workspace, or installed here after its review.');
      return;
    }
    await this.deps.showCard();
    await this.post();
  }

  async handle(message: AreaMessage<WebviewToHost, 'consent'>): Promise<void> {
    switch (message.type) {
      case 'consent/decide': {
        const entry = this.last?.entries.find((candidate) => candidate.record.file === message.file && candidate.hash === message.hash);
        if (!entry) throw new Error(`"${message.file}" changed or went away since the card showed it; look at the card again before deciding.`);
        await this.decide([entry], message.decision === 'approve' ? 'approved' : 'declined');
        return;
      }
      case 'consent/approveAll': {
        const wanted = new Set(message.hashes);
        await this.decide(this.listed().filter((entry) => wanted.has(entry.hash)), 'approved');
        return;
      }
      default:
        assertNever(message);
    }
  }

  sync(): Promise<void> {
    return this.post();
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.settleTimer);
    this.store.dispose();
  }

  private readEnabled(): boolean {
    return vscode.workspace.isTrusted && vscode.workspace.getConfiguration(SETTINGS.section).get<boolean>(SETTINGS.projectConsent, true) !== false;
  }

  private reconsider(): void {
    this.enabledNow = this.readEnabled();
    this.schedule();
  }

  private noteAuthored(p: string): void {
    if (this.deps.skills.skillIndex?.roots.some((root) => root.scope === 'project' && isInside(p, root.path))) {
      this.authored.set(p, Date.now());
      this.schedule();
      // One more look once the write has settled, to record the version that landed.
      clearTimeout(this.settleTimer);
      this.settleTimer = setTimeout(() => this.schedule(), AUTHORED_SETTLE_MS + 100);
    }
  }

  private authoredIn(dir: string): boolean {
    for (const p of this.authored.keys()) if (isInside(p, dir)) return true;
    return false;
  }

  private listed(): ConsentEntry[] {
    return (this.last?.entries ?? []).filter((entry) => entry.state === 'pending' || (this.reviewing && entry.state === 'declined'));
  }

  private async decide(entries: readonly ConsentEntry[], decision: 'approved' | 'declined'): Promise<void> {
    if (entries.length === 0) return;
    this.decisions = withDecisions(this.decisions, entries, decision, 'card', new Date());
    await this.persist();
    this.deps.logger.info(`Project skill consent: ${decision} ${entries.map((entry) => `"${entry.record.name}"`).join(', ')}`);
    await this.evaluate();
  }

  private async persist(): Promise<void> {
    try {
      await this.deps.state.update(STATE_KEYS.projectConsent, this.decisions);
    } catch (error) {
      this.deps.logger.warn(`Could not keep the project skill consent decisions: ${describeError(error)}`);
    }
  }

  private schedule(): void {
    if (this.timer || !this.deps.skills.skillIndex) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.evaluate().catch((error: unknown) => this.deps.logger.error(`Project skill consent failed: ${describeError(error)}`));
    }, SETTLE_MS);
  }

  /** One evaluation at a time, in call order. */
  private evaluate(): Promise<void> {
    const run = this.queue.then(() => this.evaluateNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async evaluateNow(): Promise<void> {
    const index = this.deps.skills.skillIndex;
    if (!this.enabledNow) {
      this.allowed.clear();
      this.authored.clear();
      this.last = undefined;
      this.reviewing = false;
      await this.deps.skills.refreshGate();
      await this.post();
      this.changeEmitter.fire();
      return;
    }
    const records = index.all().filter(needsConsent);
    const subjects: ConsentSubject[] = [];
    for (const record of records) {
      const version = versionOf(record);
      let known = this.hashes.get(record.dir);
      // A folder being written here is hashed afresh: its scripts may have changed without an event yet.
      if (known?.version !== version || this.authoredIn(record.dir)) {
        try {
          known = { version, hash: await computeSkillFolderHash(this.deps.skills.fs, record.dir) };
          this.hashes.set(record.dir, known);
        } catch (error) {
          // Unreadable: it stays out (not allowed) and is not offered either.
          this.deps.logger.warn(`Project skill consent: could not read ${record.dir}: ${describeError(error)}`);
          continue;
        }
      }
      subjects.push({ record, hash: known.hash });
    }
    const now = Date.now();
    const authoredDirs = new Set(records.filter((record) => this.authoredIn(record.dir)).map((record) => record.dir));
    const result = evaluateConsent({ subjects, store: this.decisions, authored: authoredDirs });
    if (Object.keys(result.additions).length > 0) {
      this.decisions = withRecords(this.decisions, result.additions);
      await this.persist();
    }
    for (const [p, at] of [...this.authored]) {
      const settled = now - at >= AUTHORED_SETTLE_MS;
      if (now - at > AUTHORED_TTL_MS || (settled && [...authoredDirs].some((dir) => isInside(p, dir)))) this.authored.delete(p);
    }
    this.allowed = new Map(result.entries.filter((entry) => entry.state === 'approved').map((entry) => [entry.record.file, versionOf(entry.record)]));
    this.last = result;
    if (this.listed().length === 0) this.reviewing = false;
    await this.deps.skills.refreshGate();
    await this.post();
    this.announce(result);
    this.changeEmitter.fire();
  }

  /** A notification the first time new skills wait, so a person who never opens the panel learns of them. */
  private announce(result: ConsentResult): void {
    const fresh = result.pending.filter((entry) => !this.announced.has(entry.hash));
    if (fresh.length === 0) return;
    for (const entry of fresh) this.announced.add(entry.hash);
    const count = result.pending.length;
    const what = count === 1 ? `The project skill "${result.pending[0]?.record.name ?? ''}" came with this repository` : `${count} project skills came with this repository`;
    void vscode.window
      .showInformationMessage(`Skillwright: ${what} and stay out of the catalog until you approve them.`, 'Review…')
      .then((answer) => answer && vscode.commands.executeCommand(COMMANDS.reviewProjectSkills));
  }

  private async cardView(): Promise<ConsentCardView> {
    const skills: ConsentSkillSummary[] = [];
    for (const entry of this.listed()) {
      const summary = await this.summaryOf(entry);
      if (summary) skills.push(summary);
    }
    return { skills, review: this.reviewing };
  }

  private async summaryOf(entry: ConsentEntry): Promise<ConsentSkillSummary | undefined> {
    const key = `${entry.hash}\0${entry.record.file}\0${entry.reason}`;
    const cached = this.summaries.get(key);
    if (cached) return cached;
    try {
      const fs = this.deps.skills.fs;
      const scan = await scanSkillFolder(fs, entry.record.dir, { cache: this.scanCache });
      const frontmatter = parseSkillBytes(await fs.readFile(entry.record.file)).frontmatter;
      const summary = consentSummary(entry, frontmatter, scan);
      if (this.summaries.size > 500) this.summaries.clear();
      this.summaries.set(key, summary);
      return summary;
    } catch (error) {
      this.deps.logger.warn(`Project skill consent: could not describe ${entry.record.dir}: ${describeError(error)}`);
      return undefined;
    }
  }

  private async post(): Promise<void> {
    if (!this.deps.panel.isReady) return;
    this.deps.panel.post({ type: 'consent/state', consent: await this.cardView() });
  }
}
