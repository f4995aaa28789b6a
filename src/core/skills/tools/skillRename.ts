import { applyTextEdits } from '../lint/applyTextEdits';
import { blockEnd, inlineValueRange, insertLines, range, yamlScalar } from '../model/textRanges';
import { MAX_SKILL_CHARS, parseSkillText } from '../model/skillParser';
import type { Checked } from '../model/skillPaths';
import { qualifiedName, skillNameProblem } from '../model/skillPaths';
import type { SkillRecord } from '../model/skillTypes';

/**
 * The pure half of the browser's rename, duplicate and "new skill" actions: which names are free,
 * and the SKILL.md text with a new `name`. The host does the file work.
 */

/**
 * Why `name` cannot be used for a new or renamed skill, or undefined when it can. Names are
 * refused when any indexed skill already has them, in any folder: a second copy would silently
 * shadow one of the two.
 */
export function newSkillNameProblem(name: string, records: readonly SkillRecord[], self?: SkillRecord): string | undefined {
  const problem = skillNameProblem(name);
  if (problem) return capitalize(problem);
  if (self && name === self.name) return `The skill is already called "${name}"; enter a different name.`;
  const taken = records.find((record) => record !== self && record.file !== self?.file && (record.name === name || (record.folderName === name && record.root === self?.root)));
  if (taken) return `A skill named "${name}" already exists (${taken.root.label}/${qualifiedName(taken)}); choose another name.`;
  return undefined;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * `text` with its frontmatter `name` set to `name`, everything else byte for byte as it was (line
 * endings and a byte order mark included). A missing `name` is added as the first key; a file
 * without frontmatter gets one holding only the name.
 */
export function withFrontmatterName(text: string, name: string): Checked<string> {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  if (text.length - bom.length > MAX_SKILL_CHARS) {
    return { ok: false, error: `This SKILL.md is over ${MAX_SKILL_CHARS.toLocaleString('en-US')} characters, more than a skill should hold; shorten it first.` };
  }
  const parsed = parseSkillText(text);
  const value = yamlScalar(name);
  if (!parsed.hasFrontmatter) {
    const eol = parsed.eol;
    return { ok: true, value: `${bom}---${eol}name: ${value}${eol}---${eol}${eol}${parsed.text}` };
  }
  if (parsed.frontmatterEndLine < 0) {
    return { ok: false, error: 'The frontmatter of this SKILL.md is not closed with a "---" line; fix it first, then try again.' };
  }
  const line = parsed.keyLines['name'];
  if (line === undefined) {
    const edit = insertLines(parsed.lines, parsed.frontmatterStartLine + 1, [`name: ${value}`], parsed.eol);
    return { ok: true, value: bom + applyTextEdits(parsed.text, [edit]) };
  }
  const inline = inlineValueRange(parsed.lines, line);
  if (inline) return { ok: true, value: bom + applyTextEdits(parsed.text, [{ range: inline, newText: value }]) };
  // A block or multi-line value: replace the key's whole block with one line.
  const end = blockEnd(parsed.lines, line + 1, parsed.frontmatterEndLine);
  const last = end - 1;
  const edit = { range: range(line, 0, last, (parsed.lines[last] ?? '').length), newText: `name: ${value}` };
  return { ok: true, value: bom + applyTextEdits(parsed.text, [edit]) };
}

/** "deploy-app" → "Deploy app": the first heading of a skill made from a template. */
export function titleFromName(name: string): string {
  const words = name.split('-').filter(Boolean).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
