import type * as vscode from 'vscode';
import type { SkillwrightApi } from './host/activateSkillwright';
import { activateSkillwright } from './host/activateSkillwright';

let api: SkillwrightApi | undefined;

export function activate(context: vscode.ExtensionContext): SkillwrightApi {
  api = activateSkillwright(context);
  return api;
}

export async function deactivate(): Promise<void> {
  // Registrations are released by context.subscriptions; only unsaved state needs a last write.
  await api?.shutdown();
  api = undefined;
}
