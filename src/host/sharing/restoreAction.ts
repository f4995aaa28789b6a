import * as vscode from 'vscode';
import type { Logger } from '../../core/base/logger';
import type { FetchPorts } from '../../core/sharing/quarantine';
import type { RestoreResult } from '../../core/sharing/skillInstaller';
import { restoreFailed, restoreFromLock } from '../../core/sharing/skillInstaller';
import { LOCK_FILE } from '../../core/sharing/skillsLock';
import type { SkillService } from '../skills/skillService';
import type { LockStatusService } from './lockStatus';

export interface RestoreArgs {
  /** The workspace folder (name) whose lock to restore; every folder with a lock when absent. */
  readonly folder?: string;
}

export function isRestoreArgs(value: unknown): value is RestoreArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const folder = (value as Record<string, unknown>)['folder'];
  return folder === undefined || typeof folder === 'string';
}

/**
 * Restore Skills from Lock: every skill a folder's skills-lock.json lists that is missing is fetched
 * from its source at its ref and installed only when its files hash to the lock's computedHash.
 * Skills changed locally are left as they are.
 */
export class RestoreAction {
  constructor(
    private readonly skills: SkillService,
    private readonly lockStatus: LockStatusService,
    private readonly ports: () => FetchPorts,
    private readonly logger: Logger,
  ) {}

  async run(args: RestoreArgs = {}): Promise<RestoreResult[] | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(`Skillwright: restoring skills from ${LOCK_FILE} is not available in Restricted Mode: it fetches what the lock names. Trust this folder first.`);
      return undefined;
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => args.folder === undefined || folder.name === args.folder);
    if (folders.length === 0) throw new Error(args.folder !== undefined ? `There is no workspace folder "${args.folder}".` : `Open a folder with a ${LOCK_FILE} first.`);
    const results = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Skillwright: restoring skills from ${LOCK_FILE}`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const listener = token.onCancellationRequested(() => controller.abort());
        try {
          const all: RestoreResult[] = [];
          for (const folder of folders) {
            progress.report({ message: folder.name });
            all.push(...(await restoreFromLock(this.ports().fs, folder.uri.fsPath, this.ports(), { frozen: false, logger: this.logger, signal: controller.signal })));
          }
          return all;
        } finally {
          listener.dispose();
        }
      },
    );
    const restored = results.filter((r) => r.status === 'restored');
    if (restored.length > 0) await this.skills.invalidate(restored.flatMap((r) => (r.dir ? [r.dir] : [])));
    await this.lockStatus.check();
    const failed = results.filter((r) => restoreFailed(r, false));
    const changed = results.filter((r) => r.status === 'changed');
    const parts = [
      restored.length > 0 ? `restored ${restored.map((r) => r.name).join(', ')}` : 'nothing was missing',
      changed.length > 0 ? `left ${changed.length} changed locally as they are` : '',
      failed.length > 0 ? `could not restore ${failed.map((r) => `${r.name} (${r.message ?? r.status})`).join('; ')}` : '',
    ].filter(Boolean);
    const message = `Skillwright: ${parts.join('; ')}.`;
    this.logger.info(message);
    if (failed.length > 0) void vscode.window.showWarningMessage(message);
    else void vscode.window.showInformationMessage(message);
    return results;
  }
}
