import * as path from 'node:path';
import type { LintFinding, TextRange } from '../model/skillTypes';
import { finding } from '../model/lintRules';
import type { ExistenceCheck, RuleInput, RuleOutput } from './ruleInput';
import { lineRange, range } from '../model/textRanges';

export const BODY_MAX_LINES = 500;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// [text](target "title") and ![alt](target); one level of brackets in the text and of
// parentheses in the target, as Markdown allows.
const INLINE_LINK = /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^<>\n]*>|(?:[^\s()<>]|\([^\s()]*\))+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/dg;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*(<[^<>\n]*>|\S+)/d;
// A support-folder path written in prose or inline code, e.g. `python scripts/fill.py`. Only
// paths with a file extension count: "templates/skill" in a sentence is usually not a path.
const MENTION = /(?<![\w./\\-])((?:references|scripts|templates|assets)\/[^\s`'"()<>[\]{}*,;|!?]+)/g;

// Names that stand for "some file" in instructions ("[Finish in Shop](url)", "references/filename.md").
const PLACEHOLDER_STEM = /^(?:url|link|href|path|page|target|src|file(?:name)?\d*|example\d*|foo|bar|baz|xxx+|name|relative-(?:url|path)|(?:my|your|some)[-_]\w+)$/i;
// A line that presents paths as illustrations ("Example: `scripts/rotate_pdf.py`", "A
// `references/schema.md` file would be helpful") or as relative to somewhere else ("from the repo
// root"); bare mentions there are not claims about this skill's folder.
const ILLUSTRATIVE_LINE = /\b(?:e\.g\.|for example|for instance|would be|could be|hypothetical|(?:repo|repository|project) root|root of the (?:repo|repository|project))\b|\bexamples?\**\s*:/i;

/** True for paths that are placeholders rather than real files. */
export function isPlaceholderPath(target: string): boolean {
  if (/(?:^|\/)path\/to\//i.test(target)) {
    return true;
  }
  const base = target.slice(target.lastIndexOf('/') + 1);
  const stem = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  return PLACEHOLDER_STEM.test(stem);
}

/** Blanks out inline code spans (keeping columns) so links shown as code are not checked. */
export function maskInlineCode(line: string): string {
  if (!line.includes('`')) {
    return line;
  }
  let out = '';
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '`') {
      out += line[i];
      i++;
      continue;
    }
    let run = 1;
    while (line[i + run] === '`') run++;
    const ticks = '`'.repeat(run);
    let close = line.indexOf(ticks, i + run);
    while (close >= 0 && line[close + run] === '`') {
      close = line.indexOf(ticks, close + run + 1);
    }
    if (close < 0) {
      out += line.slice(i, i + run);
      i += run;
      continue;
    }
    out += ' '.repeat(close + run - i);
    i = close + run;
  }
  return out;
}

/** The path a link target names inside the skill folder, or undefined for URLs, anchors and placeholders. */
export function localLinkTarget(raw: string): string | undefined {
  let target = raw.startsWith('<') && raw.endsWith('>') ? raw.slice(1, -1) : raw;
  target = target.trim();
  if (target === '' || target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target) || /^[/\\~]/.test(target)) {
    return undefined;
  }
  if (/[{}$<>*]|\.{3}|…/.test(target)) {
    return undefined;
  }
  target = target.replace(/[?#].*$/, '');
  try {
    target = decodeURIComponent(target);
  } catch {
    // A stray % stays as written.
  }
  const normalized = path.posix.normalize(target.replace(/\\/g, '/'));
  if (normalized === '.' || normalized === './' || normalized === '' || isPlaceholderPath(normalized)) {
    return undefined;
  }
  return normalized.replace(/\/$/, '');
}

export function checkBody(input: RuleInput): RuleOutput {
  const { parsed, lines } = input;
  const findings: LintFinding[] = [];
  const checks: ExistenceCheck[] = [];
  const start = parsed.bodyStartLine;
  let last = lines.length - 1;
  while (last >= start && (lines[last] ?? '').trim() === '') {
    last--;
  }
  if (parsed.hasFrontmatter && last < start) {
    const anchor = parsed.frontmatterEndLine >= 0 ? parsed.frontmatterEndLine : Math.max(0, lines.length - 1);
    findings.push(
      finding(
        'SW501',
        'The body is empty. After the frontmatter, write the instructions the agent follows when it uses this skill: steps, commands, examples.',
        lineRange(lines, anchor),
      ),
    );
  }
  const bodyLines = last - start + 1;
  if (bodyLines > BODY_MAX_LINES) {
    findings.push(
      finding(
        'SW502',
        `The body has ${bodyLines.toLocaleString('en-US')} lines (over ${BODY_MAX_LINES}). The whole body is loaded when the skill is used: move details into references/ files and link them from here.`,
        lineRange(lines, start + BODY_MAX_LINES),
      ),
    );
  }

  let fence: { char: string; length: number } | undefined;
  for (let i = start; i <= last; i++) {
    const line = lines[i] ?? '';
    // The group always takes part in a match: `marker` is undefined only on lines that are no fence.
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker !== undefined && marker[0] === fence.char && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
      }
      continue;
    }
    if (marker !== undefined) {
      fence = { char: marker.charAt(0), length: marker.length };
      continue;
    }
    scanLine(line, i, checks);
  }
  return { findings, checks };
}

function scanLine(line: string, lineNumber: number, checks: ExistenceCheck[]): void {
  const masked = maskInlineCode(line);
  // Link targets already checked as links are blanked before looking for bare mentions.
  let mentionText = line;
  const targets: { raw: string; start: number }[] = [];
  // Both patterns have the `d` flag and a group that always takes part, so the spans exist.
  for (const match of masked.matchAll(INLINE_LINK)) {
    const span = match.indices?.[1];
    if (!span) continue;
    const [start, end] = span;
    targets.push({ raw: line.slice(start, end), start });
  }
  const definition = REFERENCE_DEFINITION.exec(masked)?.indices?.[1];
  if (definition) {
    const [start, end] = definition;
    targets.push({ raw: line.slice(start, end), start });
  }
  for (const { raw, start } of targets) {
    mentionText = mentionText.slice(0, start) + ' '.repeat(raw.length) + mentionText.slice(start + raw.length);
    const target = localLinkTarget(raw);
    if (target === undefined) {
      continue;
    }
    const where = range(lineNumber, start, lineNumber, start + raw.length);
    checks.push({
      path: target,
      onMissing: () =>
        finding('SW503', `The link target "${raw}" does not exist in this skill folder. Fix the path, add the file, or remove the link.`, where),
    });
  }
  if (!/(?:references|scripts|templates|assets)\//.test(mentionText) || ILLUSTRATIVE_LINE.test(line)) {
    return;
  }
  for (const match of mentionText.matchAll(MENTION)) {
    // The group always takes part in a match; the check only narrows the type.
    const written = match[1];
    if (written === undefined) continue;
    const mention = written.replace(/[.:]+$/, '');
    if (!/\.[A-Za-z0-9]{1,10}$/.test(mention) || /\.{2}|…|%|\$/.test(mention) || isPlaceholderPath(mention)) {
      continue;
    }
    const where: TextRange = range(lineNumber, match.index!, lineNumber, match.index! + mention.length);
    checks.push({
      path: path.posix.normalize(mention),
      onMissing: () =>
        finding('SW504', `"${mention}" is mentioned but does not exist in this skill folder. Add the file, or fix the path.`, where),
    });
  }
}
