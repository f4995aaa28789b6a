import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { MemoryAction, MemoryTarget } from '../../core/memory/memoryEdit';
import { MEMORY_TARGETS, TARGET_FILES } from '../../core/memory/memoryEdit';
import type { MemoryEditKind, MemoryPanelFile } from '../../core/memory/memoryPanelView';
import { blockedPatternIds, memoryPanelFile, memoryPanelProposal, refusalNotice } from '../../core/memory/memoryPanelView';
import type { AreaMessage, MemoryView, WebviewToHost } from '../../shared/protocol';
import { assertNever } from '../../shared/protocol';
import type { MemoryService } from './memoryService';
import type { PanelArea, PanelPort } from '../panel/panelArea';

/** Watcher events arrive in bursts (temp file, rename); one state push per burst is enough. */
const PUSH_DEBOUNCE_MS = 50;

/**
 * The Memory tab's host side. The person's own edits go through `MemoryStore.apply`, like the
 * agent's, so limits, the threat scanner, the lock and atomic writes apply to them too. The tab is
 * re-sent after every change of the service and of the files on disk (another window, an editor).
 */
export class MemoryController implements PanelArea<'memory'>, vscode.Disposable {
  private readonly store: DisposableStore;
  /** The file watchers of the current memory paths, cleared and rebuilt when the paths change. */
  private readonly watchers: DisposableStore;
  /** The files (and whether their folders existed) the current watchers were made for. */
  private watchedKey = '';
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly memory: MemoryService,
    private readonly port: PanelPort,
    private readonly logger: Logger,
  ) {
    this.store = new DisposableStore(logger);
    this.watchers = this.store.add(new DisposableStore(logger));
    this.store.add(memory.onDidChange(() => this.schedulePush()));
    // A watcher cannot watch a folder that does not exist yet; coming back to the window re-checks.
    this.store.add(vscode.window.onDidChangeWindowState((state) => state.focused && this.schedulePush()));
    this.store.addCallback(() => this.timer && clearTimeout(this.timer));
    void this.updateWatchers();
  }

  async handle(message: AreaMessage<WebviewToHost, 'memory'>): Promise<void> {
    switch (message.type) {
      case 'memory/add':
        return this.write([{ action: 'add', target: message.target, content: message.content }], 'add');
      case 'memory/edit':
        return this.write([{ action: 'replace', target: message.target, old_text: message.oldText, content: message.content }], 'edit');
      case 'memory/remove':
        return this.write([{ action: 'remove', target: message.target, old_text: message.oldText }], 'remove');
      case 'memory/accept': {
        const result = await this.memory.proposals.accept(message.id);
        if (result.ok) {
          this.logger.info(`Memory: accepted proposal ${message.id}`);
          this.memory.changed();
        } else if (result.code === 'unknown_proposal') {
          this.port.post({ type: 'panel/notice', level: 'warning', message: `Nothing to accept: ${result.error}.` });
          await this.push();
        } else {
          this.port.post({ type: 'panel/notice', level: 'error', message: refusalNotice(result, 'accept') });
        }
        return;
      }
      case 'memory/reject':
        if (this.memory.proposals.reject(message.id)) this.logger.info(`Memory: rejected proposal ${message.id}`);
        else await this.push();
        return;
      case 'memory/openFile':
        return this.openFile(message.target);
      default:
        assertNever(message);
    }
  }

  sync(): Promise<void> {
    return this.push();
  }

  /** The tab's state as it would be sent now (tests read it too). */
  async state(): Promise<MemoryView> {
    const store = this.memory.store;
    const files: MemoryPanelFile[] = [];
    for (const target of MEMORY_TARGETS) {
      const file = store.pathOf(target);
      const reason = target === 'memory' ? this.memory.projectUnavailableReason() : undefined;
      files.push(
        memoryPanelFile(target, await store.read(target), {
          ...(file ? { path: file } : {}),
          limit: store.limitOf(target),
          ...(reason ? { unavailableReason: reason } : {}),
        }),
      );
    }
    return {
      files,
      proposals: this.memory.proposals.list().map(memoryPanelProposal),
      blocked: this.memory.blocked.map((b) => ({ target: b.target, patternIds: [...b.patternIds], at: b.at.toISOString(), preview: b.preview })),
      reviewMode: this.memory.reviewMode(),
    };
  }

  dispose(): void {
    this.store.dispose();
  }

  private async write(actions: MemoryAction[], kind: MemoryEditKind): Promise<void> {
    const result = await this.memory.store.apply(actions);
    if (result.ok) {
      if (result.written) this.logger.info(`Memory: ${kind} in ${TARGET_FILES[actions[0]?.target ?? 'memory']} from the Memory tab`);
      this.memory.changed();
      return;
    }
    this.logger.info(`Memory: ${kind} from the Memory tab refused (${result.code})`);
    if (result.code === 'blocked') {
      // Recorded like the agent's refusals, so the tab's notice lists it with its pattern ids.
      this.memory.recordBlocked(actions[0], { patterns: blockedPatternIds(result), findings: result.findings ?? [] });
    }
    this.port.post({ type: 'panel/notice', level: result.code === 'busy' ? 'warning' : 'error', message: refusalNotice(result, kind) });
    // The refusal may be because the file changed underneath; show it as it is now.
    await this.push();
  }

  private async openFile(target: MemoryTarget): Promise<void> {
    const file = this.memory.store.pathOf(target);
    if (!file) {
      const reason = this.memory.projectUnavailableReason() ?? 'no folder is open';
      this.port.post({ type: 'panel/notice', level: 'warning', message: `Project memory is unavailable: ${reason}.` });
      return;
    }
    const uri = vscode.Uri.file(file);
    if (!(await exists(uri))) {
      // Creating files is the person's call, not a side effect of looking.
      const create = 'Create';
      const answer = await vscode.window.showInformationMessage(`${TARGET_FILES[target]} does not exist yet (${file}). Create it?`, { modal: true }, create);
      if (answer !== create) return;
      await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(file)));
      // Another window may have created it while the dialog was open.
      if (!(await exists(uri))) await vscode.workspace.fs.writeFile(uri, new Uint8Array());
      this.memory.changed();
    }
    await vscode.window.showTextDocument(uri, { preview: false });
  }

  private schedulePush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.push();
    }, PUSH_DEBOUNCE_MS);
  }

  private async push(): Promise<void> {
    await this.updateWatchers();
    if (!this.port.isReady) return;
    try {
      this.port.post({ type: 'memory/state', memory: await this.state() });
    } catch (error) {
      this.logger.error(`Memory: reading the memory files failed: ${describeError(error)}`);
      this.port.post({ type: 'panel/error', message: `Reading memory failed: ${describeError(error)}` });
    }
  }

  /** Watches both files; recreated when the paths change or a missing folder appears. */
  private async updateWatchers(): Promise<void> {
    const bases = await Promise.all(MEMORY_TARGETS.map((target) => this.watchBase(target)));
    const watched = bases.filter((b): b is WatchBase => b !== undefined);
    const key = watched.map((b) => `${b.base}:${b.pattern}`).join('|');
    if (key === this.watchedKey || this.store.isDisposed) return;
    this.watchedKey = key;
    this.watchers.clear();
    for (const { base, pattern } of watched) {
      const watcher = this.watchers.add(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(base), pattern)));
      const onEvent = () => this.schedulePush();
      this.watchers.add(watcher.onDidCreate(onEvent));
      this.watchers.add(watcher.onDidChange(onEvent));
      this.watchers.add(watcher.onDidDelete(onEvent));
    }
    this.logger.debug(`Memory: watching ${watched.map((b) => path.join(b.base, b.pattern)).join(', ') || 'no memory folder yet'}`);
  }

  /**
   * MEMORY.md is watched from the workspace folder, which exists, so creating `.agents/memory` is
   * seen too. USER.md is watched from its own folder only (never the whole home folder), and only
   * once that folder exists: a watcher whose base is missing never fires.
   */
  private async watchBase(target: MemoryTarget): Promise<WatchBase | undefined> {
    const file = this.memory.store.pathOf(target);
    if (!file) return undefined;
    const dir = path.dirname(file);
    if (target === 'memory') return { base: path.resolve(dir, '..', '..'), pattern: path.relative(path.resolve(dir, '..', '..'), file).split(path.sep).join('/') };
    return (await exists(vscode.Uri.file(dir))) ? { base: dir, pattern: path.basename(file) } : undefined;
  }
}

interface WatchBase {
  readonly base: string;
  readonly pattern: string;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
