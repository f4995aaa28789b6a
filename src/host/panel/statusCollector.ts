import { browserCatalogSummary } from '../../core/skills/catalog/skillListItems';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { SETTINGS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { describeModelSettings } from '../../core/llm/modelStatus';
import { configuredRoots } from '../../core/skills/index/configuredRoots';
import { presetForBaseUrl } from '../../providers/modelPresets';
import type { PanelStatus, SkillRootStatus, SkillsSummary } from '../../shared/protocol';
import type { SkillService } from '../skills/skillService';

/** Gathers what the status page shows, from VS Code's state and the file system. */
export class StatusCollector {
  private approvals: (() => NonNullable<PanelStatus['approvals']>) | undefined;
  private retrieval: (() => NonNullable<PanelStatus['retrieval']>) | undefined;

  constructor(
    private readonly extensionVersion: string,
    private readonly logger: Logger,
    private readonly skills?: SkillService,
  ) {}

  /** How skills are ranked now (set once the embeddings service exists). */
  setRetrieval(source: () => NonNullable<PanelStatus['retrieval']>): void {
    this.retrieval = source;
  }

  /** Where the approval grants come from (set once the policy exists). */
  setApprovals(source: () => NonNullable<PanelStatus['approvals']>): void {
    this.approvals = source;
  }

  async collect(): Promise<PanelStatus> {
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({
      name: folder.name,
      fsPath: folder.uri.fsPath,
      uri: folder.uri,
    }));
    const config = vscode.workspace.getConfiguration(SETTINGS.section);
    const { roots } = configuredRoots(folders, os.homedir(), {
      extraRoots: config.get<string[]>(SETTINGS.extraRoots, []),
      disabledRoots: config.get<string[]>(SETTINGS.disabledRoots, []),
    });
    const summary = this.skillsSummary();
    const counts = this.countsByRoot();
    const skillRoots: SkillRootStatus[] = await Promise.all(
      roots.map(async (root) => ({
        label: root.label,
        path: root.path,
        scope: root.scope,
        exists: await this.isDirectory(vscode.Uri.file(root.path)),
        ...(root.folder !== undefined ? { folder: root.folder } : {}),
        ...(counts ? { skillCount: counts.get(root.path) ?? 0 } : {}),
      })),
    );

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
      ...(summary ? { skills: summary } : {}),
      ...(this.approvals ? { approvals: this.approvals() } : {}),
      ...(this.retrieval ? { retrieval: this.retrieval() } : {}),
    };
  }

  private loaded(): boolean {
    return this.skills?.skillIndex !== undefined;
  }

  private countsByRoot(): Map<string, number> | undefined {
    if (!this.skills || !this.loaded()) return undefined;
    const counts = new Map<string, number>();
    for (const record of this.skills.skillIndex.all()) counts.set(record.root.path, (counts.get(record.root.path) ?? 0) + 1);
    return counts;
  }

  private skillsSummary(): SkillsSummary | undefined {
    if (!this.skills || !this.loaded()) return undefined;
    const all = this.skills.skillIndex.all();
    const catalog = this.skills.catalog();
    return {
      total: all.length,
      active: this.skills.skillIndex.active().length,
      shadowed: all.filter((r) => r.shadowedBy !== undefined).length,
      hidden: all.filter((r) => r.platformHidden === true).length,
      disabled: all.filter((r) => r.disabled === true).length,
      catalog: browserCatalogSummary(catalog),
      problems: [...this.skills.problems],
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
