import type { SkillRecord } from '../model/skillTypes';
import type { SkillHeader } from '../model/skillHeader';
import type { SkillLocation } from './skillWalker';

export type SkillPlatform = 'linux' | 'macos' | 'windows';

/** One SKILL.md as read: where it is, the (mtime, size) it was read at, and its header. */
export interface IndexedSkill {
  readonly location: SkillLocation;
  readonly header: SkillHeader;
  readonly mtimeMs: number;
  readonly size: number;
}

/** A record that lost a name collision also says why, for the browser's tooltip. */
export interface IndexedSkillRecord extends SkillRecord {
  readonly shadowReason?: string;
}

/** Whether a skill is held back until the person consents to it (see SkillRecord.awaitingConsent). */
export type HeldBack = (skill: IndexedSkill) => boolean;

export interface SkillChange {
  readonly added: readonly SkillRecord[];
  readonly removed: readonly SkillRecord[];
  readonly changed: readonly SkillRecord[];
}

interface Slot {
  skill: IndexedSkill;
  name: string;
  record?: IndexedSkillRecord;
}

function compareSlots(a: Slot, b: Slot): number {
  const byRoot = a.skill.location.rootIndex - b.skill.location.rootIndex;
  if (byRoot !== 0) return byRoot;
  const x = a.skill.location.sortKey;
  const y = b.skill.location.sortKey;
  return x < y ? -1 : x > y ? 1 : 0;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameRecord(a: IndexedSkillRecord, b: IndexedSkillRecord): boolean {
  return (
    a.name === b.name && a.file === b.file && a.root === b.root && a.category === b.category && a.description === b.description &&
    a.level === b.level && a.version === b.version && a.about === b.about && a.mtimeMs === b.mtimeMs && a.size === b.size &&
    a.shadowedBy === b.shadowedBy && a.shadowReason === b.shadowReason && a.platformHidden === b.platformHidden && a.disabled === b.disabled &&
    a.awaitingConsent === b.awaitingConsent &&
    sameList(a.tags, b.tags) && sameList(a.platforms, b.platforms) && sameList(a.useCases, b.useCases) &&
    sameList(a.exampleQueries, b.exampleQueries) && sameList(a.headings, b.headings) && sameList(a.readErrors, b.readErrors)
  );
}

function sameSkill(a: IndexedSkill, b: IndexedSkill): boolean {
  const x = a.location;
  const y = b.location;
  return (
    a.header === b.header && a.mtimeMs === b.mtimeMs && a.size === b.size &&
    x.root === y.root && x.rootIndex === y.rootIndex && x.sortKey === y.sortKey && x.category === y.category
  );
}

/**
 * The resolved view of the indexed skills: name collisions, platform and settings applied. Callers
 * upsert and remove skills, then `commit()` recomputes only the names they touched and reports
 * what changed since the last commit.
 */
export class SkillRecordSet {
  private readonly slots = new Map<string, Slot>();
  private readonly groups = new Map<string, Slot[]>();
  /** Every slot in precedence order: root order, then path order. */
  private readonly ordered: Slot[] = [];
  private readonly before = new Map<string, IndexedSkillRecord | undefined>();
  private readonly dirtyNames = new Set<string>();
  private allCache?: readonly SkillRecord[];
  private activeCache?: readonly SkillRecord[];

  constructor(
    private readonly platform: SkillPlatform,
    private disabledNames: ReadonlySet<string> = new Set(),
    private readonly heldBack?: HeldBack,
  ) {}

  get size(): number {
    return this.slots.size;
  }

  skill(file: string): IndexedSkill | undefined {
    return this.slots.get(file)?.skill;
  }

  skills(): IterableIterator<IndexedSkill> {
    return (function* (ordered: readonly Slot[]) {
      for (const slot of ordered) yield slot.skill;
    })(this.ordered);
  }

  upsert(skill: IndexedSkill): void {
    const file = skill.location.file;
    const slot = this.slots.get(file);
    const name = skill.header.name ?? skill.location.folderName;
    if (slot && sameSkill(slot.skill, skill)) return;
    this.capture(file);
    if (!slot) {
      const created: Slot = { skill, name };
      this.slots.set(file, created);
      this.insertOrdered(created);
      this.joinGroup(created);
      return;
    }
    const reorder = compareSlots(slot, { skill, name }) !== 0;
    if (reorder) this.removeOrdered(slot);
    this.leaveGroup(slot);
    slot.skill = skill;
    slot.name = name;
    if (reorder) this.insertOrdered(slot);
    this.joinGroup(slot);
  }

  remove(file: string): void {
    const slot = this.slots.get(file);
    if (!slot) return;
    this.capture(file);
    this.slots.delete(file);
    this.removeOrdered(slot);
    this.leaveGroup(slot);
  }

  setDisabled(names: ReadonlySet<string>): void {
    for (const name of this.disabledNames) if (!names.has(name)) this.dirtyNames.add(name);
    for (const name of names) if (!this.disabledNames.has(name)) this.dirtyNames.add(name);
    this.disabledNames = new Set(names);
  }

  /** The held-back answer may have changed: names whose copies flip are resolved at the next commit. */
  refreshHeldBack(): void {
    if (!this.heldBack) return;
    for (const slot of this.ordered) {
      if ((slot.record?.awaitingConsent === true) !== this.heldBack(slot.skill)) this.dirtyNames.add(slot.name);
    }
  }

  /** Resolves the touched names and returns what changed for listeners since the last commit. */
  commit(): SkillChange {
    for (const name of this.dirtyNames) this.resolve(name);
    this.dirtyNames.clear();
    const added: SkillRecord[] = [];
    const removed: SkillRecord[] = [];
    const changed: SkillRecord[] = [];
    for (const [file, old] of this.before) {
      const now = this.slots.get(file)?.record;
      if (!old && now) added.push(now);
      else if (old && !now) removed.push(old);
      else if (old && now && old !== now) changed.push(now);
    }
    this.before.clear();
    if (added.length + removed.length + changed.length > 0) {
      this.allCache = undefined;
      this.activeCache = undefined;
    }
    return { added, removed, changed };
  }

  all(): readonly SkillRecord[] {
    this.allCache ??= this.ordered.map((slot) => slot.record as SkillRecord);
    return this.allCache;
  }

  active(): readonly SkillRecord[] {
    this.activeCache ??= this.all().filter((record) => !record.shadowedBy && !record.disabled && !record.platformHidden && !record.awaitingConsent);
    return this.activeCache;
  }

  /** Every copy of a name, the one in use first. */
  byName(name: string): readonly SkillRecord[] {
    const group = this.groups.get(name);
    if (!group) return [];
    const records = group.map((slot) => slot.record as SkillRecord);
    const winner = records.findIndex((record) => !record.shadowedBy);
    const first = records[winner];
    return winner > 0 && first ? [first, ...records.slice(0, winner), ...records.slice(winner + 1)] : records;
  }

  get(name: string): SkillRecord | undefined {
    const winner = this.byName(name)[0];
    return winner && !winner.shadowedBy && !winner.disabled && !winner.platformHidden && !winner.awaitingConsent ? winner : undefined;
  }

  private capture(file: string): void {
    if (!this.before.has(file)) this.before.set(file, this.slots.get(file)?.record);
  }

  private hidden(slot: Slot): boolean {
    const platforms = slot.skill.header.platforms;
    return platforms.length > 0 && !platforms.includes(this.platform);
  }

  private resolve(name: string): void {
    const group = this.groups.get(name);
    // An empty group is deleted in leaveGroup, so group[0] exists whenever the group does.
    const fallback = group?.[0];
    if (!group || !fallback) return;
    // A copy this machine cannot use must not hide one it can, nor may a copy awaiting consent.
    const held = new Set(this.heldBack ? group.filter((slot) => this.heldBack?.(slot.skill)) : []);
    const winner = group.find((slot) => !this.hidden(slot) && !held.has(slot)) ?? group.find((slot) => !this.hidden(slot)) ?? fallback;
    for (const slot of group) {
      const file = slot.skill.location.file;
      const record = this.buildRecord(slot, winner, held.has(slot));
      // Keep the old object when nothing changed, also across a remove and re-add (a folder walked again).
      const previous = slot.record ?? this.before.get(file);
      if (previous && sameRecord(previous, record)) {
        slot.record = previous;
        continue;
      }
      this.capture(file);
      slot.record = record;
    }
  }

  private buildRecord(slot: Slot, winner: Slot, held: boolean): IndexedSkillRecord {
    const { location, header, mtimeMs, size } = slot.skill;
    const record: { -readonly [K in keyof IndexedSkillRecord]: IndexedSkillRecord[K] } = {
      name: slot.name,
      folderName: location.folderName,
      dir: location.dir,
      file: location.file,
      root: location.root,
      scope: location.root.scope,
      category: location.category,
      description: header.description,
      tags: header.tags,
      platforms: header.platforms,
      useCases: header.useCases,
      exampleQueries: header.exampleQueries,
      headings: header.headings,
      about: header.about,
      level: header.level,
      version: header.version,
      calls: header.calls,
      mtimeMs,
      size,
      readErrors: header.readErrors,
    };
    if (slot !== winner) {
      record.shadowedBy = winner.skill.location.file;
      record.shadowReason = this.shadowReason(slot, winner);
    }
    if (this.hidden(slot)) record.platformHidden = true;
    if (this.disabledNames.has(slot.name)) record.disabled = true;
    if (held) record.awaitingConsent = true;
    return record;
  }

  private shadowReason(slot: Slot, winner: Slot): string {
    const mine = slot.skill.location;
    const theirs = winner.skill.location;
    const where = theirs.sortKey.split('\0').join('/') || '.';
    if (this.heldBack?.(slot.skill) && compareSlots(slot, winner) < 0) {
      return `This copy waits for your consent (it came with the repository), so "${slot.name}" from ${theirs.root.label}/${where} is used until you approve it.`;
    }
    if (this.hidden(slot) && compareSlots(slot, winner) < 0) {
      return `This copy is limited to ${slot.skill.header.platforms.join(', ')}, so "${slot.name}" from ${theirs.root.label}/${where} is used on ${this.platform}.`;
    }
    if (mine.rootIndex === theirs.rootIndex) {
      return `"${slot.name}" is also at ${mine.root.label}/${where}; within one folder the first path in sorted order is used.`;
    }
    const rule =
      mine.root.scope === theirs.root.scope
        ? 'folders earlier in the list of skill folders take precedence'
        : `${theirs.root.scope === 'other' ? "other tools'" : theirs.root.scope} skills take precedence over ${mine.root.scope === 'other' ? "other tools'" : mine.root.scope} skills`;
    return `"${slot.name}" from ${theirs.root.label}/${where} is used instead: ${rule}.`;
  }

  private joinGroup(slot: Slot): void {
    const group = this.groups.get(slot.name);
    if (!group) {
      this.groups.set(slot.name, [slot]);
    } else {
      let at = group.length;
      while (at > 0) {
        const previous = group[at - 1];
        if (!previous || compareSlots(previous, slot) <= 0) break;
        at--;
      }
      group.splice(at, 0, slot);
    }
    this.dirtyNames.add(slot.name);
  }

  private leaveGroup(slot: Slot): void {
    const group = this.groups.get(slot.name);
    if (group) {
      const at = group.indexOf(slot);
      if (at >= 0) group.splice(at, 1);
      if (group.length === 0) this.groups.delete(slot.name);
    }
    this.dirtyNames.add(slot.name);
  }

  private position(slot: Slot): number {
    let low = 0;
    let high = this.ordered.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      // low <= mid < high <= length: the slot exists, the check only narrows the type.
      const middle = this.ordered[mid];
      if (!middle) break;
      if (compareSlots(middle, slot) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private insertOrdered(slot: Slot): void {
    const last = this.ordered[this.ordered.length - 1];
    // Full loads arrive in precedence order: append without searching.
    if (!last || compareSlots(last, slot) < 0) this.ordered.push(slot);
    else this.ordered.splice(this.position(slot), 0, slot);
    this.allCache = undefined;
    this.activeCache = undefined;
  }

  private removeOrdered(slot: Slot): void {
    const at = this.position(slot);
    if (this.ordered[at] === slot) this.ordered.splice(at, 1);
    else this.ordered.splice(this.ordered.indexOf(slot), 1);
    this.allCache = undefined;
    this.activeCache = undefined;
  }
}
