import * as semver from 'semver';
import { isPlainObject } from '../model/skillParser';
import type { LintFinding, QuickFix, TextRange } from '../model/skillTypes';
import { finding } from '../model/lintRules';
import type { RuleInput } from './ruleInput';
import { blockEnd, codePointLength, findChildKeyLine, inlineValueRange, keyRange, valueRange, yamlQuote, yamlScalar } from '../model/textRanges';

/** Fields of the Agent Skills spec. */
export const SPEC_FIELDS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const;
/** Skillwright's own fields; other agents ignore them. */
export const EXTENSION_FIELDS = [
  'version', 'tags', 'platforms', 'priority', 'level', 'use_cases', 'example_queries', 'requires_tools',
  'permissions', 'timeout_seconds', 'input_schema', 'output_schema', 'entry', 'endpoint', 'workflow', 'adaptation',
] as const;
const KNOWN_FIELDS: ReadonlySet<string> = new Set<string>([...SPEC_FIELDS, ...EXTENSION_FIELDS]);

export const COMPATIBILITY_MAX = 500;

export type Platform = 'linux' | 'macos' | 'windows';
const PLATFORM_ALIASES: Readonly<Record<string, Platform>> = {
  linux: 'linux',
  macos: 'macos',
  windows: 'windows',
  // Node's process.platform names, which authors who script often write.
  darwin: 'macos',
  win32: 'windows',
};

/** `linux`, `macos` or `windows` for a `platforms` entry (aliases `darwin`, `win32`), else undefined. */
export function normalizePlatform(value: string): Platform | undefined {
  return PLATFORM_ALIASES[value];
}

function describeType(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  return isPlainObject(value) ? 'a mapping' : `a ${typeof value}`;
}

export function checkFields(input: RuleInput): LintFinding[] {
  const { frontmatter, lines, parsed } = input;
  const findings: LintFinding[] = [];
  const at = (key: string): TextRange => valueRange(lines, parsed.keyLines, key, input.anchorLine);
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(frontmatter, key);

  for (const key of Object.keys(frontmatter)) {
    if (!KNOWN_FIELDS.has(key)) {
      findings.push(
        finding(
          'SW401',
          `\`${key}\` is not a field of the Agent Skills spec or of Skillwright, so other agents ignore it. To keep it portable, move it under \`metadata:\` as a string.`,
          keyRange(lines, parsed.keyLines, key, input.anchorLine),
        ),
      );
    }
  }

  if (has('compatibility')) {
    const value = frontmatter['compatibility'];
    if (typeof value !== 'string') {
      findings.push(finding('SW402', `\`compatibility\` is ${describeType(value)}; write it as one string (at most ${COMPATIBILITY_MAX} characters) naming the products or system packages the skill needs.`, at('compatibility')));
    } else if (codePointLength(value) > COMPATIBILITY_MAX) {
      findings.push(finding('SW402', `\`compatibility\` is ${codePointLength(value)} characters; the limit is ${COMPATIBILITY_MAX}. Keep only the requirements and move explanations into the body.`, keyRange(lines, parsed.keyLines, 'compatibility')));
    }
  }

  if (has('metadata')) {
    findings.push(...checkMetadata(input));
  }

  if (has('version')) {
    const value = frontmatter['version'];
    const text = typeof value === 'string' ? value : value instanceof Date ? '' : String(value);
    if (typeof value !== 'string' || semver.valid(value) === null) {
      const coerced = text ? semver.coerce(text)?.version : undefined;
      const line = parsed.keyLines['version'];
      const target = line === undefined ? undefined : inlineValueRange(lines, line);
      const fixes: QuickFix[] = coerced && target ? [{ title: `Change version to ${coerced}`, edits: [{ range: target, newText: yamlScalar(coerced) }] }] : [];
      const why = typeof value === 'string' ? `"${value}" is not` : `${describeType(value)} is not`;
      findings.push(finding('SW404', `\`version\`: ${why} a semantic version. Write MAJOR.MINOR.PATCH${coerced ? `, e.g. ${coerced}` : ', e.g. 1.0.0'} (quoted or not).`, at('version'), fixes));
    }
  }

  if (has('level')) {
    const value = frontmatter['level'];
    if (value !== 0 && value !== 1 && value !== 2) {
      findings.push(finding('SW405', `\`level\` is ${JSON.stringify(value) ?? describeType(value)}; it must be the number 0 (one job), 1 (a workflow of steps) or 2 (a workflow that adapts its parameters).`, at('level')));
    }
  }

  if (has('priority')) {
    const value = frontmatter['priority'];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
      findings.push(finding('SW406', `\`priority\` is ${JSON.stringify(value) ?? describeType(value)}; use a number from 0 (lowest) to 100 (highest).`, at('priority')));
    }
  }

  if (has('platforms')) {
    findings.push(...checkPlatforms(input));
  }

  if (has('timeout_seconds')) {
    const value = frontmatter['timeout_seconds'];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      findings.push(finding('SW408', `\`timeout_seconds\` is ${JSON.stringify(value) ?? describeType(value)}; use a positive number of seconds, e.g. 60.`, at('timeout_seconds')));
    }
  }

  for (const key of ['tags', 'use_cases', 'example_queries', 'requires_tools']) {
    const value = frontmatter[key];
    if (has(key) && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
      findings.push(finding('SW409', `\`${key}\` is ${describeType(value)}${Array.isArray(value) ? ' with non-text items' : ''}; write it as a list of strings, e.g. \`${key}: [first, second]\`.`, at(key)));
    }
  }
  for (const key of ['license']) {
    if (has(key) && typeof frontmatter[key] !== 'string') {
      findings.push(finding('SW409', `\`${key}\` is ${describeType(frontmatter[key])}; write it as a string, e.g. \`${key}: MIT\`.`, at(key)));
    }
  }
  const tools = frontmatter['allowed-tools'];
  if (has('allowed-tools') && typeof tools !== 'string' && !(Array.isArray(tools) && tools.every((item) => typeof item === 'string'))) {
    findings.push(finding('SW409', `\`allowed-tools\` is ${describeType(tools)}; the spec writes it as one space-separated string, e.g. \`allowed-tools: Read Grep\`.`, at('allowed-tools')));
  }
  return findings;
}

function checkMetadata(input: RuleInput): LintFinding[] {
  const { frontmatter, lines, parsed } = input;
  const value = frontmatter['metadata'];
  const keyLine = parsed.keyLines['metadata'];
  if (!isPlainObject(value)) {
    return [finding('SW403', `\`metadata\` is ${describeType(value)}; it must be a mapping of string keys to string values, e.g. \`metadata:\` then \`  author: jane\` on the next line.`, valueRange(lines, parsed.keyLines, 'metadata', input.anchorLine))];
  }
  const findings: LintFinding[] = [];
  const fmEnd = parsed.frontmatterEndLine >= 0 ? parsed.frontmatterEndLine : parsed.bodyStartLine;
  const from = keyLine === undefined ? fmEnd : keyLine + 1;
  const to = keyLine === undefined ? fmEnd : blockEnd(lines, from, fmEnd);
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') {
      continue;
    }
    const line = findChildKeyLine(lines, from, to, key);
    const where = line === undefined ? keyRange(lines, parsed.keyLines, 'metadata', input.anchorLine) : inlineValueRange(lines, line) ?? keyRange(lines, { [key]: line }, key);
    const scalar = item === null || typeof item === 'number' || typeof item === 'boolean' || item instanceof Date;
    const fixes: QuickFix[] = [];
    if (scalar && line !== undefined) {
      const inline = inlineValueRange(lines, line);
      const source = inline ? (lines[line] ?? '').slice(inline.startColumn, inline.endColumn) : '';
      const edit = inline
        ? { range: inline, newText: yamlQuote(source) }
        : { range: { startLine: line, startColumn: (lines[line] ?? '').trimEnd().length, endLine: line, endColumn: (lines[line] ?? '').length }, newText: ' ""' };
      fixes.push({ title: `Quote the value of metadata.${key}`, edits: [edit] });
    }
    const advice = scalar
      ? 'Quote it so it stays text.'
      : 'Flatten it into string values (e.g. a comma-separated list), or ignore this if only one agent reads it.';
    findings.push(finding('SW403', `\`metadata.${key}\` is ${describeType(item)}; the Agent Skills spec allows only string values in metadata. ${advice}`, where, fixes));
  }
  return findings;
}

function checkPlatforms(input: RuleInput): LintFinding[] {
  const { frontmatter, lines, parsed } = input;
  const value = frontmatter['platforms'];
  const where = valueRange(lines, parsed.keyLines, 'platforms', input.anchorLine);
  if (!Array.isArray(value)) {
    return [finding('SW407', `\`platforms\` is ${describeType(value)}; write it as a list of linux, macos and windows, e.g. \`platforms: [linux, macos]\`.`, where)];
  }
  const findings: LintFinding[] = [];
  for (const item of value) {
    if (typeof item === 'string' && normalizePlatform(item)) {
      continue;
    }
    const text = typeof item === 'string' ? item : JSON.stringify(item) ?? String(item);
    const lower = typeof item === 'string' ? item.toLowerCase() : '';
    const guess = normalizePlatform(lower) ?? (/^(?:mac|osx|os x)$/.test(lower) ? 'macos' : /^win/.test(lower) ? 'windows' : /^(?:ubuntu|debian|fedora|unix)$/.test(lower) ? 'linux' : undefined);
    const line = parsed.keyLines['platforms'];
    const fmEnd = parsed.frontmatterEndLine >= 0 ? parsed.frontmatterEndLine : parsed.bodyStartLine;
    let itemRange = where;
    if (line !== undefined) {
      for (let i = line; i < blockEnd(lines, line + 1, fmEnd); i++) {
        const col = (lines[i] ?? '').indexOf(text, i === line ? (lines[i] ?? '').indexOf(':') + 1 : 0);
        if (col >= 0) {
          itemRange = { startLine: i, startColumn: col, endLine: i, endColumn: col + text.length };
          break;
        }
      }
    }
    const fixes: QuickFix[] = guess && itemRange !== where ? [{ title: `Change to ${guess}`, edits: [{ range: itemRange, newText: guess }] }] : [];
    findings.push(finding('SW407', `\`platforms\` has "${text}", which is not one of linux, macos, windows (darwin and win32 are accepted too)${guess ? `; did you mean ${guess}?` : '.'}`, itemRange, fixes));
  }
  return findings;
}
