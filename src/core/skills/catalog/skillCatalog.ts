import { TOP_LEVEL_CATEGORY_LABEL } from '../../../shared/system/categoryLabel';
import { clipWords, oneLine } from '../../text/clip';
import { NeedOrder, byNameThenFile, catalogOrder, skillName, vagueness } from './catalogOrder';
import type { CatalogItem, NeedList, ShownDescription } from './catalogOrder';
import type { SkillRecord } from '../model/skillTypes';
import { tokensOfUnits, tokenUnits } from '../../text/tokenEstimate';
import type { TokenUnits } from '../../text/tokenEstimate';
import { smoothedSignals } from '../search/usagePrior';

/**
 * What is known of one skill's use: how often (views and runs) and when, and optionally how its runs
 * went and how it was rated. The outcomes and ratings only weigh which skills keep a description
 * when not all can (a skill that keeps failing needs it less); absent, a skill counts as neutral.
 */
export interface CatalogSkillUsage {
  readonly uses: number;
  readonly lastUsed?: number;
  readonly successes?: number;
  readonly failures?: number;
  readonly thumbsUp?: number;
  readonly thumbsDown?: number;
}

export interface CatalogUsage {
  readonly [name: string]: CatalogSkillUsage;
}

export interface CatalogOptions {
  /** Most tokens (see tokenEstimate.ts) the catalog may cost; default 3,000. */
  readonly budgetTokens?: number;
  /** Usage by skill name: decides what is cut first, never the order of the text. */
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
  /** Categories with a "(names only)" section: all or some of their kept skills are listed by name. */
  readonly collapsed: readonly string[];
  /** Names listed without a description (in the "(names only)" sections). */
  readonly namesOnly: readonly string[];
  /** Names left out of the text entirely. */
  readonly omitted: readonly string[];
}

export const DEFAULT_CATALOG_BUDGET = 3000;
/** Length a description is cut to (ellipsis included) when its first sentence is still too long. */
export const SHORT_DESCRIPTION_CHARS = 80;
/** Marks the section of a category that lists skills by name only. */
const NAMES_ONLY = ' (names only)';
/**
 * When not every skill can have even a short description: the most that descriptions may take of the
 * room left after the introduction, before the other skills are listed by name. Room the names do not
 * need goes back to descriptions.
 */
export const DESCRIPTION_SHARE = 0.5;

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

/** `full`/`shortened`: listed with a description; `name`: in the category's "(names only)" section. */
type State = 'full' | 'shortened' | 'name' | 'omitted';

interface Entry {
  readonly item: CatalogItem;
  readonly group: Group;
  readonly uses: number;
  readonly lastUsed: number;
  /** 0.25–2.25, 1 without outcomes or ratings: how well its runs went and how it was rated. */
  readonly health: number;
  state: State;
  /** The description as currently shown, with the cost of its line; set while the state is full or shortened. */
  shown: ShownDescription;
}

interface Group {
  readonly key: string;
  readonly entries: Entry[];
  /** Skills listed with a description, and the sum of their line units. */
  described: number;
  readonly lineSum: TokenUnits;
  /** Skills in the "(names only)" section, and the sum of their name units. */
  named: number;
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

/**
 * plus(total, cost of the group's text, sign) without allocating: it runs twice per change of one
 * skill. A group's text is a blank line and a header over its described skills, then a blank line, a
 * "(names only)" header and the names joined by ", " over the rest.
 */
function plusGroupCost(total: TokenUnits, group: Group, sign: number): void {
  if (group.described > 0) {
    total.ascii += sign * (1 + group.header.ascii + group.lineSum.ascii);
    total.other += sign * (group.header.other + group.lineSum.other);
  }
  if (group.named > 0) {
    total.ascii += sign * (1 + group.collapsedHeader.ascii + group.nameSum.ascii + 2 * (group.named - 1) + 1);
    total.other += sign * (group.collapsedHeader.other + group.nameSum.other);
  }
}

/** Units compared as tokens: four ASCII units make one. */
function weight(units: TokenUnits): number {
  return units.ascii + 4 * units.other;
}

/** Changes how one skill is shown, keeping `total` the exact estimate of the text render() will produce. */
function move(total: TokenUnits, entry: Entry, state: State, shown: ShownDescription = UNMEASURED): void {
  const group = entry.group;
  plusGroupCost(total, group, -1);
  if (entry.state === 'name') {
    group.named--;
    plus(group.nameSum, entry.item.nameUnits, -1);
  } else if (entry.state !== 'omitted') {
    group.described--;
    plus(group.lineSum, entry.shown.lineUnits, -1);
  }
  entry.state = state;
  entry.shown = state === 'full' || state === 'shortened' ? shown : UNMEASURED;
  if (state === 'name') {
    group.named++;
    plus(group.nameSum, entry.item.nameUnits);
  } else if (state !== 'omitted') {
    group.described++;
    plus(group.lineSum, shown.lineUnits);
  }
  plusGroupCost(total, group, 1);
}

/** Shows a skill with a description: `shown` when it is shorter than the full one, else the full one. */
function describe(total: TokenUnits, entry: Entry, shown: ShownDescription): void {
  const full = fullDescription(entry.item);
  if (shown.text.length < full.text.length) move(total, entry, 'shortened', shown);
  else move(total, entry, 'full', full);
}

function normalizeBudget(budget: number | undefined): number {
  if (budget === undefined || Number.isNaN(budget)) return DEFAULT_CATALOG_BUDGET;
  return Math.max(0, Math.floor(budget));
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Skills by how much they need a description, most first: usage (1 + log2(1 + uses)) times health
 * times how little the name says alone (0.5 for a telling name, 1 for one that tells nothing; see
 * nameVagueness), ties by usefulness.
 */
function needQueue(mostUseful: readonly Entry[]): { pop(): Entry | undefined } {
  const needOf = (uses: number, health: number, words: number) => (1 + Math.log2(1 + Math.max(0, uses))) * health * (0.5 + 0.5 * vagueness(words));
  const need = (entry: Entry) => needOf(entry.uses, entry.health, entry.item.tellingWords);
  // Unused skills without outcomes differ only by their names' telling words: one list per count.
  const plain: number[][] = [];
  const rest: number[] = [];
  for (let i = 0; i < mostUseful.length; i++) {
    const entry = mostUseful[i] as Entry;
    if (entry.uses === 0 && entry.health === 1) (plain[entry.item.tellingWords] ??= []).push(i);
    else rest.push(i);
  }
  const restNeed = rest.map((i) => need(mostUseful[i] as Entry));
  const byNeed = rest.map((_, k) => k).sort((a, b) => (restNeed[b] as number) - (restNeed[a] as number) || (rest[a] as number) - (rest[b] as number));
  const lists: NeedList[] = [{ items: byNeed.map((k) => rest[k] as number), need: byNeed.map((k) => restNeed[k] as number) }];
  plain.forEach((items, words) => lists.push({ items, need: needOf(0, 1, words) }));
  const queue = new NeedOrder(lists);
  return { pop: () => mostUseful[queue.pop() ?? -1] };
}

/** Smoothed success rate times a rating factor, both as the usage prior of search computes them (see usagePrior.ts). */
function healthOf(use: CatalogSkillUsage | undefined): number {
  if (!use) return 1;
  const { success, rating } = smoothedSignals(use);
  return (0.5 + success) * (1 + rating / 2);
}

function newGroup(key: string): Group {
  const label = `### ${key || TOP_LEVEL_CATEGORY_LABEL}`;
  const header = lineUnits(label);
  const collapsedHeader = lineUnits(label + NAMES_ONLY);
  return { key, entries: [], described: 0, lineSum: { ascii: 0, other: 0 }, named: 0, nameSum: { ascii: 0, other: 0 }, header, collapsedHeader };
}

/**
 * Groups sorted by key, each with its entries by name and file, and every entry from the most to the
 * least useful. Both come from one order by name and file (see catalogOrder), so usage costs a sort
 * of the few used skills only. Every entry starts left out.
 */
function groupRecords(active: readonly SkillRecord[], usage: CatalogUsage): { groups: Group[]; mostUseful: Entry[] } {
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
    const uses = use ? count(use.uses) : 0;
    const lastUsed = use ? count(use.lastUsed) : 0;
    const entry: Entry = { item, group, uses, lastUsed, health: healthOf(use), state: 'omitted', shown: UNMEASURED };
    group.entries.push(entry);
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
  return { groups, mostUseful: merged.concat(used.slice(i), rest.slice(j)) };
}

/** The cost of the catalog with every skill as a bare "- name" line: no catalog that describes them all costs less. */
function bareUnits(groups: readonly Group[]): TokenUnits {
  const bare: TokenUnits = { ...INTRO_UNITS };
  for (const group of groups) {
    if (group.entries.length === 0) continue;
    bare.ascii += 1 + group.header.ascii;
    bare.other += group.header.other;
    for (const entry of group.entries) {
      bare.ascii += entry.item.nameUnits.ascii + 3;
      bare.other += entry.item.nameUnits.other;
    }
  }
  return bare;
}

/**
 * The skills catalog for the system prompt, grouped by category and sorted by code units, so the
 * same records always give the same bytes. Over budget it first shortens descriptions (least useful
 * skills first: to the first sentence, then to SHORT_DESCRIPTION_CHARS). When even that is too long,
 * the skills that need a description most (used, healthy, with names that say little) keep a short
 * one, the others are listed by name, and the least useful are left out; docs/search-and-catalog.md
 * has the details. Shadowed, disabled and platform-hidden records are skipped.
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
  const { groups, mostUseful } = groupRecords(active, options.usage ?? {});

  // Every change below goes through move(), which keeps `total` the estimate of the text render()
  // will produce (or slightly more, see the reserved notes).
  const total: TokenUnits = { ascii: INTRO_UNITS.ascii, other: INTRO_UNITS.other };
  const fits = () => tokensOfUnits(total) <= budgetTokens;
  // When not even bare "- name" lines fit, some skills go without a description whatever happens:
  // the full descriptions of thousands of skills are never measured.
  if (tokensOfUnits(bareUnits(groups)) <= budgetTokens) {
    for (const entry of mostUseful) move(total, entry, 'full', fullDescription(entry.item));
    for (const shorten of [sentenceDescription, shortDescription]) {
      for (let i = mostUseful.length - 1; i >= 0 && !fits(); i--) {
        const entry = mostUseful[i];
        if (entry === undefined) continue;
        const shown = shorten(entry.item);
        if (shown.text.length < entry.shown.text.length) move(total, entry, 'shortened', shown);
      }
    }
    if (fits()) return render(groups, budgetTokens);
    for (const entry of mostUseful) move(total, entry, 'omitted');
  }
  tier(total, mostUseful, budgetTokens);
  return render(groups, budgetTokens);
}

/**
 * When not every skill fits with a description: short descriptions for the skills that need one
 * most, up to DESCRIPTION_SHARE of the room; then the others by name, most useful first, while they
 * fit (the rest are left out); then, when every skill is listed, the room left to more descriptions.
 */
function tier(total: TokenUnits, mostUseful: readonly Entry[], budgetTokens: number): void {
  const fits = () => tokensOfUnits(total) <= budgetTokens;
  const namesNote = sumLines(notes(true, 0));
  // Reserved with the widest count it can show; the real one is never longer.
  const omittedNote = sumLines(notes(false, mostUseful.length));
  plus(total, namesNote);
  plus(total, omittedNote);
  const room = 4 * budgetTokens - weight(total);
  const needy = needQueue(mostUseful);

  let spent = 0;
  let next = needy.pop();
  while (next) {
    const before = weight(total);
    describe(total, next, shortDescription(next.item));
    spent += weight(total) - before;
    if (spent > DESCRIPTION_SHARE * room || !fits()) {
      move(total, next, 'omitted');
      break;
    }
    next = needy.pop();
  }

  let omitted = 0;
  for (let i = 0; i < mostUseful.length; i++) {
    const entry = mostUseful[i];
    if (entry === undefined || entry.state !== 'omitted') continue;
    move(total, entry, 'name');
    if (fits()) continue;
    move(total, entry, 'omitted');
    for (let j = i; j < mostUseful.length; j++) if (mostUseful[j]?.state === 'omitted') omitted++;
    break;
  }
  if (omitted > 0) return;

  plus(total, omittedNote, -1);
  while (next) {
    describe(total, next, shortDescription(next.item));
    if (!fits()) {
      move(total, next, 'name');
      return;
    }
    next = needy.pop();
  }
}

function render(groups: readonly Group[], budgetTokens: number): CatalogResult {
  const shortened: string[] = [];
  const collapsed: string[] = [];
  const namesOnly: string[] = [];
  const omitted: string[] = [];
  const body: string[] = [];
  let included = 0;
  for (const group of groups) {
    const described: Entry[] = [];
    const named: string[] = [];
    const { entries } = group;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry === undefined) continue;
      if (entry.state === 'omitted') omitted.push(entry.item.name);
      else if (entry.state === 'name') named.push(entry.item.name);
      else described.push(entry);
    }
    const label = `### ${group.key || TOP_LEVEL_CATEGORY_LABEL}`;
    if (described.length > 0) {
      body.push('', label);
      for (const entry of described) {
        body.push(describedLine(entry.item.name, entry.shown.text));
        included++;
        if (entry.state === 'shortened') shortened.push(entry.item.name);
      }
    }
    if (named.length > 0) {
      collapsed.push(group.key);
      body.push('', label + NAMES_ONLY, named.join(', '));
      namesOnly.push(...named);
    }
  }
  const text = `${[...INTRO, ...notes(collapsed.length > 0, omitted.length), ...body].join('\n')}\n`;
  const tokens = tokensOfUnits(tokenUnits(text));
  if (tokens <= budgetTokens) return { text, tokens, budgetTokens, included, shortened, collapsed, namesOnly, omitted };

  // Not even the introduction fits: only say how to reach the skills, or say nothing.
  const all = groups.flatMap((g) => g.entries.map((e) => e.item.name));
  const skills = all.length === 1 ? '1 skill is' : `${all.length} skills are`;
  const pointer = `## Skills\n${skills} available: skills_list() lists them, skills_list(query="<words>") searches them.\n`;
  const pointerTokens = tokensOfUnits(tokenUnits(pointer));
  const fitsPointer = pointerTokens <= budgetTokens;
  const fallback = fitsPointer ? pointer : '';
  return { text: fallback, tokens: fitsPointer ? pointerTokens : 0, budgetTokens, included: 0, shortened: [], collapsed: [], namesOnly: [], omitted: all };
}
