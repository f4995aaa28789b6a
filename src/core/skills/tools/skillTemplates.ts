import { DESCRIPTION_PLACEHOLDER } from '../lint/identityRules';
import { yamlScalar } from '../model/textRanges';
import type { Checked } from '../model/skillPaths';
import { titleFromName } from './skillRename';

/** The templates shipped in `skills-templates/`, one folder each (see its README). */
export interface SkillTemplate {
  /** Folder name under `skills-templates/`. */
  readonly id: 'instructions' | 'script' | 'workflow';
  readonly label: string;
  readonly detail: string;
  readonly level: 0 | 1;
  /** A workflow names the two skills its steps call. */
  readonly chainsSkills: boolean;
}

export const SKILL_TEMPLATES: readonly SkillTemplate[] = [
  {
    id: 'instructions',
    label: 'Instructions',
    detail: 'Steps the model follows: when to use, steps, pitfalls, verification. Most skills are this.',
    level: 0,
    chainsSkills: false,
  },
  {
    id: 'script',
    label: 'Script',
    detail: 'Runs scripts/run.py with JSON arguments on stdin and JSON on stdout.',
    level: 0,
    chainsSkills: false,
  },
  {
    id: 'workflow',
    label: 'Workflow (Level 1)',
    detail: 'Chains two other skills: a step, then a second one when the first found something.',
    level: 1,
    chainsSkills: true,
  },
];

/** Stands in for a workflow step's skill the person chose to fill in later; the lint flags it until then. */
export const LATER_SKILLS = ['first-skill', 'second-skill'] as const;

export interface TemplateValues {
  readonly name: string;
  /** Empty: the lint's placeholder, which it flags until someone writes a real one. */
  readonly description?: string;
  readonly skills?: readonly [string, string];
}

export function templateById(id: string): SkillTemplate | undefined {
  return SKILL_TEMPLATES.find((template) => template.id === id);
}

/**
 * Fills a template's `{{placeholders}}`. Values in the frontmatter are written as YAML scalars
 * (quoted when plain YAML would misread them: a description with `: ` or a leading `#`), values in
 * the body as they are. A placeholder without a value is an error, never left in the skill.
 */
export function fillTemplate(text: string, values: TemplateValues): Checked<string> {
  const description = values.description?.replace(/\s+/g, ' ').trim() || DESCRIPTION_PLACEHOLDER;
  const [first, second] = values.skills ?? LATER_SKILLS;
  const vars: Record<string, string> = {
    name: values.name,
    description,
    title: titleFromName(values.name),
    first_skill: first,
    second_skill: second,
  };
  const lines = text.split('\n');
  const closing = lines[0]?.trimEnd() === '---' ? lines.findIndex((line, i) => i > 0 && line.trimEnd() === '---') : -1;
  const missing = new Set<string>();
  const filled = lines.map((line, i) =>
    line.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
      const value = vars[key];
      if (value === undefined) {
        missing.add(key);
        return whole;
      }
      return i > 0 && i < closing ? yamlScalar(value) : value;
    }),
  );
  if (missing.size > 0) return { ok: false, error: `The template uses placeholders without a value: ${[...missing].join(', ')}.` };
  return { ok: true, value: filled.join('\n') };
}
