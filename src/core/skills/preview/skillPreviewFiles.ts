import * as path from 'node:path';
import type { FileSystemPort } from '../../base/fileSystemPort';
import { checkBody } from '../lint/bodyRules';
import type { ParsedSkill } from '../model/skillParser';
import { listSkillFiles } from '../model/skillPaths';
import { SUPPORT_FOLDERS } from '../model/skillTypes';

/** One entry of the preview's file tree (the shape of the protocol's linked file). */
export interface LinkedFileEntry {
  /** `/`-separated, relative to the skill folder. */
  readonly path: string;
  readonly exists: boolean;
  readonly isFolder: boolean;
}

const SUPPORT: ReadonlySet<string> = new Set(SUPPORT_FOLDERS);

/**
 * The files a skill brings: the four support folders with everything in them, plus every file the
 * body links to or mentions and the `entry` script, wherever they are in the folder. Paths the
 * body names that do not exist are listed as missing; paths that would leave the folder are not
 * listed (the lint reports them). Folders come before the files inside them; the order is by path.
 */
export async function previewLinkedFiles(fs: FileSystemPort, skillDir: string, parsed: ParsedSkill): Promise<{ files: LinkedFileEntry[]; truncated: boolean }> {
  const entries = new Map<string, LinkedFileEntry>();
  const addFolders = (relative: string): void => {
    const segments = relative.split('/');
    for (let i = 1; i < segments.length; i++) {
      const folder = segments.slice(0, i).join('/');
      if (!entries.has(folder)) entries.set(folder, { path: folder, exists: true, isFolder: true });
    }
  };

  const listing = await listSkillFiles(fs, skillDir);
  const present = new Set(listing.files.map((file) => file.path));
  for (const file of listing.files) {
    // split always returns at least one piece.
    if (!SUPPORT.has(file.path.split('/')[0] ?? file.path)) continue;
    addFolders(file.path);
    entries.set(file.path, { path: file.path, exists: true, isFolder: false });
  }
  for (const folder of SUPPORT_FOLDERS) {
    if (!entries.has(folder) && (await fs.stat(path.join(skillDir, folder)))?.type === 'directory') {
      entries.set(folder, { path: folder, exists: true, isFolder: true });
    }
  }

  for (const linked of linkedPaths(parsed)) {
    if (entries.has(linked)) continue;
    const stat = present.has(linked) ? { type: 'file' } : await fs.stat(path.join(skillDir, ...linked.split('/')));
    if (stat) addFolders(linked);
    else await addMissingFolders(fs, skillDir, linked, entries);
    entries.set(linked, { path: linked, exists: stat !== undefined, isFolder: stat?.type === 'directory' });
  }
  const files = [...entries.values()].sort((a, b) => comparePaths(a.path, b.path));
  return { files, truncated: listing.truncated };
}

/** Relative paths the body links to or mentions, and the entry script, inside the folder only. */
function linkedPaths(parsed: ParsedSkill): string[] {
  const found: string[] = [];
  // checkBody reads only the parsed text; it is the lint's own link scanner, so the tree and the
  // SW503/SW504 findings always agree on what counts as a link.
  const { checks } = checkBody({ parsed, context: { folderName: '', exists: () => true }, frontmatter: parsed.frontmatter, lines: parsed.lines, anchorLine: 0 });
  for (const check of checks) found.push(check.path);
  const entry = parsed.frontmatter['entry'];
  if (typeof entry === 'string' && entry.trim() !== '') found.push(path.posix.normalize(entry.trim().replace(/\\/g, '/')));
  return [...new Set(found.map((item) => item.replace(/^\.\/|\/$/g, '')))].filter(
    (item) => item !== '' && item !== '.' && item !== '..' && !item.startsWith('../') && !path.posix.isAbsolute(item) && !/^[a-zA-Z]:/.test(item),
  );
}

/** Folders on the way to a missing file, each marked as it is on disk. */
async function addMissingFolders(fs: FileSystemPort, skillDir: string, relative: string, entries: Map<string, LinkedFileEntry>): Promise<void> {
  const segments = relative.split('/');
  let missing = false;
  for (let i = 1; i < segments.length; i++) {
    const folder = segments.slice(0, i).join('/');
    const known = entries.get(folder);
    if (known) {
      missing = !known.exists;
      continue;
    }
    missing = missing || (await fs.stat(path.join(skillDir, ...segments.slice(0, i))))?.type !== 'directory';
    entries.set(folder, { path: folder, exists: !missing, isFolder: true });
  }
}

/** Path order by segment, so "references/a/b.md" sorts right after "references/a". */
function comparePaths(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! < right[i]! ? -1 : 1;
  }
  return left.length - right.length;
}
