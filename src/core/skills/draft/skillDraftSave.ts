import * as path from 'node:path';
import type { SkillRoot, SkillScope } from '../../base/skillRoots';
import { checkDraft } from './skillDraftCheck';
import { parseSkillText } from '../model/skillParser';
import { checkCategory, isInside, qualifiedName, resolveInSkill, skillNameProblem } from '../model/skillPaths';
import type { ToolResult } from '../../toolkit/toolResult';
import type { SkillToolContext } from '../tools/skillToolContext';
import { runSkillTool } from '../tools/skillTools';
import { SKILL_FILE } from '../model/skillTypes';

/**
 * Where a reviewed draft would be saved, checked before the person confirms, and the save itself.
 * The save goes through skill_manage `create`, so the checks, the atomic write and the index
 * update are the same as when the model creates a skill; `finalizeDraft` runs the same checks
 * early so the UI can show the destination, or the reason there is none, before asking.
 */

export type DraftScope = 'project' | 'user';

export interface DraftTarget {
  readonly name: string;
  readonly scope: DraftScope;
  /** Validated, without leading or trailing slashes; '' for the top of the root. */
  readonly category: string;
  readonly root: SkillRoot;
  /** Absolute path the SKILL.md would get. */
  readonly file: string;
  /** The same for people: `.agents/skills/devops/deploy-app/SKILL.md`. */
  readonly displayPath: string;
  /** Not blocking: precedence over (or behind) a skill of the same name elsewhere, lint warnings. */
  readonly warnings: readonly string[];
}

export type Finalized = { readonly ok: true; readonly target: DraftTarget } | { readonly ok: false; readonly error: string };

const refuse = (error: string): Finalized => ({ ok: false, error });

function writeRoot(ctx: SkillToolContext, scope: DraftScope): SkillRoot | undefined {
  return (ctx.roots ?? ctx.index.roots).find((root) => root.writeTarget && root.scope === scope);
}

/**
 * Checks a draft for saving under `scope` and `category`: a valid name that no skill in that root
 * uses, no lint errors, and a folder that does not exist yet and stays inside the root (a category
 * that is a link out of the root, or lies inside another skill, is refused). Writes nothing.
 */
export async function finalizeDraft(text: string, scope: DraftScope, category: string, ctx: SkillToolContext): Promise<Finalized> {
  const parsed = parseSkillText(text);
  const rawName = parsed.frontmatter['name'];
  if (typeof rawName !== 'string') return refuse('the draft has no `name` in its frontmatter; add one (lowercase letters, digits and hyphens, e.g. "deploy-app")');
  const name = rawName.trim();
  const nameProblem = skillNameProblem(name);
  if (nameProblem) return refuse(nameProblem);
  const checkedCategory = checkCategory(category);
  if (!checkedCategory.ok) return refuse(checkedCategory.error);
  const root = writeRoot(ctx, scope);
  if (!root) {
    return refuse(
      scope === 'project'
        ? 'no folder is open in the editor, so there is no project skill folder; save the skill for the user (~/.agents/skills) instead'
        : 'there is no user skill folder (no home folder is known); save the skill in the project instead',
    );
  }
  const check = await checkDraft(text);
  if (!check.ok) {
    const listed = check.errors.slice(0, 5).map((f) => `line ${f.range.startLine + 1}: ${f.code} ${f.message}`).join('\n');
    return refuse(`the draft is not a valid SKILL.md yet; fix these first:\n${listed}`);
  }
  const existing = ctx.index.all().find((record) => record.root.path === root.path && (record.name === name || record.folderName === name));
  if (existing) {
    return refuse(`a skill named "${name}" already exists in ${root.label} ("${qualifiedName(existing)}"); choose another name, or patch that skill instead`);
  }
  const relative = [checkedCategory.value, name, SKILL_FILE].filter(Boolean).join('/');
  const file = path.join(root.path, ...relative.split('/'));
  if (await ctx.fs.lstat(root.path)) {
    const resolved = await resolveInSkill(ctx.fs, root.path, relative);
    if (!resolved.ok) return refuse(`cannot save to "${relative}" in ${root.label}: ${resolved.error}`);
  }
  const dir = path.dirname(file);
  if (await ctx.fs.lstat(dir)) return refuse(`the folder "${path.posix.dirname(relative)}" already exists in ${root.label}; choose another name or category`);
  for (let parent = path.dirname(dir); parent !== root.path && isInside(root.path, parent); parent = path.dirname(parent)) {
    if (await ctx.fs.stat(path.join(parent, SKILL_FILE))) {
      return refuse(`category "${checkedCategory.value}" is inside the skill "${path.relative(root.path, parent).split(path.sep).join('/')}"; choose a category that is not a skill`);
    }
  }
  const rank: Readonly<Record<SkillScope, number>> = { project: 0, user: 1, other: 2 };
  const warnings = ctx.index
    .active()
    .filter((record) => record.name === name)
    .map((other) =>
      rank[other.scope] < rank[scope]
        ? `the skill "${name}" in ${other.root.label} takes precedence, so this one would stay hidden; choose another name`
        : `this skill would take precedence over the skill "${name}" in ${other.root.label}`,
    );
  warnings.push(...check.warnings.filter((f) => f.severity === 'warning').map((f) => `line ${f.range.startLine + 1}: ${f.code} ${f.message}`));
  return { ok: true, target: { name, scope, category: checkedCategory.value, root, file, displayPath: `${root.label}/${relative}`, warnings } };
}

/**
 * Saves the draft after the person confirmed it: the same checks as `finalizeDraft`, then
 * skill_manage `create` (validated again, written atomically, the index updated at once).
 */
export async function saveDraft(text: string, scope: DraftScope, category: string, ctx: SkillToolContext): Promise<ToolResult> {
  const finalized = await finalizeDraft(text, scope, category, ctx);
  if (!finalized.ok) return { success: false, error: finalized.error };
  const { name, category: checked } = finalized.target;
  return runSkillTool('skill_manage', { action: 'create', name, content: text, category: checked, scope }, ctx);
}
