import * as path from 'node:path';
import type { FileSystemPort } from '../../base/fileSystemPort';
import type { CatalogResult } from '../catalog/skillCatalog';
import type { LintContext } from '../lint/ruleInput';
import { lintSkill } from '../lint/skillLint';
import type { ParsedSkill } from '../model/skillParser';
import { isPlainObject, parseSkillBytes, parseSkillText } from '../model/skillParser';
import { catalogName, previewCatalogEntry } from './skillPreviewCatalog';
import type { LinkedFileEntry } from './skillPreviewFiles';
import { previewLinkedFiles } from './skillPreviewFiles';
import type { LintFinding, SkillRecord } from '../model/skillTypes';
import type { WorkflowNode } from '../model/workflowGraph';
import { MAX_DIAGRAM_STEPS, workflowGraph } from '../model/workflowGraph';

/** What the preview shows for one SKILL.md (the shape of the protocol's SkillPreview). */
export interface SkillPreviewModel {
  readonly file: string;
  readonly parseError?: string;
  readonly card: {
    readonly name?: string;
    readonly description?: string;
    readonly tags: string[];
    readonly level?: number;
    readonly version?: string;
    readonly permissions: string[];
    readonly platforms: string[];
  };
  readonly body: string;
  readonly bodyLine: number;
  readonly files: LinkedFileEntry[];
  readonly findings: PreviewFinding[];
  readonly catalogLine: string;
  /** True when catalogLine is what the model sees; false when it says why the skill is not listed. */
  readonly catalogListed: boolean;
  readonly workflow?: WorkflowNode[];
}

export interface PreviewFinding {
  readonly code: string;
  readonly severity: 'error' | 'warning' | 'info';
  readonly message: string;
  /** 0-based line; absent for findings about the whole file. */
  readonly line?: number;
}

export type PreviewResult = { readonly ok: true; readonly preview: SkillPreviewModel } | { readonly ok: false; readonly message: string };

export interface PreviewSource {
  /** Absolute path of the SKILL.md. */
  readonly file: string;
  /** The editor's text, saved or not; when absent the file is read from the disk. */
  readonly text?: string;
}

export interface PreviewEnvironment {
  readonly fs: FileSystemPort;
  /** Every record of the skill index. */
  readonly records: readonly SkillRecord[];
  /** The catalog the model is given; undefined while the index loads. */
  readonly catalog?: CatalogResult;
  /** This machine, as `platforms` names it. */
  readonly platform: string;
  /** Why the host holds this file back, when it knows (e.g. Restricted Mode). */
  readonly notIndexedReason?: string;
}

/** The body the webview renders: Markdown is rendered on every pause in typing, so a huge body is cut. */
export const MAX_PREVIEW_BODY_CHARS = 200_000;
/** Findings past this are in the Problems panel; a preview with thousands of them is unreadable. */
export const MAX_PREVIEW_FINDINGS = 300;
/** A file this big is not read at all for a preview (parseSkillBytes reads only the first MiB anyway). */
const MAX_READ_BYTES = 64 * 1024 * 1024;
/** Findings that concern the file as a whole rather than a line. */
const FILE_LEVEL_CODES = new Set(['SW100', 'SW102']);
const PARSE_ERROR_CODES = ['SW103', 'SW104', 'SW105', 'SW106'];

/**
 * Everything the SKILL.md preview shows, from the editor's text (or the disk): the frontmatter card,
 * the body, the linked files, the lint findings (the same as the Problems panel's), the catalog line
 * and the workflow graph. A broken frontmatter still gives a preview with its body; a binary or
 * unreadable file gives a message instead.
 */
export async function buildSkillPreview(source: PreviewSource, env: PreviewEnvironment): Promise<PreviewResult> {
  const parsed = source.text !== undefined ? parseSkillText(source.text) : await readFromDisk(source.file, env.fs);
  if ('message' in parsed) return { ok: false, message: parsed.message };
  const binary = parsed.problems.find((problem) => problem.code === 'SW100');
  if (binary) return { ok: false, message: `${path.basename(path.dirname(source.file))}/${path.basename(source.file)}: ${binary.message}` };

  const dir = path.dirname(source.file);
  const folderName = path.basename(dir);
  const knownNames = new Set(env.records.map((record) => record.name));
  const [findings, linked] = await Promise.all([lint(parsed, source.file, env), previewLinkedFiles(env.fs, dir, parsed)]);
  const frontmatter = parsed.frontmatter;
  const card = cardOf(frontmatter);
  const graph = workflowGraph(frontmatter, (name) => knownNames.has(name));
  const notes: PreviewFinding[] = [];

  let body = parsed.body;
  if (body.length > MAX_PREVIEW_BODY_CHARS) {
    const cut = body.lastIndexOf('\n', MAX_PREVIEW_BODY_CHARS);
    body = body.slice(0, cut > 0 ? cut : MAX_PREVIEW_BODY_CHARS);
    notes.push(note(`The preview shows the first ${MAX_PREVIEW_BODY_CHARS.toLocaleString('en-US')} characters of the body (of ${parsed.body.length.toLocaleString('en-US')}). Move long material into references/ files.`));
  }
  if (linked.truncated) notes.push(note('The skill folder holds more files than the preview lists; the tree shows the first 500.'));
  if (graph && graph.total > graph.steps.length) {
    notes.push(note(`The diagram shows the first ${MAX_DIAGRAM_STEPS} of the workflow's ${graph.total} steps.`));
  }

  const parseProblem = parsed.problems.find((problem) => PARSE_ERROR_CODES.includes(problem.code));
  const catalogEntry = previewCatalogEntry({
    file: source.file,
    name: catalogName(card.name ?? '', folderName),
    description: scalar(frontmatter['description']) ?? '',
    records: env.records,
    ...(env.catalog ? { catalog: env.catalog } : {}),
    platform: env.platform,
    ...(env.notIndexedReason !== undefined ? { notIndexedReason: env.notIndexedReason } : {}),
  });
  const preview: SkillPreviewModel = {
    file: source.file,
    ...(parseProblem ? { parseError: parseProblem.message } : {}),
    card,
    body,
    bodyLine: parsed.bodyStartLine,
    files: linked.files,
    findings: [...notes, ...findings],
    catalogLine: catalogEntry.text,
    catalogListed: catalogEntry.listed,
    ...(graph ? { workflow: graph.steps } : {}),
  };
  return { ok: true, preview };
}

async function readFromDisk(file: string, fs: FileSystemPort): Promise<ParsedSkill | { message: string }> {
  const stat = await fs.stat(file);
  if (!stat || stat.type !== 'file') return { message: `${file} does not exist (or is not a file), so there is nothing to preview.` };
  if (stat.size > MAX_READ_BYTES) {
    return { message: `${file} is ${Math.round(stat.size / (1024 * 1024))} MB; a SKILL.md this large is not previewed. Keep SKILL.md short and move material into references/.` };
  }
  return parseSkillBytes(await fs.readFile(file));
}

async function lint(parsed: ParsedSkill, file: string, env: PreviewEnvironment): Promise<PreviewFinding[]> {
  const dir = path.dirname(file);
  const skills = new Map<string, { version?: string; scope: string; file: string }[]>();
  for (const record of env.records) {
    const list = skills.get(record.name) ?? [];
    list.push({ scope: record.scope, file: record.file, ...(record.version !== undefined ? { version: record.version } : {}) });
    skills.set(record.name, list);
  }
  const self = env.records.find((record) => record.file === file);
  const context: LintContext = {
    folderName: path.basename(dir),
    exists: async (relative) => (await env.fs.stat(path.join(dir, relative))) !== undefined,
    skills,
    ...(self ? { self: { scope: self.scope, file: self.file } } : {}),
  };
  const findings = (await lintSkill(parsed, context)).map(toPreviewFinding);
  if (findings.length <= MAX_PREVIEW_FINDINGS) return findings;
  const hidden = findings.length - MAX_PREVIEW_FINDINGS;
  return [...findings.slice(0, MAX_PREVIEW_FINDINGS), note(`${hidden.toLocaleString('en-US')} more findings are not shown here; the Problems panel lists them all.`)];
}

function toPreviewFinding(finding: LintFinding): PreviewFinding {
  const base = { code: finding.code, severity: finding.severity, message: finding.message };
  return FILE_LEVEL_CODES.has(finding.code) ? base : { ...base, line: finding.range.startLine };
}

function note(message: string): PreviewFinding {
  return { code: 'preview', severity: 'info', message };
}

function cardOf(frontmatter: Readonly<Record<string, unknown>>): SkillPreviewModel['card'] {
  const name = scalar(frontmatter['name'])?.trim();
  const description = scalar(frontmatter['description']);
  const version = scalar(frontmatter['version'])?.trim();
  const metadata = isPlainObject(frontmatter['metadata']) ? frontmatter['metadata'] : undefined;
  const hermes = metadata && isPlainObject(metadata['hermes']) ? metadata['hermes'] : undefined;
  const level = levelOf(frontmatter);
  return {
    ...(name ? { name } : {}),
    ...(description !== undefined && description.trim() !== '' ? { description } : {}),
    // Tags kept under metadata (as Hermes skills do) count too, as they do for search.
    tags: unique([...list(frontmatter['tags']), ...list(metadata?.['tags']), ...list(hermes?.['tags'])]),
    ...(level !== undefined ? { level } : {}),
    ...(version ? { version } : {}),
    permissions: permissionsOf(frontmatter['permissions']),
    platforms: unique(list(frontmatter['platforms'])),
  };
}

/** The declared level, or the one the fields imply (a workflow is Level 1, an adaptation Level 2). */
function levelOf(frontmatter: Readonly<Record<string, unknown>>): number | undefined {
  const declared = frontmatter['level'];
  if (declared !== undefined && declared !== null) {
    const value = Number(scalar(declared));
    return value === 0 || value === 1 || value === 2 ? value : undefined;
  }
  if (frontmatter['adaptation'] !== undefined && frontmatter['adaptation'] !== null) return 2;
  if (frontmatter['workflow'] !== undefined && frontmatter['workflow'] !== null) return 1;
  return 0;
}

/** Permissions as written: a list, a comma-separated string, or a mapping of kind to values. */
function permissionsOf(value: unknown): string[] {
  if (isPlainObject(value)) {
    return Object.entries(value).map(([key, item]) => {
      const values = list(item);
      return values.length > 0 ? `${key}: ${values.join(', ')}` : key;
    });
  }
  return unique(list(value));
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function list(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return items.map((item) => scalar(item)?.trim()).filter((item): item is string => item !== undefined && item !== '');
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
