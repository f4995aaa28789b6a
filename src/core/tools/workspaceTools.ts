import type { AgentTool } from '../toolkit/agentTool';
import type { ApprovalPreview } from '../agent/approvalGate';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import type { WorkspaceFolderRef } from '../base/skillRoots';
import type { ToolResult, ToolSchema } from '../skills/tools/skillTools';
import { JsTextSearch } from './jsTextSearch';
import type { ProcessPort } from './processPort';
import { findFiles, listFiles, readFile, searchText } from './readTools';
import { commandPreview, prepareCommand, runCommand } from './runCommandTool';
import type { TextSearchPort } from './textSearch';
import type { Args } from './toolArgs';
import { checkToolArgs } from './toolArgs';
import type { WorkspaceToolContext } from './workspaceToolContext';
import { fail, LIMITS } from './workspaceToolContext';
import { WorkspacePaths } from './workspacePaths';
import type { PreparedChange } from './writeTools';
import { commitChange, prepareEdit, prepareWrite, previewOf } from './writeTools';

const PATH_HELP = 'Relative to the workspace folder (in a multi-root workspace, start with the folder name).';

const tool = (name: string, description: string, properties: Record<string, object>, required: readonly string[] = []): ToolSchema => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false } },
});

export const WORKSPACE_TOOL_SCHEMAS: readonly ToolSchema[] = [
  tool(
    'read_file',
    `Read a text file of the workspace. Returns up to ${LIMITS.readLines} lines per call; use start_line/end_line for a range and the "next" hint to continue. Binary files are described, not shown.`,
    {
      path: { type: 'string', description: `File to read. ${PATH_HELP}` },
      start_line: { type: 'integer', minimum: 1, description: 'First line to return (1-based). Default 1.' },
      end_line: { type: 'integer', minimum: 1, description: 'Last line to return (inclusive). Default: the end of the file.' },
    },
    ['path'],
  ),
  tool(
    'list_files',
    'List the files and folders under a folder, a few levels deep. Folders end with "/". Files ignored by .gitignore or the editor\'s excludes are left out.',
    {
      path: { type: 'string', description: `Folder to list. ${PATH_HELP} Default: the whole workspace.` },
      depth: { type: 'integer', minimum: 1, maximum: LIMITS.listMaxDepth, description: `Levels to descend (1 = only direct entries). Default ${LIMITS.listDefaultDepth}.` },
    },
  ),
  tool(
    'find_files',
    'Find files by glob pattern, e.g. "*.ts" (any depth), "src/**/*.test.ts", "*.{js,jsx}". Matching ignores case. Ignored files are skipped.',
    {
      glob: { type: 'string', description: 'Glob: * and ? stay within a folder, ** spans folders, {a,b} and [abc] work. Without "/", it matches file names at any depth.' },
      path: { type: 'string', description: `Folder to search in; the glob is relative to it. ${PATH_HELP} Default: the whole workspace.` },
    },
    ['glob'],
  ),
  tool(
    'search_text',
    'Search file contents for text, line by line, and return matching lines with their line numbers. Literal and case-insensitive unless regex or case_sensitive say otherwise. Skips ignored, binary and very large files.',
    {
      query: { type: 'string', description: 'Text to find (one line), or a regular expression when regex is true.' },
      path: { type: 'string', description: `Folder or file to search. ${PATH_HELP} Default: the whole workspace.` },
      glob: { type: 'string', description: 'Only files matching this glob, e.g. "*.py" or "src/**/*.ts".' },
      regex: { type: 'boolean', description: 'Treat query as a regular expression. Default false.' },
      case_sensitive: { type: 'boolean', description: 'Match letter case exactly. Default false.' },
      max_results: { type: 'integer', minimum: 1, maximum: LIMITS.searchMaxResults, description: `Most matching lines to return. Default ${LIMITS.searchDefaultResults}.` },
    },
    ['query'],
  ),
  tool(
    'edit_file',
    'Change part of an existing text file: replace old_string with new_string. old_string must match one place (copy it from read_file, with enough surrounding lines to be unique); small indentation differences are tolerated. Needs the user\'s approval.',
    {
      path: { type: 'string', description: `File to edit. ${PATH_HELP}` },
      old_string: { type: 'string', description: 'The exact text to replace.' },
      new_string: { type: 'string', description: 'The text to put in its place (empty to delete).' },
      replace_all: { type: 'boolean', description: 'Replace every occurrence instead of requiring exactly one. Default false.' },
    },
    ['path', 'old_string', 'new_string'],
  ),
  tool(
    'write_file',
    `Create a file, or replace a file's whole content (prefer edit_file for changes to existing files). Creates missing folders. At most ${LIMITS.writeBytes / 1024 / 1024} MiB. Needs the user's approval.`,
    {
      path: { type: 'string', description: `File to write. ${PATH_HELP}` },
      content: { type: 'string', description: 'The complete new content of the file.' },
    },
    ['path', 'content'],
  ),
  tool(
    'run_command',
    `Run a shell command in the workspace and return its exit code and output (stdout and stderr together; long output keeps its start and end). No input can be typed: use non-interactive flags. Default timeout ${LIMITS.commandDefaultSeconds} s. Needs the user's approval.`,
    {
      command: { type: 'string', description: 'The command line, e.g. "npm test -- --grep parser".' },
      cwd: { type: 'string', description: `Folder to run in. ${PATH_HELP} Default: the workspace folder.` },
      timeout_seconds: { type: 'integer', minimum: 1, maximum: LIMITS.commandMaxSeconds, description: `Kill the command after this many seconds. Default ${LIMITS.commandDefaultSeconds}.` },
    },
    ['command'],
  ),
];

export const READ_ONLY_WORKSPACE_TOOLS: ReadonlySet<string> = new Set(['read_file', 'list_files', 'find_files', 'search_text']);

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
    const schema = WORKSPACE_TOOL_SCHEMAS.find((candidate) => candidate.function.name === name);
    if (!schema) {
      return { ok: false, error: `unknown tool "${name}"; the workspace tools are ${WORKSPACE_TOOL_SCHEMAS.map((s) => s.function.name).join(', ')}` };
    }
    return checkToolArgs(schema, args);
  }

  /** Runs one call; every outcome, a bug included, is a result the model can read. */
  async run(name: string, rawArgs: unknown, options: { readonly signal?: AbortSignal } = {}): Promise<ToolResult> {
    const checked = this.check(name, rawArgs);
    if (!checked.ok) return fail(checked.error);
    const { args } = checked;
    const ctx = this.context;
    try {
      switch (name) {
        case 'read_file':
          return await readFile(args, ctx);
        case 'list_files':
          return await listFiles(args, ctx, options.signal);
        case 'find_files':
          return await findFiles(args, ctx, options.signal);
        case 'search_text':
          return await searchText(args, ctx, options.signal);
        case 'run_command':
          return await runCommand(args, ctx, options.signal);
        default:
          return await this.change(name, args);
      }
    } catch (error) {
      ctx.logger?.error(`${name} failed: ${describeError(error)}`);
      return fail(`${name} failed unexpectedly: ${describeError(error)}. Try again, or report this if it repeats.`);
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
    return WORKSPACE_TOOL_SCHEMAS.map((schema) => {
      const name = schema.function.name;
      return {
        spec: { name, description: schema.function.description, parameters: schema.function.parameters as Record<string, unknown> },
        readOnly: READ_ONLY_WORKSPACE_TOOLS.has(name),
        // run_command enforces its own timeout (up to 600 s) and kills the process itself.
        ...(name === 'run_command' ? { timeoutMs: (LIMITS.commandMaxSeconds + 30) * 1000 } : {}),
        run: (args: unknown, context: { readonly signal: AbortSignal }) => this.run(name, args, { signal: context.signal }),
      };
    });
  }
}

function callKey(name: string, args: Args): string {
  return `${name}\u0000${JSON.stringify(Object.entries(args).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}
