import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import type { ToolResult } from '../toolkit/toolResult';
import type { ProcessPort } from './processPort';
import type { TextSearchPort } from './textSearch';
import type { WorkspacePaths } from './workspacePaths';

/** What every workspace tool runner receives (built by WorkspaceTools from its options). */
export interface WorkspaceToolContext {
  readonly fs: FileSystemPort;
  readonly paths: WorkspacePaths;
  /** VS Code's `files.exclude` globs (enabled ones), relative to each folder: all tools. */
  readonly excludeGlobs: readonly string[];
  /** VS Code's `search.exclude` globs, added for find_files and search_text. */
  readonly searchExcludeGlobs: readonly string[];
  readonly textSearch: TextSearchPort;
  /** Without one, run_command says it is unavailable. */
  readonly process?: ProcessPort;
  readonly logger?: Logger;
}

export const fail = (error: string): ToolResult => ({ success: false, error });

/** Limits, in one place so the schemas, the docs and the tests agree. */
export const LIMITS = {
  /** read_file: lines per call. */
  readLines: 2000,
  /** read_file: characters per call (about 64k tokens). */
  readChars: 256 * 1024,
  /** read_file: files above this are not read at all. */
  readFileBytes: 32 * 1024 * 1024,
  /** list_files and find_files: entries per call. */
  listEntries: 500,
  listDefaultDepth: 2,
  listMaxDepth: 10,
  searchDefaultResults: 100,
  searchMaxResults: 1000,
  searchQueryChars: 1000,
  /** edit_file: files above this are not edited. */
  editFileBytes: 8 * 1024 * 1024,
  /** write_file: content at most (UTF-8 bytes). */
  writeBytes: 1024 * 1024,
  /** Diff text in edit and write results. */
  resultDiffChars: 4000,
  commandChars: 10_000,
  commandDefaultSeconds: 60,
  commandMaxSeconds: 600,
  /** run_command: combined stdout and stderr kept (start and end). */
  commandOutputBytes: 64 * 1024,
} as const;
