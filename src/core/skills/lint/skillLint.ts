import type { ParsedSkill } from '../model/skillParser';
import type { LintFinding, QuickFix } from '../model/skillTypes';
import { checkBody } from './bodyRules';
import { checkExecution } from './executionRules';
import { checkFields } from './fieldRules';
import { DESCRIPTION_PLACEHOLDER, checkDescription, checkName, isValidSkillName, slugifySkillName } from './identityRules';
import { finding } from '../model/lintRules';
import type { ExistenceCheck, RuleInput } from './ruleInput';
import { range, valueRange, yamlQuote, yamlScalar } from '../model/textRanges';
import { checkThreats } from './threatRules';
import { checkWorkflow } from './workflowRules';
import type { LintContext } from './ruleInput';

export { LINT_RULES } from '../model/lintRules';
export type { LintRule } from '../model/lintRules';

const SCOPE_RANK: Readonly<Record<string, number>> = { project: 0, user: 1, other: 2 };

/**
 * Every finding for one SKILL.md: the parser's problems plus all rules, sorted by position then
 * code. Never throws for a bad file; a rule that fails unexpectedly is skipped, not fatal.
 */
export async function lintSkill(parsed: ParsedSkill, context: LintContext): Promise<LintFinding[]> {
  const findings: LintFinding[] = parsed.problems.map((problem) => withContextFixes(problem, parsed, context));
  if (parsed.problems.some((problem) => problem.code === 'SW100')) {
    return findings;
  }
  const input: RuleInput = {
    parsed,
    context,
    frontmatter: parsed.frontmatter,
    lines: parsed.lines,
    anchorLine: Math.max(0, parsed.frontmatterStartLine),
  };
  const checks: ExistenceCheck[] = [];
  const run = (rule: () => void): void => {
    try {
      rule();
    } catch {
      // A rule bug must not hide the other findings nor break the editor; tests run every rule
      // over the corpus to keep this path unused.
    }
  };
  run(() => findings.push(...checkName(input)));
  run(() => findings.push(...checkDescription(input)));
  run(() => findings.push(...checkFields(input)));
  run(() => {
    const body = checkBody(input);
    findings.push(...body.findings);
    checks.push(...body.checks);
  });
  run(() => {
    const execution = checkExecution(input);
    findings.push(...execution.findings);
    checks.push(...execution.checks);
  });
  run(() => findings.push(...checkWorkflow(input)));
  run(() => findings.push(...checkDuplicateName(input)));
  run(() => findings.push(...checkThreats(input)));
  findings.push(...(await missingPaths(checks, context)));
  return sortFindings(findings);
}

export function sortFindings(findings: LintFinding[]): LintFinding[] {
  return findings.sort(
    (a, b) =>
      a.range.startLine - b.range.startLine ||
      a.range.startColumn - b.range.startColumn ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  );
}

async function missingPaths(checks: readonly ExistenceCheck[], context: LintContext): Promise<LintFinding[]> {
  const answers = new Map<string, Promise<boolean>>();
  for (const check of checks) {
    if (!answers.has(check.path)) {
      answers.set(
        check.path,
        Promise.resolve()
          .then(() => context.exists(check.path))
          // A path that cannot be checked is not reported: a false "missing" is worse than none.
          .catch(() => true),
      );
    }
  }
  const findings: LintFinding[] = [];
  for (const check of checks) {
    if (!(await answers.get(check.path))) {
      findings.push(check.onMissing());
    }
  }
  return findings;
}

function checkDuplicateName(input: RuleInput): LintFinding[] {
  const { context, frontmatter, parsed, lines } = input;
  const name = frontmatter['name'];
  if (typeof name !== 'string' || !context.skills || !context.self) {
    return [];
  }
  const self = context.self;
  const all = context.skills.get(name) ?? [];
  const others = all.filter((entry) => entry.file !== self.file);
  if (others.length === 0) {
    return [];
  }
  // Same precedence as the index: project over user over other tools; within a scope the
  // index's own order (the order given here) decides.
  const selfOrder = all.findIndex((entry) => entry.file === self.file);
  const ordered = [
    ...others.map((entry) => ({ entry, order: all.indexOf(entry) })),
    { entry: self, order: selfOrder < 0 ? Number.MAX_SAFE_INTEGER : selfOrder },
  ].sort((a, b) => (SCOPE_RANK[a.entry.scope] ?? 3) - (SCOPE_RANK[b.entry.scope] ?? 3) || a.order - b.order);
  // `self` is always in the list, so the fallback only satisfies the type checker.
  const winner = ordered[0]?.entry ?? self;
  const list = others.map((entry) => `${entry.file} (${entry.scope})`).join(', ');
  const message =
    winner === self
      ? `Another skill is also named "${name}": ${list}. This one (${self.scope}) wins; the other is shadowed. Rename one of them if both should be available.`
      : `Another skill is also named "${name}": ${list}. ${winner.file} (${winner.scope}) wins, so this one is shadowed. Rename it if both should be available.`;
  return [finding('SW801', message, valueRange(lines, parsed.keyLines, 'name', input.anchorLine))];
}

/** Parse problems are found without the folder; fixes that need it are added here. */
function withContextFixes(problem: LintFinding, parsed: ParsedSkill, context: LintContext): LintFinding {
  if (problem.code !== 'SW103' || parsed.hasFrontmatter) {
    return problem;
  }
  const name = isValidSkillName(context.folderName) ? context.folderName : slugifySkillName(context.folderName) || 'my-skill';
  const eol = parsed.eol;
  const block = ['---', `name: ${yamlScalar(name)}`, `description: ${yamlQuote(DESCRIPTION_PLACEHOLDER)}`, '---', ''].join(eol);
  const fix: QuickFix = { title: 'Add frontmatter with name and description', edits: [{ range: range(0, 0, 0, 0), newText: block }] };
  return { ...problem, fixes: [fix] };
}
