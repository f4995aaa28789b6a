import * as path from 'node:path';
import type { EntryType, FileSystemPort } from '../base/fileSystemPort';
import type { WorkspaceFolderRef } from '../base/skillRoots';

/**
 * Turns paths from the model into locations inside the workspace. Everything here treats its input
 * as untrusted; a refusal is a message the model can act on, never an exception.
 *
 * Naming, one folder: paths are relative to the folder (`src/app.ts`), and the folder itself is `.`.
 * Several folders: `folderName/src/app.ts` names a file in that folder; a path whose first segment
 * is not a folder name is relative to the first folder. Absolute paths are accepted when they lie
 * inside a folder. Results always show paths in this form, so the model can hand them back.
 */

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export interface ResolvedPath {
  readonly folder: WorkspaceFolderRef;
  /** Lexical absolute path (symlinks not resolved). */
  readonly absolute: string;
  /** Where the path really leads (through symlinks); writes go here so links stay links. */
  readonly real: string;
  /** `/`-separated path relative to the folder; `''` for the folder itself. */
  readonly relative: string;
  /** How the path is shown to the model. */
  readonly display: string;
  /** Type after following symlinks; undefined when nothing exists there yet. */
  readonly type: EntryType | undefined;
}

export const MAX_PATH_LENGTH = 4096;
/** Most file systems take names of at most 255 bytes; longer ones fail deep inside fs (ENAMETOOLONG). */
export const MAX_NAME_BYTES = 255;

const quote = (value: string): string => JSON.stringify(value.length > 120 ? `${value.slice(0, 117)}...` : value);

/** True when `child` is `parent` or lies below it (both absolute and normalised). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** Undefined when the file system can take `absolute`; otherwise why not, before fs fails with ENAMETOOLONG. */
function lengthProblem(absolute: string, display: string): string | undefined {
  const long = absolute.split(path.sep).find((segment) => Buffer.byteLength(segment, 'utf8') > MAX_NAME_BYTES);
  if (long !== undefined) {
    return `the path ${quote(display)} has a name of ${Buffer.byteLength(long, 'utf8')} bytes; names are limited to ${MAX_NAME_BYTES} bytes, so use a shorter one`;
  }
  const bytes = Buffer.byteLength(absolute, 'utf8');
  if (bytes >= MAX_PATH_LENGTH) {
    return `the path ${quote(display)} is ${bytes} bytes long with the workspace folder in front; the limit is ${MAX_PATH_LENGTH - 1}, so use a shorter path`;
  }
  return undefined;
}

export class WorkspacePaths {
  private readonly realRoots = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly fs: FileSystemPort,
    readonly folders: readonly WorkspaceFolderRef[],
  ) {}

  get multiRoot(): boolean {
    return this.folders.length > 1;
  }

  /** The model-facing form of a path inside `folder`. */
  display(folder: WorkspaceFolderRef, relative: string): string {
    if (this.multiRoot) return relative === '' ? folder.name : `${folder.name}/${relative}`;
    return relative === '' ? '.' : relative;
  }

  /** The folder names (or `.`) for messages that say what is inside the workspace. */
  describeRoots(): string {
    if (this.folders.length === 0) return 'no folder is open';
    if (!this.multiRoot) return `the workspace folder "${this.folders[0]?.name}"`;
    return `the workspace folders ${this.folders.map((folder) => `"${folder.name}"`).join(', ')}`;
  }

  private realRoot(folder: WorkspaceFolderRef): Promise<string | undefined> {
    let found = this.realRoots.get(folder.fsPath);
    if (!found) {
      found = this.fs.realPath(folder.fsPath).catch(() => undefined);
      this.realRoots.set(folder.fsPath, found);
    }
    return found;
  }

  /** The deepest folder holding `absolute` (folders may nest), by lexical comparison. */
  private folderHolding(absolute: string): WorkspaceFolderRef | undefined {
    let best: WorkspaceFolderRef | undefined;
    for (const folder of this.folders) {
      const root = path.resolve(folder.fsPath);
      if (isInside(root, absolute) && (!best || root.length > path.resolve(best.fsPath).length)) best = folder;
    }
    return best;
  }

  /** Whether a real path lies inside the real path of any workspace folder. */
  private async insideRealRoots(real: string): Promise<boolean> {
    for (const folder of this.folders) {
      const root = await this.realRoot(folder);
      if (root && isInside(root, real)) return true;
    }
    return false;
  }

  /** Resolves a path the model gave; `''` and `.` mean the first folder. */
  async resolve(input: string): Promise<Checked<ResolvedPath>> {
    if (this.folders.length === 0) return { ok: false, error: 'no workspace folder is open; open a folder to use the workspace tools' };
    if (input.length > MAX_PATH_LENGTH) return { ok: false, error: `the path is ${input.length} characters long; the limit is ${MAX_PATH_LENGTH}` };
    if (/[\u0000-\u001f\u007f]/.test(input)) {
      return { ok: false, error: `the path ${quote(input)} contains a NUL or control character; give a plain path such as "src/app.ts"` };
    }
    let text = process.platform === 'win32' ? input.replace(/\\/g, '/') : input;
    if (text === '~' || text.startsWith('~/')) {
      return { ok: false, error: `the path ${quote(input)} is in the home folder, outside the workspace; only ${this.describeRoots()} can be used` };
    }
    if (text.startsWith('file://')) text = decodeURIComponent(text.slice('file://'.length));

    let folder: WorkspaceFolderRef | undefined;
    let absolute: string;
    if (path.isAbsolute(text)) {
      absolute = path.resolve(text);
      folder = this.folderHolding(absolute);
      if (!folder) {
        // The model may have seen the folder's real path (e.g. /private/tmp for /tmp on macOS).
        for (const candidate of this.folders) {
          const realRoot = await this.realRoot(candidate);
          if (realRoot && isInside(realRoot, absolute)) {
            folder = candidate;
            absolute = path.join(path.resolve(candidate.fsPath), path.relative(realRoot, absolute));
            break;
          }
        }
      }
      if (!folder) return { ok: false, error: `the path ${quote(input)} is outside the workspace; give a path inside ${this.describeRoots()}` };
    } else {
      const segments = text.split('/').filter((segment) => segment !== '' && segment !== '.');
      let base = this.folders[0] as WorkspaceFolderRef;
      if (this.multiRoot && segments.length > 0) {
        const named = this.folders.find((candidate) => candidate.name === segments[0]);
        if (named) {
          base = named;
          segments.shift();
        }
      }
      absolute = path.resolve(base.fsPath, ...segments);
      // `..` may move between folders of a multi-root workspace, but never out of all of them.
      folder = this.folderHolding(absolute);
      if (!folder) return { ok: false, error: `the path ${quote(input)} leads outside the workspace with ".."; give a path inside ${this.describeRoots()}` };
    }
    const relative = path.relative(path.resolve(folder.fsPath), absolute).split(path.sep).filter(Boolean).join('/');
    const display = this.display(folder, relative);
    const tooLong = lengthProblem(absolute, display);
    if (tooLong) return { ok: false, error: tooLong };

    const own = await this.fs.lstat(absolute);
    if (own) {
      let real: string;
      try {
        real = await this.fs.realPath(absolute);
      } catch {
        return { ok: false, error: `${quote(display)} is a symbolic link whose target does not exist` };
      }
      if (!(await this.insideRealRoots(real))) {
        return { ok: false, error: `${quote(display)} leads outside the workspace through a symbolic link; refused` };
      }
      const stat = await this.fs.stat(absolute);
      return { ok: true, value: { folder, absolute, real, relative, display, type: stat?.type } };
    }
    // Nothing there yet: the nearest existing folder above decides where a write would land.
    let ancestor = path.dirname(absolute);
    const root = path.resolve(folder.fsPath);
    while (ancestor !== root && isInside(root, ancestor) && !(await this.fs.lstat(ancestor))) ancestor = path.dirname(ancestor);
    let realAncestor: string;
    try {
      realAncestor = await this.fs.realPath(ancestor);
    } catch {
      return { ok: false, error: `a folder on the way to ${quote(display)} is a broken symbolic link; refused` };
    }
    if (!(await this.insideRealRoots(realAncestor))) {
      return { ok: false, error: `${quote(display)} leads outside the workspace through a symbolic link; refused` };
    }
    const ancestorStat = await this.fs.stat(ancestor);
    if (ancestorStat && ancestorStat.type !== 'directory') {
      const blocking = this.display(folder, path.relative(root, ancestor).split(path.sep).join('/'));
      return { ok: false, error: `cannot use ${quote(display)}: ${quote(blocking)} is a file, not a folder` };
    }
    const real = path.join(realAncestor, path.relative(ancestor, absolute));
    return { ok: true, value: { folder, absolute, real, relative, display, type: undefined } };
  }

  /**
   * Where a listing or search starts: the given path, or (when none is given) every folder, so a
   * multi-root workspace is searched as a whole.
   */
  async scope(input: string | undefined): Promise<Checked<ResolvedPath[]>> {
    const text = input?.trim() ?? '';
    if (text === '' || (this.multiRoot && (text === '.' || text === './'))) {
      if (this.folders.length === 0) return { ok: false, error: 'no workspace folder is open; open a folder to use the workspace tools' };
      const roots: ResolvedPath[] = [];
      for (const folder of this.folders) {
        const real = await this.realRoot(folder);
        if (!real) continue;
        roots.push({ folder, absolute: path.resolve(folder.fsPath), real, relative: '', display: this.display(folder, ''), type: 'directory' });
      }
      if (roots.length === 0) return { ok: false, error: `${this.describeRoots()} cannot be read; it may have been moved or deleted` };
      return { ok: true, value: roots };
    }
    const resolved = await this.resolve(text);
    return resolved.ok ? { ok: true, value: [resolved.value] } : resolved;
  }
}
