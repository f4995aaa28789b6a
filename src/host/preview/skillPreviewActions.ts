import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileSystemPort } from '../../core/base/fileSystemPort';
import type { Logger } from '../../core/base/logger';
import { classifyPreviewLink } from '../../core/skills/preview/skillPreviewLinks';
import { resolveInSkill } from '../../core/skills/model/skillPaths';

/**
 * What the preview's clicks do in VS Code. Every path and link comes from skill text shown in the
 * webview, so each is checked here: files must resolve (through real paths) inside the skill's own
 * folder, and links leave VS Code only as http, https or mailto.
 */
export class SkillPreviewActions {
  constructor(
    private readonly fs: FileSystemPort,
    private readonly logger: Logger,
  ) {}

  /** Opens a file of the skill (a folder is revealed in the Explorer); offers to create a missing file. */
  async openFile(skillFile: string, relative: string, besides: vscode.ViewColumn | undefined): Promise<void> {
    const dir = path.dirname(skillFile);
    const resolved = await resolveInSkill(this.fs, dir, relative);
    if (!resolved.ok) {
      this.logger.warn(`Preview: refused to open "${relative}" from ${skillFile}: ${resolved.error}`);
      void vscode.window.showWarningMessage(`Skillwright: not opened: ${resolved.error}.`);
      return;
    }
    const uri = vscode.Uri.file(resolved.value.absolute);
    if (!resolved.value.exists) {
      const create = 'Create File';
      const answer = await vscode.window.showInformationMessage(
        `"${resolved.value.relative}" does not exist in the skill folder ${path.basename(dir)}.`,
        create,
      );
      if (answer !== create) return;
      await vscode.workspace.fs.writeFile(uri, new Uint8Array());
    }
    const stat = await this.fs.stat(resolved.value.absolute);
    if (stat?.type === 'directory') {
      await vscode.commands.executeCommand('revealInExplorer', uri);
      return;
    }
    await vscode.commands.executeCommand('vscode.open', uri, { viewColumn: this.editorColumn(besides), preview: true });
  }

  /** Shows `line` of the SKILL.md in an editor beside the preview and puts the cursor there. */
  async revealLine(skillFile: string, line: number, besides: vscode.ViewColumn | undefined): Promise<void> {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(skillFile));
    const target = Math.max(0, Math.min(line, document.lineCount - 1));
    const visible = vscode.window.visibleTextEditors.find((editor) => editor.document === document);
    const range = new vscode.Range(target, 0, target, 0);
    const editor = await vscode.window.showTextDocument(document, {
      viewColumn: visible?.viewColumn ?? this.editorColumn(besides),
      preserveFocus: false,
      selection: range,
    });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** A link clicked in the rendered body: checked, then opened or refused with the reason. */
  async openLink(skillFile: string, href: string, besides: vscode.ViewColumn | undefined): Promise<void> {
    const link = classifyPreviewLink(href);
    switch (link.kind) {
      case 'external':
        // VS Code's own link protection asks before opening a site the user has not trusted.
        await vscode.env.openExternal(vscode.Uri.parse(link.url, true));
        return;
      case 'file':
        await this.openFile(skillFile, link.path, besides);
        return;
      case 'anchor':
        this.logger.debug(`Preview: anchor link #${link.fragment} ignored`);
        return;
      case 'refused':
        this.logger.warn(`Preview: refused a link from ${skillFile}: ${link.reason}`);
        void vscode.window.showWarningMessage(`Skillwright: link not opened. ${link.reason}`);
        return;
    }
  }

  /** The editor column that is not the preview's: where the SKILL.md usually is. */
  private editorColumn(preview: vscode.ViewColumn | undefined): vscode.ViewColumn {
    const active = vscode.window.activeTextEditor?.viewColumn;
    if (active !== undefined && active !== preview) return active;
    return preview === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }
}
