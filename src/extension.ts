import type * as vscode from 'vscode';
import type { SkillwrightApi } from './host/activateSkillwright';
import { activateSkillwright } from './host/activateSkillwright';

export function activate(context: vscode.ExtensionContext): SkillwrightApi {
  return activateSkillwright(context);
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions and released by VS Code.
}
