import * as path from 'node:path';
import type { ToolResult } from '../toolkit/toolResult';
import { closestNames } from '../text/closestNames';
import { compileUserGlob, userGlobProblem } from './globPattern';
import { IgnoreRules } from './ignoreRules';
import { binaryKind, decodeTextFile, splitLines } from './textFiles';
import type { Args } from './argAccess';
import { booleanArg, numberArg, stringArg } from './argAccess';
import type { WorkspaceToolContext } from './workspaceToolContext';
import { fail, LIMITS } from './workspaceToolContext';
import type { ResolvedPath } from './workspacePaths';
import { DEFAULT_MAX_ENTRIES, walkFolder } from './workspaceWalker';

const count = (n: number): string => n.toLocaleString('en-US');

/** A "not found" refusal that names similar entries of the parent folder. */
async function notFound(target: ResolvedPath, ctx: WorkspaceToolContext, what: string): Promise<ToolResult> {
  let names: string[] = [];
  try {
    names = (await ctx.fs.readDirectory(path.dirname(target.absolute))).map((entry) => entry.name);
  } catch {
    // the parent folder is missing too
  }
  const near = closestNames(path.basename(target.absolute), names, 3);
  const parent = target.relative.includes('/') ? target.relative.slice(0, target.relative.lastIndexOf('/')) : '';
  const hint = near.length > 0 ? `; similar names there: ${near.map((name) => `"${ctx.paths.display(target.folder, parent ? `${parent}/${name}` : name)}"`).join(', ')}` : '';
  return fail(`${what} "${target.display}" does not exist${hint}. Use find_files to locate it.`);
}

export async function readFile(args: Args, ctx: WorkspaceToolContext): Promise<ToolResult> {
  const resolved = await ctx.paths.resolve(stringArg(args, 'path') ?? '');
  if (!resolved.ok) return fail(resolved.error);
  const target = resolved.value;
  if (target.type === undefined) return notFound(target, ctx, 'the file');
  if (target.type === 'directory') return fail(`"${target.display}" is a folder; use list_files(path="${target.display}") to see what is in it`);
  if (target.type !== 'file') return fail(`"${target.display}" is not a regular file (a device, socket or pipe) and cannot be read`);
  const stat = await ctx.fs.stat(target.absolute);
  const size = stat?.size ?? 0;
  if (size > LIMITS.readFileBytes) {
    return fail(`"${target.display}" is ${count(size)} bytes, too large for read_file (limit ${count(LIMITS.readFileBytes)}); find lines with search_text, or use run_command with head, tail or sed -n`);
  }
  const decoded = decodeTextFile(await ctx.fs.readFile(target.absolute));
  if (decoded.kind === 'binary') {
    const kind = binaryKind(target.display);
    return { success: true, path: target.display, binary: true, size, note: `"${target.display}" is a ${kind} (${count(size)} bytes); its content is not shown` };
  }
  const lines = splitLines(decoded.text);
  const total = lines.length;
  const notes: string[] = [];
  if (decoded.lossy) notes.push('the file is not valid UTF-8; undecodable bytes are shown as U+FFFD');
  if (decoded.encoding !== 'utf-8') notes.push(`the file is ${decoded.encoding.toUpperCase()}`);
  if (total === 0) return { success: true, path: target.display, content: '', total_lines: 0, note: ['the file is empty', ...notes].join('; ') };

  const start = numberArg(args, 'start_line') ?? 1;
  const wantedEnd = Math.min(numberArg(args, 'end_line') ?? total, total);
  if (start > total) return fail(`start_line ${start} is past the end of "${target.display}", which has ${count(total)} lines`);
  if (wantedEnd < start) return fail(`end_line ${wantedEnd} is before start_line ${start}`);

  const taken: string[] = [];
  let chars = 0;
  let end = start - 1;
  let cutLine = false;
  while (end < wantedEnd && taken.length < LIMITS.readLines) {
    const line = lines[end] as string;
    if (chars + line.length + 1 > LIMITS.readChars) {
      if (taken.length === 0) {
        // One line longer than the whole budget (minified code, data): show its start.
        taken.push(line.slice(0, LIMITS.readChars));
        end++;
        cutLine = true;
      }
      break;
    }
    taken.push(line);
    chars += line.length + 1;
    end++;
  }
  const result: Record<string, unknown> = { success: true, path: target.display, content: taken.join('\n'), start_line: start, end_line: end, total_lines: total };
  if (cutLine) notes.push(`line ${end} is ${count((lines[end - 1] as string).length)} characters long; only its first ${count(LIMITS.readChars)} are shown`);
  if (end < wantedEnd) {
    result['truncated'] = true;
    result['next'] = `read_file(path="${target.display}", start_line=${end + 1})`;
    notes.push(`stopped at line ${end} of ${count(total)} (at most ${count(LIMITS.readLines)} lines or ${count(LIMITS.readChars)} characters per call); continue with next`);
  }
  if (notes.length > 0) result['note'] = notes.join('; ');
  return result as ToolResult;
}

export async function listFiles(args: Args, ctx: WorkspaceToolContext, signal?: AbortSignal): Promise<ToolResult> {
  const scope = await ctx.paths.scope(stringArg(args, 'path'));
  if (!scope.ok) return fail(scope.error);
  const depth = numberArg(args, 'depth') ?? LIMITS.listDefaultDepth;
  const entries: string[] = [];
  let truncated = false;
  for (const target of scope.value) {
    if (target.type === undefined) return notFound(target, ctx, 'the folder');
    if (target.type !== 'directory') return fail(`"${target.display}" is a file, not a folder; use read_file(path="${target.display}") to read it`);
    const rules = new IgnoreRules(ctx.fs, target.folder.fsPath, ctx.excludeGlobs);
    const outcome = await walkFolder(ctx.fs, rules, {
      start: target.relative,
      maxDepth: depth,
      order: 'breadth',
      ...(signal ? { signal } : {}),
      visit: (entry) => {
        if (entries.length >= LIMITS.listEntries) return 'stop';
        const shown = ctx.paths.display(target.folder, entry.relative);
        entries.push(entry.type === 'directory' ? `${shown}/` : entry.type === 'symlink' ? `${shown}@` : shown);
        return undefined;
      },
    });
    if (outcome.stopped === 'aborted') return fail('stopped by the user');
    if (outcome.stopped) {
      truncated = true;
      break;
    }
  }
  entries.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const where = scope.value.length === 1 ? (scope.value[0] as ResolvedPath).display : 'the workspace';
  const notes = ['folders end with "/", symbolic links with "@"; ignored files (.gitignore, excludes) and .git are left out'];
  if (entries.length === 0) notes.unshift(`${where} is empty, or everything in it is ignored`);
  if (truncated) notes.unshift(`only the first ${count(entries.length)} entries (breadth first) are shown; list a subfolder or use a smaller depth`);
  return { success: true, path: where, depth, entries, ...(truncated ? { truncated: true } : {}), note: notes.join('; ') };
}

export async function findFiles(args: Args, ctx: WorkspaceToolContext, signal?: AbortSignal): Promise<ToolResult> {
  const glob = stringArg(args, 'glob') ?? '';
  const problem = userGlobProblem(glob);
  if (problem) return fail(problem);
  const matcher = compileUserGlob(glob, { caseInsensitive: true });
  const scope = await ctx.paths.scope(stringArg(args, 'path'));
  if (!scope.ok) return fail(scope.error);
  const files: string[] = [];
  let truncated = false;
  let walkLimit = false;
  for (const target of scope.value) {
    if (target.type === undefined) return notFound(target, ctx, 'the folder');
    if (target.type !== 'directory') return fail(`"${target.display}" is a file; give a folder as path, or read the file with read_file`);
    const rules = new IgnoreRules(ctx.fs, target.folder.fsPath, [...ctx.excludeGlobs, ...ctx.searchExcludeGlobs]);
    const prefix = target.relative === '' ? 0 : target.relative.length + 1;
    const outcome = await walkFolder(ctx.fs, rules, {
      start: target.relative,
      order: 'depth',
      ...(signal ? { signal } : {}),
      visit: (entry) => {
        if (entry.type !== 'file' || !matcher(entry.relative.slice(prefix))) return undefined;
        if (files.length >= LIMITS.listEntries) return 'stop';
        files.push(ctx.paths.display(target.folder, entry.relative));
        return undefined;
      },
    });
    if (outcome.stopped === 'aborted') return fail('stopped by the user');
    if (outcome.stopped) {
      truncated = true;
      walkLimit = outcome.stopped === 'limit';
      break;
    }
  }
  const where = scope.value.length === 1 ? (scope.value[0] as ResolvedPath).display : 'the workspace';
  const result: Record<string, unknown> = { success: true, glob, path: where, count: files.length, files };
  if (truncated) {
    result['truncated'] = true;
    result['note'] = walkLimit
      ? `the search stopped after visiting ${count(DEFAULT_MAX_ENTRIES)} entries; give a narrower path`
      : `only the first ${count(files.length)} matches are shown; use a narrower glob or path`;
  } else if (files.length === 0) {
    result['note'] = `no file matches. A glob without "/" matches file names at any depth ("*.ts"); with "/" it matches paths below ${where} ("src/**/*.ts"). Ignored files (.gitignore, excludes) are skipped.`;
  }
  return result as ToolResult;
}

export async function searchText(args: Args, ctx: WorkspaceToolContext, signal?: AbortSignal): Promise<ToolResult> {
  const query = stringArg(args, 'query') ?? '';
  if (query === '') return fail('query is empty; give the text (or, with regex true, the regular expression) to look for');
  if (query.length > LIMITS.searchQueryChars) return fail(`query is ${count(query.length)} characters long; the limit is ${count(LIMITS.searchQueryChars)}`);
  if (/[\n\r]/.test(query)) return fail('query spans several lines; search_text matches one line at a time, so search for one distinctive line');
  const glob = stringArg(args, 'glob');
  if (glob !== undefined) {
    const problem = userGlobProblem(glob);
    if (problem) return fail(problem);
  }
  const include = glob !== undefined ? compileUserGlob(glob, { caseInsensitive: true }) : undefined;
  const regex = booleanArg(args, 'regex') ?? false;
  const caseSensitive = booleanArg(args, 'case_sensitive') ?? false;
  const maxResults = numberArg(args, 'max_results') ?? LIMITS.searchDefaultResults;
  const scope = await ctx.paths.scope(stringArg(args, 'path'));
  if (!scope.ok) return fail(scope.error);

  const files: { path: string; matches: { line: number; text: string }[] }[] = [];
  let found = 0;
  let truncated = false;
  let engine = '';
  const notes: string[] = [];
  for (const target of scope.value) {
    if (target.type === undefined) return notFound(target, ctx, 'the path');
    if (target.type !== 'directory' && target.type !== 'file') return fail(`"${target.display}" is not a file or folder`);
    const rules = new IgnoreRules(ctx.fs, target.folder.fsPath, [...ctx.excludeGlobs, ...ctx.searchExcludeGlobs]);
    const outcome = await ctx.textSearch.search({
      pattern: query,
      regex,
      caseSensitive,
      rules,
      start: target.relative,
      startIsFile: target.type === 'file',
      ...(include && glob !== undefined ? { include, includeGlob: glob.trim() } : {}),
      maxResults: maxResults - found,
      ...(signal ? { signal } : {}),
    });
    if (!outcome.ok) return fail(outcome.error);
    engine = outcome.engine;
    if (outcome.note) notes.push(outcome.note);
    for (const match of outcome.matches) {
      const shown = ctx.paths.display(target.folder, match.path);
      const last = files[files.length - 1];
      const group = last && last.path === shown ? last : { path: shown, matches: [] };
      if (group !== last) files.push(group);
      group.matches.push({ line: match.line, text: match.text });
    }
    found += outcome.matches.length;
    if (outcome.truncated) {
      truncated = true;
      break;
    }
    const rest = scope.value.slice(scope.value.indexOf(target) + 1);
    if (found >= maxResults && rest.length > 0) {
      truncated = true;
      notes.push(`${rest.map((skipped) => `"${skipped.display}"`).join(', ')} not searched`);
      break;
    }
  }
  if (truncated) notes.push(`only the first ${count(found)} matching lines are shown; narrow the search with path or glob, or raise max_results (up to ${LIMITS.searchMaxResults})`);
  if (found === 0) {
    const how = `${regex ? 'regular expression' : 'literal text'}, ${caseSensitive ? 'case-sensitive' : 'ignoring case'}`;
    notes.push(`no matches (${how}); ignored files, binary files and files over 1 MiB are not searched`);
  }
  return {
    success: true,
    query,
    count: found,
    files,
    ...(truncated ? { truncated: true } : {}),
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    engine,
  };
}
