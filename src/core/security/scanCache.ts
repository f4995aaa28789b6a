/**
 * Scan reports kept by content hash and scanner version, so an unchanged skill is not scanned again
 * (the Skills tab, imports and the CLI scan the same folders often). Keys are
 * `<contentHash>:<scannerVersion>`; a new scanner version never sees an old report.
 */
import type { FileSystemPort } from '../base/fileSystemPort';
import type { ScanCache, SkillScanReport } from './skillScan';

/** Oldest entries go first past this, so the cache file stays small. */
const MAX_ENTRIES = 2000;

export class MemoryScanCache implements ScanCache {
  protected readonly entries = new Map<string, SkillScanReport>();

  get(key: string): SkillScanReport | undefined {
    return this.entries.get(key);
  }

  set(key: string, report: SkillScanReport): void {
    this.entries.delete(key);
    this.entries.set(key, report);
    while (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

const FILE_FORMAT = 1;

function isReport(value: unknown): value is SkillScanReport {
  if (!value || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  return (
    (r['verdict'] === 'safe' || r['verdict'] === 'caution' || r['verdict'] === 'dangerous') &&
    Array.isArray(r['findings']) &&
    Array.isArray(r['files']) &&
    typeof r['contentHash'] === 'string' &&
    typeof r['scannerVersion'] === 'string' &&
    typeof r['totalBytes'] === 'number'
  );
}

/** Keyed by contentHash + scannerVersion; a JSON file, written atomically; a corrupt file is ignored. */
export class FileScanCache extends MemoryScanCache {
  private dirty = false;

  constructor(
    private readonly fs: FileSystemPort,
    private readonly file: string,
  ) {
    super();
  }

  async load(): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(await this.fs.readFile(this.file)));
    } catch {
      // Missing or corrupt: start empty, the next save writes a good file.
      return;
    }
    const body = parsed as { format?: unknown; entries?: unknown } | null;
    if (!body || body.format !== FILE_FORMAT || !body.entries || typeof body.entries !== 'object') return;
    for (const [key, report] of Object.entries(body.entries as Record<string, unknown>)) {
      // A report under the wrong key would hand one folder's verdict to another.
      if (isReport(report) && key === `${report.contentHash}:${report.scannerVersion}`) super.set(key, report);
    }
  }

  override set(key: string, report: SkillScanReport): void {
    super.set(key, report);
    this.dirty = true;
  }

  /** Writes the cache when something changed since the last load or save. */
  async save(): Promise<void> {
    if (!this.dirty) return;
    const entries: Record<string, SkillScanReport> = {};
    for (const [key, report] of this.entries) entries[key] = report;
    await this.fs.writeFileAtomic(this.file, JSON.stringify({ format: FILE_FORMAT, entries }));
    this.dirty = false;
  }
}
