/**
 * `skills-lock.json`: the project's record of skills that came from elsewhere. Same file, fields
 * and folder hash as the ecosystem's `skills` command line tool, so a lock written by either tool
 * verifies in the other (algorithm in docs/decisions.md, "skills-lock.json"). Our own fields sit
 * in a nested `skillwright` object, which that tool carries along and never reads.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';

export const LOCK_FILE = 'skills-lock.json';
export const LOCK_VERSION = 1;

export type ScanVerdict = 'safe' | 'caution' | 'dangerous';

/** What Skillwright adds to an entry: how it was reviewed when it was installed. */
export interface SkillwrightLockInfo {
  readonly verdict?: ScanVerdict;
  readonly scannerVersion?: string;
  /** Set when a person installed a skill the scanner called dangerous; `by` is how (`review`, `--yes`). */
  readonly override?: { readonly verdict: ScanVerdict; readonly by: string };
  /** True once a person saw the review (files, findings, verdict) and confirmed the install. */
  readonly reviewed?: boolean;
  /** The name the source gives the skill, when it was installed under another one. */
  readonly renamedFrom?: string;
}

export interface LockEntry {
  /** `owner/repo`, a git URL, or a path (relative to the project for local sources). */
  readonly source: string;
  readonly sourceType: string;
  readonly ref?: string;
  readonly sourceUrl?: string;
  /** The SKILL.md's path inside the source, `/`-separated. */
  readonly skillPath?: string;
  readonly computedHash: string;
  readonly skillwright?: SkillwrightLockInfo;
  /** Fields another tool wrote are kept as they are. */
  readonly [field: string]: unknown;
}

export interface SkillsLock {
  readonly version: number;
  readonly skills: Readonly<Record<string, LockEntry>>;
}

export interface LockRead {
  readonly lock: SkillsLock;
  readonly exists: boolean;
  /** What was wrong with the file; a broken file reads as an empty lock plus a problem. */
  readonly problems: readonly string[];
}

export const EMPTY_LOCK: SkillsLock = { version: LOCK_VERSION, skills: {} };

/**
 * Why a lock key cannot name a folder under `.agents/skills`, or undefined. A lock arrives with a
 * repository, so a key like `../../x` or `/etc` must never become a path.
 */
export function lockNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > 255) return `the name is ${name.length} characters long (limit 255)`;
  if (/[/\\:\u0000-\u001f]/.test(name)) return 'the name contains a path separator, a colon or a control character';
  if (name === '.' || name === '..' || /^\.+$/.test(name)) return 'the name is only dots';
  if (/^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i.test(name)) return 'the name is reserved on Windows';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a lock's text; entries without a source or hash are dropped with a problem each. */
export function parseLock(text: string): { lock: SkillsLock; problems: string[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { lock: EMPTY_LOCK, problems: [`${LOCK_FILE} is not valid JSON (${(error as Error).message}); fix or delete it`] };
  }
  if (!isRecord(data) || typeof data.version !== 'number' || !isRecord(data.skills)) {
    return { lock: EMPTY_LOCK, problems: [`${LOCK_FILE} needs {"version": 1, "skills": {…}}`] };
  }
  if (data.version > LOCK_VERSION) {
    return { lock: EMPTY_LOCK, problems: [`${LOCK_FILE} is version ${data.version}; this Skillwright reads version ${LOCK_VERSION}. Update Skillwright`] };
  }
  const skills: Record<string, LockEntry> = {};
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(data.skills)) {
    const unsafe = lockNameProblem(name);
    if (unsafe) {
      problems.push(`${LOCK_FILE}: the entry ${JSON.stringify(name.length > 80 ? `${name.slice(0, 77)}...` : name)} is ignored: ${unsafe}`);
      continue;
    }
    if (!isRecord(entry) || typeof entry.source !== 'string' || typeof entry.computedHash !== 'string' || typeof entry.sourceType !== 'string') {
      problems.push(`${LOCK_FILE}: the entry "${name}" needs "source", "sourceType" and "computedHash"; it is ignored`);
      continue;
    }
    skills[name] = entry as LockEntry;
  }
  return { lock: { version: LOCK_VERSION, skills }, problems };
}

/** Keys sorted and no timestamps, so two branches that each add a skill merge without conflict. */
export function serializeLock(lock: SkillsLock): string {
  const skills: Record<string, LockEntry> = {};
  for (const name of Object.keys(lock.skills).sort()) {
    const entry = lock.skills[name];
    if (entry) skills[name] = entry;
  }
  return `${JSON.stringify({ version: lock.version, skills }, null, 2)}\n`;
}

export async function readLock(fs: FileSystemPort, projectRoot: string): Promise<LockRead> {
  const file = path.join(projectRoot, LOCK_FILE);
  const stat = await fs.stat(file);
  if (!stat) return { lock: EMPTY_LOCK, exists: false, problems: [] };
  if (stat.type !== 'file') return { lock: EMPTY_LOCK, exists: true, problems: [`${LOCK_FILE} is not a file`] };
  const text = new TextDecoder('utf-8').decode(await fs.readFile(file));
  return { ...parseLock(text), exists: true };
}

export async function writeLock(fs: FileSystemPort, projectRoot: string, lock: SkillsLock): Promise<void> {
  await fs.writeFileAtomic(path.join(projectRoot, LOCK_FILE), serializeLock(lock));
}

export function withEntry(lock: SkillsLock, name: string, entry: LockEntry): SkillsLock {
  return { version: lock.version, skills: { ...lock.skills, [name]: entry } };
}

export function withoutEntry(lock: SkillsLock, name: string): SkillsLock {
  const skills = { ...lock.skills };
  delete skills[name];
  return { version: lock.version, skills };
}

interface HashedFile {
  readonly relativePath: string;
  readonly content: Uint8Array;
}

async function collectFiles(fs: FileSystemPort, base: string, dir: string, into: HashedFile[]): Promise<void> {
  for (const entry of await fs.readDirectory(dir)) {
    const full = path.join(dir, entry.name);
    // As the other tool does: regular files only (symlinks are not followed), no .git or node_modules.
    if (entry.type === 'directory') {
      if (entry.name !== '.git' && entry.name !== 'node_modules') await collectFiles(fs, base, full, into);
    } else if (entry.type === 'file') {
      into.push({ relativePath: path.relative(base, full).split(path.sep).join('/'), content: await fs.readFile(full) });
    }
  }
}

/**
 * The folder hash both tools write as `computedHash`: SHA-256 over each regular file's path
 * (relative, `/`-separated) followed by its bytes, files in `localeCompare` order of their paths.
 */
export async function computeSkillFolderHash(fs: FileSystemPort, dir: string): Promise<string> {
  const files: HashedFile[] = [];
  await collectFiles(fs, dir, dir, files);
  return hashSkillFiles(files.map((file) => [file.relativePath, file.content]));
}

/** The same hash over files held in memory (relative `/`-path and bytes), e.g. a copy about to be installed. */
export function hashSkillFiles(files: Iterable<readonly [string, Uint8Array]>): string {
  const sorted = [...files].sort((a, b) => a[0].localeCompare(b[0]));
  const hash = createHash('sha256');
  for (const [relativePath, content] of sorted) {
    hash.update(relativePath);
    hash.update(content);
  }
  return hash.digest('hex');
}

const quoteName = (name: string): string => JSON.stringify(name.length > 80 ? `${name.slice(0, 77)}...` : name);

/** Where the other tool (and we) install a locked project skill: `.agents/skills/<name>`. Throws for a name that is a path (see lockNameProblem). */
export function lockedSkillDir(projectRoot: string, name: string): string {
  const problem = lockNameProblem(name);
  if (problem) throw new Error(`${LOCK_FILE}: the entry ${quoteName(name)} cannot be a folder of .agents/skills: ${problem}; fix its name in ${LOCK_FILE}`);
  return path.join(projectRoot, '.agents', 'skills', name);
}

/**
 * `invalid`: nothing was read for the entry: its name is a path (see lockNameProblem), or its folder
 * is reached through a link that leads out of the project (`problem` says which).
 */
export type LockStatusKind = 'ok' | 'changed' | 'missing' | 'invalid';

export interface LockStatus {
  readonly name: string;
  readonly dir: string;
  readonly status: LockStatusKind;
  readonly expected: string;
  /** The hash found on disk (absent when missing). */
  readonly actual?: string;
  /** Why an `invalid` entry was not checked. */
  readonly problem?: string;
}

/** The first link on the way from `root` to `dir` when `dir` then resolves outside `root` (a committed link must not lead reads out). */
async function linkOutOfRoot(fs: FileSystemPort, root: string, dir: string): Promise<string | undefined> {
  const relative = path.relative(root, dir);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  let current = root;
  for (const segment of relative.split(path.sep)) {
    current = path.join(current, segment);
    const stat = await fs.lstat(current);
    if (!stat) return undefined;
    if (stat.type !== 'symlink') continue;
    const [realRoot, realDir] = await Promise.all([fs.realPath(root), fs.realPath(dir).catch(() => undefined)]);
    const inside = realDir !== undefined && !path.relative(realRoot, realDir).startsWith('..') && !path.isAbsolute(path.relative(realRoot, realDir));
    return inside ? undefined : path.relative(root, current).split(path.sep).join('/');
  }
  return undefined;
}

/** Checks every locked skill against its hash. `dirOf` finds a skill's folder (default: `.agents/skills/<name>`). */
export async function verifyLock(
  fs: FileSystemPort,
  projectRoot: string,
  lock: SkillsLock,
  dirOf: (name: string) => string = (name) => lockedSkillDir(projectRoot, name),
): Promise<LockStatus[]> {
  const statuses: LockStatus[] = [];
  for (const name of Object.keys(lock.skills).sort()) {
    const entry = lock.skills[name];
    if (!entry) continue;
    const problem = lockNameProblem(name);
    if (problem) {
      // Not read at all: a name like `../x` must not lead the hash outside `.agents/skills`.
      statuses.push({ name, dir: '', status: 'invalid', expected: entry.computedHash, problem: `${LOCK_FILE}: the entry ${quoteName(name)} is not checked: ${problem}; fix its name in ${LOCK_FILE}` });
      continue;
    }
    const dir = dirOf(name);
    const linkOut = await linkOutOfRoot(fs, projectRoot, dir);
    if (linkOut) {
      statuses.push({ name, dir, status: 'invalid', expected: entry.computedHash, problem: `${LOCK_FILE}: the entry ${quoteName(name)} is not checked: ${linkOut} leads out of the project; replace the link with the skill's folder (or remove it) and run skillwright install` });
      continue;
    }
    const stat = await fs.stat(path.join(dir, 'SKILL.md'));
    if (stat?.type !== 'file') {
      statuses.push({ name, dir, status: 'missing', expected: entry.computedHash });
      continue;
    }
    const actual = await computeSkillFolderHash(fs, dir);
    statuses.push({ name, dir, status: actual === entry.computedHash ? 'ok' : 'changed', expected: entry.computedHash, actual });
  }
  return statuses;
}
