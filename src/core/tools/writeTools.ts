import type { ApprovalPreview } from '../toolkit/approvalPreview';
import { applyPatch } from '../text/patchMatcher';
import type { PatchStrategy } from '../text/patchMatcher';
import type { ToolResult } from '../toolkit/toolResult';
import type { TextEncodingName } from './textFiles';
import { decodeTextFile, encodeText } from './textFiles';
import type { Args } from './argAccess';
import { booleanArg, stringArg } from './argAccess';
import { clipDiff, unifiedDiff } from '../text/unifiedDiff';
import type { WorkspaceToolContext } from './workspaceToolContext';
import { LIMITS } from './workspaceToolContext';
import type { ResolvedPath } from './workspacePaths';

/**
 * edit_file and write_file, in two steps: `prepare` works out the new text (and refuses what
 * cannot be done) without touching the disk, so the approval card can show the diff first;
 * `commit` writes atomically. WorkspaceTools checks between the two that the file did not change
 * while the user was deciding.
 */

export interface PreparedChange {
  readonly tool: 'edit_file' | 'write_file';
  readonly target: ResolvedPath;
  /** Current text; undefined when the file does not exist yet. */
  readonly before: string | undefined;
  readonly after: string;
  readonly encoding: TextEncodingName;
  readonly bom: boolean;
  readonly replacements?: number;
  readonly strategy?: PatchStrategy;
  readonly lines?: readonly number[];
  /** A note for the result, e.g. that an existing binary file is replaced. */
  readonly note?: string;
}

type Prepared = { readonly ok: true; readonly change: PreparedChange } | { readonly ok: false; readonly error: string };

const count = (n: number): string => n.toLocaleString('en-US');

export async function prepareEdit(args: Args, ctx: WorkspaceToolContext): Promise<Prepared> {
  const resolved = await ctx.paths.resolve(stringArg(args, 'path') ?? '');
  if (!resolved.ok) return resolved;
  const target = resolved.value;
  if (target.type === undefined) return { ok: false, error: `"${target.display}" does not exist; create it with write_file, or find the right path with find_files` };
  if (target.type !== 'file') return { ok: false, error: `"${target.display}" is not a file; edit_file changes the text of one file` };
  const stat = await ctx.fs.stat(target.real);
  if ((stat?.size ?? 0) > LIMITS.editFileBytes) {
    return { ok: false, error: `"${target.display}" is ${count(stat?.size ?? 0)} bytes; edit_file edits files up to ${count(LIMITS.editFileBytes)} bytes` };
  }
  const decoded = decodeTextFile(await ctx.fs.readFile(target.real));
  if (decoded.kind === 'binary') return { ok: false, error: `"${target.display}" is a binary file; edit_file only edits text` };
  if (decoded.lossy) return { ok: false, error: `"${target.display}" is not valid UTF-8; editing it as text would corrupt it` };
  const outcome = applyPatch(decoded.text, stringArg(args, 'old_string') ?? '', stringArg(args, 'new_string') ?? '', { replaceAll: booleanArg(args, 'replace_all') ?? false });
  if (!outcome.ok) return { ok: false, error: `${target.display}: ${outcome.error}` };
  return {
    ok: true,
    change: {
      tool: 'edit_file',
      target,
      before: decoded.text,
      after: outcome.text,
      encoding: decoded.encoding,
      bom: decoded.bom,
      replacements: outcome.replacements,
      strategy: outcome.strategy,
      lines: outcome.lines,
    },
  };
}

export async function prepareWrite(args: Args, ctx: WorkspaceToolContext): Promise<Prepared> {
  const content = stringArg(args, 'content') ?? '';
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > LIMITS.writeBytes) {
    return { ok: false, error: `content is ${count(bytes)} bytes; write_file writes at most ${count(LIMITS.writeBytes)} bytes per file. Write a smaller file, or generate it with a command.` };
  }
  const resolved = await ctx.paths.resolve(stringArg(args, 'path') ?? '');
  if (!resolved.ok) return resolved;
  const target = resolved.value;
  if (target.relative === '') return { ok: false, error: 'path names the workspace folder itself; give a file path such as "notes/todo.md"' };
  if (target.type === 'directory') return { ok: false, error: `"${target.display}" is a folder; give a file path inside it` };
  if (target.type !== undefined && target.type !== 'file') return { ok: false, error: `"${target.display}" is not a regular file and cannot be written` };
  if (target.type === undefined) return { ok: true, change: { tool: 'write_file', target, before: undefined, after: content, encoding: 'utf-8', bom: false } };
  const decoded = decodeTextFile(await ctx.fs.readFile(target.real));
  if (decoded.kind === 'binary') {
    const size = (await ctx.fs.stat(target.real))?.size ?? 0;
    return { ok: true, change: { tool: 'write_file', target, before: `[binary file, ${count(size)} bytes]\n`, after: content, encoding: 'utf-8', bom: false, note: 'a binary file was replaced by text' } };
  }
  // Keep a UTF-8 byte order mark or a UTF-16 encoding the file already had.
  return { ok: true, change: { tool: 'write_file', target, before: decoded.text, after: content, encoding: decoded.encoding, bom: decoded.bom } };
}

/** The summary and diff for the approval card. */
export function previewOf(change: PreparedChange): ApprovalPreview {
  const path = change.target.display;
  const diff = unifiedDiff(change.before, change.after, path);
  const lines = `+${diff.added} −${diff.removed} lines`;
  let summary: string;
  if (change.tool === 'edit_file') {
    const n = change.replacements ?? 1;
    summary = `Edit ${path}: ${n} replacement${n === 1 ? '' : 's'}, ${lines}`;
  } else {
    summary = change.before === undefined ? `Create ${path} (${diff.added} lines)` : `Overwrite ${path}: ${lines}`;
  }
  return { ok: true, summary, diff: { path, before: change.before, after: change.after, unified: diff.text, added: diff.added, removed: diff.removed } };
}

export async function commitChange(change: PreparedChange, ctx: WorkspaceToolContext): Promise<ToolResult> {
  const path = change.target.display;
  if (change.before === change.after) return { success: true, path, changed: false, note: 'the file already has this content; nothing was written' };
  await ctx.fs.writeFileAtomic(change.target.real, encodeText(change.after, change.encoding, change.bom));
  const diff = unifiedDiff(change.before, change.after, path);
  const result: Record<string, unknown> = { success: true, path, changed: true };
  const notes: string[] = [];
  if (change.tool === 'edit_file') {
    result['replacements'] = change.replacements;
    result['lines'] = change.lines;
    if (change.strategy && change.strategy !== 'exact') {
      notes.push(`old_string matched only ${change.strategy === 'line-trimmed' ? 'ignoring indentation' : 'ignoring whitespace'}; check the diff`);
    }
  } else {
    result['created'] = change.before === undefined;
    result['bytes'] = Buffer.byteLength(change.after, 'utf8');
  }
  result['added'] = diff.added;
  result['removed'] = diff.removed;
  result['diff'] = clipDiff(diff.text, LIMITS.resultDiffChars);
  if (change.note) notes.push(change.note);
  if (notes.length > 0) result['note'] = notes.join('; ');
  return result as ToolResult;
}
