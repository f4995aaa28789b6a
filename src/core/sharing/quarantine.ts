/**
 * Every import starts in quarantine: a fresh folder under a temp root that the source is copied,
 * unpacked or cloned into, scanned there, and only copied onwards once a person has confirmed.
 * Nothing is written outside the quarantine, and no link in it points out.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { SkillSource } from './skillSource';
import { extractZip, MAX_ZIP_BYTES, MAX_ZIP_ENTRIES } from './zipArchive';

export interface GitPort {
  available(): Promise<boolean>;
  clone(url: string, ref: string | undefined, into: string, signal?: AbortSignal): Promise<{ readonly commit: string }>;
}

export interface FetchPorts {
  readonly fs: FileSystemPort;
  readonly git: GitPort;
  readonly tempRoot: string;
}

export interface Quarantine {
  /** The quarantine folder (removed by dispose). */
  readonly dir: string;
  /** Where to look for skills: the fetched content, or its subpath. */
  readonly root: string;
  /** The fetched content's top folder (skill paths in the lock are relative to it). */
  readonly base: string;
  readonly commit?: string;
  /** What was left out on the way in (links, submodules), for the review. */
  readonly notes: readonly string[];
  dispose(): Promise<void>;
}

export class SourceError extends Error {}

/** Folders the other tool's hash skips; copying them would only carry clutter into the review. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

function inside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Copies regular files from a folder, never following a link; limits as for zips. */
async function copyFolder(fs: FileSystemPort, from: string, to: string, notes: string[]): Promise<void> {
  let files = 0;
  let bytes = 0;
  const walk = async (dir: string, target: string, relative: string): Promise<void> => {
    await fs.mkdir(target);
    for (const entry of await fs.readDirectory(dir)) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.type === 'directory') {
        if (!SKIPPED_FOLDERS.has(entry.name)) await walk(path.join(dir, entry.name), path.join(target, entry.name), rel);
      } else if (entry.type === 'file') {
        files += 1;
        if (files > MAX_ZIP_ENTRIES) throw new SourceError(`${from} has more than ${MAX_ZIP_ENTRIES} files; point at the folder of the skills`);
        const content = await fs.readFile(path.join(dir, entry.name));
        bytes += content.length;
        if (bytes > MAX_ZIP_BYTES) throw new SourceError(`${from} holds more than ${MAX_ZIP_BYTES / 1024 / 1024} MB; point at the folder of the skills`);
        await fs.writeFileAtomic(path.join(target, entry.name), content);
      } else if (entry.type === 'symlink') {
        notes.push(`${rel}: a symbolic link, not imported`);
      }
    }
  };
  await walk(from, to, '');
}

/** `.gitmodules` paths and URLs; submodules are never fetched, only reported. */
function submodulesOf(text: string): { name: string; path?: string; url?: string }[] {
  const found: { name: string; path?: string; url?: string }[] = [];
  let current: { name: string; path?: string; url?: string } | undefined;
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[submodule\s+"([^"]*)"\s*\]/.exec(line);
    if (header) {
      current = { name: header[1] ?? '' };
      found.push(current);
      continue;
    }
    const pair = /^\s*(path|url)\s*=\s*(.*?)\s*$/.exec(line);
    if (current && pair?.[1] && pair[2] !== undefined) current[pair[1] as 'path' | 'url'] = pair[2];
  }
  return found;
}

/** After a clone: drop .git, report submodules, and remove links that point out of the clone. */
async function tidyClone(fs: FileSystemPort, content: string, notes: string[]): Promise<void> {
  const gitmodules = path.join(content, '.gitmodules');
  if ((await fs.lstat(gitmodules))?.type === 'file') {
    for (const sub of submodulesOf(new TextDecoder().decode(await fs.readFile(gitmodules)))) {
      const where = sub.path ?? sub.name;
      const outside = !where || where.split(/[/\\]/).includes('..') || path.isAbsolute(where) || /^[A-Za-z]:/.test(where);
      const localUrl = sub.url !== undefined && (/^file:/i.test(sub.url) || sub.url.startsWith('/') || sub.url.startsWith('.') || /^[A-Za-z]:/.test(sub.url));
      notes.push(
        outside || localUrl
          ? `submodule "${sub.name}" (${where} → ${sub.url ?? '?'}) points outside the repository; refused`
          : `submodule "${sub.name}" (${where}) is not fetched; its folder is empty`,
      );
    }
  }
  await fs.remove(path.join(content, '.git'));
  const realRoot = await fs.realPath(content);
  const walk = async (dir: string, relative: string): Promise<void> => {
    for (const entry of await fs.readDirectory(dir)) {
      const full = path.join(dir, entry.name);
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.type === 'directory') {
        if (entry.name !== 'node_modules') await walk(full, rel);
      } else if (entry.type === 'symlink') {
        let target: string | undefined;
        try {
          target = await fs.realPath(full);
        } catch {
          target = undefined;
        }
        if (target === undefined || !inside(realRoot, target)) {
          await fs.remove(full);
          notes.push(`${rel}: a symbolic link pointing outside the repository; removed`);
        } else {
          notes.push(`${rel}: a symbolic link inside the repository; not installed`);
        }
      }
    }
  };
  await walk(content, '');
}

/** Fetches a source into a fresh quarantine folder under `ports.tempRoot`. */
export async function fetchToQuarantine(source: SkillSource, ports: FetchPorts, signal?: AbortSignal): Promise<Quarantine> {
  const { fs } = ports;
  const dir = path.join(ports.tempRoot, `skillwright-import-${randomBytes(8).toString('hex')}`);
  const content = path.join(dir, 'content');
  const notes: string[] = [];
  let commit: string | undefined;
  await fs.mkdir(dir);
  const dispose = (): Promise<void> => fs.remove(dir);
  try {
    if (source.kind === 'folder') {
      const from = source.path ?? '';
      const stat = await fs.stat(from);
      if (stat?.type !== 'directory') throw new SourceError(`${from} is not a folder`);
      await copyFolder(fs, await fs.realPath(from), content, notes);
    } else if (source.kind === 'zip') {
      const file = source.path ?? '';
      const stat = await fs.stat(file);
      if (stat?.type !== 'file') throw new SourceError(`${file} is not a file`);
      if (stat.size > MAX_ZIP_BYTES) throw new SourceError(`${file} is larger than ${MAX_ZIP_BYTES / 1024 / 1024} MB`);
      await fs.mkdir(content);
      await extractZip(fs, await fs.readFile(file), content);
    } else {
      if (!source.url) throw new SourceError('the git source has no URL');
      commit = (await ports.git.clone(source.url, source.ref, content, signal)).commit;
      await tidyClone(fs, content, notes);
    }
    let root = content;
    if (source.subpath) {
      root = path.resolve(content, ...source.subpath.split('/'));
      const stat = await fs.lstat(root);
      if (!inside(content, root) || stat?.type !== 'directory') throw new SourceError(`the source has no folder "${source.subpath}"`);
    }
    return { dir, root, base: content, notes, ...(commit ? { commit } : {}), dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
