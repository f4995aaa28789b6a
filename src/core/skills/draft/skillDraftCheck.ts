import type { SkillScanFinding, Verdict } from '../../security/skillScan';
import { scanTextReport } from '../../security/skillScan';
import type { ThreatFinding } from '../../security/threatScanner';
import { scanText } from '../../security/threatScanner';
import { MAX_SKILL_MD_CHARS } from '../tools/skillManage';
import { lintSkill } from '../lint/skillLint';
import { parseSkillText } from '../model/skillParser';
import type { LintFinding } from '../model/skillTypes';

/** What the lint and the threat scanner say about a draft SKILL.md, before anyone decides to save it. */
export interface DraftCheck {
  /** No lint errors and within the size limit: the draft can be saved as it is. */
  readonly ok: boolean;
  /** The frontmatter's `name` and `description` when they are strings. */
  readonly name?: string;
  readonly description?: string;
  /** Lint errors, plus a size finding over the limit; any of them keeps `ok` false. */
  readonly errors: readonly LintFinding[];
  /** Lint warnings and infos, for the preview. */
  readonly warnings: readonly LintFinding[];
  /** Text that looks like prompt injection, exfiltration or a secret: shown to the person reviewing. */
  readonly threats: readonly ThreatFinding[];
  /** The scanner's verdict on the draft as a skill's SKILL.md (docs/threat-patterns.md), as imports and skill_manage see it. */
  readonly verdict: Verdict;
  /** The findings behind the verdict, worst first, with 1-based lines; low ones included. */
  readonly scanFindings: readonly SkillScanFinding[];
}

export interface DraftCheckOptions {
  /**
   * Existing skills by name, to report a duplicate name (SW801). The draft has no folder yet, so
   * links and mentioned files are checked against nothing (they show up as warnings).
   */
  readonly skills?: ReadonlyMap<string, readonly { readonly version?: string; readonly scope: string; readonly file: string }[]>;
}

const DRAFT_FILE = '(draft)';

export async function checkDraft(text: string, options: DraftCheckOptions = {}): Promise<DraftCheck> {
  const parsed = parseSkillText(text);
  const name = typeof parsed.frontmatter['name'] === 'string' ? (parsed.frontmatter['name'] as string) : undefined;
  const description = typeof parsed.frontmatter['description'] === 'string' ? (parsed.frontmatter['description'] as string) : undefined;
  const findings = await lintSkill(parsed, {
    // The folder will be named after the skill, so the name always matches it.
    folderName: name ?? '',
    exists: () => false,
    ...(options.skills ? { skills: options.skills, self: { scope: 'project', file: DRAFT_FILE } } : {}),
  });
  const errors = findings.filter((f) => f.severity === 'error');
  if (text.length > MAX_SKILL_MD_CHARS) {
    errors.push({
      code: 'size',
      severity: 'error',
      message: `The draft is ${text.length.toLocaleString('en-US')} characters; a SKILL.md may have at most ${MAX_SKILL_MD_CHARS.toLocaleString('en-US')}. Shorten it, or move details into references/ files after saving.`,
      range: { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 },
    });
  }
  const report = scanTextReport(text, { file: 'SKILL.md', context: 'skill' });
  return {
    ok: errors.length === 0,
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    errors,
    warnings: findings.filter((f) => f.severity !== 'error'),
    threats: scanText(text, { context: 'skill' }).findings,
    verdict: report.verdict,
    scanFindings: report.findings,
  };
}
