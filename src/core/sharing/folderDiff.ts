/**
 * Two skill folders compared file by file, as one unified diff: what an import would change in an
 * installed skill, or what an update brings. Regular files only, as the lock's hash sees them.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { unifiedDiff } from '../text/unifiedDiff';

const SKIPPED = new Set(['.git', 'node_modules']);
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The regular files of a folder by relative `/`-path; links and .git/node_modules left out. */
export async function readFolderFiles(fs: FileSystemPort, dir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const walk = async (current: string, relative: string): Promise<void> => {
    for (const entry of await fs.readDirectory(current)) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.type === 'directory') {
        if (!SKIPPED.has(entry.name)) await walk(path.join(current, entry.name), rel);
      } else if (entry.type === 'file') {
        files.set(rel, await fs.readFile(path.join(current, entry.name)));
      }
    }
  };
  if ((await fs.stat(dir))?.type === 'directory') await walk(dir, '');
  return files;
}

/** The text of a file, or undefined for binary content (a NUL byte or invalid UTF-8). */
export function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** One unified diff from `before` to `after`; empty when they hold the same files. */
export function diffFileMaps(before: ReadonlyMap<string, Uint8Array>, after: ReadonlyMap<string, Uint8Array>): string {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a.localeCompare(b));
  const parts: string[] = [];
  for (const name of names) {
    const a = before.get(name);
    const b = after.get(name);
    if (sameBytes(a, b)) continue;
    const textA = a === undefined ? '' : textOf(a);
    const textB = b === undefined ? '' : textOf(b);
    if (textA === undefined || textB === undefined) {
      parts.push(`Binary files ${a ? `a/${name}` : '/dev/null'} and ${b ? `b/${name}` : '/dev/null'} differ\n`);
      continue;
    }
    if (b === undefined) {
      // A removed file: unifiedDiff writes the new side's header, so swap it for /dev/null.
      const removal = unifiedDiff(textA, '', name).text.replace(`+++ b/${name}`, '+++ /dev/null');
      parts.push(removal || `--- a/${name}\n+++ /dev/null\n`);
      continue;
    }
    parts.push(unifiedDiff(a === undefined ? undefined : textA, textB, name).text);
  }
  return parts.join('');
}

export async function diffFolders(fs: FileSystemPort, fromDir: string, toDir: string): Promise<string> {
  return diffFileMaps(await readFolderFiles(fs, fromDir), await readFolderFiles(fs, toDir));
}
