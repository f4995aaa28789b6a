import * as path from 'node:path';
import { bumpPatchVersion } from '../model/versionBump';
import type { SkillRoot, SkillScope } from '../../base/skillRoots';
import { lintSkill } from '../lint/skillLint';
import { decodeSkillBytes, parseSkillText } from '../model/skillParser';
import { applyPatch } from '../../text/patchMatcher';
import {
  checkCategory,
  findSkill,
  isInside,
  listSkillFiles,
  parseRelativePath,
  qualifiedName,
  resolveInSkill,
  skillNameProblem,
  supportFolderProblem,
} from '../model/skillPaths';
import type { ResolvedSkillPath } from '../model/skillPaths';
import { SkillSearch } from '../search/skillSearch';
import type { ToolResult } from '../../toolkit/toolResult';
import type { SkillToolContext } from './skillToolContext';
import type { LintFinding, SkillRecord } from '../model/skillTypes';
import { SKILL_FILE } from '../model/skillTypes';
import { checkAfterWrite, scanBeforeWrite } from './skillWriteScan';

export const MAX_SKILL_MD_CHARS = 100_000;
export const MAX_SUPPORT_FILE_BYTES = 1024 * 1024;
const MAX_REPORTED_FINDINGS = 10;

type Args = Record<string, unknown>;
type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const fail = (error: string): ToolResult => ({ success: false, error });
const str = (args: Args, key: string): string | undefined => (typeof args[key] === 'string' ? (args[key] as string) : undefined);

/** Which arguments each action needs and accepts; anything else non-empty is a model mix-up worth refusing. */
const ACTIONS: Readonly<Record<string, { required: readonly string[]; optional: readonly string[] }>> = {
  create: { required: ['name', 'content'], optional: ['category', 'scope'] },
  patch: { required: ['name', 'old_string', 'new_string'], optional: ['replace_all', 'file_path'] },
  edit: { required: ['name', 'content'], optional: [] },
  delete: { required: ['name'], optional: [] },
  write_file: { required: ['name', 'file_path', 'content'], optional: [] },
  remove_file: { required: ['name', 'file_path'], optional: [] },
};

/** The active record for `name`, or a refusal with candidates or suggestions (search adds related names). */
export function lookupSkill(name: string, ctx: SkillToolContext): Checked<SkillRecord> {
  const active = ctx.index.active();
  const all = ctx.index.all();
  const found = findSkill(name, active, { all });
  if (found.ok || found.reason !== 'unknown') return found;
  const files = new Set(active.map((record) => record.file));
  const related = (ctx.search ?? new SkillSearch(active))
    .search(name.replace(/[-/_]+/g, ' '), { top: 3, filter: (record) => files.has(record.file) })
    .map((hit) => hit.record.name);
  return findSkill(name, active, { all, related });
}

/** `skill_manage`: arguments are already type-checked against the schema by runSkillTool. */
export async function runSkillManage(args: Args, ctx: SkillToolContext): Promise<ToolResult> {
  const action = args['action'] as string;
  const spec = ACTIONS[action] as { required: readonly string[]; optional: readonly string[] };
  const missing = spec.required.filter((key) => args[key] === undefined);
  if (missing.length > 0) return fail(`skill_manage action "${action}" needs ${missing.map((key) => `"${key}"`).join(' and ')}`);
  const accepted = new Set(['action', ...spec.required, ...spec.optional]);
  const stray = Object.keys(args).filter((key) => !accepted.has(key) && args[key] !== '' && args[key] !== false);
  if (stray.length > 0) {
    return fail(`skill_manage action "${action}" does not take ${stray.map((key) => `"${key}"`).join(', ')}; it takes ${[...accepted].join(', ')}`);
  }
  ctx.logger?.info(`skill_manage ${action} ${String(args['name'])}`);
  switch (action) {
    case 'create':
      return createSkill(args, ctx);
    case 'delete':
      return deleteSkill(args, ctx);
    default:
      return changeSkill(action, args, ctx);
  }
}

function findingLine(finding: LintFinding): string {
  return `line ${finding.range.startLine + 1}: ${finding.code} ${finding.message}`;
}

function otherSkills(ctx: SkillToolContext): Map<string, { version?: string; scope: string; file: string }[]> {
  const skills = new Map<string, { version?: string; scope: string; file: string }[]>();
  for (const record of ctx.index.all()) {
    const list = skills.get(record.name) ?? [];
    list.push({ scope: record.scope, file: record.file, ...(record.version !== undefined ? { version: record.version } : {}) });
    skills.set(record.name, list);
  }
  return skills;
}

interface SkillMdTarget {
  readonly name: string;
  readonly folderName: string;
  /** The skill folder when it exists, for link checks; a new skill has no files yet. */
  readonly dir?: string;
  readonly self?: SkillRecord;
  /** The text being replaced: errors it already had do not block the change. */
  readonly before?: string;
}

/**
 * Validates a whole SKILL.md before it is written: size, parse, the name, and lint. Only errors the
 * change introduces refuse it, so a skill that was already broken can still be improved step by step.
 */
async function validateSkillMd(text: string, target: SkillMdTarget, ctx: SkillToolContext): Promise<Checked<string[]>> {
  if (text.length > MAX_SKILL_MD_CHARS) {
    return {
      ok: false,
      error: `SKILL.md would be ${text.length.toLocaleString('en-US')} characters; the limit is ${MAX_SKILL_MD_CHARS.toLocaleString('en-US')}. Move details into references/ files (action "write_file") and link them from SKILL.md.`,
    };
  }
  const lint = async (content: string): Promise<LintFinding[]> => {
    const findings = await lintSkill(parseSkillText(content), {
      folderName: target.folderName,
      exists: async (relative) => (target.dir ? (await ctx.fs.stat(path.join(target.dir, relative))) !== undefined : false),
      skills: otherSkills(ctx),
      ...(target.self ? { self: { scope: target.self.scope, file: target.self.file } } : {}),
    });
    // A new skill cannot have its entry script yet: write_file adds it next.
    return target.dir ? findings : findings.map((f) => (f.code === 'SW604' ? { ...f, severity: 'warning' as const } : f));
  };
  const parsed = parseSkillText(text);
  const frontName = parsed.frontmatter['name'];
  const findings = await lint(text);
  const previous = target.before !== undefined ? await lint(target.before) : [];
  // Numbers in messages (lines, counts) shift with any edit, so they do not tell findings apart.
  const keyOf = (f: LintFinding): string => `${f.code} ${f.message.replace(/\d+/g, '#')}`;
  const known = new Map<string, number>();
  for (const f of previous) if (f.severity === 'error') known.set(keyOf(f), (known.get(keyOf(f)) ?? 0) + 1);
  const fresh: LintFinding[] = [];
  const remaining: LintFinding[] = [];
  for (const f of findings) {
    if (f.severity !== 'error') continue;
    const key = keyOf(f);
    const count = known.get(key) ?? 0;
    if (count > 0) {
      known.set(key, count - 1);
      remaining.push(f);
    } else fresh.push(f);
  }
  if (fresh.length > 0) {
    const listed = fresh.slice(0, MAX_REPORTED_FINDINGS).map(findingLine).join('\n');
    return { ok: false, error: `SKILL.md is not valid, so nothing was written. Fix these and try again:\n${listed}` };
  }
  if (parsed.hasFrontmatter && typeof frontName === 'string' && frontName !== target.name) {
    return { ok: false, error: `the frontmatter says name: "${frontName}", but the skill is "${target.name}"; they must be equal (renaming a skill is not supported: create a new one instead)` };
  }
  const warnings = [
    ...remaining.map((f) => `still an error (it was before): ${findingLine(f)}`),
    ...findings.filter((f) => f.severity !== 'error' && f.code !== 'SW801').map((f) => `${f.severity}: ${findingLine(f)}`),
  ];
  return { ok: true, value: warnings.slice(0, MAX_REPORTED_FINDINGS) };
}

function withWarnings(result: Record<string, unknown>, warnings: readonly string[]): ToolResult {
  return { success: true, ...result, ...(warnings.length > 0 ? { warnings } : {}) };
}

function writeRoots(ctx: SkillToolContext, scope: SkillScope): SkillRoot[] {
  // SkillIndex keeps its roots in a private field today; read it until it offers a public getter.
  const roots = ctx.roots ?? (ctx.index as unknown as { readonly roots?: readonly SkillRoot[] }).roots ?? [];
  return roots.filter((root) => root.writeTarget && root.scope === scope);
}

/** Skillwright changes only its own folders; other tools' folders and extra project folders are read-only. */
function writableProblem(record: SkillRecord, verb: string): string | undefined {
  if (record.root.writeTarget) return undefined;
  const why =
    record.scope === 'other'
      ? `${record.root.label}, another tool's skill folder, which Skillwright only reads`
      : `${record.root.label}, which Skillwright only reads (it writes to .agents/skills and ~/.agents/skills)`;
  return `cannot ${verb} "${record.name}": it lives in ${why}. To change it, save a changed copy with action "create"; the copy takes precedence.`;
}

async function removeEmptyFolders(ctx: SkillToolContext, from: string, stopAt: string): Promise<void> {
  for (let dir = from; dir !== stopAt && isInside(stopAt, dir); dir = path.dirname(dir)) {
    const entries = await ctx.fs.readDirectory(dir).catch(() => undefined);
    if (!entries || entries.length > 0) return;
    await ctx.fs.remove(dir);
  }
}

function rootFilePath(root: SkillRoot, file: string): string {
  return [root.label, ...path.relative(root.path, file).split(path.sep)].join('/');
}

async function createSkill(args: Args, ctx: SkillToolContext): Promise<ToolResult> {
  const name = str(args, 'name') as string;
  const content = str(args, 'content') as string;
  const nameProblem = skillNameProblem(name);
  if (nameProblem) return fail(nameProblem);
  const category = checkCategory(str(args, 'category') ?? '');
  if (!category.ok) return fail(category.error);
  const scope = (str(args, 'scope') ?? 'project') as 'project' | 'user';
  const root = writeRoots(ctx, scope)[0];
  if (!root) {
    return fail(
      scope === 'project'
        ? 'no folder is open in the editor, so there is no project skill folder; save the skill with scope "user" (~/.agents/skills) instead'
        : 'there is no user skill folder (no home folder is known); save the skill with scope "project" instead',
    );
  }
  const validated = await validateSkillMd(content, { name, folderName: name }, ctx);
  if (!validated.ok) return fail(validated.error);

  const existing = ctx.index.all().find((r) => r.root.path === root.path && (r.name === name || r.folderName === name));
  if (existing) {
    return fail(`a skill named "${name}" already exists in ${root.label} ("${qualifiedName(existing)}"); change it with action "patch" or "edit", or choose another name`);
  }
  const relative = [category.value, name, SKILL_FILE].filter(Boolean).join('/');
  const file = path.join(root.path, ...relative.split('/'));
  // A root that does not exist yet holds no links to check; one that exists may hold linked categories.
  if (await ctx.fs.lstat(root.path)) {
    const resolved = await resolveInSkill(ctx.fs, root.path, relative);
    if (!resolved.ok) return fail(`cannot create "${relative}" in ${root.label}: ${resolved.error}`);
  }
  const dir = path.dirname(file);
  if (await ctx.fs.lstat(dir)) return fail(`the folder "${[category.value, name].filter(Boolean).join('/')}" already exists in ${root.label}; choose another name or category`);
  for (let parent = path.dirname(dir); parent !== root.path && isInside(root.path, parent); parent = path.dirname(parent)) {
    if (await ctx.fs.stat(path.join(parent, SKILL_FILE))) {
      return fail(`category "${category.value}" is inside the skill folder "${path.relative(root.path, parent).split(path.sep).join('/')}"; choose a category that is not a skill`);
    }
  }
  const warnings = [...validated.value];
  const rank: Record<string, number> = { project: 0, user: 1, other: 2 };
  for (const other of ctx.index.active().filter((r) => r.name === name)) {
    warnings.push(
      (rank[other.scope] ?? 3) < (rank[scope] ?? 0)
        ? `the skill "${name}" in ${other.root.label} takes precedence over this one, so this one stays hidden until that one is renamed or removed`
        : `this skill takes precedence over the skill "${name}" in ${other.root.label}`,
    );
  }
  const parsed = parseSkillText(content);
  const description = typeof parsed.frontmatter['description'] === 'string' ? parsed.frontmatter['description'] : '';
  for (const hit of ctx.search?.similar({ name, description, body: parsed.body }, { top: 3, minScore: 0.5 }) ?? []) {
    if (hit.record.name !== name) warnings.push(`similar skill "${hit.record.name}" exists; consider improving it with "patch" instead of keeping two`);
  }

  await ctx.fs.writeFileAtomic(file, content);
  const scanned = await checkAfterWrite(ctx.fs, dir, undefined, async () => {
    await ctx.fs.remove(dir);
    await removeEmptyFolders(ctx, path.dirname(dir), root.path);
  }, `Creating the skill "${name}"`);
  await ctx.index.invalidate(file);
  if (!scanned.ok) return fail(scanned.error);
  return withWarnings(
    { action: 'create', name, category: category.value, scope, path: `${root.label}/${relative}`, verdict: scanned.verdict, message: `Created the ${scope} skill "${name}".` },
    warnings,
  );
}

async function deleteSkill(args: Args, ctx: SkillToolContext): Promise<ToolResult> {
  const found = lookupSkill(str(args, 'name') as string, ctx);
  if (!found.ok) return fail(found.error);
  const record = found.value;
  const problem = writableProblem(record, 'delete');
  if (problem) return fail(problem);
  const [realRoot, realDir] = await Promise.all([ctx.fs.realPath(record.root.path), ctx.fs.realPath(record.dir)]).catch(() => []);
  if (!realRoot || !realDir || realRoot === realDir || !isInside(realRoot, realDir)) {
    return fail(`cannot delete "${record.name}": its folder is not inside ${record.root.label} (it may be a symbolic link to somewhere else); remove it by hand`);
  }
  const nested = ctx.index.all().filter((r) => r !== record && r.dir !== record.dir && isInside(record.dir, r.dir));
  if (nested.length > 0) {
    return fail(`cannot delete "${record.name}": its folder holds other skills (${nested.map((r) => `"${r.name}"`).join(', ')}); delete or move those first`);
  }
  const files = [SKILL_FILE, ...(await listSkillFiles(ctx.fs, record.dir)).files.map((file) => file.path)];
  await ctx.fs.remove(record.dir);
  await ctx.index.invalidate(record.dir);
  await removeEmptyFolders(ctx, path.dirname(record.dir), record.root.path);
  return {
    success: true,
    action: 'delete',
    name: record.name,
    deleted_folder: rootFilePath(record.root, record.dir),
    file_count: files.length,
    files: files.slice(0, 50),
    message: `Deleted the skill "${record.name}" and its ${files.length} file(s).`,
  };
}

/** The file an action works on: SKILL.md, or the relative path of a file under a support folder. */
function targetFile(filePath: string | undefined): Checked<'skill' | string> {
  if (filePath === undefined || filePath.replace(/^\.?\/+/, '') === SKILL_FILE) return { ok: true, value: 'skill' };
  const parsed = parseRelativePath(filePath);
  if (!parsed.ok) return parsed;
  const problem = supportFolderProblem(parsed.value);
  return problem ? { ok: false, error: problem } : { ok: true, value: parsed.value.join('/') };
}

async function changeSkill(action: string, args: Args, ctx: SkillToolContext): Promise<ToolResult> {
  const found = lookupSkill(str(args, 'name') as string, ctx);
  if (!found.ok) return fail(found.error);
  const record = found.value;
  const verb = action === 'write_file' ? 'write files of' : action === 'remove_file' ? 'remove files of' : action;
  const problem = writableProblem(record, verb);
  if (problem) return fail(problem);
  const target = targetFile(str(args, 'file_path'));
  if (!target.ok) return fail(target.error);
  if (target.value === 'skill') {
    if (action === 'write_file' || action === 'remove_file') {
      return fail(`${SKILL_FILE} is changed with action "edit" or "patch"; write_file and remove_file work on files under references/, templates/, scripts/ or assets/`);
    }
    return changeSkillMd(action, args, record, ctx);
  }
  const resolved = await resolveInSkill(ctx.fs, record.dir, target.value);
  if (!resolved.ok) return fail(resolved.error);
  return changeSupportFile(action, args, record, resolved.value, ctx);
}

async function changeSkillMd(action: string, args: Args, record: SkillRecord, ctx: SkillToolContext): Promise<ToolResult> {
  const bytes = await ctx.fs.readFile(record.file).catch(() => undefined);
  if (!bytes) return fail(`the SKILL.md of "${record.name}" is gone; it may have been moved or deleted. Call skills_list again.`);
  const decoded = decodeSkillBytes(bytes);
  if (decoded.problems.some((p) => p.code === 'SW100')) return fail(`the SKILL.md of "${record.name}" is binary; replace it with action "edit"`);
  // TextDecoder drops a byte order mark; the file keeps the one it had.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? '\uFEFF' : '';
  const before = decoded.text.replace(/^\uFEFF/, '');
  let after: string;
  let details: Record<string, unknown> = {};
  if (action === 'patch') {
    const outcome = applyPatch(before, str(args, 'old_string') as string, str(args, 'new_string') as string, { replaceAll: args['replace_all'] === true });
    if (!outcome.ok) return fail(`cannot patch SKILL.md of "${record.name}": ${outcome.error}`);
    after = outcome.text;
    details = { replacements: outcome.replacements, match: outcome.strategy, lines: outcome.lines };
  } else {
    after = (str(args, 'content') as string).replace(/^\uFEFF/, '');
    if (after === before) return { success: true, action, name: record.name, file_path: SKILL_FILE, changed: false, message: 'SKILL.md already has this content; nothing was written.' };
  }
  // A changed skill is a new version: workflows that pin `name@range` can tell.
  const bumped = bumpPatchVersion(before, after);
  if (bumped) after = bumped.text;
  const validated = await validateSkillMd(after, { name: record.name, folderName: record.folderName, dir: record.dir, self: record, before }, ctx);
  if (!validated.ok) return fail(validated.error);
  const scanBefore = await scanBeforeWrite(ctx.fs, record.dir);
  await ctx.fs.writeFileAtomic(record.file, bom + after);
  const scanned = await checkAfterWrite(ctx.fs, record.dir, scanBefore, () => ctx.fs.writeFileAtomic(record.file, bytes), `The ${action} of SKILL.md of "${record.name}"`);
  await ctx.index.invalidate(record.file);
  if (!scanned.ok) return fail(scanned.error);
  const version = bumped ? { version: bumped.to, previous_version: bumped.from } : {};
  const message = `Updated SKILL.md of "${record.name}"${bumped ? ` (version ${bumped.from} → ${bumped.to})` : ''}.`;
  return withWarnings({ action, name: record.name, file_path: SKILL_FILE, ...details, ...version, verdict: scanned.verdict, message }, validated.value);
}

function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

async function mentionNote(record: SkillRecord, relative: string, ctx: SkillToolContext, present: boolean): Promise<string | undefined> {
  const text = await ctx.fs.readFile(record.file).then((bytes) => decodeSkillBytes(bytes).text, () => '');
  const mentioned = text.includes(relative);
  if (present && !mentioned) return `SKILL.md does not mention "${relative}" yet; link it (e.g. [${path.posix.basename(relative)}](${relative})) and say when to read it`;
  if (!present && mentioned) return `SKILL.md still mentions "${relative}"; patch it so it no longer points to the removed file`;
  return undefined;
}

async function changeSupportFile(action: string, args: Args, record: SkillRecord, file: ResolvedSkillPath, ctx: SkillToolContext): Promise<ToolResult> {
  const stat = file.exists ? await ctx.fs.stat(file.absolute) : undefined;
  if (stat?.type === 'directory') return fail(`"${file.relative}" is a folder; give a file inside it, e.g. "${file.relative}/notes.md"`);
  const base = { action, name: record.name, file_path: file.relative };
  if (action === 'remove_file') {
    if (!file.exists) return fail(`the skill "${record.name}" has no file "${file.relative}"; nothing was removed`);
    await ctx.fs.remove(file.absolute);
    await ctx.index.invalidate(file.absolute);
    await removeEmptyFolders(ctx, path.dirname(file.absolute), record.dir);
    const note = await mentionNote(record, file.relative, ctx, false);
    return { success: true, ...base, message: `Removed "${file.relative}".`, ...(note ? { note } : {}) };
  }
  let content: string;
  let details: Record<string, unknown> = {};
  if (action === 'patch') {
    if (!stat) return fail(`the skill "${record.name}" has no file "${file.relative}"; create it with action "write_file"`);
    if (stat.size > MAX_SUPPORT_FILE_BYTES) return fail(`"${file.relative}" is ${stat.size.toLocaleString('en-US')} bytes, over the ${MAX_SUPPORT_FILE_BYTES.toLocaleString('en-US')} byte limit for support files; it cannot be patched`);
    const bytes = await ctx.fs.readFile(file.absolute);
    if (!isText(bytes)) return fail(`"${file.relative}" is not UTF-8 text; binary files cannot be patched`);
    const text = new TextDecoder('utf-8').decode(bytes);
    const outcome = applyPatch(text, str(args, 'old_string') as string, str(args, 'new_string') as string, { replaceAll: args['replace_all'] === true });
    if (!outcome.ok) return fail(`cannot patch "${file.relative}" of "${record.name}": ${outcome.error}`);
    content = outcome.text;
    details = { replacements: outcome.replacements, match: outcome.strategy, lines: outcome.lines };
  } else {
    content = str(args, 'content') as string;
  }
  const bytes = new TextEncoder().encode(content).length;
  if (bytes > MAX_SUPPORT_FILE_BYTES) {
    return fail(`"${file.relative}" would be ${bytes.toLocaleString('en-US')} bytes; support files are limited to ${MAX_SUPPORT_FILE_BYTES.toLocaleString('en-US')} bytes (1 MiB). Split it into smaller files.`);
  }
  const scanBefore = await scanBeforeWrite(ctx.fs, record.dir);
  const previous = stat ? await ctx.fs.readFile(file.absolute) : undefined;
  await ctx.fs.writeFileAtomic(file.absolute, content);
  const undo = async (): Promise<void> => {
    if (previous) return ctx.fs.writeFileAtomic(file.absolute, previous);
    await ctx.fs.remove(file.absolute);
    await removeEmptyFolders(ctx, path.dirname(file.absolute), record.dir);
  };
  const scanned = await checkAfterWrite(ctx.fs, record.dir, scanBefore, undo, `The ${action} of "${file.relative}" in "${record.name}"`);
  await ctx.index.invalidate(file.absolute);
  if (!scanned.ok) return fail(scanned.error);
  const note = action === 'write_file' ? await mentionNote(record, file.relative, ctx, true) : undefined;
  const verb = action === 'patch' ? 'Patched' : stat ? 'Replaced' : 'Created';
  return { success: true, ...base, ...details, bytes, ...(action === 'write_file' ? { created: !stat } : {}), verdict: scanned.verdict, message: `${verb} "${file.relative}".`, ...(note ? { note } : {}) };
}
