import type { SkillDependencies } from '../model/skillDependencies';
import type { ParsedSkill } from '../model/skillParser';
import type { LintFinding } from '../model/skillTypes';

/** What every rule group reads. */
export interface RuleInput {
  readonly parsed: ParsedSkill;
  readonly context: LintContext;
  readonly frontmatter: Record<string, unknown>;
  readonly lines: readonly string[];
  /** Line to point at when a key is absent: the opening `---`, or 0 without frontmatter. */
  readonly anchorLine: number;
}

/** A path the rule needs to exist; lintSkill asks the context for all of them at once. */
export interface ExistenceCheck {
  readonly path: string;
  readonly onMissing: () => LintFinding;
}

export interface RuleOutput {
  readonly findings: LintFinding[];
  readonly checks: ExistenceCheck[];
}

export interface LintContext {
  /** Basename of the skill folder. */
  readonly folderName: string;
  /** True when a path relative to the skill folder exists (file or folder); used for links and entry. */
  readonly exists: (relativePath: string) => boolean | Promise<boolean>;
  /** Other skills by name, for workflow checks and duplicates; optional. */
  readonly skills?: ReadonlyMap<string, readonly { readonly version?: string; readonly scope: string; readonly file: string }[]>;
  /**
   * Which workflows run which across all skills, for cycles between skills (SW709). Built once per
   * version of the index (lintRunner), not per skill; without it only a workflow that runs itself is found.
   */
  readonly dependencies?: SkillDependencies;
  /** This skill, for duplicate-name reporting. */
  readonly self?: { readonly scope: string; readonly file: string };
}
