import * as vscode from 'vscode';
import { COMMANDS } from '../../core/base/contributions';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { RunTrace } from '../../core/execution/executionTypes';
import type { TraceStore } from '../../core/execution/traceStore';
import type { HostToTrace, TraceModel, TraceToHost } from '../../shared/traceProtocol';
import { parseHostTraceMessage, parseTraceMessage } from '../../shared/traceProtocol';
import { createNonce } from '../panel/panelHtml';
import type { RunPick } from './tracePicks';
import { parseShowTraceArgs, runPickItem, traceModelOf } from './tracePicks';
import { renderTraceHtml, traceResourceRoots } from './traceViewHtml';

// A webview panel's view type is not a manifest contribution, so it is not named like one (skillwright.*).
export const TRACE_PANEL_TYPE = 'skillwrightSkillTrace';
/** Runs offered in the pick: enough to find today's, few enough to read. */
const PICK_LIMIT = 50;

/** What the panel shows now, for tests: like the preview's `current`. */
export interface TraceViewState {
  readonly open: boolean;
  /** The page has loaded and said so: what is posted now is shown. */
  readonly ready: boolean;
  readonly trace?: TraceModel;
  readonly error?: string;
}

/**
 * "Skill Run Trace": one webview panel beside the editor showing one run as a timeline. Opened
 * from a chat card's "Show trace" (with the trace id), from a skill's "Last runs" (a pick of that
 * skill's runs) or from the palette (a pick of the recent runs).
 */
export class TraceView implements vscode.Disposable {
  private readonly store: DisposableStore;
  private readonly panelStore: DisposableStore;
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private latest: TraceModel | undefined;
  private lastError: string | undefined;
  private dropped = 0;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly traces: Pick<TraceStore, 'list' | 'get'>,
    private readonly logger: Logger,
  ) {
    this.store = new DisposableStore(logger);
    this.panelStore = this.store.add(new DisposableStore(logger));
    this.store.addCallback(() => this.panel?.dispose());
  }

  state(): TraceViewState {
    return {
      open: this.panel !== undefined,
      ready: this.ready && this.panel !== undefined,
      ...(this.panel && this.latest ? { trace: this.latest } : {}),
      ...(this.panel && this.lastError !== undefined ? { error: this.lastError } : {}),
    };
  }

  get html(): string | undefined {
    return this.panel?.webview.html;
  }

  /** Inbound messages that failed validation and were dropped. */
  get droppedMessageCount(): number {
    return this.dropped;
  }

  /**
   * The command: `{ traceId }` opens that run, `{ skill }` picks among its runs, nothing picks among
   * all recent runs. Resolves with the trace id shown (undefined when the pick was dismissed).
   */
  async show(raw?: unknown): Promise<string | undefined> {
    const parsed = parseShowTraceArgs(raw);
    if (!parsed.ok) throw new Error(parsed.error);
    const traceId = parsed.args.traceId ?? (await this.pick(parsed.args.skill));
    if (traceId === undefined) return undefined;
    await this.open(traceId);
    return traceId;
  }

  /** Opens (or reveals) the panel on one run; throws when no trace has that id. */
  async open(traceId: string): Promise<void> {
    const trace = await this.traces.get(traceId);
    if (!trace) {
      throw new Error(`No run with trace id ${traceId.slice(0, 80)} was found; its trace file may have been deleted. Run "Skillwright: Show Skill Run Trace…" without arguments to pick from the recent runs.`);
    }
    this.latest = checkedModel(trace);
    this.lastError = undefined;
    if (this.panel) this.panel.reveal(this.panel.viewColumn ?? vscode.ViewColumn.Beside, false);
    else this.createPanel();
    if (this.panel) this.panel.title = `Trace: ${trace.skill}`;
    this.post({ type: 'trace/show', trace: this.latest });
  }

  /** Entry for every message from the page; public so tests can send what a broken page might. */
  receive(raw: unknown): Promise<void> {
    const parsed = parseTraceMessage(raw);
    if (!parsed.ok) {
      this.dropped += 1;
      this.logger.warn(`Dropped a malformed message from the trace panel: ${parsed.error}`);
      return Promise.resolve();
    }
    return this.handle(parsed.value).catch((error: unknown) => {
      this.logger.error(`Trace panel: ${parsed.value.type} failed: ${describeError(error)}`);
      this.lastError = describeError(error);
      this.post({ type: 'trace/error', message: `${parsed.value.type} failed: ${describeError(error)}` });
    });
  }

  close(): void {
    this.panel?.dispose();
  }

  dispose(): void {
    this.store.dispose();
  }

  private async handle(message: TraceToHost): Promise<void> {
    switch (message.type) {
      case 'trace/ready':
        this.ready = true;
        if (this.latest) this.post({ type: 'trace/show', trace: this.latest });
        return;
      case 'trace/pickRun': {
        const picked = await this.pick(message.skill);
        if (picked !== undefined) await this.open(picked);
        return;
      }
      case 'trace/openSkill':
        await vscode.commands.executeCommand(COMMANDS.openSkill, { name: message.skill });
        return;
      default: {
        const never: never = message;
        throw new Error(`Unhandled trace message: ${JSON.stringify(never)}`);
      }
    }
  }

  /** A pick of the recent runs (of one skill, when given): time, skill, status, duration. */
  private async pick(skill: string | undefined): Promise<string | undefined> {
    const runs = await this.traces.list({ ...(skill !== undefined ? { skill } : {}), limit: PICK_LIMIT });
    if (runs.length === 0) {
      void vscode.window.showInformationMessage(
        skill !== undefined ? `Skillwright: ${skill} has not run yet (no trace names it). Its runs show here once the chat, Run Skill… or the CLI ran it.` : 'Skillwright: no skill has run yet. Traces appear here once a skill runs.',
      );
      return undefined;
    }
    const chosen = await vscode.window.showQuickPick<vscode.QuickPickItem & RunPick>(runs.map(runPickItem), {
      title: skill !== undefined ? `Runs of ${skill}` : 'Skill runs',
      placeHolder: 'Pick a run to show its trace (newest first)',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    return chosen?.traceId;
  }

  private createPanel(): void {
    const panel = vscode.window.createWebviewPanel(
      TRACE_PANEL_TYPE,
      'Skill Run Trace',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, localResourceRoots: traceResourceRoots(this.extensionUri), retainContextWhenHidden: false },
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
    this.panel = panel;
    this.ready = false;
    panel.webview.html = renderTraceHtml(panel.webview, this.extensionUri, createNonce());
    const store = this.panelStore;
    store.add(panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    // A hidden page is torn down (no retained context) and says `trace/ready` again when shown.
    store.add(
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
    );
    store.add(
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.ready = false;
        this.latest = undefined;
        this.lastError = undefined;
        store.clear();
      }),
    );
  }

  private post(message: HostToTrace): void {
    const panel = this.panel;
    if (!panel || !this.ready) return;
    panel.webview.postMessage(message).then(
      (delivered) => {
        if (!delivered) this.logger.debug(`The trace panel did not take ${message.type} (hidden or reloading)`);
      },
      (error: unknown) => this.logger.warn(`Posting ${message.type} to the trace panel failed: ${describeError(error)}`),
    );
  }
}

/**
 * The page's model of a stored trace, checked against the page's own schema first: a trace file
 * edited by hand or written by an older version is refused here with a reason, not shown blank.
 */
function checkedModel(trace: RunTrace): TraceModel {
  const damaged = (why: string): Error =>
    new Error(`The trace ${trace.trace_id.slice(0, 80)} of ${String(trace.skill).slice(0, 80)} cannot be shown: ${why}. Its file may have been edited or written by another version; run the skill again for a new trace.`);
  let model: TraceModel;
  try {
    model = traceModelOf(trace);
  } catch (error) {
    throw damaged(describeError(error));
  }
  const parsed = parseHostTraceMessage({ type: 'trace/show', trace: model });
  if (!parsed.ok) throw damaged(parsed.error);
  return model;
}
