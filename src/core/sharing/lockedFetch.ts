/**
 * Fetches the sources of locked skills (each source and ref once) and finds each skill in its
 * quarantine by the lock's skillPath, or by name when there is none. Shared by restore and updates.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { describeError } from '../base/logger';
import { renamedFiles } from './folderCopy';
import { readFolderFiles } from './folderDiff';
import type { FetchPorts, Quarantine } from './quarantine';
import { fetchToQuarantine } from './quarantine';
import type { ImportCandidate } from './skillDiscovery';
import { findImportableSkills } from './skillDiscovery';
import type { SkillSource } from './skillSource';
import { sourceFromLockEntry } from './skillSource';
import type { LockEntry, LockStatusKind, SkillsLock } from './skillsLock';
import { hashSkillFiles, verifyLock } from './skillsLock';

export interface LockedUpstream {
  readonly source: SkillSource;
  readonly quarantine: Quarantine;
  readonly candidate: ImportCandidate;
  /** The files as they would be installed (renamed when the lock says so). */
  readonly files: ReadonlyMap<string, Uint8Array>;
  readonly hash: string;
}

export interface LockedSkill {
  readonly name: string;
  readonly entry: LockEntry;
  /** `.agents/skills/<name>` */
  readonly dir: string;
  readonly local: LockStatusKind;
  readonly localHash?: string;
  readonly upstream?: LockedUpstream;
  /** Why the source could not be fetched or the skill not found in it. */
  readonly error?: string;
}

/** A skillPath from a lock: relative, inside the source, naming a SKILL.md. */
export function skillPathProblem(skillPath: string): string | undefined {
  const slashed = skillPath.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) return `its skillPath "${skillPath}" is absolute`;
  if (slashed.split('/').includes('..')) return `its skillPath "${skillPath}" steps out of the source with ".."`;
  if (!/(^|\/)SKILL\.md$/i.test(slashed)) return `its skillPath "${skillPath}" does not name a SKILL.md`;
  return undefined;
}

/**
 * A lock is committed by others: a local folder or zip it names must stay inside the project also
 * after links are resolved, or a restore or an update's diff would read what a committed link points
 * to. (file:// git URLs may name any repository on the machine: a team's local mirror is one; git
 * only serves a repository's committed files, and restore installs only what hashes to the lock.)
 */
export async function lockSourceProblem(fs: FileSystemPort, projectRoot: string, source: SkillSource): Promise<string | undefined> {
  if (source.kind === 'git' || source.path === undefined) return undefined;
  const inside = (root: string, target: string): boolean => {
    const relative = path.relative(root, target);
    return !relative.startsWith('..') && !path.isAbsolute(relative);
  };
  const outside = `its source "${source.source}" is outside the project; a shared lock may only name folders and files inside it. Restore it by hand or re-add it from inside the project`;
  if (!inside(projectRoot, path.resolve(source.path))) return outside;
  if (!inside(await fs.realPath(projectRoot), await realPathOfNearest(fs, path.resolve(source.path)))) return `${outside} (it is reached through a link that leads out)`;
  return undefined;
}

/** The real path of `target`, or of its nearest existing parent with the rest appended (a missing file behind a link still counts as behind it). */
async function realPathOfNearest(fs: FileSystemPort, target: string): Promise<string> {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    const real = await fs.realPath(current).catch(() => undefined);
    if (real !== undefined) return path.join(real, ...rest.reverse());
    const parent = path.dirname(current);
    if (parent === current) return target;
    rest.push(path.basename(current));
    current = parent;
  }
}

async function locate(fs: FileSystemPort, quarantine: Quarantine, name: string, entry: LockEntry): Promise<ImportCandidate | string> {
  const wanted = entry.skillwright?.renamedFrom ?? name;
  if (typeof entry.skillPath === 'string' && entry.skillPath !== '') {
    const problem = skillPathProblem(entry.skillPath);
    if (problem) return problem;
    const dir = path.resolve(quarantine.base, ...path.posix.dirname(entry.skillPath.replace(/\\/g, '/')).split('/'));
    const relative = path.relative(quarantine.base, dir);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return `its skillPath "${entry.skillPath}" is outside the source`;
    const found = await findImportableSkills(fs, dir, quarantine.base);
    const own = found.length === 1 && found[0]?.dir === dir ? found[0] : undefined;
    return own ?? `the source has no ${entry.skillPath} any more`;
  }
  const found = await findImportableSkills(fs, quarantine.root, quarantine.base);
  return found.find((candidate) => candidate.name === wanted || candidate.declaredName === wanted) ?? `the source has no skill named ${wanted}`;
}

/**
 * The locked skills (all, or `names`), each with its local state and, unless `onlyMissing` leaves it
 * out, its upstream copy. Call dispose() when done with the quarantines.
 */
export async function fetchLockedSkills(
  fs: FileSystemPort,
  projectRoot: string,
  lock: SkillsLock,
  ports: FetchPorts,
  options: { readonly names?: readonly string[]; readonly onlyMissing?: boolean; readonly signal?: AbortSignal } = {},
): Promise<{ readonly skills: LockedSkill[]; dispose(): Promise<void> }> {
  const statuses = (await verifyLock(fs, projectRoot, lock)).filter((status) => !options.names || options.names.includes(status.name));
  const fetched = new Map<string, Promise<{ source: SkillSource; quarantine: Quarantine } | { error: string }>>();
  const skills: LockedSkill[] = [];
  const dispose = async (): Promise<void> => {
    for (const pending of fetched.values()) {
      const got = await pending;
      if (!('error' in got)) await got.quarantine.dispose();
    }
  };
  // A throw part-way (an unreadable file, a vanished folder) must not leave the quarantines behind.
  try {
    for (const status of statuses) {
      const entry = lock.skills[status.name];
      if (!entry) continue;
      const base = { name: status.name, entry, dir: status.dir, local: status.status, ...(status.actual ? { localHash: status.actual } : {}) };
      if (status.status === 'invalid') {
        skills.push({ ...base, error: status.problem ?? 'its name cannot be a folder name' });
        continue;
      }
      if (options.onlyMissing && status.status !== 'missing') {
        skills.push(base);
        continue;
      }
      const source = sourceFromLockEntry(entry, projectRoot);
      if ('error' in source) {
        skills.push({ ...base, error: source.error });
        continue;
      }
      const sourceProblem = await lockSourceProblem(fs, projectRoot, source);
      if (sourceProblem) {
        skills.push({ ...base, error: sourceProblem });
        continue;
      }
      const key = JSON.stringify([source.kind, source.url ?? source.path, source.ref ?? '']);
      let pending = fetched.get(key);
      if (!pending) {
        pending = fetchToQuarantine(source, ports, options.signal).then(
          (quarantine) => ({ source, quarantine }),
          (error: unknown) => ({ error: `could not fetch ${source.source}${source.ref ? ` at ${source.ref}` : ''}: ${describeError(error)}` }),
        );
        fetched.set(key, pending);
      }
      const got = await pending;
      if ('error' in got) {
        skills.push({ ...base, error: got.error });
        continue;
      }
      const candidate = await locate(fs, got.quarantine, status.name, entry);
      if (typeof candidate === 'string') {
        skills.push({ ...base, error: candidate });
        continue;
      }
      let files: ReadonlyMap<string, Uint8Array> = await readFolderFiles(fs, candidate.dir);
      if (entry.skillwright?.renamedFrom) files = renamedFiles(files, status.name);
      skills.push({ ...base, upstream: { source: got.source, quarantine: got.quarantine, candidate, files, hash: hashSkillFiles(files) } });
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return { skills, dispose };
}
