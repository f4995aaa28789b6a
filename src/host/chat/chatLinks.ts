import * as vscode from 'vscode';
import { decideLink } from '../../core/agent/linkPolicy';

/** Opens a link clicked in the chat after the check of `decideLink`; a refusal is told to the person. */
export async function openCheckedLink(href: string, refuse: (message: string) => void): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  const decision = decideLink(href, folders);
  switch (decision.kind) {
    case 'external':
      await vscode.env.openExternal(vscode.Uri.parse(decision.url, true));
      return;
    case 'file': {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.file(decision.path));
      const position = decision.line ? new vscode.Position(decision.line - 1, 0) : undefined;
      await vscode.window.showTextDocument(document, position ? { selection: new vscode.Range(position, position), preview: true } : { preview: true });
      return;
    }
    case 'refuse':
      refuse(decision.reason);
      return;
  }
}

/** Insert Code: at every cursor of the active editor, else in a new untitled editor. */
export async function insertAtCursor(code: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    await editor.edit((edit) => {
      for (const selection of editor.selections) edit.replace(selection, code);
    });
    return;
  }
  const document = await vscode.workspace.openTextDocument({ content: code });
  await vscode.window.showTextDocument(document);
}
