/**
 * Consent for project skills: which skills that came with a trusted repository may enter the
 * catalog. A project skill is in when a person approved its content (by hash, so a changed file
 * asks again), wrote it in this workspace, or installed it here after the import or update review;
 * otherwise it waits on the consent card (or stays out once declined). skills-lock.json is not
 * asked: it comes with the repository, so its say-so would let the repository approve itself.
 * Pure: the host supplies the hashes, the stored decisions and what was written here.
 */
import type { SkillRecord } from '../model/skillTypes';

export type ConsentDecision = 'approved' | 'declined';

/**
 * How a decision came about: the consent card, a write in this workspace (editor, commands, agent),
 * or an install in this window after its review (Import Skills…, Check for Skill Updates).
 */
export type ConsentSource = 'card' | 'authored' | 'installed';

/** One remembered decision, stored under the skill folder's content hash. */
export interface ConsentRecord {
  readonly decision: ConsentDecision;
  readonly name: string;
  /** The skill folder the decision was made for (to tell "changed since approved" from "new"). */
  readonly dir: string;
  /** ISO time of the decision. */
  readonly at: string;
  readonly by: ConsentSource;
}

/** Content hash → decision. */
export type ConsentStore = Readonly<Record<string, ConsentRecord>>;

/** A project skill and the hash of its folder as it is on disk now. */
export interface ConsentSubject {
  readonly record: SkillRecord;
  readonly hash: string;
}

export type ConsentState = 'approved' | 'pending' | 'declined';

/**
 * Why a skill is where it is: approved on the card (or installed here after a review), written here,
 * declined on the card, never seen, or changed since its folder was last approved.
 */
export type ConsentReason = 'approved' | 'authored' | 'declined' | 'new' | 'changed';

export interface ConsentEntry {
  readonly record: SkillRecord;
  readonly hash: string;
  readonly state: ConsentState;
  readonly reason: ConsentReason;
}

export interface ConsentInputs {
  readonly subjects: readonly ConsentSubject[];
  readonly store: ConsentStore;
  /**
   * Skill folders written in this workspace since they were last hashed: they count as approved,
   * except a folder whose latest decision is a decline (only an approval clears that).
   */
  readonly authored?: ReadonlySet<string>;
  /** For the records of new decisions (authored skills). */
  readonly now?: () => Date;
}

export interface ConsentResult {
  /** Every project skill given, in the order given. */
  readonly entries: readonly ConsentEntry[];
  /** What the card lists: never seen, or changed since approved. */
  readonly pending: readonly ConsentEntry[];
  /** The SKILL.md files to keep out of the catalog (pending and declined). */
  readonly heldBack: ReadonlySet<string>;
  /** Decisions to remember: the authored skills at their current hash. */
  readonly additions: ConsentStore;
}

/** Only these come with a repository; user skills and other tools' folders are the person's own. */
export function needsConsent(record: SkillRecord): boolean {
  return record.scope === 'project';
}

/**
 * The skill folders whose latest decision is a decline. A write there (a rename, a duplicate's
 * target, a save) does not let the folder in: a decline is cleared only by an approval.
 */
export function declinedDirs(store: ConsentStore): ReadonlySet<string> {
  const latest = new Map<string, ConsentRecord>();
  for (const record of Object.values(store)) {
    const seen = latest.get(record.dir);
    if (!seen || seen.at <= record.at) latest.set(record.dir, record);
  }
  return new Set([...latest].filter(([, record]) => record.decision === 'declined').map(([dir]) => dir));
}

export function evaluateConsent(inputs: ConsentInputs): ConsentResult {
  const now = inputs.now ?? (() => new Date());
  const approvedDirs = new Set<string>();
  for (const record of Object.values(inputs.store)) if (record.decision === 'approved') approvedDirs.add(record.dir);
  const declined = declinedDirs(inputs.store);
  const entries: ConsentEntry[] = [];
  const additions: Record<string, ConsentRecord> = {};
  for (const subject of inputs.subjects) {
    const { record, hash } = subject;
    const stored = inputs.store[hash];
    let state: ConsentState;
    let reason: ConsentReason;
    if (inputs.authored?.has(record.dir) && stored?.decision !== 'declined' && !declined.has(record.dir)) {
      // Written here: whatever was approved for an earlier content, this content is the person's own.
      state = 'approved';
      reason = 'authored';
      if (stored?.decision !== 'approved' || stored.dir !== record.dir) {
        additions[hash] = { decision: 'approved', name: record.name, dir: record.dir, at: now().toISOString(), by: 'authored' };
      }
    } else if (stored?.decision === 'approved') {
      state = 'approved';
      reason = stored.by === 'authored' ? 'authored' : 'approved';
    } else if (stored?.decision === 'declined') {
      state = 'declined';
      reason = 'declined';
    } else {
      state = 'pending';
      reason = approvedDirs.has(record.dir) ? 'changed' : 'new';
    }
    entries.push({ record, hash, state, reason });
  }
  return {
    entries,
    pending: entries.filter((entry) => entry.state === 'pending'),
    heldBack: new Set(entries.filter((entry) => entry.state !== 'approved').map((entry) => entry.record.file)),
    additions,
  };
}

/** Most decisions kept; older ones go first (a skill edited often leaves one per version it had). */
export const MAX_CONSENT_RECORDS = 2_000;

/** The store with `decision` recorded for each entry's current hash, oldest records dropped past the bound. */
export function withDecisions(store: ConsentStore, entries: readonly { readonly record: SkillRecord; readonly hash: string }[], decision: ConsentDecision, by: ConsentSource, at: Date): ConsentStore {
  const next: Record<string, ConsentRecord> = { ...store };
  for (const { record, hash } of entries) next[hash] = { decision, name: record.name, dir: record.dir, at: at.toISOString(), by };
  return bounded(next);
}

export function withRecords(store: ConsentStore, additions: ConsentStore): ConsentStore {
  return Object.keys(additions).length === 0 ? store : bounded({ ...store, ...additions });
}

function bounded(store: Record<string, ConsentRecord>): ConsentStore {
  const keys = Object.keys(store);
  if (keys.length <= MAX_CONSENT_RECORDS) return store;
  keys.sort((a, b) => ((store[a]?.at ?? '') < (store[b]?.at ?? '') ? -1 : 1));
  for (const key of keys.slice(0, keys.length - MAX_CONSENT_RECORDS)) delete store[key];
  return store;
}

function isRecordObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a stored value back; anything malformed is dropped (the skill then simply asks again). */
export function parseConsentStore(value: unknown): ConsentStore {
  if (!isRecordObject(value)) return {};
  const store: Record<string, ConsentRecord> = {};
  for (const [hash, raw] of Object.entries(value)) {
    if (!/^[0-9a-f]{64}$/.test(hash) || !isRecordObject(raw)) continue;
    const { decision, name, dir, at, by } = raw;
    if ((decision !== 'approved' && decision !== 'declined') || typeof name !== 'string' || typeof dir !== 'string' || typeof at !== 'string') continue;
    store[hash] = { decision, name, dir, at, by: by === 'authored' || by === 'installed' ? by : 'card' };
  }
  return store;
}
