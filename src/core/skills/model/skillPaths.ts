import * as path from 'node:path';
import { closestNames } from '../../text/closestNames';
import type { FileSystemPort } from '../../base/fileSystemPort';
import type { SkillRecord } from './skillTypes';
import { SKILL_FILE, SUPPORT_FOLDERS } from './skillTypes';

/**
 * Turns names and paths that come from the model into safe locations. Everything here treats its
 * input as untrusted: a refusal is a message the model can act on, never an exception.
 */

export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_CATEGORY_DEPTH = 3;
/** Long enough for any real support file, short enough to keep messages readable. */
export const MAX_RELATIVE_PATH_LENGTH = 512;

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const quote = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);

/** Undefined when `name` is a valid skill name; otherwise what is wrong and what would be valid. */
export function skillNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the skill name is empty; use 1-64 lowercase letters, digits and single hyphens, e.g. "deploy-app"';
  if (name.length > MAX_SKILL_NAME_LENGTH) {
    return `the skill name is ${name.length} characters long; the limit is ${MAX_SKILL_NAME_LENGTH}`;
  }
  if (!SKILL_NAME_PATTERN.test(name)) {
    const suggestion = suggestSkillName(name);
    const hint = suggestion ? `, e.g. "${suggestion}"` : '';
    return `invalid skill name ${quote(name)}: use lowercase letters, digits and single hyphens, no leading or trailing hyphen${hint}`;
  }
  return undefined;
}

/** The closest valid name, for hints ("Deploy_App" -> "deploy-app"); empty when nothing is left. */
export function suggestSkillName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SKILL_NAME_LENGTH)
    .replace(/-+$/, '');
}

/** Validates a category such as `devops/k8s` and returns it without leading or trailing slashes. */
export function checkCategory(category: string): Checked<string> {
  const trimmed = category.trim().replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return { ok: true, value: '' };
  if (trimmed.includes('\\')) return { ok: false, error: `invalid category ${quote(category)}: separate levels with "/", not "\\"` };
  const segments = trimmed.split('/');
  if (segments.length > MAX_CATEGORY_DEPTH) {
    return { ok: false, error: `invalid category ${quote(category)}: at most ${MAX_CATEGORY_DEPTH} levels, e.g. "devops/k8s"` };
  }
  for (const segment of segments) {
    if (segment === '..' || segment === '.') {
      return { ok: false, error: `invalid category ${quote(category)}: "." and ".." are not allowed` };
    }
    if (segment.length === 0 || segment.length > MAX_SKILL_NAME_LENGTH || !SKILL_NAME_PATTERN.test(segment)) {
      return {
        ok: false,
        error: `invalid category ${quote(category)}: each level uses lowercase letters, digits and single hyphens, e.g. "devops/k8s"`,
      };
    }
  }
  return { ok: true, value: segments.join('/') };
}

/**
 * Splits a path relative to a skill folder into segments, refusing everything that could leave
 * the folder or mean different things on different platforms (absolute paths, drive letters,
 * backslashes, `..`, NUL and other control characters). Empty and `.` segments are dropped.
 */
export function parseRelativePath(filePath: string): Checked<readonly string[]> {
  const shown = quote(filePath);
  if (filePath.trim() === '') return { ok: false, error: 'file_path is empty; give a path inside the skill folder, e.g. "references/guide.md"' };
  if (filePath.length > MAX_RELATIVE_PATH_LENGTH) {
    return { ok: false, error: `file_path is ${filePath.length} characters long; the limit is ${MAX_RELATIVE_PATH_LENGTH}` };
  }
  if (/[\u0000-\u001f\u007f]/.test(filePath)) {
    return { ok: false, error: `file_path ${shown} contains a NUL or control character; use a plain relative path` };
  }
  if (filePath.includes('\\')) {
    return { ok: false, error: `file_path ${shown} contains a backslash; use "/" between folders, e.g. "references/guide.md"` };
  }
  if (filePath.startsWith('/') || filePath.startsWith('~') || /^[a-zA-Z]:/.test(filePath) || path.isAbsolute(filePath)) {
    return { ok: false, error: `file_path ${shown} is absolute; give a path relative to the skill folder, e.g. "references/guide.md"` };
  }
  if (filePath.includes(':')) {
    return { ok: false, error: `file_path ${shown} contains ":"; file names with colons are not supported in skills` };
  }
  const segments = filePath.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    return { ok: false, error: `file_path ${shown} contains ".."; paths must stay inside the skill folder` };
  }
  if (segments.length === 0) {
    return { ok: false, error: `file_path ${shown} names the skill folder itself; give a file inside it, e.g. "references/guide.md"` };
  }
  const problem = segments.map(portableNameProblem).find((found) => found !== undefined);
  if (problem) return { ok: false, error: `file_path ${shown}: ${problem}` };
  return { ok: true, value: segments };
}

/** Most file systems take names of at most 255 bytes. */
export const MAX_NAME_BYTES = 255;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\..*)?$/i;

/**
 * Skills travel between systems in repositories and archives, so a name must work on all of them:
 * Windows reserves device names (CON, NUL, aux.txt, …) and drops trailing dots and spaces.
 */
function portableNameProblem(segment: string): string | undefined {
  const bytes = Buffer.byteLength(segment, 'utf8');
  if (bytes > MAX_NAME_BYTES) return `the name ${quote(segment)} is ${bytes} bytes long; names are limited to ${MAX_NAME_BYTES} bytes`;
  if (WINDOWS_DEVICE.test(segment)) return `${quote(segment)} is a device name on Windows and cannot be a file there; choose another name`;
  if (/[. ]$/.test(segment)) return `the name ${quote(segment)} ends with a dot or space, which Windows drops; remove it`;
  return undefined;
}

/** Writes are limited to files inside the four support folders (SKILL.md has its own actions). */
export function supportFolderProblem(segments: readonly string[]): string | undefined {
  const first = segments[0] ?? '';
  const folders = SUPPORT_FOLDERS.join('/, ');
  if (segments.length === 1 && first === SKILL_FILE) {
    return `${SKILL_FILE} is changed with action "edit" or "patch", not with file actions`;
  }
  if (!(SUPPORT_FOLDERS as readonly string[]).includes(first)) {
    return `skill files can only be added, changed or removed inside the support folders ${folders}/ (got ${quote(segments.join('/'))}), e.g. "references/${segments[segments.length - 1] ?? 'notes.md'}"`;
  }
  if (segments.length === 1) {
    return `"${first}" is a folder; give a file inside it, e.g. "${first}/notes.md"`;
  }
  return undefined;
}

/** True when `child` is `parent` or lies below it (both absolute, already real paths). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

export interface ResolvedSkillPath {
  /** Absolute path inside the skill folder (not resolved through symlinks, so writes replace links, not targets). */
  readonly absolute: string;
  /** `/`-separated path relative to the skill folder. */
  readonly relative: string;
  readonly segments: readonly string[];
  /** Whether something (file, folder or link) exists at the path. */
  readonly exists: boolean;
}

/**
 * Resolves `filePath` inside `skillDir` and checks, through real paths, that neither the target nor
 * any existing folder on the way is a symlink that leads out of the skill folder.
 */
export async function resolveInSkill(fs: FileSystemPort, skillDir: string, filePath: string): Promise<Checked<ResolvedSkillPath>> {
  const parsed = parseRelativePath(filePath);
  if (!parsed.ok) return parsed;
  const segments = parsed.value;
  const relative = segments.join('/');
  const absolute = path.join(skillDir, ...segments);
  let realDir: string;
  try {
    realDir = await fs.realPath(skillDir);
  } catch {
    return { ok: false, error: `the skill folder no longer exists; list skills again with skills_list` };
  }
  const escape = { ok: false as const, error: `file_path ${quote(relative)} leads outside the skill folder through a symbolic link; refused` };

  const own = await fs.lstat(absolute);
  if (own) {
    let real: string;
    try {
      real = await fs.realPath(absolute);
    } catch {
      return { ok: false, error: `file_path ${quote(relative)} is a symbolic link whose target does not exist; remove it or use another path` };
    }
    if (!isInside(realDir, real)) return escape;
    return { ok: true, value: { absolute, relative, segments, exists: true } };
  }
  // The target does not exist yet: its nearest existing ancestor decides where a write would land.
  let ancestor = path.dirname(absolute);
  while (isInside(skillDir, ancestor) && ancestor !== skillDir) {
    if (await fs.lstat(ancestor)) break;
    ancestor = path.dirname(ancestor);
  }
  let realAncestor: string;
  try {
    realAncestor = await fs.realPath(ancestor);
  } catch {
    return { ok: false, error: `a folder on the way to ${quote(relative)} is a broken symbolic link; refused` };
  }
  if (!isInside(realDir, realAncestor)) return escape;
  const ancestorStat = await fs.stat(ancestor);
  if (ancestorStat && ancestorStat.type !== 'directory') {
    const blocking = path.relative(skillDir, ancestor).split(path.sep).join('/');
    return { ok: false, error: `cannot use ${quote(relative)}: ${quote(blocking)} is a file, not a folder` };
  }
  return { ok: true, value: { absolute, relative, segments, exists: false } };
}

export function qualifiedName(record: SkillRecord): string {
  return record.category ? `${record.category}/${record.name}` : record.name;
}

export type SkillLookup =
  | { readonly ok: true; readonly value: SkillRecord }
  | { readonly ok: false; readonly reason: 'empty' | 'ambiguous' | 'inactive' | 'unknown'; readonly error: string };

/**
 * Finds the active skill the model means by `wanted`: a name, or `category/name` (which also matches
 * the folder name, for skills whose frontmatter name differs from their folder). Refusals name the
 * candidates, or the closest names (plus `related` ones) when nothing matches.
 */
export function findSkill(
  wanted: string,
  active: readonly SkillRecord[],
  options: { readonly all?: readonly SkillRecord[]; readonly related?: readonly string[] } = {},
): SkillLookup {
  const text = wanted.trim();
  if (text === '') return { ok: false, reason: 'empty', error: 'the skill name is empty; call skills_list to see the available skills' };
  const slash = text.lastIndexOf('/');
  const category = slash >= 0 ? text.slice(0, slash).replace(/^\/+|\/+$/g, '') : undefined;
  const name = slash >= 0 ? text.slice(slash + 1) : text;
  const inCategory = (record: SkillRecord): boolean => category === undefined || record.category === category;
  const passes: ((record: SkillRecord) => boolean)[] = [
    (record) => record.name === name,
    (record) => record.folderName === name,
    (record) => record.name.toLowerCase() === name.toLowerCase(),
  ];
  for (const pass of passes) {
    const found = active.filter((record) => inCategory(record) && pass(record));
    const [only] = found;
    if (found.length === 1 && only) return { ok: true, value: only };
    if (found.length > 1) {
      const listed = found.map((record) => `"${qualifiedName(record)}" (${record.root.label})`).join(', ');
      const error = `${quote(text)} matches ${found.length} skills: ${listed}; give the one you mean as "category/name"`;
      return { ok: false, reason: 'ambiguous', error };
    }
  }
  // Every copy of the name is inactive (a shadowed copy always has an active winner).
  const inactive = (options.all ?? []).find((record) => record.name === name && inCategory(record) && !record.shadowedBy);
  if (inactive && (inactive.disabled || inactive.platformHidden || inactive.awaitingConsent)) {
    const why = inactive.disabled
      ? 'it is disabled in the settings'
      : inactive.platformHidden
        ? `its platforms (${inactive.platforms.join(', ')}) exclude this machine`
        : 'it came with the repository and waits for the person to approve it (Skillwright: Review Project Skills…)';
    return { ok: false, reason: 'inactive', error: `the skill ${quote(name)} in ${inactive.root.label} is not available: ${why}` };
  }
  const suggestions = [...closestNames(name, active.map((record) => record.name)), ...(options.related ?? [])];
  const unique = [...new Set(suggestions)].filter((s) => s !== name).slice(0, 5);
  const hint = unique.length > 0 ? `; did you mean ${unique.map((s) => `"${s}"`).join(', ')}?` : '.';
  const where = category !== undefined ? ` in category ${quote(category)}` : '';
  return { ok: false, reason: 'unknown', error: `no skill named ${quote(name)}${where}${hint} Call skills_list to see every skill.` };
}

export interface SkillFileEntry {
  /** `/`-separated path relative to the skill folder. */
  readonly path: string;
  readonly size: number;
}

/** Folders never listed as part of a skill: tool caches and version control. */
const SKIPPED_FOLDERS = new Set(['node_modules', '__pycache__', '.git', '.venv', 'venv']);
export const MAX_LISTED_FILES = 500;
const MAX_LIST_DEPTH = 8;

/**
 * The files of a skill folder, recursively, sorted: everything but SKILL.md itself, hidden files,
 * caches, nested skills (folders with their own SKILL.md) and links that lead out of the skill.
 */
export async function listSkillFiles(fs: FileSystemPort, skillDir: string): Promise<{ files: SkillFileEntry[]; truncated: boolean }> {
  const files: SkillFileEntry[] = [];
  let truncated = false;
  let realDir: string;
  try {
    realDir = await fs.realPath(skillDir);
  } catch {
    return { files, truncated };
  }
  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await fs.readDirectory(dir);
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (prefix !== '' && entries.some((entry) => entry.name === SKILL_FILE)) return;
    for (const entry of entries) {
      if (files.length >= MAX_LISTED_FILES) {
        truncated = true;
        return;
      }
      if (entry.name.startsWith('.') || SKIPPED_FOLDERS.has(entry.name)) continue;
      if (prefix === '' && entry.name === SKILL_FILE) continue;
      const full = path.join(dir, entry.name);
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.type === 'symlink') {
        const real = await fs.realPath(full).catch(() => undefined);
        if (!real || !isInside(realDir, real)) continue;
      }
      const stat = await fs.stat(full);
      if (!stat) continue;
      if (stat.type === 'directory') {
        // A link back up the tree would loop; the depth cap stops it.
        if (depth < MAX_LIST_DEPTH) await walk(full, relative, depth + 1);
      } else if (stat.type === 'file') {
        files.push({ path: relative, size: stat.size });
      }
    }
  };
  await walk(skillDir, '', 0);
  return { files, truncated };
}
