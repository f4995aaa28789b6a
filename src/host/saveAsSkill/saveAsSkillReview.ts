import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';

/** Read-only documents for the "Patch `x` instead" diff: both sides live in memory, nothing is written. */
export const DRAFT_DIFF_SCHEME = 'skillwright-draft';

/**
 * A draft under review in an untitled editor. The person may edit it (or even close it) while the
 * save question waits; `text()` is what they see, or the last text they saw.
 */
export class DraftEditor implements vscode.Disposable {
  private latest: string;
  private readonly store = new DisposableStore();

  constructor(readonly document: vscode.TextDocument) {
    this.latest = document.getText();
    this.store.add(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document === document) this.latest = document.getText();
      }),
    );
  }

  text(): string {
    return this.document.isClosed ? this.latest : this.document.getText();
  }

  /** Replaces the whole text, as if the person had edited it (scripted runs). */
  async replace(text: string): Promise<void> {
    const edit = new vscode.WorkspaceEdit();
    const end = this.document.lineAt(Math.max(0, this.document.lineCount - 1)).range.end;
    edit.replace(this.document.uri, new vscode.Range(new vscode.Position(0, 0), end), text);
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the draft editor did not accept the edit');
    this.latest = this.document.getText();
  }

  dispose(): void {
    this.store.dispose();
  }
}

/**
 * The editors of "Save This as a Skill": the draft in an untitled Markdown editor with a preview
 * beside it, and the diff of a proposed patch between two in-memory documents.
 */
export class SaveAsSkillReview implements vscode.Disposable {
  private readonly store: DisposableStore;
  private readonly contents = new Map<string, string>();
  private next = 0;

  constructor(private readonly logger: Logger) {
    this.store = new DisposableStore(logger);
    this.store.add(
      vscode.workspace.registerTextDocumentContentProvider(DRAFT_DIFF_SCHEME, {
        provideTextDocumentContent: (uri) => this.contents.get(uri.toString()) ?? '',
      }),
    );
    this.store.add(vscode.workspace.onDidCloseTextDocument((document) => this.contents.delete(document.uri.toString())));
  }

  /** Opens VS Code's diff editor on the existing SKILL.md and the patched one; returns both URIs. */
  async showPatchDiff(skillName: string, before: string, after: string): Promise<{ left: vscode.Uri; right: vscode.Uri }> {
    const id = ++this.next;
    // The path ends in SKILL.md so the diff gets Markdown colouring; the number keeps runs apart.
    const left = vscode.Uri.from({ scheme: DRAFT_DIFF_SCHEME, path: `/${id}/current/${skillName}/SKILL.md` });
    const right = vscode.Uri.from({ scheme: DRAFT_DIFF_SCHEME, path: `/${id}/patched/${skillName}/SKILL.md` });
    this.contents.set(left.toString(), before);
    this.contents.set(right.toString(), after);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${skillName}/SKILL.md ↔ with the draft's new points (not saved)`, { preview: true });
    return { left, right };
  }

  /** Text held for a diff URI (tests read what the diff shows). */
  contentOf(uri: vscode.Uri): string | undefined {
    return this.contents.get(uri.toString());
  }

  /** Closes the diff editors this flow opened (after the person decided). */
  async closeDiff(uris: { left: vscode.Uri; right: vscode.Uri }): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === uris.right.toString());
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs).then(undefined, (error: unknown) => this.logger.debug(`Closing the patch diff: ${describeError(error)}`));
  }

  /**
   * The draft in an untitled Markdown editor with VS Code's Markdown preview beside it (locked to
   * the draft, so it does not wander off to whichever Markdown file is opened next).
   * Skillwright's own SKILL.md preview shows files on disk only, and an untitled editor tied to
   * the target path would let Ctrl+S write it past the checks, so the draft stays untitled.
   */
  async openDraft(text: string): Promise<DraftEditor> {
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One, preview: false });
    try {
      await vscode.commands.executeCommand('markdown.showLockedPreviewToSide', document.uri);
    } catch (error) {
      this.logger.info(`No Markdown preview for the skill draft: ${describeError(error)}`);
    }
    // The preview takes focus; the person reviews and edits in the draft.
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One, preview: false });
    return new DraftEditor(document);
  }

  /**
   * Closes the draft once it is saved (its text now lives in the SKILL.md) and its preview. An
   * emptied untitled editor closes without the "save changes?" prompt; going through the tabs
   * rather than the active editor works wherever focus is (e.g. in the notification just clicked).
   */
  async closeDraft(draft: DraftEditor): Promise<void> {
    const document = draft.document;
    draft.dispose();
    if (document.isClosed) return;
    const name = path.posix.basename(document.uri.path);
    const tabs = () => vscode.window.tabGroups.all.flatMap((group) => group.tabs);
    const previews = tabs().filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('markdown.preview') && tab.label.endsWith(name));
    try {
      if (previews.length > 0) await vscode.window.tabGroups.close(previews, true);
      const edit = new vscode.WorkspaceEdit();
      edit.delete(document.uri, new vscode.Range(new vscode.Position(0, 0), document.lineAt(Math.max(0, document.lineCount - 1)).range.end));
      await vscode.workspace.applyEdit(edit);
      const editors = tabs().filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === document.uri.toString());
      if (editors.length > 0) await vscode.window.tabGroups.close(editors, true);
    } catch (error) {
      this.logger.info(`Closing the saved skill draft: ${describeError(error)}`);
    }
  }

  dispose(): void {
    this.contents.clear();
    this.store.dispose();
  }
}
