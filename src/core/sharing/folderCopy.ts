/**
 * Moving a skill folder into place: copied next to its target first, then swapped in with renames,
 * so a reader (or a crash) sees the old folder or the new one, never half of each.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { readFolderFiles } from './folderDiff';

/** Refuses a target whose path from `root` passes through a link: it could lead out of the root. */
export async function assertPlainPath(fs: FileSystemPort, root: string, target: string): Promise<void> {
  const relative = path.relative(root, target);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${target} is not inside ${root}`);
  let current = root;
  for (const segment of relative.split(path.sep)) {
    current = path.join(current, segment);
    const stat = await fs.lstat(current);
    if (!stat) return;
    if (stat.type === 'symlink') throw new Error(`${current} is a symbolic link; Skillwright does not install skills through links. Replace it with a folder`);
  }
}

/** A fresh name beside `target`, hidden, for the staged copy or the old folder. */
export function siblingTemp(target: string, kind: 'incoming' | 'old'): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${kind}-${randomBytes(6).toString('hex')}`);
}

/** Writes the files (relative `/`-paths) into a new folder. */
export async function writeFiles(fs: FileSystemPort, dir: string, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
  await fs.mkdir(dir);
  for (const [relative, bytes] of files) await fs.writeFileAtomic(path.join(dir, ...relative.split('/')), bytes);
}

/** Copies the regular files of `from` (links and .git/node_modules left out) into a new folder `to`. */
export async function copyFolderFiles(fs: FileSystemPort, from: string, to: string): Promise<void> {
  await writeFiles(fs, to, await readFolderFiles(fs, from));
}

/** Swaps `staged` in at `target` (replacing what is there); on failure the old folder is put back. */
export async function replaceFolder(fs: FileSystemPort, staged: string, target: string): Promise<void> {
  const exists = (await fs.lstat(target)) !== undefined;
  const old = exists ? siblingTemp(target, 'old') : undefined;
  if (old) await fs.rename(target, old);
  try {
    await fs.rename(staged, target);
  } catch (error) {
    if (old) await fs.rename(old, target);
    throw error;
  }
  if (old) await fs.remove(old);
}

/** Stages `files` beside `target` and swaps them in. */
export async function installFiles(fs: FileSystemPort, files: ReadonlyMap<string, Uint8Array>, target: string): Promise<void> {
  const staged = siblingTemp(target, 'incoming');
  try {
    await writeFiles(fs, staged, files);
    await replaceFolder(fs, staged, target);
  } catch (error) {
    await fs.remove(staged);
    throw error;
  }
}

/** SKILL.md with its frontmatter `name:` set to `name` (for a skill installed under another name). */
export function renameSkillText(text: string, name: string): string {
  const match = /^(\uFEFF?(?:[^\S\n]*\r?\n)*---[^\S\n]*\r?\n)([\s\S]*?)(\r?\n---[^\S\n]*(?:\r?\n|$))/.exec(text);
  if (!match) return `---\nname: ${name}\n---\n${text}`;
  const [, open = '', body = '', close = ''] = match;
  const renamed = /^name[^\S\n]*:.*$/m.test(body) ? body.replace(/^name[^\S\n]*:.*$/m, `name: ${name}`) : `name: ${name}\n${body}`;
  return `${open}${renamed}${close}${text.slice(match[0].length)}`;
}

/** The files with SKILL.md renamed, as installed under `name`. */
export function renamedFiles(files: ReadonlyMap<string, Uint8Array>, name: string): Map<string, Uint8Array> {
  const copy = new Map(files);
  const skill = files.get('SKILL.md');
  if (skill) copy.set('SKILL.md', new TextEncoder().encode(renameSkillText(new TextDecoder().decode(skill), name)));
  return copy;
}
