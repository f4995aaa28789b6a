/**
 * How core reaches files. The host, the CLI and tests implement it (Node's fs for all three today;
 * the host could back it with vscode.workspace.fs for virtual file systems).
 * Paths are absolute, in the platform's form.
 */
export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface DirEntry {
  readonly name: string;
  /** `symlink` is reported as such (not followed) so walkers can guard against cycles. */
  readonly type: EntryType;
}

export interface FileStat {
  /** Type after following symlinks. */
  readonly type: EntryType;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface FileSystemPort {
  readDirectory(path: string): Promise<DirEntry[]>;
  /** Follows symlinks; undefined when the path does not exist or cannot be reached. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Like stat but does not follow a final symlink. */
  lstat(path: string): Promise<FileStat | undefined>;
  realPath(path: string): Promise<string>;
  readFile(path: string): Promise<Uint8Array>;
  /** Writes via a temp file in the same folder and a rename, creating parent folders. */
  writeFileAtomic(path: string, data: Uint8Array | string): Promise<void>;
  mkdir(path: string): Promise<void>;
  /** Removes a file, or a folder with everything in it. */
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}
