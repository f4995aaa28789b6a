import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { FileSystemPort } from '../../core/base/fileSystemPort';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { LOCK_FILE, readLock, verifyLock } from '../../core/sharing/skillsLock';

/** Hashing reads every file of every locked skill: a burst of saves becomes one check at its end. */
const DEBOUNCE_MS = 400;

export interface LockedSkillState {
  readonly name: string;
  readonly status: 'ok' | 'changed';
  readonly source: string;
}

export interface MissingLockedSkill {
  readonly name: string;
  readonly source: string;
  /** The workspace folder whose lock lists it. */
  readonly folder: string;
  readonly projectRoot: string;
}

/**
 * What skills-lock.json says of each workspace folder's skills: locked skills whose files no
 * longer hash to `computedHash` ("changed locally") and locked skills that are not there. Checked
 * in the background when a folder opens and when the lock or a locked skill changes.
 */
export class LockStatusService implements vscode.Disposable {
  private readonly store: DisposableStore;
  private readonly watchers: DisposableStore;
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private byDir = new Map<string, LockedSkillState>();
  private missingList: readonly MissingLockedSkill[] = [];
  private problemList: readonly string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private checks = 0;

  constructor(
    private readonly fs: FileSystemPort,
    private readonly logger: Logger,
  ) {
    this.store = new DisposableStore(logger);
    this.watchers = this.store.add(new DisposableStore(logger));
    this.store.add(this.emitter);
    this.store.addCallback(() => this.timer && clearTimeout(this.timer));
    this.store.add(vscode.workspace.onDidChangeWorkspaceFolders(() => this.start()));
  }

  /** Watches the folders and schedules the first check; returns at once. */
  start(): void {
    this.watchers.clear();
    // In Restricted Mode nothing of the repository is read or hashed; the check starts on trust.
    if (!vscode.workspace.isTrusted) {
      this.watchers.add(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start()));
      return;
    }
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      // The lock itself and anything under .agents/skills, where locked skills live.
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, `{${LOCK_FILE},.agents/skills/**}`));
      this.watchers.add(watcher);
      const onEvent = () => this.schedule();
      this.watchers.add(watcher.onDidCreate(onEvent));
      this.watchers.add(watcher.onDidChange(onEvent));
      this.watchers.add(watcher.onDidDelete(onEvent));
    }
    this.schedule();
  }

  /** The lock state of the skill in `dir`, if a lock lists it. */
  statusOf(dir: string): LockedSkillState | undefined {
    return this.byDir.get(dir);
  }

  get missing(): readonly MissingLockedSkill[] {
    return this.missingList;
  }

  /** Broken lock files, explained. */
  get problems(): readonly string[] {
    return this.problemList;
  }

  /** How many checks finished (tests wait for the next one). */
  get checkCount(): number {
    return this.checks;
  }

  schedule(): void {
    if (this.store.isDisposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.check();
    }, DEBOUNCE_MS);
  }

  /** Checks now (after a check already running); resolves when the states are current. */
  async check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.checkOnce().finally(() => (this.running = undefined));
    await this.running;
    if (this.again) {
      this.again = false;
      await this.check();
    }
  }

  dispose(): void {
    this.store.dispose();
  }

  private async checkOnce(): Promise<void> {
    const byDir = new Map<string, LockedSkillState>();
    const missing: MissingLockedSkill[] = [];
    const problems: string[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const root = folder.uri.fsPath;
      try {
        const read = await readLock(this.fs, root);
        if (!read.exists) continue;
        problems.push(...read.problems.map((problem) => `${folder.name}: ${problem}`));
        for (const status of await verifyLock(this.fs, root, read.lock)) {
          const source = read.lock.skills[status.name]?.source ?? '';
          if (status.status === 'missing') missing.push({ name: status.name, source, folder: folder.name, projectRoot: root });
          else if (status.status === 'ok' || status.status === 'changed') byDir.set(path.normalize(status.dir), { name: status.name, status: status.status, source });
          // verifyLock says why (a name that is a path, or a link out of the project).
          else problems.push(`${folder.name}: ${status.problem ?? `${LOCK_FILE} lists "${status.name.slice(0, 80)}", which cannot be a folder of .agents/skills; fix or remove that entry`}`);
        }
      } catch (error) {
        problems.push(`${folder.name}: could not check ${LOCK_FILE} (${describeError(error)})`);
      }
    }
    const changed = !sameStates(this.byDir, byDir) || JSON.stringify(missing) !== JSON.stringify(this.missingList) || problems.join('\n') !== this.problemList.join('\n');
    this.byDir = byDir;
    this.missingList = missing;
    this.problemList = problems;
    this.checks++;
    if (changed) {
      const edited = [...byDir.values()].filter((state) => state.status === 'changed').length;
      this.logger.info(`${LOCK_FILE}: ${byDir.size + missing.length} locked skill(s), ${edited} changed locally, ${missing.length} missing`);
      for (const problem of problems) this.logger.warn(problem);
      this.emitter.fire();
    }
  }
}

function sameStates(a: ReadonlyMap<string, LockedSkillState>, b: ReadonlyMap<string, LockedSkillState>): boolean {
  if (a.size !== b.size) return false;
  for (const [dir, state] of a) {
    const other = b.get(dir);
    if (!other || other.status !== state.status || other.source !== state.source || other.name !== state.name) return false;
  }
  return true;
}
