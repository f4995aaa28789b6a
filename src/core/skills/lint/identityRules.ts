import type { LintFinding, QuickFix, TextEdit } from '../model/skillTypes';
import { finding } from '../model/lintRules';
import type { RuleInput } from './ruleInput';
import { hasWhenToUseSignal } from './whenToUse';
import { codePointLength, inlineValueRange, insertLines, keyRange, valueRange, yamlQuote, yamlScalar } from '../model/textRanges';

/** Agent Skills spec: lowercase letters, digits and single inner hyphens. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SKILL_NAME_MAX = 64;
export const DESCRIPTION_MAX = 1024;
export const DESCRIPTION_MIN = 15;

export const DESCRIPTION_PLACEHOLDER = 'TODO: say what this skill does and when to use it (Use when …)';

export function isValidSkillName(name: string): boolean {
  return name.length >= 1 && name.length <= SKILL_NAME_MAX && SKILL_NAME_PATTERN.test(name);
}

/** The closest valid name: lowercase ASCII, other runs of characters turned into single hyphens. */
export function slugifySkillName(value: string): string {
  const slug = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, SKILL_NAME_MAX).replace(/-+$/, '');
}

function nameDefect(name: string): string {
  if (name.length === 0) return 'is empty';
  if (name.length > SKILL_NAME_MAX) return `is ${name.length} characters long (at most ${SKILL_NAME_MAX})`;
  if (/[A-Z]/.test(name)) return 'has uppercase letters';
  if (/^-|-$/.test(name)) return 'starts or ends with a hyphen';
  if (/--/.test(name)) return 'has consecutive hyphens';
  return 'has characters other than a-z, 0-9 and hyphens';
}

function setValueFix(input: RuleInput, key: string, value: string, title: string): QuickFix | undefined {
  const line = input.parsed.keyLines[key];
  const target = line === undefined ? undefined : inlineValueRange(input.lines, line);
  return target ? { title, edits: [{ range: target, newText: yamlScalar(value) }] } : undefined;
}

/**
 * Puts `value` into `key`: replaces an inline value, completes a bare `key:` line, or inserts a
 * new line after `afterKey` (after the opening `---` when that key is absent too).
 */
function fillValueEdit(input: RuleInput, key: string, value: string, afterKey?: string): TextEdit | undefined {
  const line = input.parsed.keyLines[key];
  if (line === undefined) {
    const after = afterKey === undefined ? undefined : input.parsed.keyLines[afterKey];
    const at = after !== undefined ? after + 1 : input.parsed.frontmatterStartLine + 1;
    return insertLines(input.lines, at, [`${key}: ${value}`], input.parsed.eol);
  }
  const inline = inlineValueRange(input.lines, line);
  if (inline) {
    return { range: inline, newText: value };
  }
  const text = input.lines[line] ?? '';
  if (text.trim() === `${key}:`) {
    const end = text.length;
    return { range: { startLine: line, startColumn: end, endLine: line, endColumn: end }, newText: ` ${value}` };
  }
  return undefined;
}

export function checkName(input: RuleInput): LintFinding[] {
  const { frontmatter, lines, parsed, context } = input;
  if (!parsed.hasFrontmatter) {
    return [];
  }
  const folder = context.folderName;
  const folderValid = isValidSkillName(folder);
  const raw = frontmatter['name'];
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    const suggestion = folderValid ? folder : slugifySkillName(folder);
    const edit = suggestion ? fillValueEdit(input, 'name', yamlScalar(suggestion)) : undefined;
    const fixes: QuickFix[] = edit ? [{ title: `Set name: ${suggestion}`, edits: [edit] }] : [];
    const range = raw === undefined ? keyRange(lines, {}, 'name', input.anchorLine) : keyRange(lines, parsed.keyLines, 'name');
    return [
      finding(
        'SW201',
        `The frontmatter has ${raw === undefined ? 'no' : 'an empty'} \`name\`. Set \`name: ${suggestion || 'my-skill'}\` (the folder name, lowercase with hyphens).`,
        range,
        fixes,
      ),
    ];
  }
  const name = typeof raw === 'string' ? raw : String(raw);
  const where = valueRange(lines, parsed.keyLines, 'name', input.anchorLine);
  if (typeof raw !== 'string' || !isValidSkillName(name)) {
    const slug = slugifySkillName(name);
    const fixes: QuickFix[] = [];
    const slugFix = slug ? setValueFix(input, 'name', slug, `Change name to ${slug}`) : undefined;
    if (slugFix) fixes.push(slugFix);
    if (folderValid && folder !== slug) {
      const folderFix = setValueFix(input, 'name', folder, `Change name to the folder name, ${folder}`);
      if (folderFix) fixes.push(folderFix);
    }
    const defect = typeof raw !== 'string' ? `is a ${Array.isArray(raw) ? 'list' : typeof raw}, not text` : nameDefect(name);
    return [
      finding(
        'SW202',
        `The name "${name.slice(0, 80)}" ${defect}. A skill name is 1–64 characters of lowercase letters, digits and single hyphens${slug ? `, e.g. "${slug}"` : ''}.`,
        where,
        fixes,
      ),
    ];
  }
  if (folder !== '' && name !== folder) {
    const fix = folderValid ? setValueFix(input, 'name', folder, `Change name to the folder name, ${folder}`) : undefined;
    const advice = folderValid ? `Set \`name: ${folder}\` or rename the folder to "${name}"` : `Rename the folder to "${name}"`;
    return [
      finding(
        'SW203',
        `The name "${name}" differs from its folder "${folder}"; the Agent Skills spec requires them to be equal. ${advice}.`,
        where,
        fix ? [fix] : [],
      ),
    ];
  }
  return [];
}

export function checkDescription(input: RuleInput): LintFinding[] {
  const { frontmatter, lines, parsed } = input;
  if (!parsed.hasFrontmatter) {
    return [];
  }
  const raw = frontmatter['description'];
  const keyLine = parsed.keyLines['description'];
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    const edit = fillValueEdit(input, 'description', yamlQuote(DESCRIPTION_PLACEHOLDER), 'name');
    return [
      finding(
        'SW301',
        `The frontmatter has ${keyLine === undefined ? 'no' : 'an empty'} \`description\`. Agents choose skills by it: say in one or two sentences what the skill does and when to use it ("Use when …").`,
        keyLine === undefined ? keyRange(lines, {}, 'name', input.anchorLine) : keyRange(lines, parsed.keyLines, 'description'),
        edit ? [{ title: 'Add a description to fill in', edits: [edit] }] : [],
      ),
    ];
  }
  const key = keyRange(lines, parsed.keyLines, 'description', input.anchorLine);
  if (typeof raw !== 'string') {
    return [
      finding(
        'SW302',
        `The description is a ${Array.isArray(raw) ? 'list' : typeof raw}, not text. Write it as one string (quote it if it contains ": " or starts with a special character).`,
        key,
      ),
    ];
  }
  const length = codePointLength(raw);
  if (length > DESCRIPTION_MAX) {
    return [
      finding(
        'SW303',
        `The description is ${length.toLocaleString('en-US')} characters; the limit is ${DESCRIPTION_MAX.toLocaleString('en-US')}. Keep what the skill does and when to use it, and move details into the body.`,
        key,
      ),
    ];
  }
  if (/^\s*(?:TODO|TBD|FIXME)\b/i.test(raw)) {
    return [finding('SW306', 'The description is still a placeholder. Replace it with what the skill does and when to use it.', valueRange(lines, parsed.keyLines, 'description'))];
  }
  if (codePointLength(raw.trim()) < DESCRIPTION_MIN) {
    return [
      finding(
        'SW304',
        `The description "${raw.trim()}" is too short for an agent to know when to pick this skill. Say what it does and when to use it, in a sentence or two.`,
        valueRange(lines, parsed.keyLines, 'description'),
      ),
    ];
  }
  if (!hasWhenToUseSignal(raw)) {
    return [
      finding(
        'SW305',
        'The description says what the skill does but not when to use it; agents pick skills by the description alone. Add a sentence such as "Use when the user asks to …".',
        key,
      ),
    ];
  }
  return [];
}
