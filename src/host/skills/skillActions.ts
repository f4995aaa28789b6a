import * as path from 'node:path';
import * as vscode from 'vscode';
import { SETTINGS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { SkillRoot } from '../../core/base/skillRoots';
import type { DisabledTarget } from '../../core/skills/index/disabledSkillsSetting';
import { disabledSettingChange } from '../../core/skills/index/disabledSkillsSetting';
import { writeSkillFolder } from '../../core/skills/tools/skillFolderWrite';
import { isInside, listSkillFiles } from '../../core/skills/model/skillPaths';
import { withFrontmatterName } from '../../core/skills/tools/skillRename';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';
import type { NewSkillArgs } from './newSkillWizard';
import { NewSkillWizard } from './newSkillWizard';
import { plural, readSkillText, shownPath, skillFolderProblem, writeRoots } from './skillActionSupport';
import type { OpenSkillArgs } from './skillPicker';
import { SkillPicker } from './skillPicker';
import type { SkillService } from './skillService';

/** A new name given by a script or test instead of asking. */
export interface NameArgs {
  readonly name?: string;
}

/** Answers to the delete confirmations, for scripts and tests. */
export interface DeleteArgs {
  readonly confirm?: boolean;
  /** When the trash is not available: delete permanently (true) or keep the skill (false). */
  readonly permanentIfNoTrash?: boolean;
}

const PREVIEW_COMMAND = 'skillwright.openSkillPreview';

/**
 * A held-back skill must not be renamed, duplicated, copied or moved: every write here counts as
 * written by the person, so the result would enter the catalog without anyone approving it.
 */
export function refuseAwaitingConsent(record: { readonly name: string; readonly awaitingConsent?: boolean }): void {
  if (record.awaitingConsent) throw new Error(`Approve ${record.name} on the consent card first (Skillwright: Review Project Skills…).`);
}

/**
 * What the skill browser and the skill commands do to skills. Every action starts from an indexed
 * SKILL.md path (what the webview sends is checked against the index, never trusted as a path),
 * asks what it needs, writes through the index's file system and then invalidates the index, so
 * the browser shows the result at once instead of waiting for a file watcher.
 */
export class SkillActions {
  private readonly wizard: NewSkillWizard;
  private readonly picker: SkillPicker;

  constructor(
    private readonly skills: SkillService,
    templatesDir: string,
    private readonly logger: Logger,
  ) {
    this.wizard = new NewSkillWizard(skills, templatesDir, logger);
    this.picker = new SkillPicker(skills, (file) => this.open(file));
  }

  newFromTemplate(args?: NewSkillArgs): Promise<string | undefined> {
    return this.wizard.run(args);
  }

  /** "Open Skill…": a quick pick over every skill, ranked by the skill search as you type. */
  openSkill(args?: OpenSkillArgs): Promise<string | undefined> {
    return this.picker.run(args);
  }

  async open(file: string): Promise<string | undefined> {
    const record = this.record(file);
    if (!record) return undefined;
    await vscode.window.showTextDocument(vscode.Uri.file(record.file));
    return record.file;
  }

  async preview(file: string): Promise<void> {
    const record = this.record(file);
    if (!record) return;
    const uri = vscode.Uri.file(record.file);
    try {
      await vscode.commands.executeCommand(PREVIEW_COMMAND, uri);
    } catch (error) {
      // Without Skillwright's own preview (an older build), VS Code's Markdown preview still shows the body.
      this.logger.warn(`${PREVIEW_COMMAND} failed (${describeError(error)}); opening the Markdown preview instead`);
      await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
    }
  }

  async reveal(file: string): Promise<void> {
    const record = this.record(file);
    if (!record) return;
    const uri = vscode.Uri.file(record.file);
    // The Explorer shows only workspace files; anything else opens in the system's file manager.
    await vscode.commands.executeCommand(vscode.workspace.getWorkspaceFolder(uri) ? 'revealInExplorer' : 'revealFileInOS', uri);
  }

  /** Copies a skill (support files too) under a new name beside it, or into Skillwright's own folder. */
  async duplicate(file: string, args: NameArgs = {}): Promise<string | undefined> {
    const record = this.record(file);
    if (!record) return undefined;
    refuseAwaitingConsent(record);
    const root = this.copyRoot(record);
    const parentDir = path.join(root.path, ...record.category.split('/').filter(Boolean));
    const name = args.name ?? (await this.askName(`Duplicate "${record.name}"`, await this.freeCopyName(record, root, parentDir), root, parentDir));
    if (!name) return undefined;
    const problem = await skillFolderProblem(this.skills, name, root, parentDir);
    if (problem) throw new Error(problem);
    const renamed = withFrontmatterName(await readSkillText(this.skills, record.file), name);
    if (!renamed.ok) throw new Error(renamed.error);
    const dir = path.join(parentDir, name);
    const written = await writeSkillFolder(this.skills.fs, { dir, skillText: renamed.value, copyFrom: record.dir });
    if (!written.ok) throw new Error(written.error);
    this.logger.info(`Duplicated ${record.name} as ${shownPath(root, dir)} (${plural(written.value.length, 'file')})`);
    await this.skills.invalidate([dir]);
    const created = path.join(dir, SKILL_FILE);
    await vscode.window.showTextDocument(vscode.Uri.file(created), { preview: false });
    return created;
  }

  /** Renames the folder and the frontmatter `name` together; open editors follow the folder. */
  async rename(file: string, args: NameArgs = {}): Promise<string | undefined> {
    const record = this.record(file);
    if (!record) return undefined;
    refuseAwaitingConsent(record);
    this.refuseFolderAction(record, 'rename');
    const dirty = vscode.workspace.textDocuments.find((doc) => doc.isDirty && doc.uri.scheme === 'file' && isInside(record.dir, doc.uri.fsPath));
    if (dirty) throw new Error(`${path.basename(dirty.uri.fsPath)} of "${record.name}" has unsaved changes; save or revert them, then rename.`);
    const parentDir = path.dirname(record.dir);
    const name = args.name ?? (await this.askName(`Rename "${record.name}"`, record.name, record.root, parentDir, record));
    if (!name) return undefined;
    const problem = await skillFolderProblem(this.skills, name, record.root, parentDir, record);
    if (problem) throw new Error(problem);

    const before = await readSkillText(this.skills, record.file);
    const renamed = withFrontmatterName(before, name);
    if (!renamed.ok) throw new Error(renamed.error);
    const newDir = path.join(parentDir, name);
    await this.skills.fs.writeFileAtomic(record.file, renamed.value);
    if (newDir !== record.dir) {
      // A workspace edit (not a plain file-system rename) so that open editors move with the folder.
      const edit = new vscode.WorkspaceEdit();
      edit.renameFile(vscode.Uri.file(record.dir), vscode.Uri.file(newDir), { overwrite: false });
      let moved = false;
      let reason = 'VS Code refused the rename';
      try {
        moved = await vscode.workspace.applyEdit(edit);
      } catch (error) {
        reason = describeError(error);
      }
      if (!moved) {
        await this.skills.fs.writeFileAtomic(record.file, before);
        throw new Error(`Could not rename the folder ${shownPath(record.root, record.dir)} (${reason}); "${record.name}" is unchanged.`);
      }
    }
    if (record.disabled) await this.moveDisabledName(record, name);
    this.logger.info(`Renamed ${record.name} to ${name}: ${shownPath(record.root, newDir)}`);
    await this.skills.invalidate([record.dir, newDir]);
    return path.join(newDir, SKILL_FILE);
  }

  /**
   * Deletes a skill's folder to the trash after a modal confirmation; permanently only after a
   * second one, when the trash is not available (e.g. a remote or browser-hosted VS Code).
   */
  async delete(file: string, args: DeleteArgs = {}): Promise<'trash' | 'permanently' | undefined> {
    const record = this.record(file);
    if (!record) return undefined;
    this.refuseFolderAction(record, 'delete');
    const [realRoot, realDir] = await Promise.all([this.skills.fs.realPath(record.root.path), this.skills.fs.realPath(record.dir)]);
    if (realRoot === realDir || !isInside(realRoot, realDir)) {
      throw new Error(`"${record.name}" leads outside ${record.root.label} through a symbolic link; delete it by hand.`);
    }
    const where = shownPath(record.root, record.dir);
    const listed = await listSkillFiles(this.skills.fs, record.dir);
    const files = `${listed.truncated ? 'more than ' : ''}${plural(listed.files.length + 1, 'file')}`;
    const confirmed =
      args.confirm ??
      (await vscode.window.showWarningMessage(
        `Delete the skill "${record.name}"?`,
        { modal: true, detail: `This moves the folder ${where} and its ${files} to the trash.` },
        'Move to Trash',
      )) === 'Move to Trash';
    if (!confirmed) return undefined;
    let how: 'trash' | 'permanently' = 'trash';
    const uri = vscode.Uri.file(record.dir);
    try {
      await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: true });
      this.logger.info(`Moved ${where} to the trash`);
    } catch (error) {
      this.logger.warn(`Moving ${where} to the trash failed: ${describeError(error)}`);
      const permanent =
        args.permanentIfNoTrash ??
        (await vscode.window.showWarningMessage(
          `"${record.name}" could not be moved to the trash. Delete it permanently?`,
          { modal: true, detail: `The folder ${where} and its ${files} will be gone for good; this cannot be undone.\n\n(${describeError(error)})` },
          'Delete Permanently',
        )) === 'Delete Permanently';
      if (!permanent) return undefined;
      await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false });
      how = 'permanently';
      this.logger.info(`Deleted ${where} permanently`);
    }
    await this.skills.invalidate([record.dir]);
    return how;
  }

  /** Enables or disables a skill by name in `skillwright.skills.disabled` (see disabledSettingChange for where). */
  async setEnabled(file: string, enabled: boolean): Promise<DisabledTarget | undefined> {
    const record = this.record(file);
    if (!record) return undefined;
    return this.updateDisabled(record, record.name, enabled);
  }

  private async updateDisabled(record: SkillRecord, name: string, enabled: boolean): Promise<DisabledTarget | undefined> {
    const config = vscode.workspace.getConfiguration(SETTINGS.section);
    const inspected = config.inspect<string[]>(SETTINGS.disabledSkills);
    const change = disabledSettingChange(
      {
        scope: record.scope,
        hasWorkspace: vscode.workspace.workspaceFolders !== undefined,
        ...(inspected?.workspaceValue !== undefined ? { workspaceValue: inspected.workspaceValue } : {}),
        ...(inspected?.globalValue !== undefined ? { userValue: inspected.globalValue } : {}),
      },
      name,
      enabled,
    );
    if (!change) return undefined;
    const target = change.target === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await config.update(SETTINGS.disabledSkills, change.value, target);
    this.logger.info(`${enabled ? 'Enabled' : 'Disabled'} ${name} in the ${change.target} settings`);
    return change.target;
  }

  /** A renamed skill that was disabled stays disabled under its new name. */
  private async moveDisabledName(record: SkillRecord, name: string): Promise<void> {
    await this.updateDisabled(record, record.name, true);
    await this.updateDisabled(record, name, false);
  }

  private record(file: string): SkillRecord | undefined {
    const record = this.skills.skillIndex?.all().find((candidate) => candidate.file === file);
    if (!record) {
      void vscode.window.showWarningMessage(`Skillwright: ${file} is not a known skill any more; it may have been moved or deleted.`);
    }
    return record;
  }

  private refuseFolderAction(record: SkillRecord, verb: string): void {
    if (record.dir === record.root.path) {
      throw new Error(`The SKILL.md of "${record.name}" sits directly in ${record.root.label}, not in a folder of its own; ${verb} it by hand.`);
    }
    const nested = (this.skills.skillIndex?.all() ?? []).filter((other) => other.dir !== record.dir && isInside(record.dir, other.dir));
    if (nested.length > 0) {
      throw new Error(`Cannot ${verb} "${record.name}": its folder holds other skills (${nested.map((r) => `"${r.name}"`).join(', ')}); move those first.`);
    }
  }

  /** Copies go beside the original when Skillwright writes there, else to its own folder of the same scope. */
  private copyRoot(record: SkillRecord): SkillRoot {
    if (record.root.writeTarget) return record.root;
    const roots = writeRoots();
    const root =
      roots.find((r) => r.scope === 'project' && record.scope === 'project' && r.folder === record.root.folder) ??
      roots.find((r) => r.scope === (record.scope === 'project' ? 'project' : 'user')) ??
      roots[0];
    if (!root) throw new Error('Skillwright has no folder to write skills to: .agents/skills and ~/.agents/skills are both disabled.');
    return root;
  }

  private async freeCopyName(record: SkillRecord, root: SkillRoot, parentDir: string): Promise<string> {
    const base = `${record.name}-copy`.slice(0, 58);
    for (let i = 1; i < 100; i++) {
      const candidate = i === 1 ? base : `${base}-${i}`;
      if (!(await skillFolderProblem(this.skills, candidate, root, parentDir))) return candidate;
    }
    return base;
  }

  private async askName(title: string, value: string, root: SkillRoot, parentDir: string, self?: SkillRecord): Promise<string | undefined> {
    const name = await vscode.window.showInputBox({
      title,
      value,
      prompt: `New name: lowercase letters, digits and single hyphens; the folder in ${shownPath(root, parentDir)} gets it too`,
      ignoreFocusOut: true,
      validateInput: (text) => skillFolderProblem(this.skills, text.trim(), root, parentDir, self),
    });
    return name?.trim() || undefined;
  }
}
