/**
 * Checks locked skills against their sources and applies updates. Three hashes decide: the lock's
 * (what was installed), the local folder's and upstream's. A local edit is never replaced unless the
 * person chose "take theirs"; "merge" keeps both with conflict markers. Updates are scanned like imports.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { nullLogger } from '../base/logger';
import { installFiles } from './folderCopy';
import { diffFileMaps, readFolderFiles, sameBytes, textOf } from './folderDiff';
import type { ImportReview } from './importReview';
import { reviewImport } from './importReview';
import { fetchLockedSkills } from './lockedFetch';
import type { FetchPorts } from './quarantine';
import { assertInstallable } from './skillInstaller';
import type { SkillwrightLockInfo } from './skillsLock';
import { computeSkillFolderHash, hashSkillFiles, readLock, withEntry, writeLock } from './skillsLock';
import { mergeTexts } from './textMerge';

export type UpdateStatus = 'up_to_date' | 'update_available' | 'changed_locally' | 'both_changed' | 'missing' | 'error';

export interface UpdateCheck {
  readonly name: string;
  readonly status: UpdateStatus;
  readonly message?: string;
  /** The upstream copy reviewed as an import (its quarantine is gone once the check returns). */
  readonly review?: ImportReview;
  /** Local → upstream, unified. */
  readonly diff?: string;
  /** `.agents/skills/<name>` */
  readonly dir?: string;
  readonly upstreamHash?: string;
  /** The local folder's hash at check time: applyUpdate refuses when the folder changed since. */
  readonly localHash?: string;
  /** The upstream files, kept for applyUpdate. */
  readonly upstreamFiles?: ReadonlyMap<string, Uint8Array>;
}

function statusOf(lockHash: string, localHash: string | undefined, upstreamHash: string): UpdateStatus {
  const localChanged = localHash !== lockHash;
  if (upstreamHash === lockHash) return localChanged ? 'changed_locally' : 'up_to_date';
  // Both moved to the same files: nothing to merge, only the lock to bring along.
  if (!localChanged || localHash === upstreamHash) return 'update_available';
  return 'both_changed';
}

const MESSAGES: Readonly<Record<UpdateStatus, string>> = {
  up_to_date: 'up to date',
  update_available: 'an update is available',
  changed_locally: 'edited here; upstream has not changed',
  both_changed: 'edited here and changed upstream: merge, keep mine or take theirs',
  missing: 'not installed; run skillwright install',
  error: 'could not be checked',
};

export async function checkForUpdates(
  fs: FileSystemPort,
  projectRoot: string,
  ports: FetchPorts,
  options: { readonly names?: readonly string[]; readonly signal?: AbortSignal } = {},
): Promise<UpdateCheck[]> {
  const read = await readLock(fs, projectRoot);
  const checks: UpdateCheck[] = [];
  for (const name of options.names ?? []) {
    if (!read.lock.skills[name]) checks.push({ name, status: 'error', message: `${name} is not in skills-lock.json; add it with skillwright add` });
  }
  const fetched = await fetchLockedSkills(fs, projectRoot, read.lock, ports, { ...(options.names ? { names: options.names } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  try {
    for (const skill of fetched.skills) {
      if (skill.local === 'missing') {
        checks.push({ name: skill.name, status: 'missing', dir: skill.dir, message: MESSAGES.missing });
        continue;
      }
      if (skill.error || !skill.upstream) {
        checks.push({ name: skill.name, status: 'error', dir: skill.dir, message: skill.error ?? MESSAGES.error });
        continue;
      }
      const status = statusOf(skill.entry.computedHash, skill.localHash, skill.upstream.hash);
      const local = await readFolderFiles(fs, skill.dir);
      const review = await reviewImport(fs, { ...skill.upstream.candidate, name: skill.name }, {
        targetRoot: path.dirname(skill.dir),
        existingDirOf: () => Promise.resolve(skill.dir),
        isLocked: () => true,
        notes: skill.upstream.quarantine.notes,
      });
      checks.push({
        name: skill.name,
        status,
        message: MESSAGES[status],
        review,
        diff: diffFileMaps(local, skill.upstream.files),
        dir: skill.dir,
        upstreamHash: skill.upstream.hash,
        ...(skill.localHash !== undefined ? { localHash: skill.localHash } : {}),
        upstreamFiles: skill.upstream.files,
      });
    }
  } finally {
    await fetched.dispose();
  }
  return checks.sort((a, b) => a.name.localeCompare(b.name));
}

export type UpdateChoice = 'take_theirs' | 'keep_mine' | 'merge';

/** Files of both sides: a file only one side has is kept; one both changed gets conflict markers. */
export function mergeFolders(local: ReadonlyMap<string, Uint8Array>, upstream: ReadonlyMap<string, Uint8Array>): { files: Map<string, Uint8Array>; conflicted: string[] } {
  const files = new Map<string, Uint8Array>();
  const conflicted: string[] = [];
  const encoder = new TextEncoder();
  for (const name of [...new Set([...local.keys(), ...upstream.keys()])].sort()) {
    const mine = local.get(name);
    const theirs = upstream.get(name);
    if (mine === undefined || theirs === undefined || sameBytes(mine, theirs)) {
      const kept = mine ?? theirs;
      if (kept) files.set(name, kept);
      continue;
    }
    const textMine = textOf(mine);
    const textTheirs = textOf(theirs);
    conflicted.push(name);
    if (textMine === undefined || textTheirs === undefined) {
      // No markers fit in a binary file: the local one stays and the file is reported.
      files.set(name, mine);
      continue;
    }
    files.set(name, encoder.encode(mergeTexts(textMine, textTheirs).text));
  }
  return { files, conflicted };
}

/**
 * Applies a checked update. take_theirs installs upstream's files; merge writes both sides with
 * conflict markers and returns the files that have them; keep_mine changes nothing. Either way
 * that changes files, the lock then records upstream's hash, so the folder shows as edited locally
 * until the conflicts are resolved and it matches again.
 */
export async function applyUpdate(
  fs: FileSystemPort,
  projectRoot: string,
  check: UpdateCheck,
  choice: UpdateChoice,
  options: { readonly override?: 'review' | 'yes'; readonly logger?: Logger } = {},
): Promise<{ readonly conflicted: readonly string[] }> {
  const logger = options.logger ?? nullLogger;
  if (choice === 'keep_mine') return { conflicted: [] };
  const { review, upstreamFiles, upstreamHash, dir } = check;
  if (!review || !upstreamFiles || !upstreamHash || !dir) throw new Error(`${check.name}: nothing to apply (${check.message ?? check.status})`);
  assertInstallable(review, options.override);
  // The diff and the choice were made on the folder as it was then; an edit since would be lost.
  if (check.localHash === undefined || (await computeSkillFolderHash(fs, dir)) !== check.localHash) {
    throw new Error(`${check.name}: .agents/skills/${path.basename(dir)} changed since the check; check for updates again`);
  }
  const read = await readLock(fs, projectRoot);
  const entry = read.lock.skills[check.name];
  if (!entry) throw new Error(`${check.name} is no longer in skills-lock.json`);
  let conflicted: string[] = [];
  let files: ReadonlyMap<string, Uint8Array> = upstreamFiles;
  if (choice === 'merge') {
    const merged = mergeFolders(await readFolderFiles(fs, dir), upstreamFiles);
    files = merged.files;
    conflicted = merged.conflicted;
  }
  if (hashSkillFiles(files) !== hashSkillFiles(await readFolderFiles(fs, dir))) await installFiles(fs, files, dir);
  const dangerous = review.scan.verdict === 'dangerous';
  const info: SkillwrightLockInfo = {
    ...entry.skillwright,
    verdict: review.scan.verdict,
    scannerVersion: review.scan.scannerVersion,
    reviewed: true,
    override: dangerous && options.override ? { verdict: 'dangerous', by: options.override === 'yes' ? '--yes' : 'review' } : undefined,
  };
  // An override belongs to the dangerous files it let in; JSON drops the undefined.
  await writeLock(fs, projectRoot, withEntry(read.lock, check.name, { ...entry, computedHash: upstreamHash, skillwright: JSON.parse(JSON.stringify(info)) as SkillwrightLockInfo }));
  if (dangerous) logger.warn(`Updated ${check.name} although the scanner found it dangerous (override: ${options.override === 'yes' ? '--yes' : 'review'})`);
  else logger.info(`Updated ${check.name} (${choice}${conflicted.length ? `, ${conflicted.length} file(s) with conflict markers` : ''})`);
  return { conflicted };
}
