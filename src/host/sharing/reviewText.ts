import type { SkillScanReport } from '../../core/security/skillScan';
import { findingLocation } from '../../core/security/skillScan';
import type { ImportReview } from '../../core/sharing/importReview';

/** `x` inside Markdown inline code: backticks in the text would end it early. */
function code(text: string): string {
  const clean = text.replace(/[\r\n]+/g, ' ');
  return clean.includes('`') ? `\`\` ${clean} \`\`` : `\`${clean}\``;
}

/** Text that Markdown shows as written (no links, emphasis or HTML from a skill's words). */
function plain(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/([\\`*_{}[\]()#+!<>|~])/g, '\\$1');
}

function fence(text: string): string {
  let ticks = '```';
  while (text.includes(ticks)) ticks += '`';
  return ticks;
}

export function verdictLine(scan: SkillScanReport): string {
  const counts = new Map<string, number>();
  for (const finding of scan.findings) counts.set(finding.severity, (counts.get(finding.severity) ?? 0) + 1);
  const parts = ['critical', 'high', 'medium', 'low'].flatMap((severity) => (counts.get(severity) ? [`${counts.get(severity)} ${severity}`] : []));
  return `${scan.verdict.toUpperCase()}${parts.length > 0 ? ` (${parts.join(', ')})` : ' (no findings)'}`;
}

/** One finding per line, as the review and the confirmation show them: `file:line severity id message`. */
export function findingLines(scan: SkillScanReport): string[] {
  return scan.findings.map((finding) => {
    const where = findingLocation(finding);
    return `${where ? `${where} ` : ''}${finding.severity} ${finding.id} ${finding.message}`;
  });
}

/**
 * The review of one skill before it is installed, as a Markdown document: where it comes from and
 * goes, the verdict, every finding, every file, and what changes against an installed copy. Text
 * from the skill is escaped or fenced, so it cannot pose as part of the review.
 */
export function reviewMarkdown(review: ImportReview, origin: { readonly source: string; readonly ref?: string; readonly commit?: string }): string {
  const { candidate, scan } = review;
  const lines: string[] = [`# Import review: ${plain(candidate.name)}`, ''];
  if (candidate.description) lines.push(`> ${plain(candidate.description)}`, '');
  lines.push(`**Verdict: ${verdictLine(scan)}** — scanner ${scan.scannerVersion}`, '');
  const ref = origin.ref ? ` at ${code(origin.ref)}` : '';
  const commit = origin.commit ? ` (commit ${code(origin.commit.slice(0, 12))})` : '';
  lines.push(`- Source: ${code(origin.source)}${ref}${commit}`, `- Skill in the source: ${code(candidate.skillPath)}`, `- Installs to: ${code(review.target)}`);
  if (candidate.declaredName && candidate.declaredName !== candidate.name) lines.push(`- Its SKILL.md calls it ${code(candidate.declaredName)}; it installs as ${code(candidate.name)}`);
  if (review.existing) {
    const where = code(review.existing.dir);
    lines.push(
      review.existing.sameContent
        ? `- Already installed at ${where} with the same files`
        : `- **A skill named ${code(candidate.name)} is already installed** at ${where}${review.existing.locked ? ' (listed in skills-lock.json)' : ''}: you will choose Keep Mine, Take Theirs or Install Under Another Name`,
    );
  }
  lines.push('', `## Findings (${scan.findings.length})`, '');
  if (scan.findings.length === 0) lines.push('None.');
  for (const finding of scan.findings) {
    const where = findingLocation(finding);
    lines.push(`- ${where ? `${code(where)} ` : ''}**${finding.severity}** ${code(finding.id)} ${plain(finding.message)}${finding.excerpt ? ` — ${code(finding.excerpt.slice(0, 200))}` : ''}`);
  }
  lines.push('', `## Files (${scan.files.length}, ${scan.totalBytes.toLocaleString('en-US')} bytes)`, '');
  for (const file of scan.files) lines.push(`- ${code(file.path)} ${file.size.toLocaleString('en-US')} B${file.kind === 'text' ? '' : ` (${file.kind})`}`);
  if (review.notes?.length) {
    lines.push('', '## Left out on the way in', '');
    for (const note of review.notes) lines.push(`- ${plain(note)}`);
  }
  if (review.existing && !review.existing.sameContent && review.existing.diff) {
    const ticks = fence(review.existing.diff);
    lines.push('', '## Changes against the installed copy', '', `${ticks}diff`, review.existing.diff.trimEnd(), ticks);
  }
  lines.push('', 'Nothing is installed until you confirm. Close this document at any time; the skill stays in quarantine until the import ends.', '');
  return lines.join('\n');
}
