import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/base/logger';
import type { FetchPorts } from '../../core/sharing/quarantine';
import { LOCK_FILE, lockedSkillDir, readLock } from '../../core/sharing/skillsLock';
import type { UpdateCheck, UpdateChoice, UpdateStatus } from '../../core/sharing/skillUpdates';
import { applyUpdate, checkForUpdates } from '../../core/sharing/skillUpdates';
import type { SkillService } from '../skills/skillService';
import type { LockStatusService } from './lockStatus';
import type { ReviewDocuments } from './reviewDocuments';
import { findingLines, verdictLine } from './reviewText';

export interface UpdateArgs {
  readonly folder?: string;
  /** Check only these locked skills. */
  readonly names?: readonly string[];
  /** Scripted answers per skill; a skill without one is asked about (or left alone when `choices` is given). */
  readonly choices?: Readonly<Record<string, UpdateChoice>>;
  /** Answers "Apply Anyway" when upstream's files are dangerous. */
  readonly override?: boolean;
  /** Open the diffs (default true). */
  readonly open?: boolean;
}

export function isUpdateArgs(value: unknown): value is UpdateArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  const names = record['names'];
  const choices = record['choices'];
  return (
    (record['folder'] === undefined || typeof record['folder'] === 'string') &&
    (record['open'] === undefined || typeof record['open'] === 'boolean') &&
    (record['override'] === undefined || typeof record['override'] === 'boolean') &&
    (names === undefined || (Array.isArray(names) && names.every((name) => typeof name === 'string'))) &&
    (choices === undefined || (typeof choices === 'object' && choices !== null && Object.values(choices).every((c) => c === 'take_theirs' || c === 'keep_mine' || c === 'merge')))
  );
}

export interface UpdateOutcome {
  readonly name: string;
  readonly status: UpdateStatus;
  readonly choice?: UpdateChoice;
  /** Files that got conflict markers (merge), opened in the editor. */
  readonly conflicted?: readonly string[];
  readonly message?: string;
}

const ACTIONABLE: ReadonlySet<UpdateStatus> = new Set(['update_available', 'changed_locally', 'both_changed']);

export function statusText(status: UpdateStatus): string {
  switch (status) {
    case 'up_to_date':
      return 'up to date';
    case 'update_available':
      return 'update available';
    case 'changed_locally':
      return 'changed locally';
    case 'both_changed':
      return 'changed here and upstream';
    case 'missing':
      return 'missing (Restore Skills from Lock)';
    case 'error':
      return 'could not check';
  }
}

const TAKE = 'Take Theirs';
const DISCARD = 'Take Theirs (Discard My Edits)';
const KEEP = 'Keep Mine';
const MERGE = 'Merge';

/**
 * Check for Skill Updates: fetches each locked skill's source at its ref, lists what changed
 * upstream and here, shows the diff, and applies the person's answer. A local edit is only ever
 * replaced after a modal that says so; a merge writes conflict markers and opens those files.
 */
export class UpdateFlow {
  constructor(
    private readonly skills: SkillService,
    private readonly lockStatus: LockStatusService,
    private readonly documents: ReviewDocuments,
    private readonly ports: () => FetchPorts,
    private readonly logger: Logger,
  ) {}

  async run(args: UpdateArgs = {}): Promise<UpdateOutcome[] | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Skillwright: checking for skill updates is not available in Restricted Mode: it fetches what skills-lock.json names. Trust this folder first.');
      return undefined;
    }
    const folder = await this.folder(args.folder);
    if (!folder) return undefined;
    const root = folder.uri.fsPath;
    const checks = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Skillwright: checking locked skills for updates', cancellable: true },
      async (_progress, token) => {
        const controller = new AbortController();
        const listener = token.onCancellationRequested(() => controller.abort());
        try {
          return await checkForUpdates(this.ports().fs, root, this.ports(), { ...(args.names ? { names: args.names } : {}), signal: controller.signal });
        } finally {
          listener.dispose();
        }
      },
    );
    for (const check of checks.filter((c) => c.status === 'error')) this.logger.warn(`Update check of ${check.name}: ${check.message ?? 'failed'}`);
    const actionable = checks.filter((check) => ACTIONABLE.has(check.status));
    if (actionable.length === 0) {
      const errors = checks.filter((c) => c.status === 'error' || c.status === 'missing');
      const note = errors.length > 0 ? ` ${errors.map((c) => `${c.name}: ${c.message ?? statusText(c.status)}`).join('; ')}.` : '';
      void vscode.window.showInformationMessage(`Skillwright: ${checks.length - errors.length} locked skill(s) up to date.${note}`);
      return checks.map((check) => ({ name: check.name, status: check.status, ...(check.message ? { message: check.message } : {}) }));
    }
    const picked = args.choices ? actionable.filter((check) => args.choices?.[check.name] !== undefined) : await this.pick(actionable);
    if (!picked) return undefined;
    const outcomes: UpdateOutcome[] = [];
    try {
      for (const check of picked) outcomes.push(await this.resolve(root, check, args));
    } finally {
      if (args.open !== false) await this.documents.closeAll();
    }
    const changedDirs = outcomes.filter((o) => o.choice && o.choice !== 'keep_mine').map((o) => lockedSkillDir(root, o.name));
    if (changedDirs.length > 0) await this.skills.invalidate(changedDirs);
    await this.lockStatus.check();
    for (const outcome of outcomes) for (const file of outcome.conflicted ?? []) await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    return [...outcomes, ...checks.filter((check) => !picked.includes(check)).map((check) => ({ name: check.name, status: check.status, ...(check.message ? { message: check.message } : {}) }))];
  }

  private async folder(name: string | undefined): Promise<vscode.WorkspaceFolder | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (name !== undefined) {
      const folder = folders.find((f) => f.name === name);
      if (!folder) throw new Error(`There is no workspace folder "${name}".`);
      return folder;
    }
    const withLock: vscode.WorkspaceFolder[] = [];
    for (const folder of folders) if ((await readLock(this.ports().fs, folder.uri.fsPath)).exists) withLock.push(folder);
    if (withLock.length === 0) throw new Error(`No open folder has a ${LOCK_FILE}; import skills into the project first (Skillwright: Import Skills…).`);
    return withLock.length === 1 ? withLock[0] : vscode.window.showWorkspaceFolderPick({ placeHolder: `The folder whose ${LOCK_FILE} to check` });
  }

  private async pick(checks: readonly UpdateCheck[]): Promise<UpdateCheck[] | undefined> {
    const picked = await vscode.window.showQuickPick(
      checks.map((check) => ({
        label: check.name,
        description: statusText(check.status),
        detail: [check.review ? `upstream verdict ${verdictLine(check.review.scan)}` : '', check.message ?? ''].filter(Boolean).join(' · ') || undefined,
        picked: check.status === 'update_available',
        check,
      })),
      { title: 'Skill updates', placeHolder: 'The skills to review; each shows its diff and asks what to do', canPickMany: true, ignoreFocusOut: true },
    );
    return picked?.map((item) => item.check);
  }

  private async resolve(root: string, check: UpdateCheck, args: UpdateArgs): Promise<UpdateOutcome> {
    if (args.open !== false) await this.show(root, check);
    const choice = args.choices?.[check.name] ?? (await this.ask(check));
    if (!choice) return { name: check.name, status: check.status, message: 'no answer; nothing changed' };
    const dangerous = choice !== 'keep_mine' && check.review?.scan.verdict === 'dangerous';
    if (dangerous && !(args.override ?? (args.choices ? false : await this.confirmDangerous(check)))) {
      return { name: check.name, status: check.status, message: 'upstream is dangerous and the override was not given; nothing changed' };
    }
    const result = await applyUpdate(this.ports().fs, root, check, choice, { ...(dangerous ? { override: 'review' as const } : {}), logger: this.logger });
    const dir = check.dir ?? lockedSkillDir(root, check.name);
    // The upstream change was reviewed here (diff shown, choice made): its content is approved.
    if (choice !== 'keep_mine') await this.skills.noteInstalled(dir, check.name);
    const conflicted = result.conflicted.map((file) => (path.isAbsolute(file) ? file : path.join(dir, ...file.split('/'))));
    this.logger.info(`Update of ${check.name} (${statusText(check.status)}): ${choice}${conflicted.length > 0 ? `, conflicts in ${conflicted.length} file(s)` : ''}`);
    return { name: check.name, status: check.status, choice, ...(conflicted.length > 0 ? { conflicted } : {}) };
  }

  /** The whole change as a unified diff, and SKILL.md in the diff editor (local ↔ upstream). */
  private async show(root: string, check: UpdateCheck): Promise<void> {
    if (check.diff) await this.documents.showText(`${check.name}-update.diff`, check.diff);
    const upstream = check.upstreamFiles?.get('SKILL.md');
    const local = path.join(check.dir ?? lockedSkillDir(root, check.name), 'SKILL.md');
    if (!upstream || !(await this.ports().fs.stat(local))) return;
    const right = this.documents.register(`upstream/${check.name}/SKILL.md`, new TextDecoder().decode(upstream));
    await this.documents.showDiff(vscode.Uri.file(local), right, `${check.name}/SKILL.md: here ↔ upstream (not applied yet)`);
  }

  private async confirmDangerous(check: UpdateCheck): Promise<boolean> {
    const scan = check.review?.scan;
    const findings = scan ? findingLines(scan).slice(0, 8).join('\n') : '';
    const action = 'Apply Anyway';
    const answer = await vscode.window.showWarningMessage(
      `The scanner found the new version of "${check.name}" dangerous.`,
      { modal: true, detail: `${scan ? `Verdict: ${verdictLine(scan)}\n\n` : ''}${findings}\n\nApplying it anyway is recorded in skills-lock.json and the log.` },
      action,
    );
    return answer === action;
  }

  private async ask(check: UpdateCheck): Promise<UpdateChoice | undefined> {
    const verdict = check.review ? `\n\nUpstream verdict: ${verdictLine(check.review.scan)}.` : '';
    const buttons: Record<string, UpdateChoice> =
      check.status === 'update_available'
        ? { [TAKE]: 'take_theirs', [KEEP]: 'keep_mine' }
        : check.status === 'both_changed'
          ? { [MERGE]: 'merge', [KEEP]: 'keep_mine', [DISCARD]: 'take_theirs' }
          : { [KEEP]: 'keep_mine', [DISCARD]: 'take_theirs' };
    const detail =
      check.status === 'update_available'
        ? `Its source has changed; your copy has no local edits. The diff shows what Take Theirs brings in.${verdict}`
        : check.status === 'both_changed'
          ? `You edited it here and its source changed too. Merge writes conflict markers where both sides changed and opens those files; Take Theirs discards your edits.${verdict}`
          : `You edited it here; its source is unchanged. Take Theirs discards your edits.${verdict}`;
    const answer = await vscode.window.showWarningMessage(`"${check.name}": ${statusText(check.status)}`, { modal: true, detail }, ...Object.keys(buttons));
    return answer ? buttons[answer] : undefined;
  }
}
