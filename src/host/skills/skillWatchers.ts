import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { FileSystemPort } from '../../core/base/fileSystemPort';
import type { Logger } from '../../core/base/logger';
import type { SkillRoot } from '../../core/base/skillRoots';

const DEBOUNCE_MS = 60;
const POLL_MS = 700;
const SETTLE_MS = 1_000;

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Turns file-system activity under the skill roots into `invalidate(path)` calls.
 *
 * VS Code's watcher drops and coalesces events (a file written right after its folder, folders
 * moved in or deleted), so events are only hints: a folder event makes the index rescan or prune
 * that subtree, and folders are re-checked once more after a short settle time. A cheap poll of
 * the folders' modification times catches what produced no event at all, and roots that appear
 * after start get their watcher when they do.
 */
export class SkillWatchers implements vscode.Disposable {
  private readonly store: DisposableStore;
  /** The watchers of the current roots, cleared and rebuilt by `reset`. */
  private readonly watcherStore: DisposableStore;
  private roots: readonly SkillRoot[] = [];
  private pending = new Set<string>();
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private readonly dirTimes = new Map<string, number>();
  private watchedRoots = new Set<string>();
  private polling = false;
  /** Folders queued by a settle re-check; they are not re-checked again. */
  private readonly settling = new Set<string>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly fs: FileSystemPort,
    private readonly invalidate: (paths: string[]) => Promise<void>,
    /** Folders whose modification time is worth polling: roots and the folders that hold skills. */
    private readonly knownFolders: () => Iterable<string>,
    private readonly logger: Logger,
  ) {
    this.store = new DisposableStore(logger);
    this.watcherStore = this.store.add(new DisposableStore(logger));
    const poller = setInterval(() => void this.poll(), POLL_MS);
    this.store.addCallback(() => clearInterval(poller));
    this.store.addCallback(() => this.timers.forEach((timer) => clearTimeout(timer)));
    this.store.addCallback(() => this.debounce && clearTimeout(this.debounce));
  }

  async reset(roots: readonly SkillRoot[]): Promise<void> {
    this.roots = roots;
    this.watcherStore.clear();
    this.watchedRoots = new Set();
    this.dirTimes.clear();
    for (const root of roots) {
      await this.watchIfPresent(root);
    }
  }

  dispose(): void {
    this.store.dispose();
  }

  private async watchIfPresent(root: SkillRoot): Promise<boolean> {
    if (this.watchedRoots.has(root.path)) return true;
    const stat = await this.fs.stat(root.path);
    if (stat?.type !== 'directory') return false;
    // A watcher whose base folder does not exist never fires, so roots are watched once they exist.
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root.path), '**'));
    const onEvent = (uri: vscode.Uri) => this.queue(uri.fsPath);
    this.watcherStore.add(watcher);
    this.watcherStore.add(watcher.onDidCreate(onEvent));
    this.watcherStore.add(watcher.onDidChange(onEvent));
    this.watcherStore.add(watcher.onDidDelete(onEvent));
    this.watchedRoots.add(root.path);
    this.logger.debug(`Watching skill folder ${root.label}`);
    return true;
  }

  private queue(fsPath: string): void {
    if (!this.roots.some((root) => isInside(fsPath, root.path))) return;
    this.pending.add(fsPath);
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.flush();
    }, DEBOUNCE_MS);
  }

  private async flush(): Promise<void> {
    const paths = [...this.pending];
    this.pending = new Set();
    if (paths.length === 0) return;
    try {
      await this.invalidate(paths);
    } catch (error) {
      this.logger.warn(`Updating the skill index failed: ${String(error)}`);
    }
    // A folder's files may land after its event (or never raise one): look again once it settled.
    const folders: string[] = [];
    for (const p of paths) {
      if (this.settling.delete(p)) continue;
      if (path.basename(p) !== 'SKILL.md' && (await this.fs.stat(p))?.type === 'directory') folders.push(p);
    }
    if (folders.length > 0 && !this.store.isDisposed) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        for (const folder of folders) {
          this.settling.add(folder);
          this.queue(folder);
        }
      }, SETTLE_MS);
      this.timers.add(timer);
    }
  }

  /** Cheap fallback: stat roots and skill-holding folders; a changed folder is rescanned. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const root of this.roots) {
        if (!this.watchedRoots.has(root.path) && (await this.watchIfPresent(root))) {
          this.queue(root.path);
        }
      }
      const folders = new Set<string>(this.roots.map((root) => root.path));
      for (const folder of this.knownFolders()) folders.add(folder);
      for (const folder of folders) {
        const stat = await this.fs.stat(folder);
        const time = stat?.type === 'directory' ? stat.mtimeMs : -1;
        const before = this.dirTimes.get(folder);
        this.dirTimes.set(folder, time);
        if (before !== undefined && before !== time) this.queue(folder);
      }
    } finally {
      this.polling = false;
    }
  }
}
