import * as assert from 'node:assert/strict';
import { applyTextEdits } from '../../../src/core/skills/lint/applyTextEdits';
import { lintSkill } from '../../../src/core/skills/lint/skillLint';
import type { LintContext } from '../../../src/core/skills/lint/ruleInput';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';
import type { LintFinding } from '../../../src/core/skills/model/skillTypes';

/* Skill texts and lint calls the lint tests share (skillLint.test.ts, skillLintCycles.test.ts). */

export const DESCRIPTION = 'Fill in PDF forms from a JSON file. Use when the user asks to fill a PDF form.';
export const BODY = '# Fill PDF forms\n\nRun `scripts/fill.py` with the form and the data.\n';

/** A clean skill with extra frontmatter lines and an optional body. */
export function skill(extra = '', body = BODY, name = 'my-skill'): string {
  return `---\nname: ${name}\ndescription: ${DESCRIPTION}\n${extra}---\n${body}`;
}

export interface Options {
  readonly folder?: string;
  readonly files?: readonly string[];
  readonly skills?: LintContext['skills'];
  readonly self?: LintContext['self'];
}

export async function lint(text: string, options: Options = {}): Promise<LintFinding[]> {
  const files = new Set(options.files ?? ['scripts/fill.py', 'scripts']);
  return lintSkill(parseSkillText(text), {
    folderName: options.folder ?? 'my-skill',
    exists: (relative) => files.has(relative),
    ...(options.skills ? { skills: options.skills } : {}),
    ...(options.self ? { self: options.self } : {}),
  });
}

export async function codes(text: string, options?: Options): Promise<string[]> {
  return (await lint(text, options)).map((f) => f.code);
}

export async function only(code: string, text: string, options?: Options): Promise<LintFinding[]> {
  return (await lint(text, options)).filter((f) => f.code === code);
}

/** Applies the quick fix and returns the fixed text. */
export function applyFix(text: string, found: LintFinding, index = 0): string {
  const fix = found.fixes?.[index];
  assert.ok(fix, `${found.code} offers no quick fix #${index}`);
  return applyTextEdits(text, fix.edits);
}
