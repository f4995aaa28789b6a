/**
 * Copy or Move to .agents/skills: brings a skill found in another tool's folder (~/.claude/skills,
 * .github/skills, …) into the project's own folder, where Skillwright, the ecosystem's `skills`
 * tool and the lock expect it.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { assertPlainPath } from './folderCopy';
import { readLock, withEntry, withoutEntry, writeLock } from './skillsLock';
import type { LockEntry } from './skillsLock';

export interface RelocateOptions {
  /** Remove the original once the copy is complete. */
  readonly move: boolean;
  /** A project root whose skills-lock.json may list the skill; its entry follows the skill. */
  readonly lockFrom?: string;
  /** The folder name in .agents/skills (default: the original folder's name). */
  readonly name?: string;
}

export interface RelocateResult {
  readonly dir: string;
  /** The lock entry written to the project's lock, when the skill had one. */
  readonly lockEntry?: LockEntry;
  /** Paths inside the skill (`/`-separated) that were left behind: links out of it, or to folders. */
  readonly skipped: readonly string[];
  /**
   * Set when a move fell back to copying and the copy is not the whole folder (links out of it,
   * .git or node_modules stayed behind): the original was kept, and this says why.
   */
  readonly kept?: string;
}

/** Version control and package caches stay behind (the lock's hash leaves them out too). */
const LEFT_OUT = new Set(['.git', 'node_modules']);
const MAX_FILES = 2_000;

function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Copies (or moves) `fromDir` to `<projectRoot>/.agents/skills/<name>`. Never writes over an
 * existing folder; links inside the skill that lead out of it are not followed. When `fromDir` is
 * itself a link (as the `skills` tool makes for other agents), a move copies what it points to
 * and removes only the link.
 */
export async function relocateSkill(fs: FileSystemPort, fromDir: string, projectRoot: string, options: RelocateOptions): Promise<RelocateResult> {
  const name = options.name ?? path.basename(fromDir);
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || name.length > 64) {
    throw new Error(`"${name}" cannot be a folder in .agents/skills: use lowercase letters, digits and single hyphens (at most 64).`);
  }
  const skillsDir = path.join(projectRoot, '.agents', 'skills');
  const target = path.join(skillsDir, name);
  const link = await fs.lstat(fromDir);
  const source = await fs.stat(fromDir);
  if (source?.type !== 'directory' || (await fs.stat(path.join(fromDir, 'SKILL.md')))?.type !== 'file') {
    throw new Error(`${fromDir} is not a skill folder (no SKILL.md in it); nothing was copied.`);
  }
  const realFrom = await fs.realPath(fromDir);
  const realSkills = await fs.realPath(skillsDir).catch(() => skillsDir);
  if (inside(realSkills, realFrom)) {
    throw new Error(`${fromDir} already is in the project's .agents/skills${realFrom !== fromDir ? ` (it links to ${realFrom})` : ''}; nothing to do.`);
  }
  if (inside(realFrom, realSkills)) throw new Error(`The project's .agents/skills lies inside ${fromDir}; move it by hand.`);
  if (await fs.lstat(target)) throw new Error(`.agents/skills/${name} already exists; rename or remove it first, then try again.`);
  // A committed .agents or .agents/skills link could lead the copy out of the project.
  await assertPlainPath(fs, projectRoot, target);

  const lockFrom = options.lockFrom ? await readLock(fs, options.lockFrom) : undefined;
  const entryName = [name, path.basename(fromDir)].find((key) => lockFrom?.lock.skills[key] !== undefined);
  const entry = entryName !== undefined ? lockFrom?.lock.skills[entryName] : undefined;

  let skipped: string[] = [];
  let kept: string | undefined;
  // A rename keeps everything as it was (permissions too), but would carry links along as links.
  const renamed = options.move && link?.type !== 'symlink' && !(await hasLinks(fs, fromDir)) && (await tryRename(fs, fromDir, target));
  if (!renamed) {
    const copied = await copyTree(fs, realFrom, target);
    skipped = copied.skipped;
    if (options.move) {
      // Removing a link loses nothing; removing the folder would lose what the copy left out.
      const lost = [...copied.skipped, ...copied.leftOut];
      if (link?.type === 'symlink' || lost.length === 0) await fs.remove(fromDir);
      else kept = `the copy leaves out ${lost.join(', ')}`;
    }
  }
  const moved = options.move && kept === undefined;
  const done = { dir: target, skipped, ...(kept !== undefined ? { kept } : {}) };

  if (!entry || !lockFrom || !options.lockFrom || entryName === undefined) return done;
  const sameLock = path.resolve(options.lockFrom) === path.resolve(projectRoot);
  if (sameLock) {
    if (entryName !== name) await writeLock(fs, projectRoot, withEntry(moved ? withoutEntry(lockFrom.lock, entryName) : lockFrom.lock, name, entry));
  } else {
    await writeLock(fs, projectRoot, withEntry((await readLock(fs, projectRoot)).lock, name, entry));
    if (moved) await writeLock(fs, options.lockFrom, withoutEntry(lockFrom.lock, entryName));
  }
  return { ...done, lockEntry: entry };
}

async function hasLinks(fs: FileSystemPort, dir: string): Promise<boolean> {
  for (const entry of await fs.readDirectory(dir)) {
    if (entry.type === 'symlink') return true;
    if (entry.type === 'directory' && (await hasLinks(fs, path.join(dir, entry.name)))) return true;
  }
  return false;
}

async function tryRename(fs: FileSystemPort, from: string, to: string): Promise<boolean> {
  try {
    await fs.mkdir(path.dirname(to));
    await fs.rename(from, to);
    return true;
  } catch {
    // Another device (EXDEV) or a locked file: copy, then remove.
    return false;
  }
}

/**
 * Copies regular files; a link is followed only to a file inside the skill. Returns the links left
 * behind and the .git/node_modules folders left out.
 */
async function copyTree(fs: FileSystemPort, from: string, to: string): Promise<{ readonly skipped: string[]; readonly leftOut: string[] }> {
  const skipped: string[] = [];
  const leftOut: string[] = [];
  const files: { readonly from: string; readonly rel: string }[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await fs.readDirectory(dir)) {
      const full = path.join(dir, entry.name);
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.type === 'directory') {
        if (!LEFT_OUT.has(entry.name)) await walk(full, rel);
        else leftOut.push(rel);
      } else if (entry.type === 'file') {
        files.push({ from: full, rel });
      } else if (entry.type === 'symlink') {
        const real = await fs.realPath(full).catch(() => undefined);
        const stat = real ? await fs.stat(real) : undefined;
        if (real && inside(from, real) && stat?.type === 'file') files.push({ from: real, rel });
        else skipped.push(rel);
      }
      if (files.length > MAX_FILES) throw new Error(`${from} holds more than ${MAX_FILES} files; that is not a skill to copy. Nothing was copied.`);
    }
  };
  await walk(from, '');
  await fs.mkdir(to);
  try {
    for (const file of files) await fs.writeFileAtomic(path.join(to, ...file.rel.split('/')), await fs.readFile(file.from));
  } catch (error) {
    await fs.remove(to).catch(() => undefined);
    throw error;
  }
  return { skipped, leftOut };
}
