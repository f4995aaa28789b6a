/**
 * Applying memory actions to entries, purely: validation, the threat scan, substring matching,
 * the size limits, and a readable diff. MemoryStore runs this on fresh file contents under a lock.
 */
import { clipLine } from '../text/clip';
import type { ThreatFinding } from '../security/threatScanner';
import { findingIds, scanText } from '../security/threatScanner';
import { normaliseEntry } from '../../shared/system/memoryEntry';
import { charCount, entryProblem, serializedSize } from './memoryFile';

export type MemoryTarget = 'memory' | 'user';
export const MEMORY_TARGETS: readonly MemoryTarget[] = ['memory', 'user'];

export const DEFAULT_MEMORY_LIMITS: Readonly<Record<MemoryTarget, number>> = { memory: 2200, user: 1375 };

export const TARGET_FILES: Readonly<Record<MemoryTarget, string>> = { memory: 'MEMORY.md', user: 'USER.md' };
const TARGET_LABELS: Readonly<Record<MemoryTarget, string>> = { memory: 'MEMORY.md (project memory)', user: 'USER.md (user profile)' };

export type MemoryAction =
  | { readonly action: 'add'; readonly target: MemoryTarget; readonly content: string }
  | { readonly action: 'replace'; readonly target: MemoryTarget; readonly old_text: string; readonly content: string }
  | { readonly action: 'remove'; readonly target: MemoryTarget; readonly old_text: string };

export interface MemoryChange {
  readonly target: MemoryTarget;
  readonly kind: 'add' | 'replace' | 'remove';
  readonly before?: string;
  readonly after?: string;
  /** The action changed nothing (the same entry was already there). */
  readonly unchanged?: boolean;
}

export interface NumberedEntry {
  readonly n: number;
  readonly chars: number;
  readonly text: string;
}

export type MemoryFailureCode = 'invalid' | 'blocked' | 'no_match' | 'ambiguous' | 'over_limit' | 'unavailable' | 'busy' | 'io';

export interface MemoryFailure {
  readonly ok: false;
  readonly code: MemoryFailureCode;
  readonly error: string;
  /** Position of the failing action in a batch. */
  readonly actionIndex?: number;
  readonly target?: MemoryTarget;
  /** blocked: the threat findings, with their pattern ids. */
  readonly findings?: readonly ThreatFinding[];
  /** ambiguous: the entries old_text matches; no_match: the closest entries. */
  readonly candidates?: readonly string[];
  /** over_limit: the current entries, numbered, with their sizes. */
  readonly entries?: readonly NumberedEntry[];
  readonly chars?: number;
  readonly limit?: number;
  readonly projected?: number;
}

export interface EditSuccess {
  readonly ok: true;
  readonly changes: readonly MemoryChange[];
  /** Entries after the actions, for every target the actions touched. */
  readonly result: ReadonlyMap<MemoryTarget, readonly string[]>;
}

const CANDIDATE_CHARS = 120;
const MAX_CANDIDATES = 5;
const LISTED_ENTRY_CHARS = 400;

/** Entries quoted in messages: on one line, clipped. */
export const truncate = clipLine;

const fmt = (n: number): string => n.toLocaleString('en-US');

export function targetLabel(target: MemoryTarget): string {
  return TARGET_LABELS[target];
}

function loose(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}_.-]{2,}/gu) ?? []);
}

function bigrams(text: string): Map<string, number> {
  const flat = loose(text);
  const grams = new Map<string, number>();
  for (let i = 0; i < flat.length - 1; i++) {
    const g = flat.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

function dice(a: string, b: string): number {
  const ga = bigrams(a);
  const gb = bigrams(b);
  let shared = 0;
  let total = 0;
  for (const [g, n] of ga) {
    shared += Math.min(n, gb.get(g) ?? 0);
    total += n;
  }
  for (const n of gb.values()) total += n;
  return total === 0 ? 0 : (2 * shared) / total;
}

/** Entries most like `needle`: shared words first, then character bigrams. */
export function closestEntries(entries: readonly string[], needle: string, max = 3): string[] {
  const wanted = words(needle);
  return entries
    .map((entry, i) => {
      const have = words(entry);
      let shared = 0;
      for (const w of wanted) if (have.has(w)) shared++;
      return { i, entry, score: (wanted.size ? shared / wanted.size : 0) + dice(needle, entry.slice(0, needle.length * 3 + 40)) / 10 };
    })
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, max)
    .map((c) => truncate(c.entry, CANDIDATE_CHARS));
}

type Match = { kind: 'found'; index: number } | { kind: 'none' } | { kind: 'ambiguous'; indexes: number[] };

/** The one entry containing `oldText` (exactly, else ignoring case and spacing). */
export function findEntry(entries: readonly string[], oldText: string): Match {
  const needle = oldText.trim();
  let hits = entries.flatMap((entry, i) => (entry.includes(needle) ? [i] : []));
  if (hits.length === 0) {
    const l = loose(needle);
    hits = entries.flatMap((entry, i) => (loose(entry).includes(l) ? [i] : []));
  }
  if (hits.length === 0) return { kind: 'none' };
  // The whole text of one entry names that entry, even when a longer entry contains it too.
  const whole = hits.filter((i) => entries[i]?.trim() === needle);
  if (whole.length > 0 && whole.every((i) => entries[i] === entries[whole[0] as number])) return { kind: 'found', index: whole[0] as number };
  // Exact duplicates are one entry as far as the user can tell: take the first.
  if (hits.every((i) => entries[i] === entries[hits[0] as number])) return { kind: 'found', index: hits[0] as number };
  return { kind: 'ambiguous', indexes: hits };
}

export function numberedEntries(entries: readonly string[]): NumberedEntry[] {
  return entries.map((text, i) => ({ n: i + 1, chars: charCount(text), text: truncate(text, LISTED_ENTRY_CHARS) }));
}

function where(index: number, total: number): string {
  return total > 1 ? `actions[${index}]: ` : '';
}

/** Checks an entry's text: format and the threat scan. */
function checkContent(content: string, target: MemoryTarget, index: number, total: number): MemoryFailure | undefined {
  const problem = entryProblem(content);
  if (problem) return { ok: false, code: 'invalid', error: `${where(index, total)}${problem}`, actionIndex: index, target };
  const scan = scanText(content, { context: 'memory' });
  if (scan.ok) return undefined;
  const ids = findingIds(scan);
  return {
    ok: false,
    code: 'blocked',
    error:
      `${where(index, total)}blocked by the threat scanner (${ids.join(', ')}): ${scan.findings[0]?.message ?? ''}. ` +
      'Memory is read back into future system prompts, so it must not hold instructions aimed at the model, secrets, or hidden characters. ' +
      'Save the plain fact instead, without the flagged part; nothing was saved.',
    actionIndex: index,
    target,
    findings: scan.findings,
  };
}

/**
 * Applies `actions` in order to copies of `current` (entries per target). All or nothing: the
 * first failing action fails the whole batch and nothing is changed.
 */
export function applyMemoryActions(
  current: ReadonlyMap<MemoryTarget, readonly string[]>,
  actions: readonly MemoryAction[],
  limits: Readonly<Record<MemoryTarget, number>>,
): EditSuccess | MemoryFailure {
  const work = new Map<MemoryTarget, string[]>();
  const changes: MemoryChange[] = [];
  const total = actions.length;
  for (const [index, action] of actions.entries()) {
    const entries = work.get(action.target) ?? [...(current.get(action.target) ?? [])];
    work.set(action.target, entries);
    const file = TARGET_FILES[action.target];
    if (action.action !== 'remove') {
      const failure = checkContent(action.content, action.target, index, total);
      if (failure) return failure;
    }
    if (action.action === 'add') {
      const content = normaliseEntry(action.content);
      if (entries.includes(content)) {
        changes.push({ target: action.target, kind: 'add', after: content, unchanged: true });
      } else {
        entries.push(content);
        changes.push({ target: action.target, kind: 'add', after: content });
      }
      continue;
    }
    if (action.old_text.trim() === '') {
      return { ok: false, code: 'invalid', error: `${where(index, total)}old_text is empty; give a unique part of the entry to ${action.action}`, actionIndex: index, target: action.target };
    }
    const match = findEntry(entries, action.old_text);
    if (match.kind === 'none') {
      const candidates = closestEntries(entries, action.old_text);
      return {
        ok: false,
        code: 'no_match',
        error:
          `${where(index, total)}no entry in ${file} contains old_text "${truncate(action.old_text, 80)}". ` +
          (candidates.length
            ? `Copy old_text from one of the closest entries: ${candidates.map((c, i) => `${i + 1}) "${c}"`).join(' ')}`
            : `${file} has no entries yet.`),
        actionIndex: index,
        target: action.target,
        candidates,
      };
    }
    if (match.kind === 'ambiguous') {
      const candidates = match.indexes.slice(0, MAX_CANDIDATES).map((i) => truncate(entries[i] as string, CANDIDATE_CHARS));
      const more = match.indexes.length - candidates.length;
      return {
        ok: false,
        code: 'ambiguous',
        error:
          `${where(index, total)}old_text "${truncate(action.old_text, 80)}" matches ${match.indexes.length} entries in ${file}; ` +
          `use a longer part of the one you mean so only it matches: ${candidates.map((c, i) => `${i + 1}) "${c}"`).join(' ')}${more > 0 ? ` (and ${more} more)` : ''}`,
        actionIndex: index,
        target: action.target,
        candidates,
      };
    }
    const before = entries[match.index] as string;
    if (action.action === 'remove') {
      entries.splice(match.index, 1);
      changes.push({ target: action.target, kind: 'remove', before });
    } else {
      const after = normaliseEntry(action.content);
      // Replacing an entry with the text of another existing entry merges the two.
      const duplicate = entries.findIndex((e, i) => i !== match.index && e === after);
      if (duplicate >= 0) entries.splice(match.index, 1);
      else entries[match.index] = after;
      changes.push({ target: action.target, kind: 'replace', before, after, ...(before === after ? { unchanged: true } : {}) });
    }
  }
  for (const [target, entries] of work) {
    const failure = limitFailure(target, current.get(target) ?? [], entries, limits[target]);
    if (failure) return failure;
  }
  return { ok: true, changes, result: work };
}

function limitFailure(target: MemoryTarget, before: readonly string[], after: readonly string[], limit: number): MemoryFailure | undefined {
  const projected = serializedSize(after);
  const chars = serializedSize(before);
  // A file already over its limit (edited by hand) may still shrink: only growth past the limit fails.
  if (projected <= limit || projected <= chars) return undefined;
  const file = TARGET_FILES[target];
  return {
    ok: false,
    code: 'over_limit',
    error:
      `${file} would be ${fmt(projected)} characters, over its limit of ${fmt(limit)} (it has ${fmt(chars)} now); nothing was saved. ` +
      'Consolidate first: in one call with "actions", replace several related entries with one shorter entry and remove stale ones, then add the new fact. ' +
      `The current entries, with their sizes, are in "entries".`,
    target,
    entries: numberedEntries(before),
    chars,
    limit,
    projected,
  };
}

/** A unified-style diff of changes, per file, for review (panel) and the model. */
export function renderMemoryDiff(changes: readonly MemoryChange[]): string {
  const out: string[] = [];
  for (const target of MEMORY_TARGETS) {
    const mine = changes.filter((c) => c.target === target && !c.unchanged);
    if (mine.length === 0) continue;
    out.push(`--- ${targetLabel(target)}`);
    for (const change of mine) {
      if (change.before !== undefined) out.push(...change.before.split('\n').map((l) => `- ${l}`));
      if (change.after !== undefined) out.push(...change.after.split('\n').map((l) => `+ ${l}`));
      out.push('§');
    }
    out.pop();
  }
  return out.join('\n');
}
