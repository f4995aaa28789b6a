import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';

/** Read-only documents of Import Skills… and Check for Skill Updates: reviews and diffs, held in memory. */
export const REVIEW_SCHEME = 'skillwright-review';

/**
 * The editors a review opens: a Markdown document with the review (read-only, as a virtual
 * document is) and VS Code's diff editor between two in-memory texts or a file and a text.
 */
export class ReviewDocuments implements vscode.Disposable {
  private readonly store: DisposableStore;
  private readonly contents = new Map<string, string>();
  private readonly opened = new Set<string>();
  private next = 0;
  /** What the flows showed, newest last (kept after the editors close; tests and logs read it). */
  private readonly history: { readonly name: string; readonly text: string }[] = [];

  constructor(private readonly logger: Logger) {
    this.store = new DisposableStore(logger);
    this.store.add(
      vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, {
        provideTextDocumentContent: (uri) => this.contents.get(uri.toString()) ?? '',
      }),
    );
    this.store.add(vscode.workspace.onDidCloseTextDocument((document) => this.contents.delete(document.uri.toString())));
  }

  /** A URI whose document shows `text`; the file name gives it its language (`.md`, `.diff`). */
  register(fileName: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${++this.next}/${fileName}` });
    this.contents.set(uri.toString(), text);
    return uri;
  }

  async showText(fileName: string, text: string): Promise<vscode.Uri> {
    const uri = this.register(fileName, text);
    this.opened.add(uri.toString());
    this.history.push({ name: fileName, text });
    if (this.history.length > 50) this.history.shift();
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: false, preserveFocus: false });
    return uri;
  }

  async showDiff(left: vscode.Uri, right: vscode.Uri, title: string): Promise<void> {
    this.opened.add(right.toString());
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false });
  }

  /** Text held for a review URI (tests read what the person saw). */
  contentOf(uri: vscode.Uri): string | undefined {
    return this.contents.get(uri.toString());
  }

  /** The review texts and diffs shown (the last 50), newest last. */
  shown(): readonly { readonly name: string; readonly text: string }[] {
    return this.history;
  }

  /** Closes the editors of this flow (after the person decided). */
  async closeAll(): Promise<void> {
    const keys = this.opened;
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const input = tab.input;
        if (input instanceof vscode.TabInputText) return keys.has(input.uri.toString());
        if (input instanceof vscode.TabInputTextDiff) return keys.has(input.modified.toString());
        return false;
      });
    this.opened.clear();
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true).then(undefined, (error: unknown) => this.logger.debug(`Closing review editors: ${describeError(error)}`));
  }

  dispose(): void {
    this.contents.clear();
    this.store.dispose();
  }
}
