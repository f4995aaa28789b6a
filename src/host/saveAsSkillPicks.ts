import * as vscode from 'vscode';
import type { SessionSummary } from '../core/sessions/sessionIndex';
import type { SkillRoot } from '../core/skillRoots';
import type { DraftScope } from '../core/skills/skillDraftSave';
import { checkCategory } from '../core/skills/skillPaths';

/**
 * The questions "Save This as a Skill" asks: which past session, where the skill goes, and the
 * two decisions (patch an existing skill instead; save the reviewed draft). Each returns
 * undefined when the person dismissed it, which the flow treats as "stop, keep the draft".
 */

type Picked<T> = vscode.QuickPickItem & { readonly value: T };
const INVALID = '\u0000invalid';

export const SAVE_SKILL = 'Save Skill';
export const CHANGE_LOCATION = 'Change Location…';

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A past session, newest first, when the chat has none open. */
export async function pickSession(sessions: readonly SessionSummary[], title: string): Promise<string | undefined> {
  const items: Picked<string>[] = sessions.map((session) => ({
    label: (session.title || session.preview || session.id).slice(0, 120),
    description: [when(session.updated), `${session.messageCount} message${session.messageCount === 1 ? '' : 's'}`].filter(Boolean).join(' · '),
    ...(session.workspace ? { detail: session.workspace } : {}),
    value: session.id,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: 'Which session should become a skill?',
    ignoreFocusOut: true,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.value;
}

/** Project (only offered when a trusted folder is open) or user. */
export async function pickScope(roots: readonly SkillRoot[], title: string): Promise<DraftScope | undefined> {
  const items: Picked<DraftScope>[] = [];
  const project = roots.find((root) => root.scope === 'project');
  const user = roots.find((root) => root.scope === 'user');
  if (project) items.push({ label: 'Project', description: project.label, detail: 'Shared with everyone who works in this folder (commit it with the code).', value: 'project' });
  if (user) items.push({ label: 'User', description: user.label, detail: 'Yours, in every workspace; never in a repository.', value: 'user' });
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'Where should the skill live?', ignoreFocusOut: true });
  return picked?.value;
}

/** The categories of one root to pick from, or a new one typed in (checked as it is typed). */
export function pickCategory(categories: readonly string[], rootLabel: string, title: string): Promise<string | undefined> {
  const base: Picked<string>[] = [
    { label: '(top level)', description: `directly in ${rootLabel}`, value: '' },
    ...categories.map((category) => ({ label: category, description: `${rootLabel}/${category}`, value: category })),
  ];
  const pick = vscode.window.createQuickPick<Picked<string>>();
  pick.title = title;
  pick.placeholder = 'Pick a category, or type a new one (e.g. devops/k8s)';
  pick.ignoreFocusOut = true;
  const update = () => {
    const typed = pick.value.trim();
    const checked = checkCategory(typed);
    if (typed === '' || (checked.ok && categories.includes(checked.value))) {
      pick.items = base;
      return;
    }
    const item: Picked<string> = checked.ok
      ? { label: checked.value, description: 'new category', alwaysShow: true, value: checked.value }
      : { label: typed, description: `$(error) ${checked.error}`, alwaysShow: true, value: INVALID };
    pick.items = [item, ...base];
  };
  update();
  return new Promise((resolve) => {
    pick.onDidChangeValue(update);
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0] ?? pick.activeItems[0];
      if (!item || item.value === INVALID) return;
      resolve(item.value);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

export type PatchAnswer = 'patch' | 'new' | undefined;

/** Asked while the diff is open, so the person can read it before choosing. */
export async function askPatchInstead(skillName: string, message: string): Promise<PatchAnswer> {
  const patch = `Patch ${skillName}`;
  const separate = 'Save as New Skill';
  const answer = await vscode.window.showInformationMessage(message, patch, separate, 'Cancel');
  return answer === patch ? 'patch' : answer === separate ? 'new' : undefined;
}

/**
 * Not modal: the person edits the draft in the editor while the question waits. Returns the
 * button; undefined for Cancel or a dismissed notification.
 */
export async function askSave(message: string, refused: boolean): Promise<typeof SAVE_SKILL | typeof CHANGE_LOCATION | undefined> {
  const answer = refused
    ? await vscode.window.showWarningMessage(message, SAVE_SKILL, CHANGE_LOCATION, 'Cancel')
    : await vscode.window.showInformationMessage(message, SAVE_SKILL, CHANGE_LOCATION, 'Cancel');
  return answer === SAVE_SKILL || answer === CHANGE_LOCATION ? answer : undefined;
}
