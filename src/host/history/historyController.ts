import * as os from 'node:os';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { exportFileName } from '../../core/sessions/exportFileName';
import { searchHistory } from '../../core/sessions/historySearch';
import type { AreaMessage, PanelTab, SessionRow, WebviewToHost } from '../../shared/protocol';
import { assertNever } from '../../shared/protocol';
import type { ChatSessions } from '../chat/chatSessions';
import type { PanelArea, PanelPort } from '../panel/panelArea';
import type { SessionService } from './sessionService';

/**
 * The list shows the most recently updated sessions up to this many; older ones are found by
 * search (which covers every session). Keeps the message and the DOM small with years of history.
 */
export const HISTORY_LIST_LIMIT = 200;
/** Streaming a chat appends every message: the list is rebuilt once things are quiet for this long. */
const CHANGE_DEBOUNCE_MS = 300;
/** How long a delete waits for the chat to close the session it shows (a running turn stops first). */
const RELEASE_TIMEOUT_MS = 10_000;

/** What the History tab needs of the panel: posting, and switching to the Chat tab on open. */
export interface HistoryPanel extends PanelPort {
  showTab(tab: PanelTab, focus?: string): Promise<void>;
}

/** The questions the History tab asks the person; VS Code dialogs by default, scripted in tests. */
export interface HistoryDialogs {
  /** Modal confirmation before a session is deleted for good. */
  confirmDelete(title: string): Promise<boolean>;
  /** Where to save an exported session; undefined when the person cancelled. */
  exportTarget(defaultName: string): Promise<vscode.Uri | undefined>;
  /** The export was written: say so and offer to open it. */
  exported(target: vscode.Uri, title: string): void;
}

export const vscodeHistoryDialogs: HistoryDialogs = {
  async confirmDelete(title) {
    const answer = await vscode.window.showWarningMessage(
      `Delete the session “${title}”?`,
      { modal: true, detail: 'Its file and its search entries are removed. This cannot be undone; export it as Markdown first to keep a copy.' },
      'Delete',
    );
    return answer === 'Delete';
  },
  exportTarget(defaultName) {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    return Promise.resolve(
      vscode.window.showSaveDialog({
        defaultUri: vscode.Uri.joinPath(folder, defaultName),
        filters: { Markdown: ['md'] },
        saveLabel: 'Export',
        title: 'Export Session as Markdown',
      }),
    );
  },
  exported(target, title) {
    void vscode.window.showInformationMessage(`Exported “${title}” to ${vscode.workspace.asRelativePath(target)}.`, 'Open').then(async (choice) => {
      if (choice === 'Open') await vscode.window.showTextDocument(target, { preview: false });
    });
  },
};

/**
 * The History tab's host side: the sessions list (pushed on panel ready and, debounced, whenever
 * sessions change), full-text search with highlight ranges, and open / delete / export. `chat` is
 * the chat controller: it marks the current session, opens sessions and lets go of deleted ones.
 */
export class HistoryController implements PanelArea<'history'>, vscode.Disposable {
  private readonly store: DisposableStore;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The last query searched, re-run after a delete so results never offer a deleted session. */
  private lastQuery: string | undefined;
  private listGeneration = 0;

  constructor(
    private readonly sessions: SessionService,
    private readonly chat: ChatSessions,
    private readonly panel: HistoryPanel,
    private readonly logger: Logger,
    private readonly dialogs: HistoryDialogs = vscodeHistoryDialogs,
  ) {
    this.store = new DisposableStore(logger);
    this.store.add(sessions.onDidChange(() => this.scheduleList()));
    this.store.add(chat.onDidChangeSession(() => this.scheduleList()));
    this.store.addCallback(() => this.timer && clearTimeout(this.timer));
  }

  sync(): void {
    // Not awaited: opening the index must not hold up the other tabs' state after a reload.
    void this.pushSessions(true);
  }

  async handle(message: AreaMessage<WebviewToHost, 'history'>): Promise<void> {
    switch (message.type) {
      case 'history/list':
        await this.pushSessions(true);
        return;
      case 'history/search':
        await this.search(message.query);
        return;
      case 'history/open':
        await this.open(message.id, message.messageId);
        return;
      case 'history/delete':
        await this.delete(message.id);
        return;
      case 'history/export':
        await this.export(message.id);
        return;
      default:
        assertNever(message);
    }
  }

  /** The rows the tab shows, newest first (also used by tests). */
  async rows(): Promise<SessionRow[]> {
    const current = this.chat.currentSessionId;
    const summaries = await this.sessions.index.listSessions({ limit: HISTORY_LIST_LIMIT });
    return summaries.map((summary) => ({
      id: summary.id,
      title: summary.title,
      workspace: summary.workspace ?? '',
      startedAt: summary.created,
      updatedAt: summary.updated,
      messageCount: summary.messageCount,
      current: summary.id === current,
    }));
  }

  dispose(): void {
    this.store.dispose();
  }

  private scheduleList(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.panel.isReady) void this.pushSessions(false);
    }, CHANGE_DEBOUNCE_MS);
  }

  /** Posts the list; `rescan` first looks for sessions other windows (or the CLI) wrote. */
  private async pushSessions(rescan: boolean): Promise<void> {
    const generation = ++this.listGeneration;
    try {
      if (rescan && this.sessions.index.isLoaded) await this.sessions.index.refresh();
      const sessions = await this.rows();
      // A slower, older listing must not overwrite a newer one.
      if (generation === this.listGeneration) this.panel.post({ type: 'history/sessions', sessions });
    } catch (error) {
      this.logger.error(`Listing sessions failed: ${describeError(error)}`);
      this.panel.post({ type: 'panel/error', message: `Sessions could not be listed: ${describeError(error)}` });
    }
  }

  private async search(query: string): Promise<void> {
    this.lastQuery = query.trim() ? query : undefined;
    const results = await searchHistory(this.sessions.index, query);
    this.logger.trace(`History search: ${results.sessions.length} session(s) in ${results.tookMs} ms${results.error ? ` (${results.error})` : ''}`);
    this.panel.post({ type: 'history/results', results });
    if (results.indexing) {
      // Results so far; the whole answer follows once every session is read, if the box still holds this query.
      void this.sessions.index.ready().then(
        () => (this.lastQuery === query ? this.search(query) : undefined),
        () => undefined,
      );
    }
  }

  private async exists(id: string): Promise<boolean> {
    try {
      return (await this.sessions.log.fs.stat(this.sessions.log.fileOf(id))) !== undefined;
    } catch {
      return false; // not a session id at all
    }
  }

  private async gone(id: string): Promise<void> {
    this.panel.post({ type: 'panel/notice', level: 'warning', message: `Session ${id} no longer exists (deleted in another window?). The list is up to date now.` });
    await this.pushSessions(true);
  }

  private async open(id: string, messageId: string | undefined): Promise<void> {
    if (!(await this.exists(id))) return this.gone(id);
    // Switch first so the person sees the chat at once; the session's snapshot follows.
    await this.panel.showTab('chat');
    await this.chat.openSession(id, messageId);
  }

  private async delete(id: string): Promise<void> {
    const summary = await this.sessions.index.getSummary(id);
    if (!summary && !(await this.exists(id))) return this.gone(id);
    if (!(await this.dialogs.confirmDelete(summary?.title ?? id))) return;
    await this.release(id);
    await this.sessions.index.deleteSession(id);
    this.logger.info(`Deleted session ${id}`);
    this.sessions.changed();
    await this.pushSessions(false);
    if (this.lastQuery !== undefined) await this.search(this.lastQuery);
  }

  /**
   * The chat lets go of a session before it is deleted: an append after the delete (the end of a
   * stopped turn) would recreate the file without its header. Waits for the chat to say it moved on.
   */
  private async release(id: string): Promise<void> {
    if (this.chat.currentSessionId !== id) return;
    const released = new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), RELEASE_TIMEOUT_MS);
      const subscription = this.chat.onDidChangeSession((current) => {
        if (current !== id) finish();
      });
      const finish = (): void => {
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      };
    });
    this.chat.forgetSession(id);
    await released;
    if (this.chat.currentSessionId === id) throw new Error(`the chat still uses session ${id}; stop the running turn and try again`);
  }

  private async export(id: string): Promise<void> {
    const markdown = await this.sessions.index.exportSessionMarkdown(id);
    if (markdown === undefined) return this.gone(id);
    const title = (await this.sessions.index.getSummary(id))?.title ?? id;
    const target = await this.dialogs.exportTarget(exportFileName(title, id));
    if (!target) return;
    try {
      await vscode.workspace.fs.writeFile(target, Buffer.from(markdown, 'utf8'));
    } catch (error) {
      throw new Error(`could not write ${target.fsPath}: ${describeError(error)}`);
    }
    this.logger.info(`Exported session ${id} to ${target.fsPath}`);
    this.dialogs.exported(target, title);
  }
}
