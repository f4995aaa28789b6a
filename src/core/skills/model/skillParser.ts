import matter from 'gray-matter';
import type { LintFinding, QuickFix } from './skillTypes';
import { finding } from './lintRules';
import { matchTopLevelKey, readFrontmatterLines, scanKeyLines } from './frontmatterLines';
import { LINE_BREAK, insertLines, lineRange, range, yamlQuote } from './textRanges';

export interface ParsedSkill {
  /** {} when absent or unreadable. */
  readonly frontmatter: Record<string, unknown>;
  readonly hasFrontmatter: boolean;
  /** The Markdown after the frontmatter, line endings normalised to `\n`. */
  readonly body: string;
  /** 0-based line where the body starts. */
  readonly bodyStartLine: number;
  /** Top-level key -> 0-based line. */
  readonly keyLines: Readonly<Record<string, number>>;
  /** Parse-level findings: binary, too large, frontmatter missing/unclosed/unparseable, fallback used. */
  readonly problems: readonly LintFinding[];
  /** The decoded text (BOM stripped), as parsed. */
  readonly text: string;
  /** `text` split into lines the way VS Code counts them (CRLF, LF or CR), without the breaks. */
  readonly lines: readonly string[];
  /** The file's own line break, for edits that insert lines. */
  readonly eol: '\n' | '\r\n';
  /** Line of the opening `---`; -1 without frontmatter. */
  readonly frontmatterStartLine: number;
  /** Line of the closing `---`; -1 when there is none. */
  readonly frontmatterEndLine: number;
  /** True when YAML failed and `frontmatter` was read line by line (scalars only). */
  readonly fallbackUsed: boolean;
}

/** Files above this are cut here: lint runs on every keystroke and a skill this big is a mistake. */
export const MAX_SKILL_BYTES = 1024 * 1024;
/** The same cap for text that arrives already decoded (an open editor). */
export const MAX_SKILL_CHARS = MAX_SKILL_BYTES;

const BOM = '\uFEFF';

// gray-matter's own entry point is avoided on purpose: it caches every input string forever (a leak
// when called per keystroke) and evaluates `---js` frontmatter as JavaScript. Its YAML engine is
// js-yaml's safeLoad, which builds only plain data.
const parseYaml = (matter as unknown as { engines: { yaml: { parse(text: string): unknown } } }).engines.yaml.parse;

export function decodeSkillBytes(bytes: Uint8Array): { text: string; problems: LintFinding[] } {
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    return {
      text: '',
      problems: [
        finding(
          'SW100',
          `This file is binary (a NUL byte at offset ${nul}), so it cannot be a SKILL.md. Save it as UTF-8 Markdown text, or move the binary file into assets/.`,
          range(0, 0, 0, 0),
        ),
      ],
    };
  }
  const problems: LintFinding[] = [];
  let slice = bytes;
  const truncated = bytes.length > MAX_SKILL_BYTES;
  if (truncated) {
    let end = MAX_SKILL_BYTES;
    // `end` stays below bytes.length.
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) {
      end--;
    }
    slice = bytes.subarray(0, end);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(slice);
  } catch {
    text = new TextDecoder('utf-8').decode(slice);
    const bad = firstInvalidUtf8(slice);
    const lineStart = slice.lastIndexOf(0x0a, bad) + 1;
    const line = countByte(slice, 0x0a, lineStart);
    const column = new TextDecoder('utf-8').decode(slice.subarray(lineStart, bad)).length;
    problems.push(
      finding(
        'SW101',
        `This file is not valid UTF-8 (first bad byte at offset ${bad}); the bad bytes are shown as \uFFFD. Re-save the file with UTF-8 encoding.`,
        range(line, column, line, column + 1),
      ),
    );
  }
  if (truncated) {
    const lastBreak = text.lastIndexOf('\n');
    text = lastBreak > 0 ? text.slice(0, lastBreak) : text;
    problems.push(tooLarge(bytes.length, 'bytes'));
  }
  return { text, problems };
}

/** Decodes and parses in one step, keeping the decoding problems; a binary file parses as empty. */
export function parseSkillBytes(bytes: Uint8Array): ParsedSkill {
  const decoded = decodeSkillBytes(bytes);
  if (decoded.problems.some((problem) => problem.code === 'SW100')) {
    return emptySkill(decoded.problems);
  }
  const parsed = parseSkillText(decoded.text);
  return { ...parsed, problems: [...decoded.problems, ...parsed.problems] };
}

export function parseSkillText(input: string): ParsedSkill {
  const problems: LintFinding[] = [];
  let text = input.startsWith(BOM) ? input.slice(1) : input;
  if (text.length > MAX_SKILL_CHARS) {
    const lastBreak = text.lastIndexOf('\n', MAX_SKILL_CHARS);
    text = text.slice(0, lastBreak > 0 ? lastBreak : MAX_SKILL_CHARS);
    problems.push(tooLarge(input.length, 'characters'));
  }
  const lines = text.split(LINE_BREAK);
  const eol: '\n' | '\r\n' = /\r\n/.test(text.slice(0, 4096)) ? '\r\n' : '\n';
  const base = { text, lines, eol };

  let open = 0;
  while (open < lines.length && lines[open]?.trim() === '' && open < 50) {
    open++;
  }
  if (open >= lines.length || lines[open]?.trimEnd() !== '---') {
    problems.push(
      finding(
        'SW103',
        'No frontmatter: a SKILL.md must start with a `---` line, then `name:` and `description:`, then a closing `---` line.',
        range(0, 0, 0, (lines[0] ?? '').length),
      ),
    );
    return {
      ...base,
      frontmatter: {},
      hasFrontmatter: false,
      body: lines.join('\n'),
      bodyStartLine: 0,
      keyLines: {},
      problems,
      frontmatterStartLine: -1,
      frontmatterEndLine: -1,
      fallbackUsed: false,
    };
  }
  if (open > 0) {
    problems.push(
      finding(
        'SW107',
        `The frontmatter starts on line ${open + 1}, after blank lines; agents that read strictly look for \`---\` on the first line. Remove the blank lines above it.`,
        range(0, 0, open, (lines[open] ?? '').length),
        [{ title: 'Remove the blank lines before the frontmatter', edits: [{ range: range(0, 0, open, 0), newText: '' }] }],
      ),
    );
  }

  let close = -1;
  for (let i = open + 1; i < lines.length; i++) {
    if (lines[i]?.trimEnd() === '---') {
      close = i;
      break;
    }
  }
  const first = open + 1;
  if (close < 0) {
    // Without a closing line the frontmatter is taken to end at the first blank line, which is
    // where an author who forgot the `---` usually starts the body.
    let end = first;
    while (end < lines.length && lines[end]!.trim() !== '') {
      end++;
    }
    problems.push(
      finding(
        'SW104',
        'The frontmatter is never closed: add a `---` line after the last frontmatter field. Until then the fields were read line by line.',
        lineRange(lines, open),
        [{ title: 'Close the frontmatter with ---', edits: [insertLines(lines, end, ['---'], eol)] }],
      ),
    );
    problems.push(...tabIndentation(lines, first, end));
    return {
      ...base,
      frontmatter: readFrontmatterLines(lines, first, end),
      hasFrontmatter: true,
      body: lines.slice(end).join('\n'),
      bodyStartLine: end,
      keyLines: scanKeyLines(lines, first, end),
      problems,
      frontmatterStartLine: open,
      frontmatterEndLine: -1,
      fallbackUsed: true,
    };
  }

  problems.push(...tabIndentation(lines, first, close));
  const keyLines = scanKeyLines(lines, first, close);
  const yamlText = lines.slice(first, close).join('\n');
  let frontmatter: Record<string, unknown> = {};
  let fallbackUsed = false;
  if (yamlText.trim() !== '') {
    try {
      const data = parseYaml(yamlText);
      if (isPlainObject(data)) {
        frontmatter = data;
      } else if (data !== null && data !== undefined) {
        const kind = Array.isArray(data) ? 'a list' : `a ${typeof data}`;
        problems.push(
          finding(
            'SW106',
            `The frontmatter is ${kind}, not a mapping: write one \`key: value\` per line (name, description, …).`,
            lineRange(lines, first),
          ),
        );
      }
    } catch (error) {
      fallbackUsed = true;
      frontmatter = readFrontmatterLines(lines, first, close);
      problems.push(yamlProblem(error, lines, first, close));
    }
  }
  return {
    ...base,
    frontmatter,
    hasFrontmatter: true,
    body: lines.slice(close + 1).join('\n'),
    bodyStartLine: close + 1,
    keyLines,
    problems,
    frontmatterStartLine: open,
    frontmatterEndLine: close,
    fallbackUsed,
  };
}

function yamlProblem(error: unknown, lines: readonly string[], first: number, close: number): LintFinding {
  const mark = (error as { mark?: { line?: number; column?: number } }).mark;
  const reason = (error as { reason?: string }).reason ?? (error instanceof Error ? error.message : String(error));
  const line = Math.min(close - 1, first + (typeof mark?.line === 'number' ? mark.line : 0));
  const text = lines[line] ?? '';
  const column = Math.min(typeof mark?.column === 'number' ? mark.column : 0, text.length);
  const errorRange = column < text.trimEnd().length ? range(line, column, line, text.trimEnd().length) : lineRange(lines, line);
  let hint = '';
  let fixes: QuickFix[] | undefined;
  for (const candidate of [line, line - 1]) {
    const candidateText = lines[candidate] ?? '';
    const key = candidate >= first ? matchTopLevelKey(candidateText) : undefined;
    if (key && /:\s/.test(key.rest) && !/^["'[{|>&*!]/.test(key.rest)) {
      const value = candidateText.slice(candidateText.indexOf(key.rest));
      hint = ` The value of \`${key.key}\` contains ": ", which YAML reads as a second key: put the value in quotes.`;
      const start = candidateText.length - value.length;
      fixes = [
        {
          title: `Quote the value of ${key.key}`,
          edits: [{ range: range(candidate, start, candidate, candidateText.length), newText: yamlQuote(value.trim()) }],
        },
      ];
      break;
    }
  }
  return finding(
    'SW105',
    `Frontmatter YAML error on line ${line + 1}: ${reason}.${hint} Until it is fixed, the \`key: value\` lines were read one by one (name and description still work; other agents may reject the file).`,
    errorRange,
    fixes,
  );
}

function tabIndentation(lines: readonly string[], from: number, to: number): LintFinding[] {
  const problems: LintFinding[] = [];
  for (let i = from; i < to; i++) {
    const line = lines[i] ?? '';
    const tabs = /^[ \t]*\t[ \t]*/.exec(line);
    if (tabs && line.trim() !== '') {
      const indent = tabs[0];
      problems.push(
        finding(
          'SW108',
          'This line is indented with a tab; YAML allows only spaces for indentation, so it may be read as a different key than you meant. Indent with spaces.',
          range(i, 0, i, indent.length),
          [{ title: 'Indent with spaces', edits: [{ range: range(i, 0, i, indent.length), newText: indent.replace(/\t/g, '  ') }] }],
        ),
      );
    }
  }
  return problems;
}

function tooLarge(size: number, unit: 'bytes' | 'characters'): LintFinding {
  const format = (n: number): string => n.toLocaleString('en-US');
  return finding(
    'SW102',
    `This file is ${format(size)} ${unit}; only the first ${format(MAX_SKILL_BYTES)} ${unit} were read (the rest is not linted). Keep SKILL.md short and move long material into references/ files.`,
    range(0, 0, 0, 0),
  );
}

function emptySkill(problems: readonly LintFinding[]): ParsedSkill {
  return {
    frontmatter: {},
    hasFrontmatter: false,
    body: '',
    bodyStartLine: 0,
    keyLines: {},
    problems,
    text: '',
    lines: [''],
    eol: '\n',
    frontmatterStartLine: -1,
    frontmatterEndLine: -1,
    fallbackUsed: false,
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function countByte(bytes: Uint8Array, byte: number, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) {
    if (bytes[i] === byte) {
      count++;
    }
  }
  return count;
}

/** Offset of the first byte that breaks UTF-8 (overlong forms and surrogates included), or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  // bytes[i] is undefined exactly when i has reached the end.
  for (let b = bytes[i]; b !== undefined; b = bytes[i]) {
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min = 0x80;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) min = 0xa0;
      if (b === 0xed) max = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) min = 0x90;
      if (b === 0xf4) max = 0x8f;
    } else {
      return i;
    }
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      const lo = k === 1 ? min : 0x80;
      const hi = k === 1 ? max : 0xbf;
      if (next === undefined || next < lo || next > hi) {
        return i;
      }
    }
    i += need + 1;
  }
  return -1;
}
