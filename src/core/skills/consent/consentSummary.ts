/**
 * What the consent card says about one project skill: what it runs (scripts, `entry`), where it
 * sends data (`endpoint`), the tools and permissions it asks for, and the scanner's verdict with
 * its worst findings. Built from the frontmatter as written and the folder scan.
 */
import type { SkillScanReport, Verdict } from '../../security/skillScan';
import { sortFindings } from '../../security/skillScan';
import type { ConsentEntry } from './projectConsent';

/** Findings shown per skill; the rest are counted (`skillwright scan` lists them all). */
export const TOP_FINDINGS = 3;
const MAX_LISTED = 20;
const MAX_TEXT = 300;

export interface ConsentFinding {
  readonly severity: 'low' | 'medium' | 'high' | 'critical';
  readonly message: string;
  /** `file:line` in the skill folder, when known. */
  readonly where?: string;
}

export interface ConsentSkillSummary {
  readonly file: string;
  /** The folder content hash described: a decision on the card is for exactly this content. */
  readonly hash: string;
  readonly name: string;
  readonly description: string;
  /** Where it lives, e.g. `.agents/skills/ops/deploy`. */
  readonly location: string;
  readonly state: 'pending' | 'declined';
  /** `changed` when an earlier version of the folder was approved. */
  readonly reason: 'new' | 'changed' | 'declined';
  readonly scripts: string[];
  readonly endpoints: string[];
  readonly tools: string[];
  readonly permissions: string[];
  readonly verdict: Verdict;
  readonly findings: ConsentFinding[];
  /** Findings beyond the ones listed. */
  readonly moreFindings: number;
  readonly fileCount: number;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_TEXT ? flat : `${flat.slice(0, MAX_TEXT - 1)}…`;
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A list as the frontmatter may write it: YAML list, comma- or (for allowed-tools) space-separated string. */
function listOf(value: unknown, separator: RegExp): string[] {
  const items = Array.isArray(value) ? value.map(scalar) : typeof value === 'string' ? value.split(separator) : [scalar(value)];
  return items.map((item) => item?.trim()).filter((item): item is string => item !== undefined && item !== '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `permissions:` as a mapping (`network: [api.x]`), a list or a string, one line per kind. */
export function permissionLines(value: unknown): string[] {
  if (isObject(value)) {
    return Object.entries(value).map(([kind, item]) => {
      if (isObject(item)) return `${kind}: ${Object.entries(item).map(([k, v]) => `${k} ${listOf(v, /,/).join(', ')}`.trim()).join('; ')}`;
      const values = listOf(item, /,/);
      return values.length > 0 ? `${kind}: ${values.join(', ')}` : kind;
    });
  }
  return listOf(value, /,/);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].slice(0, MAX_LISTED).map(clip);
}

export function consentSummary(entry: ConsentEntry, frontmatter: Readonly<Record<string, unknown>>, scan: SkillScanReport): ConsentSkillSummary {
  const { record } = entry;
  const entryScript = scalar(frontmatter['entry']);
  const scripts = unique([...(entryScript ? [entryScript] : []), ...scan.files.filter((file) => file.path.startsWith('scripts/')).map((file) => file.path)]);
  const endpoint = scalar(frontmatter['endpoint']);
  const tools = unique([...listOf(frontmatter['requires_tools'], /,/), ...listOf(frontmatter['allowed-tools'], /[\s,]+/)]);
  const sorted = sortFindings(scan.findings);
  const findings = sorted.slice(0, TOP_FINDINGS).map((finding) => ({
    severity: finding.severity,
    message: clip(finding.message),
    ...(finding.file !== undefined ? { where: finding.line !== undefined ? `${finding.file}:${finding.line}` : finding.file } : {}),
  }));
  const where = record.category === '' ? record.folderName : `${record.category}/${record.folderName}`;
  return {
    file: record.file,
    hash: entry.hash,
    name: record.name,
    description: clip(record.description),
    location: `${record.root.label}/${where}`,
    state: entry.state === 'declined' ? 'declined' : 'pending',
    reason: entry.reason === 'changed' ? 'changed' : entry.state === 'declined' ? 'declined' : 'new',
    scripts,
    endpoints: endpoint ? [clip(endpoint)] : [],
    tools,
    permissions: unique(permissionLines(frontmatter['permissions'])),
    verdict: scan.verdict,
    findings,
    moreFindings: Math.max(0, sorted.length - findings.length),
    fileCount: scan.files.length,
  };
}
