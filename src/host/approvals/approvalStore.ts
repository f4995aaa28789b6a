import * as vscode from 'vscode';
import { stateAllowlist } from '../../core/agent/approvalGrants';
import type { AllowlistEntry, AllowlistStore, AutoApprove } from '../../core/agent/approvals';
import { ApprovalPolicy, describeEntry } from '../../core/agent/approvals';
import { SETTINGS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';

/**
 * "Always for this workspace" grants live in workspace state, not in workspace settings: a
 * cloned repository must not be able to grant itself the right to run commands. How they are
 * read is in core (approvalGrants.ts), where the stored formats are tested.
 */
export function workspaceAllowlist(state: vscode.Memento): AllowlistStore {
  return stateAllowlist(state);
}

/** The auto-approve settings, read from the user's settings only (their scope is `application`). */
export function autoApproveSettings(): AutoApprove {
  const config = vscode.workspace.getConfiguration(SETTINGS.section);
  const userValue = (key: string): boolean => config.inspect<boolean>(key)?.globalValue === true;
  return { edits: userValue(SETTINGS.autoApproveEdits), commands: userValue(SETTINGS.autoApproveCommands) };
}

export function createApprovalPolicy(state: vscode.Memento, logger: Logger): ApprovalPolicy {
  return new ApprovalPolicy({
    trusted: vscode.workspace.isTrusted,
    autoApprove: autoApproveSettings(),
    store: workspaceAllowlist(state),
    onStoreError: (error) => logger.warn(`Saving an "always allow" grant failed; it holds for this session only: ${describeError(error)}`),
  });
}

/** "Manage Approvals…": shows this workspace's "always" grants and removes the ones picked. */
export async function manageApprovals(policy: ApprovalPolicy): Promise<void> {
  const entries = policy.allowlist();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('Skillwright: nothing is always allowed in this workspace. Edits, writes and commands ask first.');
    return;
  }
  type Item = vscode.QuickPickItem & { entry?: AllowlistEntry };
  const items: Item[] = entries.map((entry) => ({ label: describeEntry(entry), ...(entry.addedAt ? { description: `added ${entry.addedAt.slice(0, 10)}` } : {}), entry }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Skillwright: always allowed in this workspace',
    placeHolder: 'Tick the grants to remove, then press Enter',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (!picked || picked.length === 0) return;
  for (const item of picked) if (item.entry) await policy.removeFromAllowlist(item.entry);
  void vscode.window.showInformationMessage(`Skillwright: removed ${picked.length} grant${picked.length === 1 ? '' : 's'}; those actions ask again.`);
}
