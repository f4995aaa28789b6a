import { z } from 'zod';
import { TOP_LEVEL_CATEGORY_LABEL } from '../../../shared/system/categoryLabel';
import { clipWords, oneLine } from '../../text/clip';
import { defineTool, findTool, runToolDefinition } from '../../toolkit/toolDefinition';
import type { ToolResult } from '../../toolkit/toolResult';
import { fail } from '../../toolkit/toolResult';
import { describeError } from '../../base/logger';
import type { SkillToolContext } from './skillToolContext';
import { lookupSkill, runSkillManage } from './skillManage';
import { decodeSkillBytes } from '../model/skillParser';
import { listSkillFiles, qualifiedName, resolveInSkill } from '../model/skillPaths';
import { SkillSearch } from '../search/skillSearch';
import type { SkillRecord } from '../model/skillTypes';
import { SKILL_FILE, SUPPORT_FOLDERS } from '../model/skillTypes';

export const MAX_LISTED_SKILLS = 200;
export const MAX_LIST_CHARS = 20_000;
export const MAX_QUERY_RESULTS = 30;
const SHORT_DESCRIPTION = 140;
const MAX_COUNTED_CATEGORIES = 100;
/** About 64k tokens: more than this in one tool result crowds out the conversation. */
export const MAX_VIEW_CHARS = 256 * 1024;
/** Files above this are not even read for a preview. */
const MAX_VIEW_READ_BYTES = 8 * 1024 * 1024;

const NAME = 'Skill name, or "category/name" when a name is ambiguous.';

export const SKILLS_LIST_TOOL = defineTool({
  name: 'skills_list',
  description:
    'List the available skills (name and short description, grouped by category). Use it to find a skill when the catalog in the prompt does not show one that fits; pass query to rank skills by relevance, or category to narrow the list.',
  args: z.strictObject({
    category: z.string().optional().describe('Only this category and its subcategories, e.g. "devops" or "devops/k8s".'),
    query: z.string().optional().describe('Words describing the task; results are ranked by relevance.'),
  }),
  approval: 'read',
  execute: async (args, ctx: SkillToolContext) => listSkills(args, ctx),
});

export const SKILL_VIEW_TOOL = defineTool({
  name: 'skill_view',
  description:
    'Load a skill before acting on a task it covers: returns the full SKILL.md and the list of its linked files. With file_path, returns one linked file (e.g. "references/api.md"); open linked files only when the instructions call for them.',
  args: z.strictObject({
    name: z.string().describe(NAME),
    file_path: z.string().optional().describe('A file inside the skill folder, relative to it, e.g. "references/api.md".'),
  }),
  approval: 'read',
  example: '{"name": "my-skill"}',
  execute: async (args, ctx: SkillToolContext) => recordUsage(await viewSkill(args, ctx), args, 'view', ctx),
});

export const SKILL_MANAGE_TOOL = defineTool({
  name: 'skill_manage',
  description: [
    'Create or change skills (folders with a SKILL.md: YAML frontmatter with name and description, then Markdown instructions).',
    'Actions: create (name, content, optional category and scope "project" or "user") saves a new skill after a task worth repeating;',
    'patch (name, old_string, new_string, optional replace_all and file_path) fixes part of a skill you found wrong or outdated;',
    'edit (name, content) replaces the whole SKILL.md; delete (name) removes a skill;',
    'write_file / remove_file (name, file_path, content) manage files under references/, templates/, scripts/ or assets/.',
    'Changes are validated first; invalid ones are refused with the reasons.',
  ].join(' '),
  args: z.strictObject({
    action: z.enum(['create', 'patch', 'edit', 'delete', 'write_file', 'remove_file']),
    name: z.string().describe('Skill name: lowercase letters, digits and single hyphens, at most 64 characters.'),
    content: z.string().optional().describe('create/edit: the whole SKILL.md (frontmatter name must equal name). write_file: the file text.'),
    category: z.string().optional().describe('create: folder path for the skill, e.g. "devops/k8s" (at most 3 levels).'),
    scope: z.enum(['project', 'user']).optional().describe('create: "project" (default, shared through the repository) or "user" (all your projects).'),
    old_string: z.string().optional().describe('patch: the exact text to replace, with enough context to be unique.'),
    new_string: z.string().optional().describe('patch: the replacement text.'),
    replace_all: z.boolean().optional().describe('patch: replace every match instead of requiring a unique one.'),
    file_path: z.string().optional().describe('patch/write_file/remove_file: a file under references/, templates/, scripts/ or assets/ (patch defaults to SKILL.md).'),
  }),
  // Skills are files (project ones live in the repository): changes ask like any edit.
  approval: 'edit',
  example: '{"action": "create", "name": "my-skill", "content": "..."}',
  execute: async (args, ctx: SkillToolContext) => recordUsage(await runSkillManage(args, ctx), args, 'edit', ctx),
});

/** The skill tools, each defined once. */
export const SKILL_TOOLS = [SKILLS_LIST_TOOL, SKILL_VIEW_TOOL, SKILL_MANAGE_TOOL] as const;

/** Runs one skill tool call by name; every outcome, including a bug, comes back as a result the model can read. */
export async function runSkillTool(name: string, args: unknown, ctx: SkillToolContext): Promise<ToolResult> {
  const found = findTool<SkillToolContext>(SKILL_TOOLS, name, 'skill');
  if (!found.ok) return fail(found.error);
  return runToolDefinition(found.definition, args, ctx, { signal: new AbortController().signal, turnId: '' }, (error) =>
    ctx.logger?.error(`${name} failed: ${describeError(error)}`),
  );
}

function recordUsage(result: ToolResult, args: { readonly name: string; readonly action?: string }, kind: 'view' | 'edit', ctx: SkillToolContext): ToolResult {
  if (!result.success) return result;
  const name = typeof result['name'] === 'string' ? result['name'] : args.name;
  if (!(kind === 'edit' && args.action === 'delete')) {
    ctx.usage?.record(name, kind === 'edit' && args.action === 'create' ? 'create' : kind);
  }
  return result;
}

const shortDescription = (text: string): string => clipWords(oneLine(text), SHORT_DESCRIPTION);

const TOP_LEVEL = TOP_LEVEL_CATEGORY_LABEL;

function listSkills(args: { readonly category?: string | undefined; readonly query?: string | undefined }, ctx: SkillToolContext): ToolResult {
  let active = ctx.index.active();
  let category = '';
  if (args.category !== undefined && args.category.trim() !== '') {
    // Only a filter, so any folder name the index found (dot-folders included) is fine here.
    category = args.category.trim().replace(/^\/+|\/+$/g, '');
    active = active.filter((record) => record.category === category || record.category.startsWith(`${category}/`));
    if (active.length === 0) {
      const known = [...new Set(ctx.index.active().map((record) => record.category).filter(Boolean))].sort();
      const shown = known.slice(0, 40).map((c) => `"${c}"`).join(', ');
      return fail(`no skills in category "${category}"; categories: ${shown || 'none (every skill is at the top level)'}`);
    }
  }
  const query = args.query?.trim() ?? '';
  const scope = category ? { category } : {};
  if (query) return rankedList(query, active, ctx, scope);

  const counts = new Map<string, number>();
  for (const record of active) counts.set(record.category || TOP_LEVEL, (counts.get(record.category || TOP_LEVEL) ?? 0) + 1);
  const categoryCounts = Object.fromEntries([...counts].sort((a, b) => compare(a[0], b[0])).slice(0, MAX_COUNTED_CATEGORIES));
  // Room for the per-category counts that a cut list carries, so the whole result stays near the cap.
  const budget = MAX_LIST_CHARS - JSON.stringify(categoryCounts).length - 400;
  const sorted = [...active].sort((a, b) => compare(a.category, b.category) || compare(a.name, b.name));
  const groups = new Map<string, { name: string; version?: string; description: string }[]>();
  let chars = 0;
  let shown = 0;
  for (const record of sorted) {
    const key = record.category || TOP_LEVEL;
    const entry = { name: record.name, ...(record.version !== undefined ? { version: record.version } : {}), description: shortDescription(record.description) };
    chars += JSON.stringify(entry).length + 1 + (groups.has(key) ? 0 : key.length + 30);
    if (shown >= MAX_LISTED_SKILLS || chars > budget) break;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
    shown++;
  }
  const result: Record<string, unknown> = {
    success: true,
    ...scope,
    total: active.length,
    shown,
    categories: [...groups].map(([name, skills]) => ({ category: name, skills })),
  };
  if (shown < active.length) {
    result['more'] = `${active.length - shown} more skills are not shown; narrow the list with category or query`;
    result['category_counts'] = categoryCounts;
  }
  result['hint'] = 'Load a skill with skill_view(name) before following it.';
  return result as ToolResult;
}

function rankedList(query: string, active: readonly SkillRecord[], ctx: SkillToolContext, scope: object): ToolResult {
  // The index decides what is active; search results are mapped back to its current records.
  const byFile = new Map(active.map((record) => [record.file, record]));
  const search = ctx.search ?? new SkillSearch(active);
  const hits = search
    .search(query, { top: MAX_LISTED_SKILLS, filter: (record) => byFile.has(record.file) })
    .map((hit) => byFile.get(hit.record.file))
    .filter((record): record is SkillRecord => record !== undefined);
  const shown = hits.slice(0, MAX_QUERY_RESULTS).map((record) => ({
    name: record.name,
    category: record.category,
    ...(record.version !== undefined ? { version: record.version } : {}),
    description: shortDescription(record.description),
  }));
  const result: Record<string, unknown> = { success: true, query, ...scope, matches: hits.length, shown: shown.length, skills: shown };
  if (hits.length > shown.length) result['more'] = `${hits.length - shown.length} more skills match; use more specific words to narrow the list`;
  if (hits.length === 0) result['hint'] = 'No skill matches these words; try other words, or call skills_list without query to see every skill.';
  else result['hint'] = 'Load a skill with skill_view(name) before following it.';
  return result as ToolResult;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const BINARY_TYPES: Readonly<Record<string, string>> = {
  png: 'PNG image', jpg: 'JPEG image', jpeg: 'JPEG image', gif: 'GIF image', webp: 'WebP image', ico: 'icon', bmp: 'bitmap image',
  pdf: 'PDF file', zip: 'zip archive', gz: 'gzip archive', tgz: 'gzip archive', tar: 'tar archive',
  docx: 'Word file', xlsx: 'Excel workbook', pptx: 'PowerPoint presentation',
  ttf: 'font', otf: 'font', woff: 'font', woff2: 'font', mp3: 'audio', wav: 'audio', mp4: 'video', wasm: 'WebAssembly module',
};

function binaryKind(filePath: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(filePath)?.[1]?.toLowerCase() ?? '';
  return BINARY_TYPES[ext] ?? 'binary file';
}

/** Text of a file for the model: binary files and huge files become a note instead of bytes. */
function presentText(bytes: Uint8Array, relative: string, size: number): Record<string, unknown> {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) {
    return { binary: true, size, type: binaryKind(relative), note: `"${relative}" is a ${binaryKind(relative)} (${size} bytes); its content cannot be shown as text` };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { binary: true, size, type: binaryKind(relative), note: `"${relative}" is not UTF-8 text (${size} bytes); its content cannot be shown` };
  }
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  if (text.length <= MAX_VIEW_CHARS) return { content: text, size };
  return {
    content: text.slice(0, MAX_VIEW_CHARS),
    size,
    truncated: true,
    note: `only the first ${MAX_VIEW_CHARS.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters are shown`,
  };
}

async function viewSkill(args: { readonly name: string; readonly file_path?: string | undefined }, ctx: SkillToolContext): Promise<ToolResult> {
  const found = lookupSkill(args.name, ctx);
  if (!found.ok) return fail(found.error);
  const record = found.value;
  const about = { name: record.name, ...(record.version !== undefined ? { version: record.version } : {}), category: record.category, scope: record.scope, root: record.root.label };
  const filePath = args.file_path;
  if (filePath !== undefined && filePath.replace(/^\.?\//, '') !== SKILL_FILE) return viewFile(record, filePath, about, ctx);

  const stat = await ctx.fs.stat(record.file);
  if (!stat || stat.type !== 'file') return fail(`the SKILL.md of "${record.name}" is gone; it may have been moved or deleted. Call skills_list again.`);
  const decoded = decodeSkillBytes(await ctx.fs.readFile(record.file));
  if (decoded.problems.some((problem) => problem.code === 'SW100')) {
    return fail(`the SKILL.md of "${record.name}" is a binary file and cannot be shown; it must be fixed by hand`);
  }
  let content = decoded.text.startsWith('\uFEFF') ? decoded.text.slice(1) : decoded.text;
  const notes: string[] = [];
  if (content.length > MAX_VIEW_CHARS) {
    notes.push(`SKILL.md is ${content.length.toLocaleString('en-US')} characters; only the first ${MAX_VIEW_CHARS.toLocaleString('en-US')} are shown`);
    content = content.slice(0, MAX_VIEW_CHARS);
  }
  const listing = await listSkillFiles(ctx.fs, record.dir);
  const linked: Record<string, { path: string; size: number }[]> = {};
  const other: { path: string; size: number }[] = [];
  for (const file of listing.files) {
    const folder = file.path.split('/')[0] as string;
    if ((SUPPORT_FOLDERS as readonly string[]).includes(folder) && file.path.includes('/')) (linked[folder] ??= []).push(file);
    else other.push(file);
  }
  if (listing.truncated) notes.push(`the skill has more files than the ${listing.files.length} listed`);
  const example = SUPPORT_FOLDERS.map((folder) => linked[folder]?.[0]?.path).find(Boolean) ?? other[0]?.path;
  return {
    success: true,
    ...about,
    content,
    linked_files: linked,
    ...(other.length > 0 ? { other_files: other } : {}),
    ...(example ? { how_to_open: `skill_view(name="${qualifiedName(record)}", file_path="${example}")` } : {}),
    ...(record.readErrors.length > 0 ? { problems: record.readErrors } : {}),
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

async function viewFile(record: SkillRecord, filePath: string, about: object, ctx: SkillToolContext): Promise<ToolResult> {
  const resolved = await resolveInSkill(ctx.fs, record.dir, filePath);
  if (!resolved.ok) return fail(resolved.error);
  const { absolute, relative } = resolved.value;
  const stat = resolved.value.exists ? await ctx.fs.stat(absolute) : undefined;
  if (!stat) {
    const files = (await listSkillFiles(ctx.fs, record.dir)).files.map((file) => file.path);
    const shown = files.slice(0, 20).map((f) => `"${f}"`).join(', ');
    const more = files.length > 20 ? ` and ${files.length - 20} more` : '';
    return fail(`the skill "${record.name}" has no file "${relative}"; its files: ${shown ? shown + more : 'none besides SKILL.md'}`);
  }
  if (stat.type === 'directory') {
    const files = (await listSkillFiles(ctx.fs, record.dir)).files.filter((file) => file.path.startsWith(`${relative}/`));
    return { success: true, ...about, file_path: relative, folder: true, files };
  }
  if (stat.size > MAX_VIEW_READ_BYTES) {
    return { success: true, ...about, file_path: relative, size: stat.size, truncated: true, note: `"${relative}" is ${stat.size} bytes, too large to show` };
  }
  return { success: true, ...about, file_path: relative, ...presentText(await ctx.fs.readFile(absolute), relative, stat.size) };
}
