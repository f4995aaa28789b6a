import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/base/logger';
import type { SkillRoot } from '../../core/base/skillRoots';
import { writeSkillFolder } from '../../core/skills/tools/skillFolderWrite';
import { checkCategory } from '../../core/skills/model/skillPaths';
import { pickCategory } from './categoryPick';
import type { SkillTemplate } from '../../core/skills/tools/skillTemplates';
import { LATER_SKILLS, SKILL_TEMPLATES, fillTemplate, templateById } from '../../core/skills/tools/skillTemplates';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';
import { DESCRIPTION_MAX } from '../../core/skills/lint/identityRules';
import { shownPath, skillFolderProblem, writeRoots } from './skillActionSupport';
import type { SkillService } from './skillService';

/** Answers for "New Skill from Template", so scripts and tests can run it without the pickers. */
export interface NewSkillArgs {
  /** `instructions`, `script` or `workflow`. */
  readonly template?: string;
  readonly scope?: 'project' | 'user';
  /** Workspace folder name for a project skill; the first folder when absent. */
  readonly folder?: string;
  /** e.g. `devops/k8s`; `''` for the top level. */
  readonly category?: string;
  readonly name?: string;
  /** `''` leaves the lint's placeholder to fill in later. */
  readonly description?: string;
  /** The two skills a workflow's steps call. */
  readonly skills?: readonly [string, string];
  /** Open the new SKILL.md in an editor (default true). */
  readonly open?: boolean;
}

export function isNewSkillArgs(value: unknown): value is NewSkillArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  const strings = ['template', 'folder', 'category', 'name', 'description'].every((key) => record[key] === undefined || typeof record[key] === 'string');
  const scope = record.scope === undefined || record.scope === 'project' || record.scope === 'user';
  const skills = record.skills === undefined || (Array.isArray(record.skills) && record.skills.length === 2 && record.skills.every((s) => typeof s === 'string'));
  return strings && scope && skills && (record.open === undefined || typeof record.open === 'boolean');
}

type Picked<T> = vscode.QuickPickItem & { readonly value: T };

/** "New Skill from Template…": template, location, category, name and description, then a written, opened SKILL.md. */
export class NewSkillWizard {
  constructor(
    private readonly skills: SkillService,
    private readonly templatesDir: string,
    private readonly logger: Logger,
  ) {}

  /** The new SKILL.md, or undefined when the person cancelled. Scripted answers that cannot be used throw. */
  async run(args: NewSkillArgs = {}): Promise<string | undefined> {
    const steps = (template?: SkillTemplate) => (template?.chainsSkills ? 7 : 5);
    const title = (step: number, what: string, template?: SkillTemplate) => `New Skill from Template (${step}/${steps(template)}): ${what}`;

    const template = args.template !== undefined ? this.scriptedTemplate(args.template) : await this.pickTemplate(title(1, 'template'));
    if (!template) return undefined;
    const root = args.scope !== undefined ? this.scriptedRoot(args.scope, args.folder) : await this.pickRoot(title(2, 'location', template));
    if (!root) return undefined;
    let category: string | undefined;
    if (args.category !== undefined) {
      const checked = checkCategory(args.category);
      if (!checked.ok) throw new Error(checked.error);
      category = checked.value;
    } else {
      category = await this.pickCategory(root, title(3, 'category', template));
    }
    if (category === undefined) return undefined;
    const parentDir = path.join(root.path, ...category.split('/').filter(Boolean));
    let name: string | undefined;
    if (args.name !== undefined) {
      const problem = await skillFolderProblem(this.skills, args.name, root, parentDir);
      if (problem) throw new Error(problem);
      name = args.name;
    } else {
      name = await vscode.window.showInputBox({
        title: title(4, 'name', template),
        prompt: `Lowercase letters, digits and single hyphens; also the folder name in ${shownPath(root, parentDir)}`,
        placeHolder: 'e.g. deploy-app',
        ignoreFocusOut: true,
        validateInput: (value) => skillFolderProblem(this.skills, value.trim(), root, parentDir),
      });
      name = name?.trim();
    }
    if (!name) return undefined;
    const description =
      args.description ??
      (await vscode.window.showInputBox({
        title: title(5, 'description', template),
        prompt: 'What the skill does and when to use it: the model reads this in the catalog. Leave empty to write it later.',
        placeHolder: 'e.g. Deploys the app to staging. Use when the user asks to deploy or ship.',
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim().length > DESCRIPTION_MAX ? `At most ${DESCRIPTION_MAX} characters (${value.trim().length} now).` : undefined),
      }));
    if (description === undefined) return undefined;
    let chain: readonly [string, string] | undefined;
    if (template.chainsSkills) {
      chain = args.skills ?? (await this.pickChain(title(6, 'first step', template), title(7, 'second step', template)));
      if (!chain) return undefined;
    }
    return this.write(template, root, parentDir, name, description, chain, args.open !== false);
  }

  private async write(
    template: SkillTemplate,
    root: SkillRoot,
    parentDir: string,
    name: string,
    description: string,
    chain: readonly [string, string] | undefined,
    open: boolean,
  ): Promise<string> {
    const templateDir = path.join(this.templatesDir, template.id);
    const source = new TextDecoder().decode(await this.skills.fs.readFile(path.join(templateDir, SKILL_FILE)));
    const filled = fillTemplate(source, { name, description, ...(chain ? { skills: chain } : {}) });
    if (!filled.ok) throw new Error(`The ${template.label} template is broken: ${filled.error}`);
    const dir = path.join(parentDir, name);
    const written = await writeSkillFolder(this.skills.fs, { dir, skillText: filled.value, copyFrom: templateDir });
    if (!written.ok) throw new Error(written.error);
    const file = path.join(dir, SKILL_FILE);
    this.logger.info(`Created the ${root.scope} skill ${name} from the ${template.id} template: ${shownPath(root, dir)} (${written.value.length} file(s))`);
    await this.skills.invalidate([dir]);
    if (open) await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    if (root.scope === 'project' && !vscode.workspace.isTrusted) {
      void vscode.window.showInformationMessage(`Skillwright: created "${name}". Project skills stay hidden in Restricted Mode until you trust this folder.`);
    }
    return file;
  }

  private scriptedTemplate(id: string): SkillTemplate {
    const template = templateById(id);
    if (!template) throw new Error(`There is no template "${id}"; use one of ${SKILL_TEMPLATES.map((t) => t.id).join(', ')}.`);
    return template;
  }

  private scriptedRoot(scope: 'project' | 'user', folder: string | undefined): SkillRoot {
    const roots = writeRoots().filter((root) => root.scope === scope && (folder === undefined || root.folder === folder));
    const root = roots[0];
    if (root) return root;
    if (scope === 'user') throw new Error('There is no user skill folder (~/.agents/skills is disabled in skillwright.skills.disabledRoots).');
    throw new Error(folder ? `No workspace folder is named "${folder}".` : 'No folder is open, so there is no project skill folder; use scope "user".');
  }

  private async pickTemplate(title: string): Promise<SkillTemplate | undefined> {
    const items: Picked<SkillTemplate>[] = SKILL_TEMPLATES.map((template) => ({
      label: template.label,
      description: `Level ${template.level}`,
      detail: template.detail,
      value: template,
    }));
    return (await vscode.window.showQuickPick(items, { title, placeHolder: 'What kind of skill?', ignoreFocusOut: true, matchOnDetail: true }))?.value;
  }

  private async pickRoot(title: string): Promise<SkillRoot | undefined> {
    const roots = writeRoots();
    if (roots.length === 0) {
      throw new Error('Skillwright has no folder to write skills to: .agents/skills and ~/.agents/skills are both disabled in skillwright.skills.disabledRoots.');
    }
    const restricted = !vscode.workspace.isTrusted;
    const items: Picked<SkillRoot>[] = roots.map((root) => ({
      label: root.scope === 'project' ? `Project${root.folder && roots.filter((r) => r.scope === 'project').length > 1 ? `: ${root.folder}` : ''}` : 'User',
      description: root.label,
      detail:
        root.scope === 'project'
          ? `Shared with everyone who works in this folder.${restricted ? ' Hidden in Restricted Mode until you trust the folder.' : ''}`
          : 'Yours, in every workspace; never in a repository.',
      value: root,
    }));
    return (await vscode.window.showQuickPick(items, { title, placeHolder: 'Where should the skill live?', ignoreFocusOut: true }))?.value;
  }

  /** Existing categories to pick from, or a new one typed in (checked as it is typed). */
  private pickCategory(root: SkillRoot, title: string): Promise<string | undefined> {
    const categories = [...new Set((this.skills.skillIndex?.all() ?? []).map((record) => record.category).filter(Boolean))].sort();
    return pickCategory(categories, root.label, title);
  }


  private async pickChain(firstTitle: string, secondTitle: string): Promise<readonly [string, string] | undefined> {
    const active = [...(this.skills.skillIndex?.active() ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const items = (placeholder: string): Picked<string>[] => [
      { label: 'Fill in later', description: `leaves "${placeholder}" for you to replace`, value: placeholder },
      ...active.map((record) => ({ label: record.name, description: record.category, detail: record.description, value: record.name })),
    ];
    const first = await vscode.window.showQuickPick(items(LATER_SKILLS[0]), { title: firstTitle, placeHolder: 'The skill the first step (gather) runs', ignoreFocusOut: true, matchOnDescription: true });
    if (!first) return undefined;
    const second = await vscode.window.showQuickPick(items(LATER_SKILLS[1]), { title: secondTitle, placeHolder: 'The skill the second step (report) runs', ignoreFocusOut: true, matchOnDescription: true });
    return second ? [first.value, second.value] : undefined;
  }
}
