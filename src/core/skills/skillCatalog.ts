import type { SkillScope } from '../skillRoots';
import type { SkillRecord } from './skillTypes';
import { tokensOfUnits, tokenUnits } from './tokenEstimate';
import type { TokenUnits } from './tokenEstimate';

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
export const TOP_LEVEL_CATEGORY_LABEL = '(top level)';
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

function isClean(text: string): boolean {
  const last = text.length - 1;
  for (let i = 0; i <= last; i++) {
    const code = text.charCodeAt(i);
    if (code === 32) {
      if (i === 0 || i === last || text.charCodeAt(i + 1) === 32) return false;
    } else if (code < 32 || code === 127 || (code > 127 && /\s/.test(text[i] as string))) {
      return false;
    }
  }
  return true;
}

/** One line of text: control characters and runs of white space become single spaces. */
function oneLine(text: string): string {
  // Most names and descriptions are clean already; a scan is much cheaper than a replace.
  return isClean(text) ? text : text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
}

function skillName(record: SkillRecord): string {
  return oneLine(record.name) || oneLine(record.folderName) || '(unnamed)';
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

/** At most `max` characters, cut at a word boundary where one is near, ending in an ellipsis. */
export function shortenDescription(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  if (space >= max * 0.6) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}

type State = 'full' | 'shortened' | 'omitted';

interface Entry {
  readonly name: string;
  readonly nameUnits: TokenUnits;
  /** The full description on one line; measured only for categories that may show descriptions. */
  description: string;
  readonly group: Group;
  readonly record: SkillRecord;
  readonly uses: number;
  readonly lastUsed: number;
  state: State;
  /** The description as currently shown. */
  shown: string;
  /** Cost of the line "- name: shown" and its newline. */
  units: Readonly<TokenUnits>;
}

interface Group {
  readonly key: string;
  readonly entries: Entry[];
  collapsed: boolean;
  live: number;
  /** Sum over live entries of their line units. */
  readonly lineSum: TokenUnits;
  /** Sum over live entries of their name units. */
  readonly nameSum: TokenUnits;
  readonly header: TokenUnits;
  readonly collapsedHeader: TokenUnits;
}

const SCOPE_RANK: Readonly<Record<SkillScope, number>> = { project: 0, user: 1, other: 2 };
const ZERO: Readonly<TokenUnits> = Object.freeze({ ascii: 0, other: 0 });

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most useful first: used more, used more recently, closer scope, then by name (a stable prior). */
function byUsefulness(a: Entry, b: Entry): number {
  return (
    b.uses - a.uses ||
    b.lastUsed - a.lastUsed ||
    SCOPE_RANK[a.record.scope] - SCOPE_RANK[b.record.scope] ||
    compareText(a.name, b.name) ||
    compareText(a.record.file, b.record.file)
  );
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

/** Units of "- name: description\n" (or "- name\n"), without building the string. */
function entryUnits(nameUnits: TokenUnits, description: string): TokenUnits {
  const units = tokenUnits(description);
  return { ascii: nameUnits.ascii + units.ascii + (description ? 5 : 3), other: nameUnits.other + units.other };
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

function groupRecords(active: readonly SkillRecord[], usage: CatalogUsage): { groups: Group[]; entries: Entry[] } {
  const byKey = new Map<string, Group>();
  const entries: Entry[] = [];
  for (const record of active) {
    const key = oneLine(record.category);
    let group = byKey.get(key);
    if (!group) {
      const label = `### ${key || TOP_LEVEL_CATEGORY_LABEL}`;
      group = {
        key,
        entries: [],
        collapsed: false,
        live: 0,
        lineSum: { ascii: 0, other: 0 },
        nameSum: { ascii: 0, other: 0 },
        header: lineUnits(label),
        collapsedHeader: lineUnits(label + NAMES_ONLY),
      };
      byKey.set(key, group);
    }
    const name = skillName(record);
    const nameUnits = tokenUnits(name);
    const stats = Object.prototype.hasOwnProperty.call(usage, name) ? usage[name] : undefined;
    const entry: Entry = {
      name,
      nameUnits,
      group,
      record,
      uses: finite(stats?.uses),
      lastUsed: finite(stats?.lastUsed),
      description: '',
      state: 'full',
      shown: '',
      units: ZERO,
    };
    group.entries.push(entry);
    group.live++;
    plus(group.nameSum, nameUnits);
    entries.push(entry);
  }
  const groups = [...byKey.values()].sort((a, b) => compareText(a.key, b.key));
  for (const group of groups) group.entries.sort((a, b) => compareText(a.name, b.name) || compareText(a.record.file, b.record.file));
  return { groups, entries };
}

function measure(group: Group): void {
  for (const entry of group.entries) {
    entry.description = oneLine(entry.record.description);
    entry.shown = entry.description;
    entry.units = entryUnits(entry.nameUnits, entry.description);
    plus(group.lineSum, entry.units);
  }
}

/** Whether no amount of shortening and collapsing can make the catalog fit; see the caller. */
function omissionIsCertain(groups: readonly Group[], budgetTokens: number): ReadonlySet<Group> | undefined {
  const bare: TokenUnits = { ascii: 0, other: 0 };
  for (const line of INTRO) plus(bare, lineUnits(line));
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
 */
export function buildCatalog(records: readonly SkillRecord[], options: CatalogOptions = {}): CatalogResult {
  const budgetTokens = normalizeBudget(options.budgetTokens);
  const active = records.filter((r) => !r.shadowedBy && !r.disabled && !r.platformHidden);
  if (active.length === 0) {
    return { text: '', tokens: 0, budgetTokens, included: 0, shortened: [], collapsed: [], namesOnly: [], omitted: [] };
  }
  const { groups, entries } = groupRecords(active, options.usage ?? {});

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
  const total: TokenUnits = { ascii: 0, other: 0 };
  for (const line of INTRO) plus(total, lineUnits(line));
  for (const group of groups) plus(total, groupCost(group));
  const fits = () => tokensOfUnits(total) <= budgetTokens;
  const leastUseful = [...entries].sort(byUsefulness).reverse();
  for (const shorten of [firstSentence, (d: string) => shortenDescription(firstSentence(d), SHORT_DESCRIPTION_CHARS)]) {
    for (const entry of leastUseful) {
      if (fits()) break;
      if (entry.group.collapsed) continue;
      const shown = shorten(entry.description);
      if (shown.length >= entry.shown.length) continue;
      const group = entry.group;
      plus(total, groupCost(group), -1);
      plus(group.lineSum, entry.units, -1);
      entry.state = 'shortened';
      entry.shown = shown;
      entry.units = entryUnits(entry.nameUnits, shown);
      plus(group.lineSum, entry.units);
      plus(total, groupCost(group));
    }
  }

  if (!fits()) {
    // Rarely used categories first; among equals the larger, as it frees the most room.
    const uses = new Map(groups.map((g) => [g, g.entries.reduce((sum, e) => sum + e.uses, 0)]));
    const last = new Map(groups.map((g) => [g, g.entries.reduce((max, e) => Math.max(max, e.lastUsed), 0)]));
    const order = [...groups].sort(
      (a, b) => (uses.get(a) as number) - (uses.get(b) as number) || (last.get(a) as number) - (last.get(b) as number) || b.live - a.live || compareText(a.key, b.key),
    );
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
    for (const line of notes(false, entries.length)) plus(total, lineUnits(line));
    for (const entry of leastUseful) {
      if (fits()) break;
      const group = entry.group;
      plus(total, groupCost(group), -1);
      plus(group.lineSum, entry.units, -1);
      plus(group.nameSum, entry.nameUnits, -1);
      group.live--;
      entry.state = 'omitted';
      plus(total, groupCost(group));
    }
  }

  return render(groups, budgetTokens);
}

function render(groups: readonly Group[], budgetTokens: number): CatalogResult {
  const shortened: string[] = [];
  const collapsed: string[] = [];
  const namesOnly: string[] = [];
  const omitted: string[] = [];
  const body: string[] = [];
  let included = 0;
  for (const group of groups) {
    const live = group.entries.filter((e) => e.state !== 'omitted');
    for (const entry of group.entries) if (entry.state === 'omitted') omitted.push(entry.name);
    if (live.length === 0) continue;
    const label = `### ${group.key || TOP_LEVEL_CATEGORY_LABEL}`;
    body.push('');
    if (group.collapsed) {
      collapsed.push(group.key);
      body.push(label + NAMES_ONLY, live.map((e) => e.name).join(', '));
      namesOnly.push(...live.map((e) => e.name));
      continue;
    }
    body.push(label);
    for (const entry of live) {
      body.push(describedLine(entry.name, entry.shown));
      included++;
      if (entry.state === 'shortened') shortened.push(entry.name);
    }
  }
  const text = `${[...INTRO, ...notes(collapsed.length > 0, omitted.length), ...body].join('\n')}\n`;
  const tokens = tokensOfUnits(tokenUnits(text));
  if (tokens <= budgetTokens) return { text, tokens, budgetTokens, included, shortened, collapsed, namesOnly, omitted };

  // Not even the introduction fits: only say how to reach the skills, or say nothing.
  const all = groups.flatMap((g) => g.entries.map((e) => e.name));
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
