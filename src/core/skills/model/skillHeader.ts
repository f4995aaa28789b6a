import matter from 'gray-matter';
import type { YamlMapping } from './fastFrontmatter';
import { readFrontmatterFast } from './fastFrontmatter';
import { workflowCalls } from './skillDependencies';
import type { SkillCall, SkillRecord } from './skillTypes';

/** What the index keeps of one SKILL.md: enough to list, search and build the catalog. */
export type SkillHeader = Pick<
  SkillRecord,
  'description' | 'tags' | 'platforms' | 'useCases' | 'exampleQueries' | 'headings' | 'about' | 'level' | 'version' | 'readErrors' | 'calls'
> & {
  /** `name` from the frontmatter; undefined when absent (the index then uses the folder name). */
  readonly name?: string;
};

export type HeaderMode = 'auto' | 'fast' | 'slow';

/** Only this much of a SKILL.md is decoded for the index (the spec asks for files far smaller). */
export const HEADER_BYTES = 1024 * 1024;
const MAX_HEADINGS = 200;
const MAX_HEADING_CHARS = 200;
/**
 * Characters kept of the body's opening paragraph and, apart, of its "When to use" section: what a
 * skill says about when it applies, searched at a low weight. Both are short in practice; the bound
 * keeps a long one from outweighing the frontmatter.
 */
export const MAX_ABOUT_PART_CHARS = 600;
/** Headings of a section that says when a skill applies ("When to use", "Use this skill when", "Trigger phrases"), not "When NOT to use". */
const WHEN_HEADING = /^(?:when\s+to\s+(?:use|activate|apply|invoke)|use\s+(?:this\s+skill\s+|it\s+)?when|trigger(?:s|\s+phrases?)?\b)/i;
const NOT_WORD = /\bnot\b/i;
/** Lines that cannot open the first paragraph: indented code, HTML or comments, images, tables. */
const NOT_PROSE = /^(?: {4}|\t|\s*(?:<|!\[|\|))/;
/** Up to 50 blank lines may precede the opening `---` (the lint flags them; the index still reads the file). */
const OPENING_LINE = /^(?:[^\S\n]*\n){0,50}---[^\S\n]*(?=\n|$)\n?/;
const CLOSING_LINE = /^---[^\S\n]*$/gm;
const BLANK_LINE = /^[^\S\n]*$/gm;

// gray-matter's entry point caches every input forever and runs `---js` blocks as code; its YAML
// engine (js-yaml safeLoad) is all we want from it.
const parseYaml = (matter as unknown as { engines: { yaml: { parse(text: string): unknown } } }).engines.yaml.parse;

const PLATFORM_ALIASES: Record<string, string> = {
  linux: 'linux',
  macos: 'macos',
  darwin: 'macos',
  mac: 'macos',
  osx: 'macos',
  windows: 'windows',
  win32: 'windows',
  win: 'windows',
};

/** Decodes the start of a SKILL.md and reads its header; bad bytes become readErrors, never exceptions. */
export function readSkillHeader(bytes: Uint8Array, fileSize = bytes.length): SkillHeader {
  const errors: string[] = [];
  let slice = bytes;
  if (bytes.length > HEADER_BYTES) {
    let end = HEADER_BYTES;
    // Cut on a character boundary, not inside a UTF-8 sequence (`end` stays below bytes.length).
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    slice = bytes.subarray(0, end);
  }
  const nul = slice.indexOf(0);
  if (nul >= 0) {
    return emptyHeader([
      `SKILL.md looks binary (a NUL byte at offset ${nul}), so it was not read. Save it as UTF-8 Markdown text.`,
    ]);
  }
  let text = Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength).toString('utf8');
  if (text.includes('\uFFFD') && !validUtf8(slice)) {
    errors.push('SKILL.md is not valid UTF-8; the bad bytes were replaced by \uFFFD. Re-save it as UTF-8.');
  }
  if (fileSize > slice.length) {
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak > 0) text = text.slice(0, lastBreak);
    errors.push(
      `SKILL.md is ${formatBytes(fileSize)}; only its first ${formatBytes(HEADER_BYTES)} were indexed (headings after that are missing). Move detail into references/.`,
    );
  }
  const header = parseSkillHeaderText(text, 'auto');
  return errors.length > 0 ? { ...header, readErrors: [...errors, ...header.readErrors] } : header;
}

/**
 * Reads the header from decoded text. `fast` answers undefined when the fast reader is not sure;
 * `slow` always uses js-yaml; `auto` tries fast, then slow. Both paths share splitting and
 * field extraction, so they can only differ in how the YAML is read.
 */
export function parseSkillHeaderText(input: string, mode: 'fast'): SkillHeader | undefined;
export function parseSkillHeaderText(input: string, mode?: 'auto' | 'slow'): SkillHeader;
export function parseSkillHeaderText(input: string, mode: HeaderMode = 'auto'): SkillHeader | undefined {
  let text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  const open = OPENING_LINE.exec(text);
  if (!open) {
    return build({}, text, 0, ['No frontmatter: SKILL.md should start with a `---` line, then `name:` and `description:`, then a closing `---` line.']);
  }
  const yamlStart = open[0].length;
  CLOSING_LINE.lastIndex = yamlStart;
  const close = yamlStart < text.length ? CLOSING_LINE.exec(text) : null;
  if (!close) {
    // An author who forgot the closing line usually starts the body after the first blank line.
    BLANK_LINE.lastIndex = yamlStart;
    const blank = BLANK_LINE.exec(text);
    const end = blank ? blank.index : text.length;
    return build(salvage(text.slice(yamlStart, end).split('\n')), text, end, [
      'The frontmatter is never closed: add a `---` line after the last field. Until then it was read line by line.',
    ]);
  }
  // The line break before the closing `---` belongs to neither the YAML nor the body.
  const yamlText = close.index > yamlStart ? text.slice(yamlStart, close.index - 1) : '';
  const closeEnd = close.index + close[0].length;
  const bodyStart = closeEnd < text.length ? closeEnd + 1 : closeEnd;
  if (mode !== 'slow') {
    const fast = readFrontmatterFast(yamlText);
    if (fast) return build(fast, text, bodyStart, []);
    if (mode === 'fast') return undefined;
  }
  if (yamlText.trim() === '') return build({}, text, bodyStart, []);
  try {
    const data = parseYaml(yamlText);
    if (data === null || data === undefined) return build({}, text, bodyStart, []);
    if (typeof data !== 'object' || Array.isArray(data)) {
      return build({}, text, bodyStart, ['The frontmatter is not a mapping: write one `key: value` per line.']);
    }
    return build(data as YamlMapping, text, bodyStart, []);
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const reason = (error as { reason?: string }).reason ?? (error instanceof Error ? error.message : String(error));
    const openingLine = text.slice(0, yamlStart).split('\n').length - 1;
    const line = openingLine + 1 + (typeof mark?.line === 'number' ? mark.line : 0);
    return build(salvage(yamlText.split('\n')), text, bodyStart, [
      `Frontmatter YAML error on line ${line}: ${reason}. Until it is fixed, name and description were read line by line.`,
    ]);
  }
}

function build(data: Record<string, unknown>, text: string, bodyStart: number, readErrors: string[]): SkillHeader {
  const name = detach(scalarText(data.name)?.trim());
  const metadata = isMapping(data.metadata) ? data.metadata : undefined;
  const hermes = metadata && isMapping(metadata.hermes) ? metadata.hermes : undefined;
  return {
    name: name === '' ? undefined : name,
    description: detach(scalarText(data.description)) ?? '',
    // Hermes-style skills keep their tags under metadata.hermes; search should see them too.
    tags: unique([...textList(data.tags), ...textList(metadata?.tags), ...textList(hermes?.tags)]),
    platforms: unique(textList(data.platforms).map((platform) => PLATFORM_ALIASES[platform.toLowerCase()] ?? platform.toLowerCase())),
    useCases: textList(data.use_cases),
    exampleQueries: textList(data.example_queries),
    ...bodyOf(text, bodyStart, textList(data.triggers)),
    level: levelOf(data),
    version: detach(scalarText(data.version)),
    calls: callsOf(data),
    readErrors,
  };
}

const NO_CALLS: readonly SkillCall[] = Object.freeze([]);

/** The workflow's calls, detached from the file text; one shared empty list for the many skills without a workflow. */
function callsOf(data: Record<string, unknown>): readonly SkillCall[] {
  const calls = workflowCalls(data);
  if (calls.length === 0) return NO_CALLS;
  return calls.map(({ skill, range, step, via }) => ({ skill: detach(skill), ...(range !== undefined ? { range: detach(range) } : {}), step: detach(step), via }));
}

export function emptyHeader(readErrors: string[]): SkillHeader {
  return { name: undefined, description: '', tags: [], platforms: [], useCases: [], exampleQueries: [], headings: [], about: '', level: 0, version: undefined, readErrors };
}

/**
 * A copy that does not keep the whole file text alive: V8 slices share their parent string, so
 * without this every indexed skill would hold its entire SKILL.md in memory.
 */
function detach<T extends string | undefined>(text: T): T {
  return (text === undefined || text.length < 13 ? text : (' ' + text).slice(1)) as T;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A list field written as a YAML list or as one comma-separated string. */
function textList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const result: string[] = [];
  for (const item of items) {
    const text = detach(scalarText(item)?.trim());
    if (text) result.push(text);
  }
  return result;
}

function unique(values: string[]): string[] {
  return values.length < 2 ? values : [...new Set(values)];
}

function levelOf(data: Record<string, unknown>): 0 | 1 | 2 {
  const level = Number(scalarText(data.level));
  if (level === 0 || level === 1 || level === 2) return level;
  if (data.adaptation !== undefined && data.adaptation !== null) return 2;
  if (data.workflow !== undefined && data.workflow !== null) return 1;
  return 0;
}

/** `name: value` lines at column 0, for frontmatter that YAML cannot read. */
function salvage(lines: readonly string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const line of lines) {
    const match = /^(name|description|version|level):[ \t]*(.*?)\s*$/.exec(line);
    // Both groups always take part in a match; the undefined checks are for the type checker.
    const key = match?.[1];
    let value = match?.[2];
    if (key === undefined || value === undefined || key in data || value === '') continue;
    const quote = value.charAt(0);
    if (value.length >= 2 && (quote === '"' || quote === "'") && value.endsWith(quote)) {
      value = value.slice(1, -1);
    }
    data[key] = value;
  }
  return data;
}

/**
 * In one pass over the body: its ATX headings, outside fenced code blocks (setext headings are not
 * listed), and its `about` text: the first paragraph outside code and headings, the lines of its
 * first "When to use" section, and the frontmatter's `triggers` (a list of phrases some skills use),
 * each part bounded by MAX_ABOUT_PART_CHARS.
 */
function bodyOf(text: string, start: number, triggers: readonly string[]): { headings: string[]; about: string } {
  const headings: string[] = [];
  let fence = '';
  let intro = '';
  /** 0: no paragraph yet; 1: in the first one; 2: it has ended. */
  let introState = 0;
  let when = '';
  /** 0: no "When to use" section yet; 1: in it; 2: it has ended. */
  let whenState = 0;
  for (let pos = start; pos < text.length && headings.length < MAX_HEADINGS; ) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    let first = pos;
    while (first - pos < 3 && text.charCodeAt(first) === 32) first++;
    const ch = text.charCodeAt(first);
    // Only lines that start (after up to 3 spaces) with #, ` or ~ can be a heading or fence; the
    // others are sliced only while a part of `about` is still being read.
    const fenceMatch = ch === 96 || ch === 126 ? /^(`{3,}|~{3,})(.*)$/.exec(text.slice(first, end)) : null;
    if (fenceMatch) {
      // Both groups always take part in a match; '' only satisfies the type checker.
      const marker = fenceMatch[1] ?? '';
      const info = fenceMatch[2] ?? '';
      if (fence === '') fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && info.trim() === '') fence = '';
      if (introState === 1) introState = 2;
    } else if (fence === '' && ch === 35) {
      const heading = /^#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(text.slice(first, end));
      if (heading) {
        const title = heading[1] ?? '';
        if (title) headings.push(detach(title.slice(0, MAX_HEADING_CHARS)));
        if (introState === 1) introState = 2;
        if (whenState === 1) whenState = 2;
        else if (whenState === 0 && WHEN_HEADING.test(title) && !NOT_WORD.test(title)) whenState = 1;
      }
    } else if (fence === '' && (whenState === 1 || introState < 2)) {
      const line = text.slice(first, end).trim();
      if (whenState === 1) {
        if (line && when.length < MAX_ABOUT_PART_CHARS) when += `${line}\n`;
      } else if (line && (introState === 1 || !NOT_PROSE.test(text.slice(pos, end)))) {
        introState = 1;
        if (intro.length < MAX_ABOUT_PART_CHARS) intro += `${line}\n`;
      } else if (introState === 1) {
        introState = 2;
      }
    }
    pos = end + 1;
  }
  const parts = [intro, when, triggers.join('\n')].map((part) => part.slice(0, MAX_ABOUT_PART_CHARS).trim());
  return { headings, about: detach(parts.filter(Boolean).join('\n')) };
}

function validUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.round(bytes / 1024)} KB`;
}
