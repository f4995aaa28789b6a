import type { ApprovalPreview } from '../toolkit/approvalPreview';
import type { ToolResult } from '../toolkit/toolResult';
import type { Args } from './argAccess';
import { numberArg, stringArg } from './argAccess';
import type { WorkspaceToolContext } from './workspaceToolContext';
import { fail, LIMITS } from './workspaceToolContext';
import type { ResolvedPath } from './workspacePaths';

/**
 * run_command: one shell command line in a workspace folder, with a timeout, an output cap that
 * keeps the start and the end, and the whole process group killed on timeout or Stop. stdin is
 * closed, so a command that waits for input ends instead of hanging.
 */

type PreparedCommand = { readonly ok: true; readonly command: string; readonly cwd: ResolvedPath; readonly timeoutSeconds: number } | { readonly ok: false; readonly error: string };

export async function prepareCommand(args: Args, ctx: WorkspaceToolContext): Promise<PreparedCommand> {
  const command = stringArg(args, 'command') ?? '';
  if (command.trim() === '') return { ok: false, error: 'command is empty; give a shell command line such as "npm test"' };
  if (command.length > LIMITS.commandChars) return { ok: false, error: `command is ${command.length} characters long; the limit is ${LIMITS.commandChars}. Put long scripts in a file and run that.` };
  if (command.includes('\u0000')) return { ok: false, error: 'command contains a NUL character' };
  const resolved = await ctx.paths.resolve(stringArg(args, 'cwd') ?? '');
  if (!resolved.ok) return { ok: false, error: `cwd: ${resolved.error}` };
  const cwd = resolved.value;
  if (cwd.type !== 'directory') {
    return { ok: false, error: cwd.type === undefined ? `cwd "${cwd.display}" does not exist` : `cwd "${cwd.display}" is a file; give the folder to run in` };
  }
  return { ok: true, command, cwd, timeoutSeconds: numberArg(args, 'timeout_seconds') ?? LIMITS.commandDefaultSeconds };
}

export function commandPreview(prepared: PreparedCommand): ApprovalPreview {
  if (!prepared.ok) return prepared;
  const shown = prepared.command.length > 300 ? `${prepared.command.slice(0, 297)}...` : prepared.command;
  return { ok: true, summary: `Run in ${prepared.cwd.display}: ${shown}` };
}

export async function runCommand(args: Args, ctx: WorkspaceToolContext, signal?: AbortSignal): Promise<ToolResult> {
  if (!ctx.process) return fail('run_command is not available here: this host cannot start processes');
  const prepared = await prepareCommand(args, ctx);
  if (!prepared.ok) return fail(prepared.error);
  const result = await ctx.process.runCommand({
    command: prepared.command,
    cwd: prepared.cwd.real,
    timeoutMs: prepared.timeoutSeconds * 1000,
    maxOutputBytes: LIMITS.commandOutputBytes,
    ...(signal ? { signal } : {}),
  });
  if (result.spawnError) return fail(`the command could not be started: ${result.spawnError}`);
  if (result.aborted) return fail('stopped by the user; the command and the processes it started were killed');
  const notes: string[] = [];
  if (result.timedOut) {
    notes.push(`killed after the ${prepared.timeoutSeconds} s timeout; pass a larger timeout_seconds (up to ${LIMITS.commandMaxSeconds}) if it needs longer`);
  } else if (result.exitCode !== 0) {
    notes.push(result.exitCode === null ? `ended by signal ${result.signal ?? 'unknown'}` : `exited with code ${result.exitCode}`);
  }
  if (result.omittedBytes > 0) {
    notes.push(`output was ${result.totalBytes.toLocaleString('en-US')} bytes; the middle ${result.omittedBytes.toLocaleString('en-US')} were left out`);
  }
  return {
    success: true,
    command: prepared.command,
    cwd: prepared.cwd.display,
    exit_code: result.exitCode,
    ...(result.timedOut ? { timed_out: true } : {}),
    ...(result.signal && !result.timedOut ? { signal: result.signal } : {}),
    output: result.output,
    duration_seconds: Math.round(result.durationMs / 100) / 10,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}
