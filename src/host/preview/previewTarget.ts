import * as path from 'node:path';
import * as vscode from 'vscode';
import { SKILL_FILE } from '../../core/skills/model/skillTypes';
import type { SkillService } from '../skills/skillService';

export function isSkillFile(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' && path.basename(uri.fsPath) === SKILL_FILE;
}

/** The SKILL.md to preview when none was given: the active editor's, or one the person picks. */
export async function pickSkillToPreview(skills: SkillService): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && isSkillFile(active)) return active;
  await skills.ready;
  const records = [...skills.skillIndex.all()].sort((a, b) => a.name.localeCompare(b.name));
  if (records.length === 0) {
    void vscode.window.showInformationMessage('Skillwright: open a SKILL.md to preview it; no skills were found in the skill folders.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    records.map((record) => ({ label: record.name, description: record.category || undefined, detail: record.description.slice(0, 200), file: record.file })),
    { title: 'Open Skill Preview', placeHolder: 'Which skill do you want to preview?', matchOnDescription: true, matchOnDetail: true },
  );
  return picked ? vscode.Uri.file(picked.file) : undefined;
}
