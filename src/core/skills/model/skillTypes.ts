import type { SkillRoot, SkillScope } from '../../base/skillRoots';

/** One skill a workflow step runs: its `skill`, or the `fallback_skill` run when the step fails. */
export interface SkillCall {
  readonly skill: string;
  /** The version range asked for: `name@range`, or the step's `version`. */
  readonly range?: string;
  /** The step id as written, or `#n` (1-based) for a step without one. */
  readonly step: string;
  readonly via: 'skill' | 'fallback';
}

export type Severity = 'error' | 'warning' | 'info';

/** A range in a file; lines and columns are 0-based (VS Code's convention; the CLI prints 1-based). */
export interface TextRange {
  readonly startLine: number;
  readonly startColumn: number;
  readonly endLine: number;
  readonly endColumn: number;
}

export interface TextEdit {
  readonly range: TextRange;
  readonly newText: string;
}

export interface QuickFix {
  readonly title: string;
  readonly edits: readonly TextEdit[];
}

export interface LintFinding {
  /** Stable code, e.g. `SW101`; documented in docs/lint-rules.md. */
  readonly code: string;
  readonly severity: Severity;
  /** Says what is wrong and how to fix it. */
  readonly message: string;
  readonly range: TextRange;
  readonly fixes?: readonly QuickFix[];
}

/** The support folders of a skill: read on demand, never searched for nested skills. */
export const SUPPORT_FOLDERS = ['references', 'templates', 'scripts', 'assets'] as const;
export type SupportFolder = (typeof SUPPORT_FOLDERS)[number];

export const SKILL_FILE = 'SKILL.md';

/** One skill as the index knows it: enough for listing, search and the catalog without the body. */
export interface SkillRecord {
  /** `name` from the frontmatter; the folder name when the frontmatter has none. */
  readonly name: string;
  readonly folderName: string;
  /** Absolute path of the skill folder. */
  readonly dir: string;
  /** Absolute path of its SKILL.md. */
  readonly file: string;
  readonly root: SkillRoot;
  readonly scope: SkillScope;
  /** Folder path between the root and the skill folder, `/`-separated; `''` at the top level. */
  readonly category: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly platforms: readonly string[];
  readonly useCases: readonly string[];
  readonly exampleQueries: readonly string[];
  /** Markdown headings of the body, in order. */
  readonly headings: readonly string[];
  /**
   * What the body says of when to use the skill: its opening paragraph and its "When to use" section,
   * and the frontmatter's `triggers`,
   * bounded (skillHeader.ts); searched at a low weight. Undefined when not known: served from a
   * version 2 or 3 snapshot, which kept none.
   */
  readonly about?: string;
  readonly level: 0 | 1 | 2;
  readonly version?: string;
  /**
   * The skills its workflow runs (steps and fallbacks), [] without a workflow. Undefined when not
   * known: served from a version 2 snapshot (which kept no workflows), or a file that was not read.
   */
  readonly calls?: readonly SkillCall[];
  readonly mtimeMs: number;
  readonly size: number;
  /** Problems found while reading (binary, too large, broken frontmatter); full lint is separate. */
  readonly readErrors: readonly string[];
  /** Set when a higher-precedence skill of the same name wins: the winner's SKILL.md. */
  readonly shadowedBy?: string;
  /** Why the winner wins, for people (e.g. "project skills take precedence over user skills"). */
  readonly shadowReason?: string;
  /** Set when `platforms` excludes this machine's platform. */
  readonly platformHidden?: boolean;
  /** Set when the user disabled this skill in settings. */
  readonly disabled?: boolean;
  /**
   * Set for a project skill that came with the repository and waits for the person's consent
   * (core/skills/consent): out of the catalog, suggestions and tools until approved.
   */
  readonly awaitingConsent?: boolean;
}
