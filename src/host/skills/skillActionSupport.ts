import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SETTINGS } from '../../core/base/contributions';
import type { SkillRoot } from '../../core/base/skillRoots';
import { configuredRoots } from '../../core/skills/index/configuredRoots';
import { newSkillNameProblem } from '../../core/skills/tools/skillRename';
import type { SkillRecord } from '../../core/skills/model/skillTypes';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';
import type { SkillService } from './skillService';

/**
 * The folders new skills can be written to: `.agents/skills` of each workspace folder and
 * `~/.agents/skills`, unless disabled in the settings. Computed from the settings rather than the
 * index, because in Restricted Mode the index leaves project folders out, yet a person may still
 * create a project skill (it shows once the folder is trusted).
 */
export function writeRoots(): SkillRoot[] {
  const config = vscode.workspace.getConfiguration(SETTINGS.section);
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ name: folder.name, fsPath: folder.uri.fsPath }));
  const { roots } = configuredRoots(folders, os.homedir(), {
    extraRoots: config.get<string[]>(SETTINGS.extraRoots, []),
    disabledRoots: config.get<string[]>(SETTINGS.disabledRoots, []),
  });
  return roots.filter((root) => root.writeTarget);
}

/** `root.label/relative/path` as people see it, with `/` on every platform. */
export function shownPath(root: SkillRoot, target: string): string {
  const relative = path.relative(root.path, target).split(path.sep).join('/');
  return relative ? `${root.label}/${relative}` : root.label;
}

/**
 * Why `name` cannot be the name (and folder) of a skill in `parentDir`: an invalid name, a name
 * another skill has, a folder that exists, or a parent that is itself a skill.
 */
export async function skillFolderProblem(
  skills: SkillService,
  name: string,
  root: SkillRoot,
  parentDir: string,
  self?: SkillRecord,
): Promise<string | undefined> {
  const problem = newSkillNameProblem(name, skills.skillIndex?.all() ?? [], self);
  if (problem) return problem;
  const dir = path.join(parentDir, name);
  if (dir !== self?.dir && (await skills.fs.lstat(dir))) return `The folder ${shownPath(root, dir)} already exists; choose another name.`;
  for (let parent = parentDir; parent.length > root.path.length && parent.startsWith(root.path); parent = path.dirname(parent)) {
    if (await skills.fs.stat(path.join(parent, SKILL_FILE))) {
      return `${shownPath(root, parent)} is a skill; a skill cannot be created inside another one. Choose another category.`;
    }
  }
  return undefined;
}

/** The text of a SKILL.md, byte order mark kept (rename writes the file back). */
export async function readSkillText(skills: SkillService, file: string): Promise<string> {
  const bytes = await skills.fs.readFile(file);
  if (bytes.includes(0)) throw new Error(`${file} is binary, not a SKILL.md; fix or replace it first.`);
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
