import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { currentPlatform } from '../../core/skills/index/skillIndex';
import { buildSkillPreview } from '../../core/skills/preview/skillPreviewModel';
import type { ExecutableSkill } from '../../core/execution/executableSkill';
import { readExecutableSkill } from '../../core/execution/executableSkill';
import { parseSkillBytes, parseSkillText } from '../../core/skills/model/skillParser';
import type { HostToPreview, PreviewToHost, SkillPreview } from '../../shared/previewProtocol';
import { assertNever } from '../../shared/protocol';
import { parsePreviewMessage } from '../../shared/previewProtocol';
import { createNonce } from '../panel/panelHtml';
import { SkillPreviewActions } from './skillPreviewActions';
import { isSkillFile, pickSkillToPreview } from './previewTarget';
import { previewResourceRoots, renderPreviewHtml } from './skillPreviewHtml';
import { restorableFile } from './previewState';
import type { SkillService } from '../skills/skillService';
import type { ExecutionService } from '../execution/executionService';
import { loadPreviewRuntime } from './previewRuntime';
import { buildPreviewTriggering } from './previewTriggering';
import { skillContentHash } from '../../core/agent/triggerTest';
import { COMMANDS } from '../../core/base/contributions';

/** What the preview reads of the executor: traces, tuned values, and a word after each run. */
export type PreviewExecution = Pick<ExecutionService, 'traces' | 'tuning' | 'onDidRun'>;

// A webview panel's view type is not a manifest contribution, so it is not named like one (skillwright.*).
export const PREVIEW_VIEW_TYPE = 'skillwrightSkillPreview';
/** Pause in typing before the preview follows, as for the Problems panel. */
export const PREVIEW_DEBOUNCE_MS = 200;

/**
 * The live SKILL.md preview: one webview panel beside the editor that follows the text of the
 * SKILL.md being edited (from the editor buffer, debounced) and follows the active editor to
 * another SKILL.md. Everything it registers lives as long as the panel; closing it releases all.
 * After a window reload VS Code hands the panel back to the serializer with the file its webview
 * kept, and the preview picks up where it was.
 */
export class SkillPreviewPanel implements vscode.Disposable {
  private readonly store: DisposableStore;
  /** Registrations that live as long as the open panel. */
  private readonly panelStore: DisposableStore;
  /** The folder watcher of the current skill, replaced when the preview moves to another skill. */
  private readonly fileStore: DisposableStore;
  private panel: vscode.WebviewPanel | undefined;
  private currentFile: string | undefined;
  private ready = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;
  private latest: SkillPreview | undefined;
  private readonly actions: SkillPreviewActions;
  private readonly updateEmitter: vscode.EventEmitter<SkillPreview>;
  /** Fires with every model the preview is given (used by tests). */
  readonly onDidUpdate: vscode.Event<SkillPreview>;
  private dropped = 0;
  private execution: PreviewExecution | undefined;
  /**
   * What VS Code calls with a preview that was open before a window reload and the state its webview
   * kept; public so tests can play the workbench's part (a reload would end their extension host).
   */
  readonly serializer: vscode.WebviewPanelSerializer;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly skills: SkillService,
    private readonly logger: Logger,
  ) {
    this.actions = new SkillPreviewActions(skills.fs, logger);
    this.store = new DisposableStore(logger);
    this.updateEmitter = this.store.add(new vscode.EventEmitter<SkillPreview>());
    this.onDidUpdate = this.updateEmitter.event;
    this.panelStore = this.store.add(new DisposableStore(logger));
    this.fileStore = this.store.add(new DisposableStore(logger));
    this.serializer = {
      deserializeWebviewPanel: (panel, state) => {
        this.restore(panel, state);
        return Promise.resolve();
      },
    };
    // Registered during activation (activation event onWebviewPanel:…), or VS Code drops the panel.
    this.store.add(vscode.window.registerWebviewPanelSerializer(PREVIEW_VIEW_TYPE, this.serializer));
    // Closing the panel first lets its onDidDispose release what lives with it, as a user's close does.
    this.store.addCallback(() => this.panel?.dispose());
  }

  /** The SKILL.md shown, while a preview is open. */
  get file(): string | undefined {
    return this.panel ? this.currentFile : undefined;
  }

  /** The last model built for the open preview. */
  get current(): SkillPreview | undefined {
    return this.panel ? this.latest : undefined;
  }

  get isReady(): boolean {
    return this.ready && this.panel !== undefined;
  }

  get html(): string | undefined {
    return this.panel?.webview.html;
  }

  /** Inbound messages that failed validation and were dropped. */
  get droppedMessageCount(): number {
    return this.dropped;
  }

  /**
   * Opens the preview beside the editor for `target` (a SKILL.md URI from a menu, the Skills tab or
   * a test), or for the active editor's SKILL.md, or asks which skill to preview.
   */
  async open(target?: unknown): Promise<void> {
    const uri = target instanceof vscode.Uri ? target : await pickSkillToPreview(this.skills);
    if (!uri) return;
    if (!isSkillFile(uri)) {
      void vscode.window.showWarningMessage(`Skillwright: ${path.basename(uri.fsPath)} is not a SKILL.md; the skill preview shows SKILL.md files only.`);
      return;
    }
    this.currentFile = uri.fsPath;
    if (this.panel) {
      this.panel.reveal(this.panel.viewColumn ?? vscode.ViewColumn.Beside, true);
    } else {
      this.createPanel();
    }
    this.onFileChanged();
  }

  /**
   * Entry for every message from the preview webview; public so tests can send what a broken webview
   * might. Resolves once the message was handled (or refused), so a test need not wait blindly.
   */
  receive(raw: unknown): Promise<void> {
    const parsed = parsePreviewMessage(raw);
    if (!parsed.ok) {
      this.dropped += 1;
      this.logger.warn(`Dropped a malformed message from the skill preview: ${parsed.error}`);
      return Promise.resolve();
    }
    return this.handle(parsed.value).catch((error: unknown) => {
      this.logger.error(`Preview: ${parsed.value.type} failed: ${describeError(error)}`);
      this.post({ type: 'preview/error', message: `${parsed.value.type} failed: ${describeError(error)}` });
    });
  }

  /**
   * Shows runs, health, dependencies and tuned values for executable and Level 2 skills, and
   * refreshes after each run of the skill shown (the executor is made after the preview).
   */
  useExecution(execution: PreviewExecution): void {
    this.execution = execution;
    this.store.add(
      execution.onDidRun((trace) => {
        const shown = this.latest?.runtime?.name;
        if (this.panel && shown !== undefined && (trace.skill === shown || trace.calledSkills.includes(shown))) this.schedule();
      }),
    );
  }

  /** Builds the model again soon (a trigger test was kept: its line changed). */
  refresh(): void {
    this.schedule();
  }

  /** Closes the preview; everything it registered is released (as when the user closes its tab). */
  close(): void {
    this.panel?.dispose();
  }

  dispose(): void {
    this.store.dispose();
  }

  private async handle(message: PreviewToHost): Promise<void> {
    const file = this.currentFile;
    const column = this.panel?.viewColumn;
    switch (message.type) {
      case 'preview/ready':
        this.ready = true;
        if (this.latest && this.latest.file === file) this.post({ type: 'preview/update', preview: this.latest });
        await this.update();
        return;
      case 'preview/openFile':
        if (file) await this.actions.openFile(file, message.path, column);
        return;
      case 'preview/revealLine':
        if (file) await this.actions.revealLine(file, message.line, column);
        return;
      case 'preview/openLink':
        if (file) await this.actions.openLink(file, message.href, column);
        return;
      case 'preview/showTrace':
        await vscode.commands.executeCommand('skillwright.showTrace', { traceId: message.traceId });
        return;
      case 'preview/revertTuning':
        if (file) await this.revertTuning(file, message.changeId);
        return;
      case 'preview/testTriggering':
        if (file) await vscode.commands.executeCommand(COMMANDS.testTriggering, { file });
        return;
      default:
        assertNever(message);
    }
  }

  private createPanel(): void {
    const panel = vscode.window.createWebviewPanel(
      PREVIEW_VIEW_TYPE,
      'Skill Preview',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: previewResourceRoots(this.extensionUri), retainContextWhenHidden: false },
    );
    this.attach(panel);
    this.logger.debug('Skill preview opened');
  }

  /**
   * After a window reload VS Code recreates the preview's panel and hands it over with the state its
   * webview kept. A state that names no SKILL.md, or a second preview, is closed: there is one
   * preview, and it cannot show nothing.
   */
  private restore(panel: vscode.WebviewPanel, state: unknown): void {
    const file = restorableFile(state);
    if (!file || this.panel) {
      this.logger.info(file ? 'A restored skill preview was closed: a preview is already open' : 'A restored skill preview was closed: its state names no SKILL.md');
      panel.dispose();
      return;
    }
    this.currentFile = file;
    this.attach(panel);
    this.logger.debug('Skill preview restored');
    this.onFileChanged();
  }

  /** Takes a new or restored panel: page, listeners, and what its closing releases. */
  private attach(panel: vscode.WebviewPanel): void {
    // A restored panel keeps the options it was created with; set them anyway, they are the page's contract.
    panel.webview.options = { enableScripts: true, localResourceRoots: previewResourceRoots(this.extensionUri) };
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
    const store = this.panelStore;
    this.panel = panel;
    this.ready = false;
    panel.webview.html = renderPreviewHtml(panel.webview, this.extensionUri, createNonce(), this.currentFile ?? '');

    store.add(panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    store.add(
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down (no retained context) and says `preview/ready` again.
        if (!panel.visible) this.ready = false;
      }),
    );
    store.add(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.fsPath === this.currentFile && event.contentChanges.length > 0) this.schedule();
      }),
    );
    store.add(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor && isSkillFile(editor.document.uri) && editor.document.uri.fsPath !== this.currentFile) {
          this.currentFile = editor.document.uri.fsPath;
          this.onFileChanged();
        }
      }),
    );
    // Closing an unsaved buffer means the disk copy is what counts again.
    store.add(vscode.workspace.onDidCloseTextDocument((document) => document.uri.fsPath === this.currentFile && this.schedule()));
    store.add(this.skills.onDidChange(() => this.schedule()));
    void this.skills.ready.then(
      () => this.schedule(),
      () => undefined,
    );
    store.addCallback(() => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.fileStore.clear();
    });
    store.add(
      panel.onDidDispose(() => {
        this.logger.debug('Skill preview closed');
        // One panel at a time: the listeners in the store are this panel's.
        this.panel = undefined;
        this.ready = false;
        this.latest = undefined;
        this.generation += 1;
        store.clear();
      }),
    );
  }

  /** The preview moved to another SKILL.md: new title, new folder watcher, and an update at once. */
  private onFileChanged(): void {
    const file = this.currentFile;
    if (!file || !this.panel) return;
    this.panel.title = `Preview ${path.basename(path.dirname(file))}`;
    this.fileStore.clear();
    // Support files appear and disappear without any editor event; the tree and the lint follow them.
    const watcher = this.fileStore.add(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), '**/*')));
    this.fileStore.add(watcher.onDidCreate(() => this.schedule()));
    this.fileStore.add(watcher.onDidDelete(() => this.schedule()));
    this.fileStore.add(watcher.onDidChange((uri) => uri.fsPath !== file && this.schedule()));
    void this.update();
  }

  private schedule(): void {
    if (!this.panel) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.update();
    }, PREVIEW_DEBOUNCE_MS);
  }

  /** Builds the model for the current file from the editor buffer (or the disk) and posts it. */
  private async update(): Promise<void> {
    const file = this.currentFile;
    if (!file || !this.panel) return;
    const generation = ++this.generation;
    const document = vscode.workspace.textDocuments.find((doc) => doc.uri.scheme === 'file' && doc.uri.fsPath === file);
    const indexed = this.skills.skillIndex !== undefined;
    try {
      const result = await buildSkillPreview(
        { file, ...(document ? { text: document.getText() } : {}) },
        {
          fs: this.skills.fs,
          records: indexed ? this.skills.skillIndex.all() : [],
          ...(indexed ? { catalog: this.skills.catalog() } : {}),
          platform: currentPlatform(),
          ...this.heldBack(file),
        },
      );
      const runtime = result.ok ? await this.runtimeOf(file, document?.getText()) : undefined;
      const triggering = result.ok ? await this.triggeringOf(file, document) : undefined;
      // A newer update started (more typing, another file) or the preview closed meanwhile.
      if (generation !== this.generation || !this.panel) return;
      if (!result.ok) {
        this.latest = undefined;
        this.post({ type: 'preview/error', message: result.message });
        return;
      }
      const preview: SkillPreview = { ...result.preview, ...(runtime ? { runtime } : {}), ...(triggering ? { triggering } : {}) };
      this.latest = preview;
      this.post({ type: 'preview/update', preview });
      this.updateEmitter.fire(preview);
    } catch (error) {
      this.logger.error(`Preview of ${file} failed: ${describeError(error)}`);
      if (generation === this.generation) this.post({ type: 'preview/error', message: `The preview could not be built: ${describeError(error)}` });
    }
  }

  /** The skill as the executor reads it, from the editor buffer when there is one: its name is the index's. */
  private async executableAt(file: string, text?: string): Promise<{ skill: ExecutableSkill; frontmatter: Readonly<Record<string, unknown>> }> {
    const parsed = text !== undefined ? parseSkillText(text) : parseSkillBytes(await this.skills.fs.readFile(file));
    const record = this.skills.skillIndex !== undefined ? this.skills.skillIndex.all().find((r) => r.file === file) : undefined;
    const written = parsed.frontmatter['name'];
    const name = record?.name ?? (typeof written === 'string' && written.trim() !== '' ? written.trim() : path.basename(path.dirname(file)));
    return { skill: readExecutableSkill({ name, dir: path.dirname(file), file }, parsed), frontmatter: parsed.frontmatter };
  }

  /** Runs, health, dependencies and tuned values; a failure here costs that part only, never the preview. */
  private async runtimeOf(file: string, text: string | undefined): Promise<SkillPreview['runtime']> {
    const execution = this.execution;
    if (!execution) return undefined;
    try {
      const { skill, frontmatter } = await this.executableAt(file, text);
      await execution.tuning.ready;
      return await loadPreviewRuntime({ traces: execution.traces, tuning: execution.tuning, usage: this.skills.usage, now: Date.now }, skill, frontmatter);
    } catch (error) {
      this.logger.warn(`Preview: the runs and tuned values of ${file} could not be read: ${describeError(error)}`);
      return undefined;
    }
  }

  /** Suggestion and load counts and the latest trigger test, for a skill in use; never fails the preview. */
  private async triggeringOf(file: string, document: vscode.TextDocument | undefined): Promise<SkillPreview['triggering']> {
    const record = this.skills.skillIndex !== undefined ? this.skills.skillIndex.active().find((r) => r.file === file) : undefined;
    if (!record) return undefined;
    try {
      const usage = this.skills.usage.get(record.name);
      // Only a kept test needs the hash (is it stale?): the test hashed the saved bytes, and an unsaved edit counts as a change.
      const bytes = !usage.triggerTest ? undefined : document?.isDirty ? new TextEncoder().encode(document.getText()) : await this.skills.fs.readFile(file);
      return buildPreviewTriggering({ name: record.name, usage, exampleQueries: record.exampleQueries.length, ...(bytes ? { currentHash: skillContentHash(bytes) } : {}), now: Date.now() });
    } catch (error) {
      this.logger.warn(`Preview: the triggering of ${file} could not be read: ${describeError(error)}`);
      return undefined;
    }
  }

  /** The Revert button of a tuning change: back to the value before it, then a fresh preview. */
  private async revertTuning(file: string, changeId: string): Promise<void> {
    const execution = this.execution;
    if (!execution) return;
    const document = vscode.workspace.textDocuments.find((doc) => doc.uri.scheme === 'file' && doc.uri.fsPath === file);
    const { skill } = await this.executableAt(file, document?.getText());
    await execution.tuning.ready;
    const reverted = await execution.tuning.revert(skill, changeId);
    if (reverted.ok) this.logger.info(`Preview: reverted tuning change ${changeId} of ${skill.name}`);
    else void vscode.window.showWarningMessage(`Skillwright: not reverted: ${reverted.error}`);
    await this.update();
  }

  /** In Restricted Mode the index leaves project skills out; say so instead of "not indexed". */
  private heldBack(file: string): { notIndexedReason?: string } {
    if (vscode.workspace.isTrusted || !vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))) return {};
    return { notIndexedReason: 'Not in the catalog: project skills are held back in Restricted Mode. Trust this folder to offer them to the model.' };
  }

  private post(message: HostToPreview): void {
    const panel = this.panel;
    if (!panel || !this.ready) return;
    panel.webview.postMessage(message).then(
      (delivered) => {
        if (!delivered) this.logger.debug(`Preview did not take ${message.type} (hidden or reloading)`);
      },
      (error: unknown) => this.logger.warn(`Posting ${message.type} to the preview failed: ${describeError(error)}`),
    );
  }
}
