/**
 * The folder scan around skill_manage's writes: the skill is scanned after each create, edit, patch
 * and write_file, and a write that makes it dangerous (a critical finding that was not there
 * before) is undone and explained to the model with the finding ids and where they are.
 */
import type { FileSystemPort } from '../../base/fileSystemPort';
import type { SkillScanFinding, SkillScanReport, Verdict } from '../../security/skillScan';
import { findingLocation, scanSkillFolder } from '../../security/skillScan';

/** Listed in the refusal; the rest are counted. */
const MAX_LISTED = 8;

export type WriteCheck =
  | { readonly ok: true; readonly verdict: Verdict; readonly report: SkillScanReport }
  | { readonly ok: false; readonly error: string };

/** The report of the folder as it is now, or undefined when it does not exist yet (a new skill). */
export async function scanBeforeWrite(fs: FileSystemPort, dir: string): Promise<SkillScanReport | undefined> {
  if ((await fs.stat(dir))?.type !== 'directory') return undefined;
  return scanSkillFolder(fs, dir).catch(() => undefined);
}

/** Lines and excerpts shift with any edit nearby; which pattern fired in which file does not. */
const keyOf = (f: SkillScanFinding): string => `${f.id} ${f.file ?? ''}`;

/**
 * Scans `dir` after a write. When the write brought in critical findings, `undo` restores the
 * previous bytes (or removes what was new) and the outcome is a refusal saying why.
 */
export async function checkAfterWrite(
  fs: FileSystemPort,
  dir: string,
  before: SkillScanReport | undefined,
  undo: () => Promise<void>,
  what: string,
): Promise<WriteCheck> {
  const report = await scanSkillFolder(fs, dir);
  // Counted per pattern and file: one more of the same is new, the ones already there are not.
  const known = new Map<string, number>();
  for (const f of before?.findings ?? []) if (f.severity === 'critical') known.set(keyOf(f), (known.get(keyOf(f)) ?? 0) + 1);
  const fresh = report.findings.filter((f) => {
    if (f.severity !== 'critical') return false;
    const left = known.get(keyOf(f)) ?? 0;
    if (left === 0) return true;
    known.set(keyOf(f), left - 1);
    return false;
  });
  if (fresh.length === 0) return { ok: true, verdict: report.verdict, report };
  const listed = fresh.slice(0, MAX_LISTED).map((f) => `- ${findingLocation(f) || '(skill folder)'}: ${f.id} (${f.category}): ${f.message}`);
  if (fresh.length > MAX_LISTED) listed.push(`- and ${fresh.length - MAX_LISTED} more`);
  try {
    await undo();
  } catch (error) {
    // The dangerous content is still on disk: say so plainly instead of letting the error escape.
    const files = Array.from(new Set(fresh.map((f) => f.file).filter((f): f is string => f !== undefined)));
    const where = files.length > 0 ? files.map((f) => `${dir}/${f}`).join(', ') : dir;
    return {
      ok: false,
      error:
        `${what} made the skill dangerous and the rollback failed (${error instanceof Error ? error.message : String(error)}): remove ${where} by hand, ` +
        `or restore it from a backup, before the skill is used. Findings:\n${listed.join('\n')}`,
    };
  }
  return {
    ok: false,
    error:
      `${what} was rolled back: the threat scanner rates the skill dangerous because of what it added:\n${listed.join('\n')}\n` +
      'Skills are instructions and code the model runs later, so they must not carry these (docs/threat-patterns.md). ' +
      'Write it without the flagged part; if it is a warning or an example, phrase it as one (negated advice, or a quoted example to reject).',
  };
}
