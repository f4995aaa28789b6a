import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import { relocateSkill } from '../../core/sharing/relocateSkill';
import { isInside } from '../../core/skills/model/skillPaths';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import { refuseAwaitingConsent } from '../skills/skillActions';
import type { SkillService } from '../skills/skillService';

/** Arguments from the Skills tab, scripts and tests; what is not given is asked. */
export interface RelocateArgs {
  readonly file?: string;
  /** The workspace folder (name) whose .agents/skills receives it, when there are several. */
  readonly folder?: string;
  /** Answers the modal of a move. */
  readonly confirm?: boolean;
  /** A move of a skill with unsaved editors: save them first (true); otherwise the move is refused. */
  readonly save?: boolean;
}

export function isRelocateArgs(value: unknown): value is RelocateArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  return ['file', 'folder'].every((key) => record[key] === undefined || typeof record[key] === 'string') && ['confirm', 'save'].every((key) => record[key] === undefined || typeof record[key] === 'boolean');
}

/** Skills in another tool's folder: ~/.claude/skills and the like, or a project's .github/skills and .claude/skills. */
export function isRelocatable(record: SkillRecord): boolean {
  return record.scope === 'other' || (record.scope === 'project' && !record.root.writeTarget);
}

/** Open documents of the skill's folder with unsaved edits (also when the folder is reached through a link). */
function unsavedIn(record: SkillRecord): vscode.TextDocument[] {
  let real: string | undefined;
  try {
    real = fs.realpathSync(record.dir);
  } catch {
    real = undefined;
  }
  const dirs = real && real !== record.dir ? [record.dir, real] : [record.dir];
  return vscode.workspace.textDocuments.filter((doc) => doc.isDirty && doc.uri.scheme === 'file' && dirs.some((dir) => isInside(dir, doc.uri.fsPath)));
}

function fileList(record: SkillRecord, docs: readonly vscode.TextDocument[]): string {
  return docs.map((doc) => path.relative(record.dir, doc.uri.fsPath).split(path.sep).join('/') || path.basename(doc.uri.fsPath)).join(', ');
}

/**
 * Copy to .agents/skills and Move to .agents/skills, for a skill found in another tool's folder.
 * A move asks first (the other tool stops seeing the skill); the lock entry follows the skill.
 * A skill awaiting consent is refused (the copy would count as written here, so it would enter
 * unapproved), and a move never leaves unsaved edits behind in an editor of the old folder.
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
    refuseAwaitingConsent(record);
    if (!isRelocatable(record)) {
      throw new Error(`"${record.name}" already is in ${record.root.label}, a folder Skillwright writes to; copy and move are for skills in other tools' folders.`);
    }
    const folder = await this.targetFolder(record, args.folder);
    if (!folder) return undefined;
    const verb = move ? 'Move' : 'Copy';
    if (move && !(await this.confirmMove(record, args))) return undefined;
    // A copy reads the files on disk: say so when an editor holds something newer.
    const unsavedNote = move ? '' : ((docs) => (docs.length > 0 ? `; unsaved changes in ${fileList(record, docs)} were not copied (save them, then copy again)` : ''))(unsavedIn(record));
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
      .showInformationMessage(`Skillwright: ${verb === 'Move' ? 'moved' : 'copied'} "${record.name}" to ${where}${lockNote}${skippedNote}${unsavedNote}.`, 'Open SKILL.md')
      .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(path.join(result.dir, 'SKILL.md'))));
    return result.dir;
  }

  /**
   * The modal of a move, or the scripted answer. Unsaved edits in the folder are saved first when
   * the person chose "Save and Move" (or a script said `save: true`); otherwise the move is refused
   * before anything is written, so no edit is left in an editor of a folder that is gone.
   */
  private async confirmMove(record: SkillRecord, args: RelocateArgs): Promise<boolean> {
    const before = unsavedIn(record);
    const accept = before.length > 0 ? 'Save and Move' : 'Move';
    let save = args.save === true;
    if (args.confirm === undefined) {
      const unsavedDetail = before.length > 0 ? ` ${fileList(record, before)} ${before.length === 1 ? 'has' : 'have'} unsaved changes; they are saved first.` : '';
      const answer = await vscode.window.showWarningMessage(
        `Move "${record.name}" to .agents/skills?`,
        { modal: true, detail: `It leaves ${record.root.label}: tools that read only that folder will not see it any more. A copy keeps it in both places.${unsavedDetail}` },
        accept,
      );
      if (answer !== accept) return false;
      save ||= before.length > 0;
    } else if (!args.confirm) {
      return false;
    }
    // Looked at again: an editor may have changed while the modal was open.
    const unsaved = unsavedIn(record);
    if (unsaved.length === 0) return true;
    const files = fileList(record, unsaved);
    if (!save) throw new Error(`${files} of "${record.name}" ${unsaved.length === 1 ? 'has' : 'have'} unsaved changes; save or revert them, then move it. Nothing was moved.`);
    for (const doc of unsaved) await doc.save();
    const still = unsavedIn(record);
    if (still.length > 0) throw new Error(`${fileList(record, still)} of "${record.name}" could not be saved; save or revert ${still.length === 1 ? 'it' : 'them'}, then move the skill. Nothing was moved.`);
    this.logger.info(`Saved ${files} of ${record.name} before moving it`);
    return true;
  }

  private async pick(move: boolean): Promise<SkillRecord | undefined> {
    const all = this.skills.skillIndex.all().filter(isRelocatable);
    // Held back until approved: a copy would enter as the person's own (see refuseAwaitingConsent).
    const held = all.filter((record) => record.awaitingConsent);
    const candidates = all.filter((record) => !record.awaitingConsent);
    const heldNote = held.length > 0 ? heldText(held) : '';
    if (candidates.length === 0) {
      if (held.length > 0) {
        void vscode.window
          .showInformationMessage(`Skillwright: nothing to copy or move yet. ${heldNote}`, 'Review Project Skills…')
          .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.reviewProjectSkills));
        return undefined;
      }
      void vscode.window.showInformationMessage('Skillwright: no skill sits in another tool’s folder (~/.claude/skills, .github/skills, .claude/skills); nothing to copy or move.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((record) => ({ label: record.name, description: record.root.label, detail: record.description.slice(0, 200), record })),
      {
        title: `${move ? 'Move' : 'Copy'} to .agents/skills`,
        placeHolder: `The skill to bring into this project’s .agents/skills${held.length > 0 ? ` (${heldNote})` : ''}`,
        matchOnDescription: true,
      },
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

/** Why skills are missing from the pick: "2 skills wait for consent (a, b) and are not listed; approve them first (Skillwright: Review Project Skills…)." */
export function heldText(held: readonly { readonly name: string }[]): string {
  const names = held.slice(0, 5).map((record) => record.name).join(', ') + (held.length > 5 ? ', …' : '');
  const what = held.length === 1 ? `"${names}" waits for consent and is` : `${held.length} skills wait for consent (${names}) and are`;
  return `${what} not listed; approve ${held.length === 1 ? 'it' : 'them'} first (Skillwright: Review Project Skills…).`;
}
