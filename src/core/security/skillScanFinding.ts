/**
 * What a scan reports per finding and per file. Kept apart from skillScan.ts so the folder walk
 * (skillTree.ts), which skillScan.ts runs, can produce findings without importing it back.
 */
import type { ScanCategory, Severity } from './patternKit';

export interface SkillScanFinding {
  readonly id: string;
  readonly category: ScanCategory;
  readonly severity: Severity;
  readonly message: string;
  /** Relative to the skill folder, '/'-separated. */
  readonly file?: string;
  /** 1-based. */
  readonly line?: number;
  /** Safe to display: invisible characters escaped. */
  readonly excerpt?: string;
}

export interface ScannedFile {
  readonly path: string;
  readonly size: number;
  readonly kind: 'text' | 'binary' | 'symlink' | 'executable';
}
