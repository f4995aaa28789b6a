import * as os from 'node:os';
import * as vscode from 'vscode';
import { SETTINGS } from '../core/contributions';
import type { Logger } from '../core/logger';
import { describeError } from '../core/logger';
import { describeModelSettings } from '../core/modelStatus';
import { skillRootCandidates } from '../core/skillRoots';
import { presetForBaseUrl } from '../providers/modelPresets';
import type { PanelStatus, SkillRootStatus } from '../shared/protocol';

/** Gathers what the status page shows, from VS Code's state and the file system. */
export class StatusCollector {
  constructor(
    private readonly extensionVersion: string,
    private readonly logger: Logger,
  ) {}

  async collect(): Promise<PanelStatus> {
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({
      name: folder.name,
      fsPath: folder.uri.fsPath,
      uri: folder.uri,
    }));
    const roots = skillRootCandidates(folders, os.homedir());
    const skillRoots: SkillRootStatus[] = await Promise.all(
      roots.map(async (root) => ({
        label: root.label,
        path: root.path,
        scope: root.scope,
        exists: await this.isDirectory(vscode.Uri.file(root.path)),
        ...(root.folder !== undefined ? { folder: root.folder } : {}),
      })),
    );

    const config = vscode.workspace.getConfiguration(SETTINGS.section);
    const settings = {
      baseUrl: config.get<string>(SETTINGS.modelBaseUrl, '') ?? '',
      model: config.get<string>(SETTINGS.modelName, '') ?? '',
    };
    const model = describeModelSettings(settings, presetForBaseUrl(settings.baseUrl.trim())?.label);

    return {
      extensionVersion: this.extensionVersion,
      vscodeVersion: vscode.version,
      workspaceFolders: folders.map((folder) => ({ name: folder.name, path: folder.fsPath })),
      trusted: vscode.workspace.isTrusted,
      skillRoots,
      model,
    };
  }

  private async isDirectory(uri: vscode.Uri): Promise<boolean> {
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      return (stat.type & vscode.FileType.Directory) !== 0;
    } catch (error) {
      if (!(error instanceof vscode.FileSystemError) || error.code !== 'FileNotFound') {
        this.logger.warn(`Could not check ${uri.fsPath}: ${describeError(error)}`);
      }
      return false;
    }
  }
}
