import * as path from 'node:path';
import * as vscode from 'vscode';

/**
 * Opens a link clicked in the chat after a check: web links go through VS Code's external-link
 * handling (which asks for untrusted domains); relative paths open as files only inside the
 * workspace; anything else (javascript:, data:, command:, file: outside) is refused with a reason.
 */
export async function openCheckedLink(href: string, refuse: (message: string) => void): Promise<void> {
  const trimmed = href.trim();
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (url) {
    if (url.protocol === 'https:' || url.protocol === 'http:' || url.protocol === 'mailto:') {
      await vscode.env.openExternal(vscode.Uri.parse(url.toString(), true));
      return;
    }
    if (url.protocol === 'file:') {
      return openInsideWorkspace(vscode.Uri.parse(trimmed, true).fsPath, refuse);
    }
    refuse(`Skillwright does not open ${url.protocol} links from the chat.`);
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    refuse(`"${trimmed.slice(0, 80)}" is a relative link, and no folder is open to resolve it in.`);
    return;
  }
  const [file, line] = trimmed.split('#L');
  return openInsideWorkspace(path.resolve(folder.uri.fsPath, decodeURIComponent(file ?? '')), refuse, line ? Number.parseInt(line, 10) : undefined);
}

async function openInsideWorkspace(target: string, refuse: (message: string) => void, line?: number): Promise<void> {
  const inside = (vscode.workspace.workspaceFolders ?? []).some((folder) => {
    const relative = path.relative(folder.uri.fsPath, target);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  });
  if (!inside) {
    refuse(`Skillwright only opens files inside the workspace from the chat; "${path.basename(target)}" is outside.`);
    return;
  }
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
  const position = line && line > 0 ? new vscode.Position(line - 1, 0) : undefined;
  await vscode.window.showTextDocument(document, position ? { selection: new vscode.Range(position, position), preview: true } : { preview: true });
}
