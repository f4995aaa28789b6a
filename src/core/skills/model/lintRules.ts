import type { LintFinding, QuickFix, Severity, TextRange } from './skillTypes';

export interface LintRule {
  readonly code: string;
  readonly severity: Severity;
  readonly title: string;
}

/**
 * Every lint code with its severity. Codes are stable: a code is never reused for another check.
 * docs/lint-rules.md documents each one; a unit test keeps the two in step.
 */
export const LINT_RULES: readonly LintRule[] = [
  { code: 'SW100', severity: 'error', title: 'File is binary' },
  { code: 'SW101', severity: 'warning', title: 'File is not valid UTF-8' },
  { code: 'SW102', severity: 'warning', title: 'File too large; only the start was read' },
  { code: 'SW103', severity: 'error', title: 'Frontmatter missing' },
  { code: 'SW104', severity: 'error', title: 'Frontmatter not closed' },
  { code: 'SW105', severity: 'error', title: 'Frontmatter YAML cannot be parsed' },
  { code: 'SW106', severity: 'error', title: 'Frontmatter is not a mapping' },
  { code: 'SW107', severity: 'warning', title: 'Frontmatter does not start on the first line' },
  { code: 'SW108', severity: 'warning', title: 'Tab used for indentation in frontmatter' },
  { code: 'SW201', severity: 'error', title: 'Name missing' },
  { code: 'SW202', severity: 'error', title: 'Name malformed' },
  { code: 'SW203', severity: 'warning', title: 'Name differs from its folder' },
  { code: 'SW301', severity: 'error', title: 'Description missing or empty' },
  { code: 'SW302', severity: 'error', title: 'Description is not a string' },
  { code: 'SW303', severity: 'error', title: 'Description over 1,024 characters' },
  { code: 'SW304', severity: 'warning', title: 'Description too short' },
  { code: 'SW305', severity: 'info', title: 'Description does not say when to use the skill' },
  { code: 'SW306', severity: 'warning', title: 'Description is still a placeholder' },
  { code: 'SW401', severity: 'info', title: 'Unknown top-level key' },
  { code: 'SW402', severity: 'error', title: 'compatibility too long or not a string' },
  { code: 'SW403', severity: 'warning', title: 'metadata is not a string-to-string mapping' },
  { code: 'SW404', severity: 'warning', title: 'version is not semantic versioning' },
  { code: 'SW405', severity: 'error', title: 'level is not 0, 1 or 2' },
  { code: 'SW406', severity: 'warning', title: 'priority is not a number from 0 to 100' },
  { code: 'SW407', severity: 'warning', title: 'platforms has an unknown value' },
  { code: 'SW408', severity: 'error', title: 'timeout_seconds is not a positive number' },
  { code: 'SW409', severity: 'warning', title: 'Field has the wrong type' },
  { code: 'SW501', severity: 'warning', title: 'Body empty' },
  { code: 'SW502', severity: 'warning', title: 'Body over 500 lines' },
  { code: 'SW503', severity: 'warning', title: 'Link to a file that does not exist' },
  { code: 'SW504', severity: 'warning', title: 'Mention of a support file that does not exist' },
  { code: 'SW601', severity: 'warning', title: 'Most input parameters have no description' },
  { code: 'SW602', severity: 'warning', title: 'Required parameter described as optional' },
  { code: 'SW603', severity: 'warning', title: 'Executable skill without permissions' },
  { code: 'SW604', severity: 'error', title: 'Entry script does not exist' },
  { code: 'SW605', severity: 'error', title: 'Entry path leaves the skill folder' },
  { code: 'SW606', severity: 'error', title: 'Schema malformed' },
  { code: 'SW607', severity: 'error', title: 'endpoint is not an http(s) URL' },
  { code: 'SW701', severity: 'error', title: 'Workflow malformed' },
  { code: 'SW702', severity: 'error', title: 'Duplicate step id' },
  { code: 'SW703', severity: 'error', title: 'Workflow uses an unknown skill' },
  { code: 'SW704', severity: 'error', title: 'Bad ${…} reference' },
  { code: 'SW705', severity: 'error', title: 'No compatible version of a workflow skill' },
  { code: 'SW706', severity: 'error', title: 'Workflow dependency cycle' },
  { code: 'SW707', severity: 'error', title: 'depends_on names an unknown step' },
  { code: 'SW708', severity: 'error', title: 'Invalid step error handling' },
  { code: 'SW709', severity: 'error', title: 'Workflows call each other in a cycle' },
  { code: 'SW710', severity: 'error', title: 'A step\'s `if` cannot be read' },
  { code: 'SW801', severity: 'info', title: 'Same name as another skill' },
  { code: 'SW901', severity: 'error', title: 'Threat pattern in the skill' },
];

const severityByCode = new Map(LINT_RULES.map((rule) => [rule.code, rule.severity]));

/** Builds a finding with the severity the rule table gives its code. */
export function finding(code: string, message: string, range: TextRange, fixes?: readonly QuickFix[]): LintFinding {
  const severity = severityByCode.get(code);
  if (!severity) {
    throw new Error(`unknown lint code ${code}`);
  }
  return fixes && fixes.length > 0 ? { code, severity, message, range, fixes } : { code, severity, message, range };
}
