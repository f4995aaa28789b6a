import * as vscode from 'vscode';
import type { ApprovalDiff } from '../../core/toolkit/approvalPreview';

const SCHEME = 'skillwright-diff';
const MAX_KEPT = 50;

/**
 * Proposed edits shown in VS Code's diff editor from an approval card. The texts live in memory
 * under a read-only URI scheme; nothing is written to disk until the person allows the edit.
 */
export class ChatDiffs implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly diffs = new Map<string, ApprovalDiff>();
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
    });
  }

  remember(id: string, diff: ApprovalDiff): void {
    this.diffs.set(id, diff);
    while (this.diffs.size > MAX_KEPT) this.diffs.delete(this.diffs.keys().next().value as string);
  }

  async open(id: string): Promise<boolean> {
    const diff = this.diffs.get(id);
    if (!diff) return false;
    const name = diff.path.split(/[\\/]/).pop() || diff.path;
    const left = vscode.Uri.from({ scheme: SCHEME, path: `/${id}/before/${name}` });
    const right = vscode.Uri.from({ scheme: SCHEME, path: `/${id}/after/${name}` });
    this.texts.set(left.toString(), diff.before ?? '');
    this.texts.set(right.toString(), diff.after);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${diff.path} (proposed change)`, { preview: true });
    return true;
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
    this.diffs.clear();
  }
}
