import { oneLine } from '../../text/clip';
import type { SkillRecord } from '../model/skillTypes';
import { tokenUnits } from '../../text/tokenEstimate';
import type { TokenUnits } from '../../text/tokenEstimate';

/** A description as the catalog may show it, with the cost of its whole line "- name: text\n". */
export interface ShownDescription {
  readonly text: string;
  readonly lineUnits: Readonly<TokenUnits>;
}

/**
 * What the catalog needs of one record, worked out once per record object: records are immutable
 * and the index hands out the same objects until a skill changes, so after one change only that
 * skill is measured again. The descriptions are filled in by the catalog when it first needs them.
 */
export interface CatalogItem {
  readonly record: SkillRecord;
  /** The name on one line, as listed. */
  readonly name: string;
  readonly nameUnits: Readonly<TokenUnits>;
  /** The category on one line: the key of its group, `''` at the top level. */
  readonly category: string;
  /** project 0, user 1, other 2: closer scopes are more useful (and it indexes a three-slot tuple). */
  readonly scopeRank: 0 | 1 | 2;
  full?: ShownDescription;
  sentence?: ShownDescription;
  short?: ShownDescription;
  /**
   * Distinct words of the name that tell what the skill does (see nameVagueness). A small integer
   * set when the item is made: a field written later, or one holding fractions, slowed every later
   * pass over the items several times over.
   */
  readonly tellingWords: number;
  /** Bookkeeping of catalogOrder: the call that last saw the item, and whether it is in the remembered order. */
  seenIn: number;
  remembered: boolean;
}

export function skillName(record: SkillRecord): string {
  return oneLine(record.name) || oneLine(record.folderName) || '(unnamed)';
}

const items = new WeakMap<SkillRecord, CatalogItem>();
/**
 * One string object per category: the catalog groups 10,000 skills with a Map keyed by category,
 * and a lookup by a string it has seen (hash kept, equal by identity) costs half of one by a copy.
 * Clearing it only costs that sharing.
 */
const categories = new Map<string, string>();

function sharedCategory(category: string): string {
  const known = categories.get(category);
  if (known !== undefined) return known;
  if (categories.size >= 10_000) categories.clear();
  categories.set(category, category);
  return category;
}

function catalogItem(record: SkillRecord): CatalogItem {
  let item = items.get(record);
  if (!item) {
    const name = skillName(record);
    item = {
      record,
      name,
      nameUnits: tokenUnits(name),
      tellingWords: tellingWords(name),
      category: sharedCategory(oneLine(record.category)),
      scopeRank: record.scope === 'project' ? 0 : record.scope === 'user' ? 1 : 2,
      seenIn: 0,
      remembered: false,
    };
    items.set(record, item);
  }
  return item;
}

/**
 * Words that say little about what a skill does on their own: a name made only of them ("helper",
 * "tools", "cli-utils") needs its description more than one with a telling word ("pdftk-server").
 */
export const GENERIC_NAME_WORDS: ReadonlySet<string> = new Set([
  'helper', 'helpers', 'tool', 'tools', 'toolkit', 'kit', 'util', 'utils', 'utility', 'utilities', 'misc', 'common',
  'general', 'core', 'base', 'basic', 'basics', 'default', 'main', 'stuff', 'assistant', 'skill', 'skills', 'agent',
  'agents', 'bot', 'my', 'new', 'simple', 'quick', 'easy', 'task', 'tasks', 'work', 'workflow', 'workflows', 'manager',
  'management', 'mode', 'guide', 'library', 'lib', 'app', 'apps', 'script', 'scripts', 'cli', 'setup', 'config',
  'plugin', 'extension', 'service', 'server', 'api', 'client', 'sdk', 'data', 'file', 'files', 'doc', 'docs', 'note',
  'notes', 'system', 'project', 'template', 'templates', 'pro', 'plus', 'best', 'practices', 'patterns', 'expert',
  'builder', 'generator', 'creator', 'maker', 'plan', 'review', 'check', 'run', 'do', 'make', 'create', 'get', 'use',
  'and', 'the', 'for', 'to', 'of', 'a', 'an', 'in', 'on', 'with',
]);

/** Distinct words of a name (letters and digits, numbers alone left out) of three letters or more, not generic. */
function tellingWords(name: string): number {
  const words = new Set<string>();
  for (const word of name.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length >= 3 && !/^\d+$/.test(word) && !GENERIC_NAME_WORDS.has(word)) words.add(word);
  }
  return words.size;
}

/**
 * How little a name says on its own, 0–1: each telling word (three letters or more, not in
 * GENERIC_NAME_WORDS) halves it, so "helper" is 1, "shop" 0.5, "pdftk-server" 0.5 and
 * "azure-static-web-apps" 0.125. Only the name itself counts, never the other skills, so a rebuild
 * after one change costs nothing here.
 */
export function nameVagueness(item: CatalogItem): number {
  return vagueness(item.tellingWords);
}

/** nameVagueness of a name with `tellingWords` telling words. */
export function vagueness(tellingWords: number): number {
  return 0.5 ** tellingWords;
}

/** Item indices in ascending order, all with the same need, or each with its own (`needs`, sorted by need, then index). */
export interface NeedList {
  readonly items: readonly number[];
  readonly need: number | readonly number[];
}

/**
 * Item indices by need, highest first, ties by the lower index, merged from a few lists each in that
 * order already. Most skills fall in a handful of lists of equal need (unused skills by how many
 * telling words their names have), so taking the few hundred the catalog describes costs a pass
 * over the skills to bucket them, not a heap or a sort of thousands.
 */
export class NeedOrder {
  private readonly at: number[];

  constructor(private readonly lists: readonly NeedList[]) {
    this.at = lists.map(() => 0);
  }

  pop(): number | undefined {
    let best = -1;
    let bestNeed = Number.NEGATIVE_INFINITY;
    let bestItem = Number.POSITIVE_INFINITY;
    for (let l = 0; l < this.lists.length; l++) {
      const list = this.lists[l] as NeedList;
      const at = this.at[l] as number;
      const item = list.items[at];
      if (item === undefined) continue;
      const need = typeof list.need === 'number' ? list.need : (list.need[at] as number);
      if (need > bestNeed || (need === bestNeed && item < bestItem)) {
        best = l;
        bestNeed = need;
        bestItem = item;
      }
    }
    if (best < 0) return undefined;
    this.at[best] = (this.at[best] as number) + 1;
    return bestItem;
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Name, then file: the order of skills within a category, and the last word on usefulness. */
export function byNameThenFile(a: CatalogItem, b: CatalogItem): number {
  return compareText(a.name, b.name) || compareText(a.record.file, b.record.file);
}

/**
 * The order of the last call, kept so that the next call, usually after one skill changed, costs a
 * pass over the records instead of a sort of 10,000 names. It never changes a result: the order is
 * a function of the set of records (two records with the same name and file are never remembered).
 */
let remembered: readonly CatalogItem[] = [];
let calls = 0;

function remember(order: readonly CatalogItem[]): void {
  for (const item of remembered) item.remembered = false;
  // An indexed loop, as in catalogOrder below; `previous` and `item` exist for every i < length.
  for (let i = 1; i < order.length; i++) {
    const previous = order[i - 1];
    const item = order[i];
    if (previous && item && byNameThenFile(previous, item) === 0) {
      remembered = [];
      return;
    }
  }
  for (const item of order) item.remembered = true;
  remembered = order;
}

/** Insertion point of `item` in `order`, or -1 when an item with the same name and file is there. */
function insertionPoint(order: readonly CatalogItem[], item: CatalogItem): number {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    // low <= mid < high <= length: the item exists, the check only narrows the type.
    const middle = order[mid];
    if (!middle) break;
    const side = byNameThenFile(middle, item);
    if (side === 0) return -1;
    if (side < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The catalog items of `records` sorted by name, then file (records with the same name and file
 * stay in input order). Do not modify the returned array.
 */
export function catalogOrder(records: readonly SkillRecord[]): readonly CatalogItem[] {
  const call = ++calls;
  const all: CatalogItem[] = new Array<CatalogItem>(records.length);
  const added: CatalogItem[] = [];
  let repeated = false;
  for (let i = 0; i < records.length; i++) {
    // Indexed loops here and below: over 10,000 records before the JIT has optimized this code they
    // cost less than for…of. The undefined checks only narrow the type (i < length).
    const record = records[i];
    if (record === undefined) continue;
    const item = items.get(record) ?? catalogItem(record);
    if (item.seenIn === call) repeated = true;
    item.seenIn = call;
    all[i] = item;
    if (!item.remembered) added.push(item);
  }
  const removed = remembered.length - (all.length - added.length);
  // Past a few changes a sort is as cheap as inserting them one by one.
  if (!repeated && added.length + removed <= Math.max(16, all.length >> 5)) {
    // Nothing changed: the remembered array is never modified once returned, so it can be shared.
    if (added.length === 0 && removed === 0) return remembered;
    const order: CatalogItem[] = [];
    for (let i = 0; i < remembered.length; i++) {
      const item = remembered[i];
      if (item === undefined) continue;
      if (item.seenIn === call) order.push(item);
      else item.remembered = false;
    }
    let clash = false;
    for (const item of added) {
      const at = insertionPoint(order, item);
      if (at < 0) clash = true;
      else order.splice(at, 0, item);
    }
    if (!clash) {
      for (const item of added) item.remembered = true;
      remembered = order;
      return order;
    }
  }
  const sorted = all.sort(byNameThenFile);
  remember(repeated ? [] : sorted);
  return sorted;
}
