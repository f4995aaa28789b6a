import * as vscode from 'vscode';
import type { SessionSummary } from '../../core/sessions/sessionIndex';
import type { SkillRoot } from '../../core/base/skillRoots';
import type { DraftScope } from '../../core/skills/draft/skillDraftSave';

/**
 * The questions "Save This as a Skill" asks: which past session, where the skill goes, and the
 * two decisions (patch an existing skill instead; save the reviewed draft). Each returns
 * undefined when the person dismissed it, which the flow treats as "stop, keep the draft".
 */

type Picked<T> = vscode.QuickPickItem & { readonly value: T };

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
