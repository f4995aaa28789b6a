import * as vscode from 'vscode';
import { COMMANDS, VIEWS } from '../../core/base/contributions';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { HostToWebview, PanelTab, WebviewToHost } from '../../shared/protocol';
import { assertNever, parseWebviewMessage } from '../../shared/protocol';
import type { ControllerArea, PanelArea, PanelPort } from './panelArea';
import { isAreaMessage } from './panelArea';
import { createNonce, panelResourceRoots, renderPanelHtml } from './panelHtml';
import type { StatusCollector } from './statusCollector';

/**
 * The sidebar panel. The host posts nothing until the webview says `panel/ready`, because messages
 * sent before its script runs are lost (initial load and every reload after the panel was hidden).
 */
export class PanelViewProvider implements vscode.WebviewViewProvider, vscode.Disposable, PanelPort {
  private readonly areas: { [A in ControllerArea]?: PanelArea<A> } = {};
  /** A tab asked for before the webview was ready (e.g. by a command that also opens the panel). */
  private pendingTab: { tab: PanelTab; focus?: string } | undefined;
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly store: DisposableStore;
  /** Registrations that live as long as the current webview (cleared when it goes or is replaced). */
  private readonly viewStore: DisposableStore;
  private readonly resolvedEmitter: vscode.EventEmitter<void>;
  /** Fires when a webview has resolved and said `panel/ready`; used by tests and status refresh. */
  readonly onDidBecomeReady: vscode.Event<void>;
  private readyCount = 0;
  private droppedMessages = 0;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly status: StatusCollector,
    private readonly logger: Logger,
  ) {
    this.store = new DisposableStore(logger);
    this.resolvedEmitter = this.store.add(new vscode.EventEmitter<void>());
    this.onDidBecomeReady = this.resolvedEmitter.event;
    this.viewStore = this.store.add(new DisposableStore(logger));
  }

  /** Routes an area's messages to its controller; set once at activation. */
  setArea<A extends ControllerArea>(area: A, controller: PanelArea<A>): void {
    (this.areas as Record<A, PanelArea<A>>)[area] = controller;
  }

  /** Reveals the panel on a tab; `focus` names an element the tab should focus (e.g. its search box). */
  async showTab(tab: PanelTab, focus?: string): Promise<void> {
    this.pendingTab = { tab, ...(focus ? { focus } : {}) };
    if (this.isReady) {
      this.post({ type: 'panel/showTab', tab, ...(focus ? { focus } : {}) });
      this.pendingTab = undefined;
    }
    await vscode.commands.executeCommand(`${VIEWS.panel}.focus`);
  }

  /** How many times a webview has completed the ready handshake (reloads count). */
  get readyHandshakes(): number {
    return this.readyCount;
  }

  /** How many inbound messages failed validation and were dropped. */
  get droppedMessageCount(): number {
    return this.droppedMessages;
  }

  get isReady(): boolean {
    return this.ready && this.view !== undefined;
  }

  /** Whether the panel's view is on screen (its webview is torn down while it is not). */
  get isVisible(): boolean {
    return this.view?.visible ?? false;
  }

  /** The HTML of the current webview, for checking its Content-Security-Policy. */
  get html(): string | undefined {
    return this.view?.webview.html;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.viewStore.clear();
    this.view = view;
    this.ready = false;

    view.webview.options = { enableScripts: true, localResourceRoots: panelResourceRoots(this.extensionUri) };
    view.webview.html = renderPanelHtml(view.webview, this.extensionUri, createNonce());

    this.viewStore.add(view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    this.viewStore.add(
      view.onDidChangeVisibility(() => {
        if (view.visible) {
          this.refresh();
        }
      }),
    );
    this.viewStore.add(
      view.onDidDispose(() => {
        this.logger.debug('Panel webview disposed');
        // Only the current view's listener is still registered: a replaced view's went with clear().
        this.view = undefined;
        this.ready = false;
        this.viewStore.clear();
      }),
    );
    this.logger.debug('Panel webview resolved');
  }

  /** Pushes a fresh status snapshot if a ready webview is showing. */
  refresh(): void {
    if (this.isReady) {
      void this.pushStatus();
    }
  }

  dispose(): void {
    this.store.dispose();
  }

  /** Entry for every message from the webview; public so tests can send what a broken webview might. */
  receive(raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.droppedMessages += 1;
      this.logger.warn(`Dropped a malformed message from the panel: ${parsed.error}`);
      return;
    }
    void this.handle(parsed.value).catch((error: unknown) => {
      this.logger.error(`Handling ${parsed.value.type} failed: ${describeError(error)}`);
      this.post({ type: 'panel/error', message: `${parsed.value.type} failed: ${describeError(error)}` });
    });
  }

  private async handle(message: WebviewToHost): Promise<void> {
    switch (message.type) {
      case 'panel/ready':
        this.ready = true;
        this.readyCount += 1;
        this.logger.debug('Panel ready');
        await this.pushStatus();
        for (const area of Object.values(this.areas)) {
          await area.sync();
        }
        if (this.pendingTab) {
          this.post({ type: 'panel/showTab', ...this.pendingTab });
          this.pendingTab = undefined;
        }
        this.resolvedEmitter.fire();
        return;
      case 'panel/tab':
        this.logger.trace(`Panel tab: ${message.tab}`);
        return;
      case 'status/refresh':
        await this.pushStatus();
        return;
      case 'logs/show':
        await vscode.commands.executeCommand(COMMANDS.showLogs);
        return;
      case 'settings/open':
        await vscode.commands.executeCommand(COMMANDS.openSettings, message.query);
        return;
      case 'model/configure':
        await vscode.commands.executeCommand(COMMANDS.configureModel, message.preset ? { preset: message.preset } : undefined);
        return;
      case 'workspace/trust':
        await vscode.commands.executeCommand('workbench.trust.manage');
        return;
      case 'model/test':
        await vscode.commands.executeCommand(COMMANDS.testConnection);
        return;
      case 'approvals/manage':
        await vscode.commands.executeCommand(COMMANDS.manageApprovals);
        await this.pushStatus();
        return;
      default:
        return this.route(message);
    }
  }

  private route(message: Exclude<WebviewToHost, { type: `${'panel' | 'status' | 'logs' | 'settings' | 'model' | 'workspace' | 'approvals'}/${string}` }>): Promise<void> {
    if (isAreaMessage(message, 'chat')) return this.areaOrFail('chat').handle(message);
    if (isAreaMessage(message, 'skills')) return this.areaOrFail('skills').handle(message);
    if (isAreaMessage(message, 'memory')) return this.areaOrFail('memory').handle(message);
    if (isAreaMessage(message, 'history')) return this.areaOrFail('history').handle(message);
    if (isAreaMessage(message, 'consent')) return this.areaOrFail('consent').handle(message);
    return assertNever(message);
  }

  private areaOrFail<A extends ControllerArea>(area: A): PanelArea<A> {
    const controller = this.areas[area];
    if (!controller) throw new Error(`the ${area} area is not available in this window`);
    return controller as PanelArea<A>;
  }

  private async pushStatus(): Promise<void> {
    const status = await this.status.collect();
    this.post({ type: 'status/update', status });
  }

  post(message: HostToWebview): void {
    const view = this.view;
    if (!view) {
      return;
    }
    view.webview.postMessage(message).then(
      (delivered) => {
        if (!delivered) {
          this.logger.debug(`Panel did not take ${message.type} (hidden or reloading)`);
        }
      },
      (error: unknown) => this.logger.warn(`Posting ${message.type} failed: ${describeError(error)}`),
    );
  }
}
