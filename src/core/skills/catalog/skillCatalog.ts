import { TOP_LEVEL_CATEGORY_LABEL } from '../../../shared/system/categoryLabel';
import { clipWords, oneLine } from '../../text/clip';
import { byNameThenFile, catalogOrder, skillName } from './catalogOrder';
import type { CatalogItem, ShownDescription } from './catalogOrder';
import type { SkillRecord } from '../model/skillTypes';
import { tokensOfUnits, tokenUnits } from '../../text/tokenEstimate';
import type { TokenUnits } from '../../text/tokenEstimate';

export interface CatalogUsage {
  readonly [name: string]: { readonly uses: number; readonly lastUsed?: number };
}

export interface CatalogOptions {
  /** Most tokens (see tokenEstimate.ts) the catalog may cost; default 3,000. */
  readonly budgetTokens?: number;
  /** Use counts by skill name: decide what is cut first, never the order of the text. */
  readonly usage?: CatalogUsage;
}

export interface CatalogResult {
  readonly text: string;
  /** estimateTokens(text), never above budgetTokens. */
  readonly tokens: number;
  readonly budgetTokens: number;
  /** Skills listed with a description, full or shortened. */
  readonly included: number;
  /** Names listed with a shortened description. */
  readonly shortened: readonly string[];
  /** Categories reduced to a list of names. */
  readonly collapsed: readonly string[];
  /** Names listed without a description (the skills of the collapsed categories that were kept). */
  readonly namesOnly: readonly string[];
  /** Names left out of the text entirely. */
  readonly omitted: readonly string[];
}

export const DEFAULT_CATALOG_BUDGET = 3000;
/** Length a description is cut to (ellipsis included) when its first sentence is still too long. */
export const SHORT_DESCRIPTION_CHARS = 80;
/** How the catalog shows the category of skills that sit directly in a root. */
const NAMES_ONLY = ' (names only)';

const INTRO: readonly string[] = [
  '## Skills',
  '',
  'Skills hold instructions for recurring tasks. When a task matches a skill below, load it with skill_view(name) before acting; skill_view(name, file_path) opens a file the skill links to.',
  'List every skill with skills_list(), or search them with skills_list(query="<words>").',
];

function notes(namesOnly: boolean, omitted: number): string[] {
  const out: string[] = [];
  if (namesOnly) out.push('Categories marked "(names only)" list skills without descriptions; skill_view(name) shows one.');
  if (omitted > 0) {
    out.push(`${omitted} more skill${omitted === 1 ? ' is' : 's are'} not listed here; find them with skills_list(query="<words>").`);
  }
  return out;
}

/** The exact line the model sees for one skill with its full description. */
export function catalogLine(record: SkillRecord): string {
  return describedLine(skillName(record), oneLine(record.description));
}

function describedLine(name: string, description: string): string {
  return description ? `- ${name}: ${description}` : `- ${name}`;
}

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'cf', 'approx', 'incl', 'eg', 'ie']);

/** The first sentence: up to a `.`, `!` or `?` followed by white space and a capital, digit or quote. */
export function firstSentence(text: string): string {
  const end = /[.!?]\s+/g;
  for (let match = end.exec(text); match; match = end.exec(text)) {
    const next = text.slice(end.lastIndex, end.lastIndex + 2);
    if (!/^["'(\[]?[\p{Lu}\p{N}]/u.test(next)) continue;
    const before = /[\p{L}.]*$/u.exec(text.slice(Math.max(0, match.index - 12), match.index))?.[0] ?? '';
    if (ABBREVIATIONS.has(before.toLowerCase())) continue;
    return text.slice(0, match.index + 1);
  }
  return text;
}

/** The catalog's name for the shared word-boundary clip. */
export const shortenDescription = clipWords;

type State = 'full' | 'shortened' | 'omitted';

interface Entry {
  readonly item: CatalogItem;
  readonly group: Group;
  readonly uses: number;
  readonly lastUsed: number;
  state: State;
  /** The description as currently shown, with the cost of its line; measured only for categories that may show descriptions. */
  shown: ShownDescription;
}

interface Group {
  readonly key: string;
  readonly entries: Entry[];
  collapsed: boolean;
  live: number;
  /** Sum over the skills' uses and their latest use: how the collapse step ranks categories. */
  uses: number;
  lastUsed: number;
  /** Sum over live entries of their line units. */
  readonly lineSum: TokenUnits;
  /** Sum over live entries of their name units. */
  readonly nameSum: TokenUnits;
  readonly header: TokenUnits;
  readonly collapsedHeader: TokenUnits;
}

const ZERO: Readonly<TokenUnits> = Object.freeze({ ascii: 0, other: 0 });
const UNMEASURED: ShownDescription = Object.freeze({ text: '', lineUnits: ZERO });

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most useful first: used more, used more recently, closer scope, then by name (a stable prior). */
function byUsefulness(a: Entry, b: Entry): number {
  return b.uses - a.uses || b.lastUsed - a.lastUsed || a.item.scopeRank - b.item.scopeRank || byNameThenFile(a.item, b.item);
}

function plus(total: TokenUnits, units: Readonly<TokenUnits>, sign = 1): void {
  total.ascii += sign * units.ascii;
  total.other += sign * units.other;
}

function lineUnits(line: string): TokenUnits {
  const units = tokenUnits(line);
  units.ascii += 1; // its newline
  return units;
}

const INTRO_UNITS: Readonly<TokenUnits> = sumLines(INTRO);

function sumLines(lines: readonly string[]): TokenUnits {
  const total: TokenUnits = { ascii: 0, other: 0 };
  for (const line of lines) plus(total, lineUnits(line));
  return total;
}

/** A description of `item` and the units of "- name: description\n" (or "- name\n"), without building the line. */
function shownDescription(item: CatalogItem, description: string): ShownDescription {
  const units = tokenUnits(description);
  const { nameUnits } = item;
  return { text: description, lineUnits: { ascii: nameUnits.ascii + units.ascii + (description ? 5 : 3), other: nameUnits.other + units.other } };
}

// The three forms a description can take, each worked out once per record.
function fullDescription(item: CatalogItem): ShownDescription {
  return (item.full ??= shownDescription(item, oneLine(item.record.description)));
}

function sentenceDescription(item: CatalogItem): ShownDescription {
  return (item.sentence ??= shownDescription(item, firstSentence(fullDescription(item).text)));
}

function shortDescription(item: CatalogItem): ShownDescription {
  return (item.short ??= shownDescription(item, shortenDescription(sentenceDescription(item).text, SHORT_DESCRIPTION_CHARS)));
}

function collapsedCost(group: Group): TokenUnits {
  if (group.live === 0) return ZERO;
  // Blank line, header, names joined by ", ", newline.
  return {
    ascii: 1 + group.collapsedHeader.ascii + group.nameSum.ascii + 2 * (group.live - 1) + 1,
    other: group.collapsedHeader.other + group.nameSum.other,
  };
}

function groupCost(group: Group): TokenUnits {
  if (group.live === 0) return ZERO;
  if (group.collapsed) return collapsedCost(group);
  return { ascii: 1 + group.header.ascii + group.lineSum.ascii, other: group.header.other + group.lineSum.other };
}

/** plus(total, groupCost(group), sign) without allocating: it runs once or twice per skill left out. */
function plusGroupCost(total: TokenUnits, group: Group, sign: number): void {
  if (group.live === 0) return;
  if (group.collapsed) {
    total.ascii += sign * (1 + group.collapsedHeader.ascii + group.nameSum.ascii + 2 * (group.live - 1) + 1);
    total.other += sign * (group.collapsedHeader.other + group.nameSum.other);
  } else {
    total.ascii += sign * (1 + group.header.ascii + group.lineSum.ascii);
    total.other += sign * (group.header.other + group.lineSum.other);
  }
}

/** Units compared as tokens: four ASCII units make one. */
function weight(units: TokenUnits): number {
  return units.ascii + 4 * units.other;
}

function normalizeBudget(budget: number | undefined): number {
  if (budget === undefined || Number.isNaN(budget)) return DEFAULT_CATALOG_BUDGET;
  return Math.max(0, Math.floor(budget));
}

function finite(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function newGroup(key: string): Group {
  const label = `### ${key || TOP_LEVEL_CATEGORY_LABEL}`;
  return {
    key,
    entries: [],
    collapsed: false,
    live: 0,
    uses: 0,
    lastUsed: 0,
    lineSum: { ascii: 0, other: 0 },
    nameSum: { ascii: 0, other: 0 },
    header: lineUnits(label),
    collapsedHeader: lineUnits(label + NAMES_ONLY),
  };
}

/**
 * Groups sorted by key, each with its entries by name and file, and every entry from the least to
 * the most useful. Both come from one order by name and file (see catalogOrder), so usage costs a
 * sort of the few used skills only.
 */
function groupRecords(active: readonly SkillRecord[], usage: CatalogUsage): { groups: Group[]; leastUseful: Entry[] } {
  const byKey = new Map<string, Group>();
  // A Map lookup per skill: property lookups by names that are not yet interned cost ten times more.
  const stats = new Map(Object.entries(usage));
  const used: Entry[] = [];
  /** By scopeRank. */
  const unused: [Entry[], Entry[], Entry[]] = [[], [], []];
  const order = catalogOrder(active);
  // Indexed loops and no helper calls over the 10,000 skills: the host builds the catalog once per
  // change, so this code mostly runs before the JIT has optimized it. Here and below the undefined
  // checks of `list[i]` for i < length only narrow the type.
  for (let i = 0; i < order.length; i++) {
    const item = order[i];
    if (item === undefined) continue;
    let group = byKey.get(item.category);
    if (!group) {
      group = newGroup(item.category);
      byKey.set(item.category, group);
    }
    const use = stats.size > 0 ? stats.get(item.name) : undefined;
    const entry: Entry = { item, group, uses: use ? finite(use.uses) : 0, lastUsed: use ? finite(use.lastUsed) : 0, state: 'full', shown: UNMEASURED };
    group.entries.push(entry);
    group.live++;
    group.uses += entry.uses;
    if (entry.lastUsed > group.lastUsed) group.lastUsed = entry.lastUsed;
    group.nameSum.ascii += item.nameUnits.ascii;
    group.nameSum.other += item.nameUnits.other;
    if (entry.uses !== 0 || entry.lastUsed !== 0) used.push(entry);
    else unused[item.scopeRank].push(entry);
  }
  const groups = [...byKey.values()].sort((a, b) => compareText(a.key, b.key));
  // Unused skills are already in usefulness order within a scope; merge the (few) used ones in.
  // (concat, not flat(): flat is ten times slower on 10,000 entries.)
  const rest = ([] as Entry[]).concat(...unused);
  used.sort(byUsefulness);
  const merged: Entry[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const a = used[i];
    const b = rest[j];
    if (a === undefined || b === undefined) break;
    if (byUsefulness(a, b) <= 0) {
      merged.push(a);
      i++;
    } else {
      merged.push(b);
      j++;
    }
  }
  // One of the two is used up; what is left of the other is in order already.
  const mostUseful = merged.concat(used.slice(i), rest.slice(j));
  return { groups, leastUseful: mostUseful.reverse() };
}

function measure(group: Group): void {
  const { entries, lineSum } = group;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry === undefined) continue;
    entry.shown = fullDescription(entry.item);
    lineSum.ascii += entry.shown.lineUnits.ascii;
    lineSum.other += entry.shown.lineUnits.other;
  }
}

/** Whether no amount of shortening and collapsing can make the catalog fit; see the caller. */
function omissionIsCertain(groups: readonly Group[], budgetTokens: number): ReadonlySet<Group> | undefined {
  const bare: TokenUnits = { ...INTRO_UNITS };
  const floor: TokenUnits = { ...bare };
  for (const line of notes(true, 0)) plus(floor, lineUnits(line));
  const surelyCollapsed = new Set<Group>();
  for (const group of groups) {
    // "- name" lines: no description can make a category's lines cheaper than this.
    const lines = { ascii: 1 + group.header.ascii + group.nameSum.ascii + 3 * group.live, other: group.header.other + group.nameSum.other };
    const names = collapsedCost(group);
    plus(bare, lines);
    if (weight(names) < weight(lines)) {
      surelyCollapsed.add(group);
      plus(floor, names);
    } else {
      plus(floor, lines);
    }
  }
  return tokensOfUnits(bare) > budgetTokens && tokensOfUnits(floor) > budgetTokens ? surelyCollapsed : undefined;
}

/**
 * The skills catalog for the system prompt, grouped by category and sorted by code units, so the
 * same records always give the same bytes. Over budget it shortens descriptions (least useful skills
 * first: to the first sentence, then to SHORT_DESCRIPTION_CHARS), then reduces rarely used
 * categories to names, then leaves out the least useful skills; docs/search-and-catalog.md has the
 * details. Shadowed, disabled and platform-hidden records are skipped.
 *
 * Records are taken as immutable: what the catalog works out for a record object (its one-line
 * name and descriptions and their costs, its place in the order) is kept with it, so rebuilding
 * after one skill changed costs about a pass over the records.
 */
export function buildCatalog(records: readonly SkillRecord[], options: CatalogOptions = {}): CatalogResult {
  const budgetTokens = normalizeBudget(options.budgetTokens);
  const active: SkillRecord[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r === undefined) continue;
    if (!r.shadowedBy && !r.disabled && !r.platformHidden) active.push(r);
  }
  if (active.length === 0) {
    return { text: '', tokens: 0, budgetTokens, included: 0, shortened: [], collapsed: [], namesOnly: [], omitted: [] };
  }
  const { groups, leastUseful } = groupRecords(active, options.usage ?? {});

  // When not even bare names fit, skills will be left out whatever happens, and every category that
  // is cheaper as a list of names than as "- name" lines ends up collapsed (the steps below would
  // get there): those are collapsed at once and their descriptions never looked at, a large saving
  // for thousands of skills.
  const surelyCollapsed = omissionIsCertain(groups, budgetTokens);
  for (const group of groups) {
    if (surelyCollapsed?.has(group)) group.collapsed = true;
    else measure(group);
  }

  // Every change below updates `total` in units, which add up exactly, so it always holds the
  // estimate of the text that render() will produce (or slightly more, see the reserved note).
  const total: TokenUnits = { ascii: INTRO_UNITS.ascii, other: INTRO_UNITS.other };
  for (const group of groups) plusGroupCost(total, group, 1);
  const fits = () => tokensOfUnits(total) <= budgetTokens;
  const shortenable: Entry[] = [];
  if (!fits()) {
    for (const entry of leastUseful) if (!entry.group.collapsed) shortenable.push(entry);
  }
  for (const shorten of [sentenceDescription, shortDescription]) {
    for (const entry of shortenable) {
      if (fits()) break;
      const shown = shorten(entry.item);
      if (shown.text.length >= entry.shown.text.length) continue;
      const group = entry.group;
      plusGroupCost(total, group, -1);
      plus(group.lineSum, entry.shown.lineUnits, -1);
      entry.state = 'shortened';
      entry.shown = shown;
      plus(group.lineSum, shown.lineUnits);
      plusGroupCost(total, group, 1);
    }
  }

  if (!fits()) {
    // Rarely used categories first; among equals the larger, as it frees the most room.
    const order = [...groups].sort((a, b) => a.uses - b.uses || a.lastUsed - b.lastUsed || b.live - a.live || compareText(a.key, b.key));
    for (const line of notes(true, 0)) plus(total, lineUnits(line));
    for (const group of order) {
      if (fits()) break;
      if (group.collapsed) continue;
      const before = groupCost(group);
      const after = collapsedCost(group);
      // A category of a few skills without descriptions can cost more as a list of names.
      if (weight(after) >= weight(before)) continue;
      group.collapsed = true;
      plus(total, before, -1);
      plus(total, after);
    }
  }

  if (!fits()) {
    // Reserve the note with the widest count it can show; the real one is never longer.
    for (const line of notes(false, leastUseful.length)) plus(total, lineUnits(line));
    const omitted = omittedCount(groups, leastUseful, total, budgetTokens);
    for (const entry of leastUseful.slice(0, omitted)) entry.state = 'omitted';
  }

  return render(groups, budgetTokens);
}

/**
 * The fewest of the least useful skills to leave out for `total` to fit the budget, or all of them.
 * Leaving out a skill never adds to the cost, so this starts with every skill left out and adds the
 * most useful back while the catalog still fits: at 10,000 skills and the default budget it looks at
 * the few hundred kept instead of the thousands left out. It overwrites the groups' running sums,
 * which render() does not read.
 */
function omittedCount(groups: readonly Group[], leastUseful: readonly Entry[], total: Readonly<TokenUnits>, budgetTokens: number): number {
  const sum: TokenUnits = { ascii: total.ascii, other: total.other };
  for (const group of groups) {
    plusGroupCost(sum, group, -1);
    group.live = 0;
    group.lineSum.ascii = group.lineSum.other = 0;
    group.nameSum.ascii = group.nameSum.other = 0;
  }
  if (tokensOfUnits(sum) > budgetTokens) return leastUseful.length;
  for (let i = leastUseful.length - 1; i >= 0; i--) {
    const entry = leastUseful[i];
    if (entry === undefined) continue;
    const group = entry.group;
    plusGroupCost(sum, group, -1);
    group.live++;
    plus(group.lineSum, entry.shown.lineUnits);
    plus(group.nameSum, entry.item.nameUnits);
    plusGroupCost(sum, group, 1);
    if (tokensOfUnits(sum) > budgetTokens) return i + 1;
  }
  return 0;
}

function render(groups: readonly Group[], budgetTokens: number): CatalogResult {
  const shortened: string[] = [];
  const collapsed: string[] = [];
  const namesOnly: string[] = [];
  const omitted: string[] = [];
  const body: string[] = [];
  let included = 0;
  for (const group of groups) {
    const live: Entry[] = [];
    const { entries } = group;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry === undefined) continue;
      if (entry.state === 'omitted') omitted.push(entry.item.name);
      else live.push(entry);
    }
    if (live.length === 0) continue;
    const label = `### ${group.key || TOP_LEVEL_CATEGORY_LABEL}`;
    body.push('');
    if (group.collapsed) {
      collapsed.push(group.key);
      const names = live.map((e) => e.item.name);
      body.push(label + NAMES_ONLY, names.join(', '));
      namesOnly.push(...names);
      continue;
    }
    body.push(label);
    for (const entry of live) {
      body.push(describedLine(entry.item.name, entry.shown.text));
      included++;
      if (entry.state === 'shortened') shortened.push(entry.item.name);
    }
  }
  const text = `${[...INTRO, ...notes(collapsed.length > 0, omitted.length), ...body].join('\n')}\n`;
  const tokens = tokensOfUnits(tokenUnits(text));
  if (tokens <= budgetTokens) return { text, tokens, budgetTokens, included, shortened, collapsed, namesOnly, omitted };

  // Not even the introduction fits: only say how to reach the skills, or say nothing.
  const all = groups.flatMap((g) => g.entries.map((e) => e.item.name));
  const count = all.length === 1 ? '1 skill is' : `${all.length} skills are`;
  const pointer = `## Skills\n${count} available: skills_list() lists them, skills_list(query="<words>") searches them.\n`;
  const pointerTokens = tokensOfUnits(tokenUnits(pointer));
  const fitsPointer = pointerTokens <= budgetTokens;
  return {
    text: fitsPointer ? pointer : '',
    tokens: fitsPointer ? pointerTokens : 0,
    budgetTokens,
    included: 0,
    shortened: [],
    collapsed: [],
    namesOnly: [],
    omitted: all,
  };
}

