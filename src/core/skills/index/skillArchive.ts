import * as path from 'node:path';
import type { FileSystemPort } from '../../base/fileSystemPort';
import { describeError } from '../../base/logger';
import type { SkillRoot } from '../../base/skillRoots';
import { clipLine } from '../../text/clip';
import { readSkillHeader } from '../model/skillHeader';
import { SKILL_FILE, SUPPORT_FOLDERS } from '../model/skillTypes';

/**
 * The folder of each skill root that holds archived skills: `<root>/.archive/<category>/<name>`.
 * It lives beside the skills (a project's archive travels with the repository, a user's stays in
 * their home) rather than in the extension's storage, which VS Code removes with the extension.
 * The index never walks it (skillWalker's SKIPPED_FOLDERS).
 */
export const ARCHIVE_FOLDER = '.archive';
/** Archived skills listed per root, at most: an archive is a side room, not a second index. */
const MAX_LISTED_PER_ROOT = 500;
/** Category depth below the archive folder that is searched for archived skills. */
const MAX_DEPTH = 4;
const SUPPORT: ReadonlySet<string> = new Set(SUPPORT_FOLDERS);

export type ArchiveResult = { readonly ok: true; readonly from: string; readonly to: string } | { readonly ok: false; readonly error: string };

export interface ArchivedSkill {
  /** The name in its SKILL.md, or the folder name. */
  readonly name: string;
  readonly description: string;
  readonly version?: string;
  /** The archived folder (what `restoreSkill` takes). */
  readonly dir: string;
  readonly root: SkillRoot;
  /** Where a restore puts it back. */
  readonly restoreTo: string;
  /** The category it is restored to, `/`-separated; `''` at the top level. */
  readonly category: string;
}

function archiveDir(root: SkillRoot): string {
  return path.join(root.path, ARCHIVE_FOLDER);
}

/** Path below `parent`, or undefined when `child` is `parent` itself or outside it. */
function relativeInside(parent: string, child: string): string | undefined {
  const relative = path.relative(parent, child);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return relative;
}

function shown(root: SkillRoot, dir: string): string {
  const relative = path.relative(root.path, dir).split(path.sep).join('/');
  return `${root.label}/${relative}`;
}

/** Moves `target` only when nothing is there; creates the folders above it. */
async function moveWithoutOverwrite(fs: FileSystemPort, from: string, to: string, what: string): Promise<string | undefined> {
  if ((await fs.lstat(to)) !== undefined) return `${what}: ${to} already exists. Move or rename that folder first; nothing was overwritten.`;
  try {
    await fs.mkdir(path.dirname(to));
    await fs.rename(from, to);
  } catch (error) {
    return `${what}: the folder could not be moved (${describeError(error)}); it is unchanged.`;
  }
  return undefined;
}

/**
 * Moves the skill folder `dir` of `root` into the root's archive, keeping its category path.
 * Refuses a folder outside the root, the root itself, a folder already in the archive, and an
 * archive that already holds that path. Nothing is ever deleted.
 */
export async function archiveSkill(fs: FileSystemPort, root: SkillRoot, dir: string): Promise<ArchiveResult> {
  const source = path.resolve(dir);
  const relative = relativeInside(root.path, source);
  if (relative === undefined) return { ok: false, error: `Cannot archive ${dir}: it is not a skill folder inside ${root.label}.` };
  if (relative.split(path.sep)[0] === ARCHIVE_FOLDER) return { ok: false, error: `${shown(root, source)} is archived already; restore it from the Skills tab.` };
  const stat = await fs.stat(source);
  if (stat?.type !== 'directory' || (await fs.stat(path.join(source, SKILL_FILE)))?.type !== 'file') {
    return { ok: false, error: `Cannot archive ${shown(root, source)}: it is not a folder with a ${SKILL_FILE} (it may have been moved or deleted).` };
  }
  const target = path.join(archiveDir(root), relative);
  const problem = await moveWithoutOverwrite(fs, source, target, `Cannot archive ${shown(root, source)}`);
  return problem ? { ok: false, error: problem } : { ok: true, from: source, to: target };
}

/**
 * Moves an archived skill folder back to where it was archived from. `archived` comes from a
 * person or a webview, so it must name a folder strictly inside a root's archive (no `..`, no
 * other place); a skill already at the original place is never overwritten.
 */
export async function restoreSkill(fs: FileSystemPort, roots: readonly SkillRoot[], archived: string): Promise<ArchiveResult> {
  if (typeof archived !== 'string' || archived.trim() === '' || !path.isAbsolute(archived) || archived.split(/[\\/]/).includes('..')) {
    return { ok: false, error: `Cannot restore "${clipLine(String(archived), 200)}": give the absolute path of a folder in a skill folder's ${ARCHIVE_FOLDER}.` };
  }
  const source = path.resolve(archived);
  for (const root of roots) {
    const relative = relativeInside(archiveDir(root), source);
    if (relative === undefined) continue;
    if ((await fs.stat(path.join(source, SKILL_FILE)))?.type !== 'file') {
      return { ok: false, error: `Cannot restore ${shown(root, source)}: it holds no ${SKILL_FILE} (it may have been restored or moved already).` };
    }
    const target = path.join(root.path, relative);
    const problem = await moveWithoutOverwrite(fs, source, target, `Cannot restore ${shown(root, source)}`);
    return problem ? { ok: false, error: problem } : { ok: true, from: source, to: target };
  }
  return { ok: false, error: `Cannot restore ${archived}: it is not inside the ${ARCHIVE_FOLDER} folder of any skill folder in use.` };
}

/** The archived skills of every root, by root then path; unreadable folders are skipped. */
export async function listArchived(fs: FileSystemPort, roots: readonly SkillRoot[]): Promise<ArchivedSkill[]> {
  const out: ArchivedSkill[] = [];
  for (const root of roots) {
    const base = archiveDir(root);
    if ((await fs.stat(base))?.type !== 'directory') continue;
    const found: string[] = [];
    await findSkills(fs, base, 0, found);
    for (const dir of found.sort()) {
      const relative = path.relative(base, dir);
      const header = await readHeader(fs, path.join(dir, SKILL_FILE));
      const category = path.dirname(relative) === '.' ? '' : path.dirname(relative).split(path.sep).join('/');
      out.push({
        name: header.name || path.basename(dir),
        description: header.description,
        ...(header.version !== undefined ? { version: header.version } : {}),
        dir,
        root,
        restoreTo: path.join(root.path, relative),
        category,
      });
    }
  }
  return out;
}

async function findSkills(fs: FileSystemPort, dir: string, depth: number, found: string[]): Promise<void> {
  if (found.length >= MAX_LISTED_PER_ROOT) return;
  let entries;
  try {
    entries = await fs.readDirectory(dir);
  } catch {
    return;
  }
  if (depth > 0 && entries.some((entry) => entry.name === SKILL_FILE && entry.type !== 'directory')) {
    found.push(dir);
    return;
  }
  if (depth >= MAX_DEPTH) return;
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    // A symlinked skill folder is archived as the link itself.
    if ((entry.type !== 'directory' && entry.type !== 'symlink') || SUPPORT.has(entry.name)) continue;
    await findSkills(fs, path.join(dir, entry.name), depth + 1, found);
  }
}

async function readHeader(fs: FileSystemPort, file: string): Promise<{ name: string; description: string; version?: string }> {
  try {
    const header = readSkillHeader(await fs.readFile(file));
    const version = header.version !== undefined ? { version: clipLine(header.version, 40) } : {};
    return { name: clipLine(header.name ?? '', 200), description: clipLine(header.description, 240), ...version };
  } catch {
    return { name: '', description: '' };
  }
}
