import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/base/logger';
import { relocateSkill } from '../../core/sharing/relocateSkill';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import type { SkillService } from '../skills/skillService';

/** Arguments from the Skills tab, scripts and tests; what is not given is asked. */
export interface RelocateArgs {
  readonly file?: string;
  /** The workspace folder (name) whose .agents/skills receives it, when there are several. */
  readonly folder?: string;
  /** Answers the modal of a move. */
  readonly confirm?: boolean;
}

export function isRelocateArgs(value: unknown): value is RelocateArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  return ['file', 'folder'].every((key) => record[key] === undefined || typeof record[key] === 'string') && (record['confirm'] === undefined || typeof record['confirm'] === 'boolean');
}

/** Skills in another tool's folder: ~/.claude/skills and the like, or a project's .github/skills and .claude/skills. */
export function isRelocatable(record: SkillRecord): boolean {
  return record.scope === 'other' || (record.scope === 'project' && !record.root.writeTarget);
}

/**
 * Copy to .agents/skills and Move to .agents/skills, for a skill found in another tool's folder.
 * A move asks first (the other tool stops seeing the skill); the lock entry follows the skill.
 */
export class RelocateAction {
  constructor(
    private readonly skills: SkillService,
    private readonly onDidRelocate: () => void,
    private readonly logger: Logger,
  ) {}

  async run(move: boolean, args: RelocateArgs = {}): Promise<string | undefined> {
    await this.skills.ready;
    const record = args.file !== undefined ? this.skills.skillIndex.all().find((r) => r.file === args.file) : await this.pick(move);
    if (!record) {
      if (args.file !== undefined) throw new Error(`${args.file} is not a known skill any more; it may have been moved or deleted.`);
      return undefined;
    }
    if (!isRelocatable(record)) {
      throw new Error(`"${record.name}" already is in ${record.root.label}, a folder Skillwright writes to; copy and move are for skills in other tools' folders.`);
    }
    const folder = await this.targetFolder(record, args.folder);
    if (!folder) return undefined;
    const verb = move ? 'Move' : 'Copy';
    if (move) {
      const confirmed =
        args.confirm ??
        (await vscode.window.showWarningMessage(
          `Move "${record.name}" to .agents/skills?`,
          { modal: true, detail: `It leaves ${record.root.label}: tools that read only that folder will not see it any more. A copy keeps it in both places.` },
          'Move',
        )) === 'Move';
      if (!confirmed) return undefined;
    }
    const projectRoot = folder.uri.fsPath;
    const lockFrom = record.scope === 'project' ? (vscode.workspace.workspaceFolders?.find((f) => f.name === record.root.folder)?.uri.fsPath ?? projectRoot) : undefined;
    const result = await relocateSkill(this.skills.fs, record.dir, projectRoot, { move, ...(lockFrom ? { lockFrom } : {}), name: path.basename(record.dir) });
    const lockNote = result.lockEntry ? ' with its skills-lock.json entry' : '';
    const skippedNote = result.skipped.length > 0 ? `; links that lead out of the skill were left behind: ${result.skipped.join(', ')}` : '';
    if (result.kept !== undefined) {
      this.logger.warn(`Copied ${record.name} to ${path.relative(projectRoot, result.dir)}; the original was kept because ${result.kept}`);
      await this.skills.invalidate([record.dir, result.dir]);
      this.onDidRelocate();
      void vscode.window.showWarningMessage(`Skillwright: copied "${record.name}" to .agents/skills; the original was kept because ${result.kept}. Remove it by hand once the rest is moved.`);
      return result.dir;
    }
    this.logger.info(`${verb === 'Move' ? 'Moved' : 'Copied'} ${record.name} from ${record.root.label} to ${path.relative(projectRoot, result.dir)}${lockNote}${skippedNote}`);
    await this.skills.invalidate([record.dir, result.dir]);
    this.onDidRelocate();
    const where = path.relative(projectRoot, result.dir).split(path.sep).join('/');
    void vscode.window
      .showInformationMessage(`Skillwright: ${verb === 'Move' ? 'moved' : 'copied'} "${record.name}" to ${where}${lockNote}${skippedNote}.`, 'Open SKILL.md')
      .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(path.join(result.dir, 'SKILL.md'))));
    return result.dir;
  }

  private async pick(move: boolean): Promise<SkillRecord | undefined> {
    const candidates = this.skills.skillIndex.all().filter(isRelocatable);
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage('Skillwright: no skill sits in another tool’s folder (~/.claude/skills, .github/skills, .claude/skills); nothing to copy or move.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((record) => ({ label: record.name, description: record.root.label, detail: record.description.slice(0, 200), record })),
      { title: `${move ? 'Move' : 'Copy'} to .agents/skills`, placeHolder: 'The skill to bring into this project’s .agents/skills', matchOnDescription: true },
    );
    return picked?.record;
  }

  private async targetFolder(record: SkillRecord, name: string | undefined): Promise<vscode.WorkspaceFolder | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0) throw new Error('Open a folder first: skills are copied into its .agents/skills.');
    if (name !== undefined) {
      const folder = folders.find((f) => f.name === name);
      if (!folder) throw new Error(`There is no workspace folder "${name}"; use one of ${folders.map((f) => `"${f.name}"`).join(', ')}.`);
      return folder;
    }
    const own = record.scope === 'project' ? folders.find((f) => f.name === record.root.folder) : undefined;
    if (own) return own;
    if (folders.length === 1) return folders[0];
    return vscode.window.showWorkspaceFolderPick({ placeHolder: `The folder whose .agents/skills receives "${record.name}"` });
  }
}
