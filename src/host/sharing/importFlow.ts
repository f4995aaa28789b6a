import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import type { ImportReview } from '../../core/sharing/importReview';
import { reviewImport } from '../../core/sharing/importReview';
import type { FetchPorts, Quarantine } from '../../core/sharing/quarantine';
import { fetchToQuarantine } from '../../core/sharing/quarantine';
import type { ImportCandidate } from '../../core/sharing/skillDiscovery';
import { findImportableSkills } from '../../core/sharing/skillDiscovery';
import type { CollisionChoice } from '../../core/sharing/skillInstaller';
import { installSkill } from '../../core/sharing/skillInstaller';
import type { SkillSource } from '../../core/sharing/skillSource';
import { ACCEPTED_SOURCES, parseSkillSource } from '../../core/sharing/skillSource';
import { readLock } from '../../core/sharing/skillsLock';
import { skillNameProblem } from '../../core/skills/model/skillPaths';
import type { SkillService } from '../skills/skillService';
import type { LockStatusService } from './lockStatus';
import type { ReviewDocuments } from './reviewDocuments';
import { findingLines, reviewMarkdown, verdictLine } from './reviewText';

/** Arguments from scripts and tests; whatever is not given is asked. */
export interface ImportArgs {
  /** A folder, a .zip, a git URL or owner/repo[/path] (with #ref). */
  readonly source?: string;
  readonly ref?: string;
  /** Names of the skills found to import; all of them when the source holds one. */
  readonly skills?: readonly string[];
  readonly scope?: 'project' | 'user';
  /** The workspace folder (name) whose .agents/skills and lock receive them. */
  readonly folder?: string;
  /** Answers the install confirmation. */
  readonly confirm?: boolean;
  /** Answers "Install Anyway" for a dangerous verdict. */
  readonly override?: boolean;
  readonly collision?: CollisionChoice;
  readonly newName?: string;
  /** Open the review documents and diffs (default true). */
  readonly open?: boolean;
}

const STRING_KEYS = ['source', 'ref', 'scope', 'folder', 'collision', 'newName'] as const;
const BOOLEAN_KEYS = ['confirm', 'override', 'open'] as const;

export function isImportArgs(value: unknown): value is ImportArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const record = value as Record<string, unknown>;
  return (
    STRING_KEYS.every((key) => record[key] === undefined || typeof record[key] === 'string') &&
    BOOLEAN_KEYS.every((key) => record[key] === undefined || typeof record[key] === 'boolean') &&
    (record['skills'] === undefined || (Array.isArray(record['skills']) && record['skills'].every((name) => typeof name === 'string')))
  );
}

export type ImportStatus = 'installed' | 'kept' | 'declined' | 'failed';

export interface ImportOutcome {
  readonly name: string;
  readonly status: ImportStatus;
  readonly dir?: string;
  readonly message?: string;
}

export interface ImportDeps {
  readonly skills: SkillService;
  readonly lockStatus: LockStatusService;
  readonly documents: ReviewDocuments;
  readonly ports: () => FetchPorts;
  readonly logger: Logger;
}

interface Target {
  readonly scope: 'project' | 'user';
  readonly root: string;
  /** The project root whose lock records the install (project scope). */
  readonly lockRoot?: string;
}

/**
 * Import Skills…: source → quarantine → pick → review (files, findings, verdict, diff against an
 * installed copy) → a modal confirmation per skill → install (project skills are recorded in
 * skills-lock.json). Refused in Restricted Mode: an untrusted folder must not take skills in.
 */
export class ImportFlow {
  constructor(private readonly deps: ImportDeps) {}

  async run(args: ImportArgs = {}): Promise<ImportOutcome[] | undefined> {
    if (!vscode.workspace.isTrusted) {
      const trust = 'Manage Workspace Trust';
      void vscode.window
        .showWarningMessage('Skillwright: importing skills is not available in Restricted Mode. Trust this folder first, then import again.', trust)
        .then((choice) => choice === trust && vscode.commands.executeCommand('workbench.trust.manage'));
      return undefined;
    }
    const folder = await this.folder(args.folder);
    const input = args.source !== undefined ? { source: args.source, ...(args.ref ? { ref: args.ref } : {}) } : await this.askSource(folder);
    if (input === undefined) return undefined;
    const cwd = folder?.uri.fsPath ?? os.homedir();
    const parsed = parseSkillSource(input.source, { cwd, ...(input.ref ? { ref: input.ref } : {}) });
    if ('error' in parsed) throw new Error(parsed.error);
    const source = parsed;

    const fetched = await this.fetch(source);
    if (!fetched) return undefined;
    const { quarantine, candidates } = fetched;
    try {
      if (candidates.length === 0) {
        void vscode.window.showWarningMessage(`Skillwright: no skill (a folder with a SKILL.md) was found in ${source.source}. Point at a folder, archive or repository that holds skills.`);
        return [];
      }
      const picked = await this.pick(candidates, args.skills);
      if (!picked || picked.length === 0) return undefined;
      const target = await this.target(folder, args.scope);
      if (!target) return undefined;
      const outcomes: ImportOutcome[] = [];
      for (const candidate of picked) {
        outcomes.push(await this.reviewAndInstall(candidate, source, quarantine, target, args));
      }
      const installed = outcomes.filter((o) => o.status === 'installed');
      if (installed.length > 0) {
        await this.deps.skills.invalidate(installed.flatMap((o) => (o.dir ? [o.dir] : [])));
        this.deps.lockStatus.schedule();
      }
      void vscode.window.showInformationMessage(`Skillwright: ${summary(outcomes)}`);
      return outcomes;
    } finally {
      await quarantine.dispose().catch((error: unknown) => this.deps.logger.warn(`Could not remove the quarantine ${quarantine.dir}: ${describeError(error)}`));
      if (args.open !== false) await this.deps.documents.closeAll();
    }
  }

  private async folder(name: string | undefined): Promise<vscode.WorkspaceFolder | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (name !== undefined) {
      const folder = folders.find((f) => f.name === name);
      if (!folder) throw new Error(`There is no workspace folder "${name}"; use one of ${folders.map((f) => `"${f.name}"`).join(', ') || '(none open)'}.`);
      return folder;
    }
    return folders.length <= 1 ? folders[0] : vscode.window.showWorkspaceFolderPick({ placeHolder: 'The folder to import skills into (its .agents/skills and skills-lock.json)' });
  }

  private async askSource(folder: vscode.WorkspaceFolder | undefined): Promise<{ source: string; ref?: string } | undefined> {
    const kinds: (vscode.QuickPickItem & { readonly from: 'folder' | 'zip' | 'git' })[] = [
      { label: '$(folder) Folder…', detail: 'A folder with skills (or one skill) on this machine', from: 'folder' },
      { label: '$(file-zip) .zip File…', detail: 'An archive of skills', from: 'zip' },
      { label: '$(repo) Git URL or owner/repo…', detail: 'https://…, git@…, file://…, or owner/repo[/path] on GitHub; a branch, tag or commit next', from: 'git' },
    ];
    const picked = await vscode.window.showQuickPick(kinds, { title: 'Import Skills: where from?', placeHolder: 'Skills are fetched into a quarantine folder and reviewed before anything is installed' });
    const kind = picked?.from;
    if (!kind) return undefined;
    if (kind !== 'git') {
      const chosen = await vscode.window.showOpenDialog({
        canSelectFiles: kind === 'zip',
        canSelectFolders: kind === 'folder',
        canSelectMany: false,
        ...(folder ? { defaultUri: folder.uri } : {}),
        openLabel: 'Import from Here',
        ...(kind === 'zip' ? { filters: { 'Zip archives': ['zip'] } } : {}),
      });
      const file = chosen?.[0]?.fsPath;
      return file ? { source: file } : undefined;
    }
    const cwd = folder?.uri.fsPath ?? os.homedir();
    const url = await vscode.window.showInputBox({
      title: 'Import Skills: git repository',
      prompt: `A git URL or owner/repo[/path]; ${ACCEPTED_SOURCES}`,
      placeHolder: 'owner/repo or https://example.com/team/skills.git',
      ignoreFocusOut: true,
      validateInput: (text) => {
        if (text.trim() === '') return 'Enter a git URL or owner/repo.';
        const parsed = parseSkillSource(text.trim(), { cwd });
        if ('error' in parsed) return parsed.error;
        return parsed.kind === 'git' ? undefined : 'That is a local path; choose Folder… or .zip File… instead.';
      },
    });
    if (!url) return undefined;
    const ref = await vscode.window.showInputBox({
      title: 'Import Skills: branch, tag or commit (optional)',
      prompt: 'Leave empty for the default branch. The ref is recorded in skills-lock.json, so updates follow it.',
      ignoreFocusOut: true,
    });
    if (ref === undefined) return undefined;
    return { source: url.trim(), ...(ref.trim() ? { ref: ref.trim() } : {}) };
  }

  private fetch(source: SkillSource): Thenable<{ quarantine: Quarantine; candidates: ImportCandidate[] } | undefined> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Skillwright: fetching ${source.source}${source.ref ? `#${source.ref}` : ''}`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const listener = token.onCancellationRequested(() => controller.abort());
        try {
          const quarantine = await fetchToQuarantine(source, this.deps.ports(), controller.signal);
          if (token.isCancellationRequested) {
            await quarantine.dispose();
            return undefined;
          }
          progress.report({ message: 'looking for skills' });
          const candidates = await findImportableSkills(this.deps.ports().fs, quarantine.root, quarantine.base).catch(async (error: unknown) => {
            await quarantine.dispose();
            throw error;
          });
          this.deps.logger.info(`Import: ${candidates.length} skill(s) found in ${source.source}${quarantine.commit ? ` at ${quarantine.commit.slice(0, 12)}` : ''}`);
          return { quarantine, candidates };
        } catch (error) {
          if (token.isCancellationRequested) {
            this.deps.logger.info(`Import of ${source.source} was cancelled`);
            return undefined;
          }
          throw error;
        } finally {
          listener.dispose();
        }
      },
    );
  }

  private async pick(candidates: readonly ImportCandidate[], names: readonly string[] | undefined): Promise<ImportCandidate[] | undefined> {
    if (names !== undefined) {
      const unknown = names.filter((name) => !candidates.some((c) => c.name === name));
      if (unknown.length > 0) throw new Error(`The source has no skill named ${unknown.map((n) => `"${n}"`).join(', ')}; it holds ${candidates.map((c) => `"${c.name}"`).join(', ')}.`);
      return candidates.filter((c) => names.includes(c.name));
    }
    if (candidates.length === 1) return [...candidates];
    const picked = await vscode.window.showQuickPick(
      candidates.map((candidate) => ({ label: candidate.name, description: candidate.skillPath, detail: candidate.description?.slice(0, 200), picked: true, candidate })),
      { title: `Import Skills: ${candidates.length} found`, placeHolder: 'The skills to review and import', canPickMany: true, ignoreFocusOut: true },
    );
    return picked?.map((item) => item.candidate);
  }

  private async target(folder: vscode.WorkspaceFolder | undefined, scope: 'project' | 'user' | undefined): Promise<Target | undefined> {
    const user: Target = { scope: 'user', root: path.join(os.homedir(), '.agents', 'skills') };
    if (!folder) {
      if (scope === 'project') throw new Error('Open a folder first: project skills go to its .agents/skills.');
      return user;
    }
    const project: Target = { scope: 'project', root: path.join(folder.uri.fsPath, '.agents', 'skills'), lockRoot: folder.uri.fsPath };
    if (scope) return scope === 'project' ? project : user;
    const picked = await vscode.window.showQuickPick(
      [
        { label: 'Project', description: `${folder.name}/.agents/skills`, detail: 'Recorded in skills-lock.json, so teammates get the same skills', target: project },
        { label: 'User', description: '~/.agents/skills', detail: 'For you in every project; not recorded in a lock', target: user },
      ],
      { title: 'Import Skills: install where?', ignoreFocusOut: true },
    );
    return picked?.target;
  }

  private async reviewAndInstall(candidate: ImportCandidate, source: SkillSource, quarantine: Quarantine, target: Target, args: ImportArgs): Promise<ImportOutcome> {
    const { fs } = this.deps.ports();
    const locked = target.lockRoot ? (await readLock(fs, target.lockRoot)).lock.skills : {};
    await this.deps.skills.ready;
    const review = await reviewImport(fs, candidate, {
      targetRoot: target.root,
      existingDirOf: (name) => Promise.resolve(this.deps.skills.skillIndex.get(name)?.dir),
      isLocked: (name) => locked[name] !== undefined,
      notes: quarantine.notes,
    });
    if (args.open !== false) await this.show(review, source, quarantine);

    let collision: CollisionChoice | undefined;
    let newName: string | undefined;
    if (review.existing && !review.existing.sameContent) {
      collision = args.collision ?? (await this.askCollision(review));
      if (!collision) return { name: candidate.name, status: 'declined', message: 'no answer to the name collision' };
      if (collision === 'keep_mine') return { name: candidate.name, status: 'kept', dir: review.existing.dir, message: `kept the installed copy at ${review.existing.dir}` };
      if (collision === 'rename') {
        newName = args.newName ?? (await this.askNewName(review));
        if (!newName) return { name: candidate.name, status: 'declined', message: 'no new name given' };
      }
    }
    const dangerous = review.scan.verdict === 'dangerous';
    // A scripted confirmation is no override: a dangerous skill needs its own explicit yes.
    const scripted = dangerous ? (args.override ?? (args.confirm !== undefined ? false : undefined)) : args.confirm;
    const confirmed = scripted ?? (await this.confirm(review, target, newName));
    if (!confirmed) return { name: candidate.name, status: 'declined', message: dangerous ? 'the scanner found it dangerous and the override was not given' : 'not confirmed' };
    try {
      const result = await installSkill(fs, review, {
        source,
        ...(quarantine.commit ? { commit: quarantine.commit } : {}),
        ...(collision ? { collision } : {}),
        ...(newName ? { newName } : {}),
        ...(dangerous ? { override: 'review' as const } : {}),
        ...(target.lockRoot ? { lockRoot: target.lockRoot } : {}),
        reviewed: true,
        logger: this.deps.logger,
      });
      if (result.skipped) return { name: result.name, status: 'kept', message: result.skipped };
      // Reviewed and confirmed here: the installed content is approved (the lock's `reviewed` is not trusted).
      if (result.installedDir) await this.deps.skills.noteInstalled(result.installedDir, result.name);
      return { name: result.name, status: 'installed', ...(result.installedDir ? { dir: result.installedDir } : {}) };
    } catch (error) {
      this.deps.logger.warn(`Import of ${candidate.name} failed: ${describeError(error)}`);
      void vscode.window.showErrorMessage(`Skillwright: "${candidate.name}" was not installed: ${describeError(error)}`);
      return { name: candidate.name, status: 'failed', message: describeError(error) };
    }
  }

  private async show(review: ImportReview, source: SkillSource, quarantine: Quarantine): Promise<void> {
    const { documents } = this.deps;
    const name = review.candidate.name;
    try {
      await documents.showText(`${name}-review.md`, reviewMarkdown(review, { source: source.source, ...(source.ref ? { ref: source.ref } : {}), ...(quarantine.commit ? { commit: quarantine.commit } : {}) }));
      if (review.existing && !review.existing.sameContent) {
        const incoming = await this.deps.ports().fs.readFile(path.join(review.candidate.dir, 'SKILL.md')).then((bytes) => new TextDecoder().decode(bytes));
        const right = documents.register(`incoming/${name}/SKILL.md`, incoming);
        await documents.showDiff(vscode.Uri.file(path.join(review.existing.dir, 'SKILL.md')), right, `${name}/SKILL.md: installed ↔ incoming (not installed yet)`);
      }
    } catch (error) {
      this.deps.logger.warn(`Could not open the review of ${name}: ${describeError(error)}`);
    }
  }

  private async askCollision(review: ImportReview): Promise<CollisionChoice | undefined> {
    const choices: Record<string, CollisionChoice> = { 'Keep Mine': 'keep_mine', 'Take Theirs': 'take_theirs', 'Install Under Another Name': 'rename' };
    const answer = await vscode.window.showWarningMessage(
      `A skill named "${review.candidate.name}" is already installed.`,
      {
        modal: true,
        detail: `${review.existing?.dir ?? ''}${review.existing?.locked ? ' (in skills-lock.json)' : ''} has other files; the diff editor shows its SKILL.md beside the incoming one. Take Theirs replaces the installed copy.`,
      },
      ...Object.keys(choices),
    );
    return answer ? choices[answer] : undefined;
  }

  private async askNewName(review: ImportReview): Promise<string | undefined> {
    const parent = path.dirname(review.target);
    const fs = this.deps.ports().fs;
    const name = await vscode.window.showInputBox({
      title: `Install "${review.candidate.name}" under another name`,
      value: `${review.candidate.name}-2`.slice(0, 64),
      prompt: 'Lowercase letters, digits and single hyphens; the folder and the SKILL.md name get it',
      ignoreFocusOut: true,
      validateInput: async (text) => {
        const value = text.trim();
        const problem = skillNameProblem(value);
        if (problem) return problem;
        if (value === review.candidate.name) return 'That is the name it already has; choose another.';
        if (this.deps.skills.skillIndex.get(value)) return `A skill named "${value}" already exists; choose another name.`;
        if (await fs.lstat(path.join(parent, value))) return `The folder ${value} already exists; choose another name.`;
        return undefined;
      },
    });
    return name?.trim() || undefined;
  }

  private async confirm(review: ImportReview, target: Target, newName: string | undefined): Promise<boolean> {
    const dangerous = review.scan.verdict === 'dangerous';
    const findings = findingLines(review.scan);
    const shown = findings.slice(0, 8).join('\n') + (findings.length > 8 ? `\n… and ${findings.length - 8} more (see the review)` : '');
    const where = newName ? path.join(path.dirname(review.target), newName) : review.target;
    const detail = [
      `Verdict: ${verdictLine(review.scan)}`,
      shown,
      `${review.scan.files.length} file(s), to ${where}${target.lockRoot ? '; recorded in skills-lock.json' : ''}.`,
      dangerous ? 'The scanner found it dangerous. Installing it anyway is recorded in skills-lock.json and the log.' : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    const action = dangerous ? 'Install Anyway' : 'Install';
    const answer = await vscode.window.showWarningMessage(`Install the skill "${newName ?? review.candidate.name}"?`, { modal: true, detail }, action);
    return answer === action;
  }
}

function summary(outcomes: readonly ImportOutcome[]): string {
  const count = (status: ImportStatus) => outcomes.filter((o) => o.status === status).length;
  const parts = [
    count('installed') ? `${count('installed')} installed` : '',
    count('kept') ? `${count('kept')} kept as they were` : '',
    count('declined') ? `${count('declined')} not installed` : '',
    count('failed') ? `${count('failed')} failed (see the log)` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `import finished: ${parts.join(', ')}.` : 'nothing was imported.';
}
