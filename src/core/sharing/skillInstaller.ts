/**
 * Installs a reviewed skill from quarantine, records it in skills-lock.json the way the ecosystem's
 * `skills` tool does (plus our `skillwright` object), and restores every locked skill for a teammate.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { nullLogger } from '../base/logger';
import { skillNameProblem } from '../skills/model/skillPaths';
import { assertPlainPath, installFiles, renamedFiles } from './folderCopy';
import { readFolderFiles } from './folderDiff';
import type { ImportReview } from './importReview';
import type { FetchPorts } from './quarantine';
import type { SkillSource } from './skillSource';
import { portablePath } from './skillSource';
import type { LockEntry, SkillwrightLockInfo } from './skillsLock';
import { hashSkillFiles, lockedSkillDir, readLock, withEntry, writeLock } from './skillsLock';
import { fetchLockedSkills } from './lockedFetch';
import { scanSkillFolder } from '../security/skillScan';

export type CollisionChoice = 'keep_mine' | 'take_theirs' | 'rename';

export interface InstallOptions {
  readonly source: SkillSource;
  readonly commit?: string;
  readonly collision?: CollisionChoice;
  readonly newName?: string;
  /** Required to install a dangerous verdict; recorded in the lock and the log. */
  readonly override?: 'review' | 'yes';
  /** Project root: the lock is updated there; absent for user-scope installs. */
  readonly lockRoot?: string;
  /** False when nobody saw the review (default true: installs follow a confirmation). */
  readonly reviewed?: boolean;
  readonly logger?: Logger;
}

export interface InstallResult {
  readonly name: string;
  readonly installedDir?: string;
  readonly lockEntry?: LockEntry;
  readonly skipped?: string;
}

export class DangerousSkillError extends Error {}
export class SkillCollisionError extends Error {}

function scanInfo(review: ImportReview, options: { readonly override?: 'review' | 'yes'; readonly reviewed?: boolean; readonly renamedFrom?: string }): SkillwrightLockInfo {
  const dangerous = review.scan.verdict === 'dangerous';
  return {
    verdict: review.scan.verdict,
    scannerVersion: review.scan.scannerVersion,
    reviewed: options.reviewed ?? true,
    ...(dangerous && options.override ? { override: { verdict: 'dangerous', by: options.override === 'yes' ? '--yes' : 'review' } } : {}),
    ...(options.renamedFrom ? { renamedFrom: options.renamedFrom } : {}),
  };
}

/** The entry the other tool writes for this kind of source (same fields, same order), plus ours. */
export function lockEntryFor(source: SkillSource, skillPath: string, computedHash: string, lockRoot: string, info: SkillwrightLockInfo): LockEntry {
  const ref = source.ref ? { ref: source.ref } : {};
  switch (source.sourceType) {
    case 'github':
      return { source: source.source, ...ref, sourceType: 'github', skillPath, computedHash, skillwright: info };
    case 'local':
      // The other tool records a local source without skillPath and finds the skill by name.
      return { source: portablePath(lockRoot, source.path ?? source.source), sourceType: 'local', computedHash, skillwright: info };
    case 'zip':
      return { source: portablePath(lockRoot, source.path ?? source.source), sourceType: 'zip', skillPath, computedHash, skillwright: info };
    default:
      return { source: source.source, ...(source.url ? { sourceUrl: source.url } : {}), ...ref, sourceType: source.sourceType, skillPath, computedHash, skillwright: info };
  }
}

/** Refuses a dangerous verdict without an override, with what to do about it. */
export function assertInstallable(review: ImportReview, override: 'review' | 'yes' | undefined): void {
  if (review.scan.verdict !== 'dangerous' || override) return;
  const worst = review.scan.findings.filter((finding) => finding.severity === 'critical').slice(0, 3);
  const listed = worst.map((finding) => `${finding.id}${finding.file ? ` in ${finding.file}${finding.line ? `:${finding.line}` : ''}` : ''}: ${finding.message}`).join('; ');
  throw new DangerousSkillError(
    `The scanner found "${review.candidate.name}" dangerous (${listed || 'critical findings'}). Nothing was installed. ` +
      'Read the findings; to install it anyway confirm the override in the review (CLI: --yes --allow-dangerous), which is recorded in skills-lock.json.',
  );
}

export async function installSkill(fs: FileSystemPort, review: ImportReview, options: InstallOptions): Promise<InstallResult> {
  const logger = options.logger ?? nullLogger;
  assertInstallable(review, options.override);
  const original = review.candidate.name;
  let name = original;
  let target = review.target;
  const existing = review.existing;
  if (existing && !existing.sameContent) {
    if (options.collision === undefined) {
      throw new SkillCollisionError(`A skill named "${original}" is already installed at ${existing.dir} with other files. Choose: keep mine, take theirs, or install under another name.`);
    }
    if (options.collision === 'keep_mine') return { name, skipped: `kept the installed ${original} at ${existing.dir}` };
  }
  if (options.collision === 'rename') {
    const newName = options.newName ?? '';
    const problem = skillNameProblem(newName);
    if (problem) throw new Error(`Cannot install under another name: ${problem}`);
    if (newName === original) throw new Error(`Cannot install under another name: "${newName}" is the name it already has`);
    name = newName;
    target = path.join(path.dirname(review.target), newName);
    if (await fs.lstat(target)) throw new SkillCollisionError(`A skill named "${newName}" is already installed at ${target}; pick another name`);
  }
  if (options.lockRoot !== undefined && path.resolve(target) !== path.resolve(lockedSkillDir(options.lockRoot, name))) {
    throw new Error(`Skills in skills-lock.json are installed at .agents/skills/<name>; ${target} is elsewhere`);
  }
  await assertPlainPath(fs, options.lockRoot ?? path.dirname(path.dirname(target)), target);

  let files = await readFolderFiles(fs, review.candidate.dir);
  // The scan and the person's choice were about the reviewed files; anything else is not installed.
  if (hashSkillFiles(files) !== review.computedHash) {
    throw new Error(`${original}: the files changed since the review; import again`);
  }
  if (name !== original) files = renamedFiles(files, name);
  const computedHash = hashSkillFiles(files);
  await installFiles(fs, files, target);

  let lockEntry: LockEntry | undefined;
  if (options.lockRoot !== undefined) {
    const info = scanInfo(review, { ...(options.override ? { override: options.override } : {}), reviewed: options.reviewed ?? true, ...(name !== original ? { renamedFrom: original } : {}) });
    lockEntry = lockEntryFor(options.source, review.candidate.skillPath, computedHash, options.lockRoot, info);
    const { lock } = await readLock(fs, options.lockRoot);
    await writeLock(fs, options.lockRoot, withEntry(lock, name, lockEntry));
  }
  if (review.scan.verdict === 'dangerous') {
    logger.warn(`Installed ${name} from ${options.source.source} although the scanner found it dangerous (override: ${options.override === 'yes' ? '--yes' : 'review'}; ${review.scan.findings.length} findings)`);
  } else {
    logger.info(`Installed ${name} from ${options.source.source} into ${target} (verdict ${review.scan.verdict})`);
  }
  return { name, installedDir: target, ...(lockEntry ? { lockEntry } : {}) };
}

export type RestoreStatus = 'ok' | 'restored' | 'changed' | 'missing' | 'mismatch' | 'refused' | 'error';

export interface RestoreResult {
  readonly name: string;
  readonly status: RestoreStatus;
  /** Where the skill is (or would be) installed. */
  readonly dir?: string;
  readonly message?: string;
}

/** True when a result means the project does not match its lock (`install --frozen` fails on these). */
export function restoreFailed(result: RestoreResult, frozen: boolean): boolean {
  return result.status === 'mismatch' || result.status === 'refused' || result.status === 'error' || result.status === 'missing' || (frozen && result.status === 'changed');
}

/**
 * Installs every locked skill that is missing, from its source at its ref, and only when the fetched
 * files hash to the lock's computedHash and the scan passes (a dangerous verdict needs the override
 * the lock records). `frozen` changes nothing unless every locked skill matches.
 */
export async function restoreFromLock(
  fs: FileSystemPort,
  projectRoot: string,
  ports: FetchPorts,
  options: { readonly frozen: boolean; readonly logger?: Logger; readonly signal?: AbortSignal },
): Promise<RestoreResult[]> {
  const logger = options.logger ?? nullLogger;
  const read = await readLock(fs, projectRoot);
  const results: RestoreResult[] = read.problems.map((problem) => ({ name: 'skills-lock.json', status: 'error' as const, message: problem }));
  if (!read.exists) return results;
  const fetched = await fetchLockedSkills(fs, projectRoot, read.lock, ports, { onlyMissing: true, ...(options.signal ? { signal: options.signal } : {}) });
  try {
    const ready: { name: string; dir: string; files: ReadonlyMap<string, Uint8Array>; source: string }[] = [];
    for (const skill of fetched.skills) {
      const at = { name: skill.name, dir: skill.dir };
      if (skill.local === 'ok') results.push({ ...at, status: 'ok' });
      else if (skill.local === 'changed') results.push({ ...at, status: 'changed', message: 'its files differ from skills-lock.json (edited here?); see them with skillwright update --check' });
      else if (skill.error || !skill.upstream) results.push({ ...at, status: 'error', message: skill.error ?? 'not fetched' });
      else if (skill.upstream.hash !== skill.entry.computedHash) {
        results.push({ ...at, status: 'mismatch', message: `the source's files hash to ${skill.upstream.hash.slice(0, 12)}…, the lock says ${skill.entry.computedHash.slice(0, 12)}…; the source changed at its ref. Review it with skillwright update ${skill.name} --check` });
      } else {
        const scan = await scanSkillFolder(fs, skill.upstream.candidate.dir);
        // The lock is hand-editable: only an override of the shape Skillwright writes counts.
        const override: unknown = skill.entry.skillwright?.override;
        const overridden = typeof override === 'object' && override !== null && (override as { verdict?: unknown }).verdict === 'dangerous' && typeof (override as { by?: unknown }).by === 'string';
        if (scan.verdict === 'dangerous' && !overridden) {
          results.push({ ...at, status: 'refused', message: 'the scanner finds it dangerous and the lock records no override (skillwright.override must be {"verdict": "dangerous", "by": "…"}); install it with skillwright add after reviewing it' });
        } else {
          if (scan.verdict === 'dangerous') logger.warn(`Restoring ${skill.name} although the scanner finds it dangerous: skills-lock.json records an override by ${String((override as { by: string }).by)}`);
          ready.push({ ...at, files: skill.upstream.files, source: skill.entry.source });
        }
      }
    }
    const blocked = options.frozen && results.some((result) => restoreFailed(result, true));
    for (const item of ready) {
      if (blocked) {
        results.push({ name: item.name, dir: item.dir, status: 'missing', message: 'not restored: --frozen installs nothing while a locked skill does not match' });
        continue;
      }
      await assertPlainPath(fs, projectRoot, item.dir);
      await installFiles(fs, item.files, item.dir);
      logger.info(`Restored ${item.name} from ${item.source} into ${item.dir}`);
      results.push({ name: item.name, dir: item.dir, status: 'restored' });
    }
  } finally {
    await fetched.dispose();
  }
  return results.sort((a, b) => a.name.localeCompare(b.name));
}
