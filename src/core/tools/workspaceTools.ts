import type { AgentTool } from '../toolkit/agentTool';
import type { ApprovalPreview } from '../toolkit/approvalPreview';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import type { WorkspaceFolderRef } from '../base/skillRoots';
import { z } from 'zod';
import { parseToolArgs } from '../toolkit/toolArgs';
import type { ToolArgsSchema } from '../toolkit/toolArgs';
import type { ToolDefinition } from '../toolkit/toolDefinition';
import { agentToolsOf, findTool, isReadOnly, runToolDefinition } from '../toolkit/toolDefinition';
import type { ToolResult } from '../toolkit/toolResult';
import { fail } from '../toolkit/toolResult';
import { JsTextSearch } from './jsTextSearch';
import type { ProcessPort } from './processPort';
import { findFiles, listFiles, readFile, searchText } from './readTools';
import { commandPreview, prepareCommand, runCommand } from './runCommandTool';
import type { TextSearchPort } from './textSearch';
import type { Args } from './argAccess';
import type { WorkspaceToolContext } from './workspaceToolContext';
import { LIMITS } from './workspaceToolContext';
import { WorkspacePaths } from './workspacePaths';
import type { PreparedChange } from './writeTools';
import { commitChange, prepareEdit, prepareWrite, previewOf } from './writeTools';

const PATH_HELP = 'Relative to the workspace folder (in a multi-root workspace, start with the folder name).';
const path = (what: string) => z.string().describe(`${what} ${PATH_HELP}`);
const optionalPath = (what: string) => z.string().optional().describe(`${what} ${PATH_HELP} Default: the whole workspace.`);

/** Every workspace tool runs through WorkspaceTools.execute, which owns the shared context and the previews. */
const workspaceTool = <S extends ToolArgsSchema>(definition: Omit<ToolDefinition<S, WorkspaceTools>, 'execute'>): ToolDefinition<S, WorkspaceTools> => ({
  ...definition,
  execute: (args, tools, run) => tools.execute(definition.name, args as Args, run.signal),
});

export const WORKSPACE_TOOLS = [
  workspaceTool({
    name: 'read_file',
    description: `Read a text file of the workspace. Returns up to ${LIMITS.readLines} lines per call; use start_line/end_line for a range and the "next" hint to continue. Binary files are described, not shown.`,
    args: z.strictObject({
      path: path('File to read.'),
      start_line: z.int().min(1).optional().describe('First line to return (1-based). Default 1.'),
      end_line: z.int().min(1).optional().describe('Last line to return (inclusive). Default: the end of the file.'),
    }),
    approval: 'read',
  }),
  workspaceTool({
    name: 'list_files',
    description: 'List the files and folders under a folder, a few levels deep. Folders end with "/". Files ignored by .gitignore or the editor\'s excludes are left out.',
    args: z.strictObject({
      path: optionalPath('Folder to list.'),
      depth: z.int().min(1).max(LIMITS.listMaxDepth).optional().describe(`Levels to descend (1 = only direct entries). Default ${LIMITS.listDefaultDepth}.`),
    }),
    approval: 'read',
  }),
  workspaceTool({
    name: 'find_files',
    description: 'Find files by glob pattern, e.g. "*.ts" (any depth), "src/**/*.test.ts", "*.{js,jsx}". Matching ignores case. Ignored files are skipped.',
    args: z.strictObject({
      glob: z.string().describe('Glob: * and ? stay within a folder, ** spans folders, {a,b} and [abc] work. Without "/", it matches file names at any depth.'),
      path: optionalPath('Folder to search in; the glob is relative to it.'),
    }),
    approval: 'read',
  }),
  workspaceTool({
    name: 'search_text',
    description: 'Search file contents for text, line by line, and return matching lines with their line numbers. Literal and case-insensitive unless regex or case_sensitive say otherwise. Skips ignored, binary and very large files.',
    args: z.strictObject({
      query: z.string().describe('Text to find (one line), or a regular expression when regex is true.'),
      path: optionalPath('Folder or file to search.'),
      glob: z.string().optional().describe('Only files matching this glob, e.g. "*.py" or "src/**/*.ts".'),
      regex: z.boolean().optional().describe('Treat query as a regular expression. Default false.'),
      case_sensitive: z.boolean().optional().describe('Match letter case exactly. Default false.'),
      max_results: z.int().min(1).max(LIMITS.searchMaxResults).optional().describe(`Most matching lines to return. Default ${LIMITS.searchDefaultResults}.`),
    }),
    approval: 'read',
  }),
  workspaceTool({
    name: 'edit_file',
    description: 'Change part of an existing text file: replace old_string with new_string. old_string must match one place (copy it from read_file, with enough surrounding lines to be unique); small indentation differences are tolerated. Needs the user\'s approval.',
    args: z.strictObject({
      path: path('File to edit.'),
      old_string: z.string().describe('The exact text to replace.'),
      new_string: z.string().describe('The text to put in its place (empty to delete).'),
      replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one. Default false.'),
    }),
    approval: 'edit',
  }),
  workspaceTool({
    name: 'write_file',
    description: `Create a file, or replace a file's whole content (prefer edit_file for changes to existing files). Creates missing folders. At most ${LIMITS.writeBytes / 1024 / 1024} MiB. Needs the user's approval.`,
    args: z.strictObject({
      path: path('File to write.'),
      content: z.string().describe('The complete new content of the file.'),
    }),
    approval: 'edit',
  }),
  workspaceTool({
    name: 'run_command',
    description: `Run a shell command in the workspace and return its exit code and output (stdout and stderr together; long output keeps its start and end). No input can be typed: use non-interactive flags. Default timeout ${LIMITS.commandDefaultSeconds} s. Needs the user's approval.`,
    args: z.strictObject({
      command: z.string().describe('The command line, e.g. "npm test -- --grep parser".'),
      cwd: z.string().optional().describe(`Folder to run in. ${PATH_HELP} Default: the workspace folder.`),
      timeout_seconds: z.int().min(1).max(LIMITS.commandMaxSeconds).optional().describe(`Kill the command after this many seconds. Default ${LIMITS.commandDefaultSeconds}.`),
    }),
    approval: 'command',
    // run_command enforces its own timeout (up to 600 s) and kills the process itself.
    timeoutMs: (LIMITS.commandMaxSeconds + 30) * 1000,
  }),
] as const;

export const READ_ONLY_WORKSPACE_TOOLS: ReadonlySet<string> = new Set(WORKSPACE_TOOLS.filter(isReadOnly).map((tool) => tool.name));

export interface WorkspaceToolOptions {
  readonly fs: FileSystemPort;
  readonly folders: readonly WorkspaceFolderRef[];
  readonly excludeGlobs?: readonly string[];
  readonly searchExcludeGlobs?: readonly string[];
  /** Defaults to JsTextSearch; the host passes a RipgrepSearch over VS Code's bundled rg. */
  readonly textSearch?: TextSearchPort;
  readonly process?: ProcessPort;
  readonly logger?: Logger;
}

/** Previews remembered for the write that follows an approval, at most this many. */
const MAX_REMEMBERED_PREVIEWS = 32;
const MISSING = '\u0000missing';

/**
 * The workspace tools for one workspace: schemas for the model, a runner that never throws, the
 * previews approval cards show, and AgentTool adapters for the loop. Approval itself is the loop's
 * job (through its ApprovalGate); `preview` is what the gate shows while asking.
 */
export class WorkspaceTools {
  readonly context: WorkspaceToolContext;
  /** File text each previewed edit was based on, keyed by call, to catch changes made while asking. */
  private readonly previewed = new Map<string, string>();

  constructor(options: WorkspaceToolOptions) {
    this.context = {
      fs: options.fs,
      paths: new WorkspacePaths(options.fs, options.folders),
      excludeGlobs: options.excludeGlobs ?? [],
      searchExcludeGlobs: options.searchExcludeGlobs ?? [],
      textSearch: options.textSearch ?? new JsTextSearch(options.fs),
      ...(options.process ? { process: options.process } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    };
  }

  private check(name: string, args: unknown): { ok: true; args: Args } | { ok: false; error: string } {
    const found = findTool<WorkspaceTools>(WORKSPACE_TOOLS, name, 'workspace');
    if (!found.ok) return found;
    const checked = parseToolArgs(name, found.definition.args, args, found.definition.example);
    return checked.ok ? { ok: true, args: checked.args as Args } : checked;
  }

  /** Checks and runs one call by name; every outcome, a bug included, is a result the model can read. */
  async run(name: string, rawArgs: unknown, options: { readonly signal?: AbortSignal } = {}): Promise<ToolResult> {
    const found = findTool<WorkspaceTools>(WORKSPACE_TOOLS, name, 'workspace');
    if (!found.ok) return fail(found.error);
    return runToolDefinition(found.definition, rawArgs, this, { signal: options.signal ?? new AbortController().signal, turnId: '' }, (error) =>
      this.context.logger?.error(`${name} failed: ${describeError(error)}`),
    );
  }

  /** Runs a checked call (the definitions' `execute`). */
  async execute(name: string, args: Args, signal?: AbortSignal): Promise<ToolResult> {
    const ctx = this.context;
    switch (name) {
      case 'read_file':
        return readFile(args, ctx);
      case 'list_files':
        return listFiles(args, ctx, signal);
      case 'find_files':
        return findFiles(args, ctx, signal);
      case 'search_text':
        return searchText(args, ctx, signal);
      case 'run_command':
        return runCommand(args, ctx, signal);
      default:
        return this.change(name, args);
    }
  }

  private async change(name: string, args: Args): Promise<ToolResult> {
    const prepared = name === 'edit_file' ? await prepareEdit(args, this.context) : await prepareWrite(args, this.context);
    const key = callKey(name, args);
    const shown = this.previewed.get(key);
    this.previewed.delete(key);
    if (!prepared.ok) return fail(prepared.error);
    if (shown !== undefined && shown !== (prepared.change.before ?? MISSING)) {
      return fail(`"${prepared.change.target.display}" changed while the ${name === 'edit_file' ? 'edit' : 'write'} waited for approval, so it was not applied; read the file again and redo the change`);
    }
    return commitChange(prepared.change as PreparedChange, this.context);
  }

  /**
   * What a call would do, for the approval card: a summary, and a diff for edits and writes.
   * `ok: false` means the call will be refused anyway, so nobody needs to be asked. Undefined for
   * tools that need no approval.
   */
  async preview(name: string, rawArgs: unknown): Promise<ApprovalPreview | undefined> {
    if (READ_ONLY_WORKSPACE_TOOLS.has(name)) return undefined;
    const checked = this.check(name, rawArgs);
    if (!checked.ok) return checked.error.startsWith('unknown tool') ? undefined : { ok: false, error: checked.error };
    const { args } = checked;
    try {
      if (name === 'run_command') {
        if (!this.context.process) return { ok: false, error: 'run_command is not available here' };
        return commandPreview(await prepareCommand(args, this.context));
      }
      const prepared = name === 'edit_file' ? await prepareEdit(args, this.context) : await prepareWrite(args, this.context);
      if (!prepared.ok) return prepared;
      const key = callKey(name, args);
      this.previewed.delete(key);
      this.previewed.set(key, prepared.change.before ?? MISSING);
      while (this.previewed.size > MAX_REMEMBERED_PREVIEWS) this.previewed.delete(this.previewed.keys().next().value as string);
      return previewOf(prepared.change);
    } catch (error) {
      return { ok: false, error: describeError(error) };
    }
  }

  /** The tools as the agent loop takes them. */
  agentTools(): AgentTool[] {
    return agentToolsOf<WorkspaceTools>(WORKSPACE_TOOLS, () => this, (tool, error) => this.context.logger?.error(`${tool} failed: ${describeError(error)}`));
  }
}

function callKey(name: string, args: Args): string {
  return `${name}\u0000${JSON.stringify(Object.entries(args).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}
