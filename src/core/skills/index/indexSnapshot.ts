import type { SkillCall } from '../model/skillTypes';
import type { SkillHeader } from '../model/skillHeader';

/**
 * Where the index keeps its snapshot between sessions; the host backs it with extension global
 * storage and writes atomically (temp file + rename), so a crash leaves the old snapshot or the new one.
 */
export interface SnapshotStore {
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

/** One indexed SKILL.md as the snapshot keeps it: where it is, the (mtime, size) it was read at, what was read. */
export interface SnapshotEntry {
  readonly rootPath: string;
  /** Path below the root, segments joined by NUL (see SkillLocation.sortKey). */
  readonly sortKey: string;
  readonly mtimeMs: number;
  readonly size: number;
  readonly header: SkillHeader;
}

const FORMAT = 'skillwright-skill-index';
/**
 * Bump when the header fields or their meaning change. Version 3 added the workflow's calls, version
 * 4 the `about` text search reads; older snapshots are still read, their skills without what they
 * lack (unknown until a file is read again).
 */
export const SNAPSHOT_VERSION = 4;

/** The mtime given to entries of an older snapshot version, so that no file on disk matches it. */
export const STALE_MTIME = -1;

/** One workflow call: [skill, step, 'skill' | 'fallback', range or null]. */
type CallRow = [string, string, string, string | null];

/**
 * [root, path below the root (NUL-separated sortKey), mtimeMs, size, the header fields, then (version
 * 3) the calls or null when unknown, then (version 4) the about text or null when unknown].
 */
type Row = [number, string, number, number, string | null, string, string[], string[], string[], string[], string[], number, string | null, string[], (CallRow[] | null)?, (string | null)?];

/** JSON with rows as arrays: half the size of objects, and JSON.parse of 10,000 skills stays in the tens of ms. */
export function encodeIndexSnapshot(entries: Iterable<SnapshotEntry>): string {
  const roots: string[] = [];
  const rootIds = new Map<string, number>();
  const rows: Row[] = [];
  for (const { rootPath, sortKey, mtimeMs, size, header } of entries) {
    let rootId = rootIds.get(rootPath);
    if (rootId === undefined) {
      rootId = roots.push(rootPath) - 1;
      rootIds.set(rootPath, rootId);
    }
    rows.push([
      rootId,
      sortKey,
      mtimeMs,
      size,
      header.name ?? null,
      header.description,
      header.tags as string[],
      header.platforms as string[],
      header.useCases as string[],
      header.exampleQueries as string[],
      header.headings as string[],
      header.level,
      header.version ?? null,
      header.readErrors as string[],
      header.calls ? header.calls.map((call): CallRow => [call.skill, call.step, call.via, call.range ?? null]) : null,
      header.about ?? null,
    ]);
  }
  return JSON.stringify({ format: FORMAT, version: SNAPSHOT_VERSION, roots, skills: rows });
}

function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

function isCallRow(value: unknown): value is CallRow {
  if (!Array.isArray(value) || value.length !== 4) return false;
  const [skill, step, via, range] = value as unknown[];
  return typeof skill === 'string' && typeof step === 'string' && (via === 'skill' || via === 'fallback') && (range === null || typeof range === 'string');
}

function isRow(row: unknown, rootCount: number, format: number): row is Row {
  if (!Array.isArray(row) || row.length !== (format === 2 ? 14 : format === 3 ? 15 : 16)) return false;
  const [rootId, rel, mtimeMs, size, name, description, tags, platforms, useCases, queries, headings, level, version, errors, calls, about] = row;
  if (format !== 2 && !(calls === null || (Array.isArray(calls) && calls.every(isCallRow)))) return false;
  if (format !== 2 && format !== 3 && !(about === null || typeof about === 'string')) return false;
  return (
    Number.isInteger(rootId) && rootId >= 0 && rootId < rootCount &&
    typeof rel === 'string' && typeof mtimeMs === 'number' && typeof size === 'number' &&
    (name === null || typeof name === 'string') && typeof description === 'string' &&
    isStringArray(tags) && isStringArray(platforms) && isStringArray(useCases) && isStringArray(queries) && isStringArray(headings) &&
    (level === 0 || level === 1 || level === 2) && (version === null || typeof version === 'string') && isStringArray(errors)
  );
}

/** Reads a snapshot; throws an Error that says why when it is unusable (the index then scans instead). */
export function decodeIndexSnapshot(text: string): SnapshotEntry[] {
  const data = JSON.parse(text) as { format?: unknown; version?: unknown; roots?: unknown; skills?: unknown };
  if (data?.format !== FORMAT) throw new Error('not a Skillwright skill index snapshot');
  const format = data.version;
  if (format !== SNAPSHOT_VERSION && format !== 3 && format !== 2) throw new Error(`snapshot version ${String(format)}, expected ${SNAPSHOT_VERSION}`);
  const roots = data.roots;
  if (!isStringArray(roots) || !Array.isArray(data.skills)) throw new Error('snapshot without roots or skills');
  const entries: SnapshotEntry[] = [];
  for (const row of data.skills as unknown[]) {
    if (!isRow(row, roots.length, format)) throw new Error('snapshot has a malformed skill row');
    const [rootId, rel, mtimeMs, size, name, description, tags, platforms, useCases, exampleQueries, headings, level, version, readErrors, calls, about] = row;
    // isRow has checked rootId against roots.length, so this only narrows the type.
    const rootPath = roots[rootId];
    if (rootPath === undefined) throw new Error('snapshot has a malformed skill row');
    entries.push({
      rootPath,
      sortKey: rel,
      // An older version kept less of each header (no calls in 2, no about text in 3): its skills are
      // served at once, and a time no file has makes the first check against the disk read each one again.
      mtimeMs: format === SNAPSHOT_VERSION ? mtimeMs : STALE_MTIME,
      size,
      header: {
        name: name ?? undefined,
        description,
        tags,
        platforms,
        useCases,
        exampleQueries,
        headings,
        level: level as 0 | 1 | 2,
        version: version ?? undefined,
        readErrors,
        ...(calls ? { calls: calls.map(decodeCall) } : {}),
        ...(typeof about === 'string' ? { about } : {}),
      },
    });
  }
  return entries;
}

function decodeCall([skill, step, via, range]: CallRow): SkillCall {
  return { skill, step, via: via === 'fallback' ? 'fallback' : 'skill', ...(range !== null ? { range } : {}) };
}
