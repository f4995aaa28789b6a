/**
 * The folder and text scanner behind `skillwright scan`, imports, skill_manage and Save as Skill:
 * the threat patterns over every text file of a skill plus structural checks of the folder (size,
 * binaries, symlinks, executables), each finding with a category and a severity, and a verdict.
 * Content problems are findings, never exceptions: a symlink loop or an unreadable file is reported
 * and the scan goes on. Documented in docs/threat-patterns.md.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { lineAt, lineStarts } from '../text/lines';
import type { ScanContext, Severity } from './threatPatterns';
import { scanText } from './threatScanner';
import { checkStructure, readSkillTree } from './skillTree';
import type { ScannedFile, SkillScanFinding } from './skillScanFinding';


/** Where scan reports are kept by `<contentHash>:<scannerVersion>` (implementations in scanCache.ts). */
export interface ScanCache {
  get(key: string): SkillScanReport | undefined;
  set(key: string, report: SkillScanReport): void;
}

export type { ScanCategory, ScanContext, Severity } from './threatPatterns';
export type { ScannedFile, SkillScanFinding } from './skillScanFinding';

/** Bumped whenever a pattern or a check changes, so cached reports of older scanners are not reused. */
export const SCANNER_VERSION = '4';

export type Verdict = 'safe' | 'caution' | 'dangerous';

export interface SkillScanReport {
  readonly verdict: Verdict;
  readonly findings: readonly SkillScanFinding[];
  readonly files: readonly ScannedFile[];
  readonly totalBytes: number;
  /** sha256 over the folder's paths, kinds and bytes (symlinks by target): equal folders, equal hash. */
  readonly contentHash: string;
  readonly scannerVersion: string;
}

export interface SkillScanOptions {
  readonly cache?: ScanCache;
  /**
   * The permission bits of a file, for the executable check. Defaults to `mode` on the port's lstat
   * result when it has one; ports without it rely on the shebang check alone.
   */
  readonly modeOf?: (absolutePath: string) => Promise<number | undefined>;
}

const RANK: Readonly<Record<Severity, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

export function severityRank(severity: Severity): number {
  return RANK[severity];
}

export function verdictOf(findings: readonly { readonly severity: Severity }[]): Verdict {
  if (findings.some((f) => f.severity === 'critical')) return 'dangerous';
  if (findings.some((f) => f.severity === 'high')) return 'caution';
  return 'safe';
}

/** The context a file's name implies when it is scanned on its own (the CLI's single-file mode). */
export function contextForFileName(name: string): ScanContext {
  const base = name.split(/[\\/]/).pop() ?? name;
  if (/^(?:MEMORY|USER)\.md$/i.test(base)) return 'memory';
  if (/^(?:AGENTS|CLAUDE|GEMINI)\.md$|^copilot-instructions\.md$|\.instructions\.md$|^\.(?:cursorrules|windsurfrules|clinerules)$|\.mdc$/i.test(base)) return 'instructions';
  return 'skill';
}

/** Pattern findings of one text (memory entry, instruction file, one file of a skill), with 1-based lines. */
export function scanTextForFindings(text: string, options: { readonly file?: string; readonly context: ScanContext }): SkillScanFinding[] {
  const { findings } = scanText(text, { context: options.context, includeLow: true });
  if (findings.length === 0) return [];
  const starts = lineStarts(text);
  return findings.map((f) => ({
    id: f.id,
    category: f.scanCategory,
    severity: f.severity,
    message: f.message,
    ...(options.file !== undefined ? { file: options.file } : {}),
    line: lineAt(starts, f.index) + 1,
    excerpt: f.excerpt,
  }));
}

/** Findings in the order a reader wants them: worst first, then by file and line. */
export function sortFindings(findings: readonly SkillScanFinding[]): SkillScanFinding[] {
  return [...findings].sort(
    (a, b) =>
      RANK[b.severity] - RANK[a.severity] ||
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      a.id.localeCompare(b.id),
  );
}

/**
 * Scans a skill folder. Never throws for content problems (they are findings); throws an Error with
 * a clear message when `dir` is not a folder.
 */
export async function scanSkillFolder(fs: FileSystemPort, dir: string, options: SkillScanOptions = {}): Promise<SkillScanReport> {
  const stat = await fs.stat(dir);
  if (!stat) throw new Error(`Cannot scan ${dir}: it does not exist. Pass the path of a skill folder (the one holding SKILL.md).`);
  if (stat.type !== 'directory') throw new Error(`Cannot scan ${dir}: it is not a folder. Pass the folder that holds SKILL.md, or scan the file as text.`);
  const tree = await readSkillTree(fs, dir, options.modeOf);
  const hash = createHash('sha256');
  for (const entry of tree.entries) {
    hash.update(`${entry.kind}\0${entry.path}\0`);
    hash.update(entry.bytes ?? new Uint8Array(0));
    // A file too large to read is known by its size only: a changed size must not hit the cache.
    hash.update(`\0${entry.linkTarget ?? ''}\0${entry.escapes ? 'out' : ''}\0${entry.bytes === undefined ? entry.size : ''}\0`);
  }
  const contentHash = hash.digest('hex');
  const key = `${contentHash}:${SCANNER_VERSION}`;
  const cached = options.cache?.get(key);
  if (cached) return cached;

  const findings: SkillScanFinding[] = [...tree.findings, ...checkStructure(tree)];
  for (const entry of tree.entries) {
    if (entry.text === undefined) continue;
    findings.push(...scanTextForFindings(entry.text, { file: entry.path, context: 'skill' }));
  }
  const sorted = sortFindings(findings);
  const report: SkillScanReport = {
    verdict: verdictOf(sorted),
    findings: sorted,
    files: tree.entries.map((e) => ({ path: e.path, size: e.size, kind: e.kind })),
    totalBytes: tree.entries.reduce((sum, e) => sum + e.size, 0),
    contentHash,
    scannerVersion: SCANNER_VERSION,
  };
  options.cache?.set(key, report);
  return report;
}

/** A report for one text scanned on its own (a memory file, an instruction file, a lone SKILL.md). */
export function scanTextReport(text: string, options: { readonly file: string; readonly context: ScanContext }): SkillScanReport {
  const findings = sortFindings(scanTextForFindings(text, options));
  const bytes = Buffer.byteLength(text, 'utf8');
  return {
    verdict: verdictOf(findings),
    findings,
    files: [{ path: options.file, size: bytes, kind: 'text' }],
    totalBytes: bytes,
    contentHash: createHash('sha256').update(text).digest('hex'),
    scannerVersion: SCANNER_VERSION,
  };
}

/** `file:line` of a finding, for messages and the CLI. */
export function findingLocation(finding: SkillScanFinding): string {
  if (finding.file === undefined) return finding.line !== undefined ? `line ${finding.line}` : '';
  return finding.line !== undefined ? `${finding.file}:${finding.line}` : finding.file;
}

/** Joins a skill folder and a report path; reports always use '/'. */
export function reportPathIn(dir: string, file: string): string {
  return path.join(dir, ...file.split('/'));
}
