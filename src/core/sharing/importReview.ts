/**
 * What a person sees before an import: the skill's files, the scanner's findings and verdict,
 * where it would go, and how it differs from an installed skill of the same name.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { ScanCache, SkillScanReport } from '../security/skillScan';
import { findingLocation, scanSkillFolder } from '../security/skillScan';
import { diffFolders } from './folderDiff';
import type { FetchPorts, Quarantine } from './quarantine';
import { fetchToQuarantine } from './quarantine';
import type { ImportCandidate } from './skillDiscovery';
import { findImportableSkills } from './skillDiscovery';
import type { SkillSource } from './skillSource';
import { computeSkillFolderHash } from './skillsLock';

export interface ImportReview {
  readonly candidate: ImportCandidate;
  readonly scan: SkillScanReport;
  /** Folder it would be installed to. */
  readonly target: string;
  readonly computedHash: string;
  readonly existing?: { readonly dir: string; readonly diff: string; readonly sameContent: boolean; readonly locked: boolean };
  /** What the quarantine left out (links, submodules), shown with the findings. */
  readonly notes?: readonly string[];
}

export interface ReviewOptions {
  readonly targetRoot: string;
  /** The folder of an installed skill of this name, anywhere the catalog looks. */
  readonly existingDirOf: (name: string) => Promise<string | undefined>;
  /** Whether the project's lock lists this name. */
  readonly isLocked?: (name: string) => boolean;
  readonly notes?: readonly string[];
  readonly cache?: ScanCache;
}

export async function reviewImport(fs: FileSystemPort, candidate: ImportCandidate, options: ReviewOptions): Promise<ImportReview> {
  const scan = await scanSkillFolder(fs, candidate.dir, options.cache ? { cache: options.cache } : {});
  const computedHash = await computeSkillFolderHash(fs, candidate.dir);
  const target = path.join(options.targetRoot, candidate.name);
  const existingDir = (await existingDirOf(fs, options, candidate.name, target));
  let existing: ImportReview['existing'];
  if (existingDir) {
    const sameContent = (await computeSkillFolderHash(fs, existingDir)) === computedHash;
    existing = { dir: existingDir, diff: sameContent ? '' : await diffFolders(fs, existingDir, candidate.dir), sameContent, locked: options.isLocked?.(candidate.name) ?? false };
  }
  return { candidate, scan, target, computedHash, ...(existing ? { existing } : {}), ...(options.notes?.length ? { notes: options.notes } : {}) };
}

/** The target folder counts as installed even when the catalog does not know it (no SKILL.md yet). */
async function existingDirOf(fs: FileSystemPort, options: ReviewOptions, name: string, target: string): Promise<string | undefined> {
  const known = await options.existingDirOf(name);
  if (known) return known;
  return (await fs.lstat(target)) ? target : undefined;
}

export interface PreparedImport {
  readonly source: SkillSource;
  readonly quarantine: Quarantine;
  /** One per skill found (only `skill` when given), in the order found. */
  readonly reviews: readonly ImportReview[];
}

/**
 * Fetches a source into quarantine, finds its skills and reviews each: everything an import shows
 * before the person confirms. The caller disposes `quarantine` once installed or cancelled.
 */
export async function prepareImport(
  source: SkillSource,
  ports: FetchPorts,
  options: Omit<ReviewOptions, 'notes'> & { readonly skill?: string; readonly signal?: AbortSignal },
): Promise<PreparedImport> {
  const quarantine = await fetchToQuarantine(source, ports, options.signal);
  try {
    const found = await findImportableSkills(ports.fs, quarantine.root, quarantine.base);
    const picked = options.skill === undefined ? found : found.filter((c) => c.name === options.skill || c.declaredName === options.skill);
    if (found.length === 0) throw new Error(`${source.source} has no skills: no SKILL.md at its top, in skills/ or in an agent's skills folder`);
    if (picked.length === 0) throw new Error(`${source.source} has no skill named "${options.skill ?? ''}"; it has ${found.map((c) => c.name).join(', ')}`);
    const reviews: ImportReview[] = [];
    for (const candidate of picked) reviews.push(await reviewImport(ports.fs, candidate, { ...options, notes: notesFor(candidate, quarantine.notes) }));
    return { source, quarantine, reviews };
  } catch (error) {
    await quarantine.dispose();
    throw error;
  }
}

/** The notes about a skill's own files, and those about the whole source (submodules). */
function notesFor(candidate: ImportCandidate, notes: readonly string[]): string[] {
  const folder = path.posix.dirname(candidate.skillPath);
  return notes.filter((note) => folder === '.' || note.startsWith(`${folder}/`) || note.startsWith('submodule '));
}

/** The review as plain text, for the CLI and logs. */
export function formatReview(review: ImportReview): string {
  const lines: string[] = [];
  const { candidate, scan } = review;
  lines.push(`${candidate.name}${candidate.description ? ` — ${candidate.description}` : ''}`);
  lines.push(`  from ${candidate.skillPath}, to ${review.target}`);
  lines.push(`  verdict: ${scan.verdict} (scanner ${scan.scannerVersion}), ${scan.files.length} file${scan.files.length === 1 ? '' : 's'}, ${scan.totalBytes} bytes`);
  for (const file of scan.files) lines.push(`    ${file.kind === 'text' ? '' : `[${file.kind}] `}${file.path} (${file.size} B)`);
  if (scan.findings.length > 0) lines.push('  findings:');
  for (const finding of scan.findings) {
    const where = findingLocation(finding);
    lines.push(`    ${finding.severity.toUpperCase()} ${finding.id} ${finding.category}${where ? ` ${where}` : ''}: ${finding.message}`);
  }
  for (const note of review.notes ?? []) lines.push(`  note: ${note}`);
  if (review.existing) {
    lines.push(
      review.existing.sameContent
        ? `  already installed at ${review.existing.dir} with the same files`
        : `  a skill named ${candidate.name} is installed at ${review.existing.dir}${review.existing.locked ? ' (in skills-lock.json)' : ''}; the import would change:`,
    );
    if (!review.existing.sameContent) lines.push(...review.existing.diff.trimEnd().split('\n').map((line) => `    ${line}`));
  }
  return `${lines.join('\n')}\n`;
}
