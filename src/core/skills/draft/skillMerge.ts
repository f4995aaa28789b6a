import { searchTerms } from '../search/searchText';
import { NO_PITFALLS } from './skillDraft';

/**
 * Folds a draft's new points into an existing SKILL.md: the items of the draft's When to use,
 * Steps, Pitfalls and Verification sections that the existing text does not already say go to the
 * end of the matching section, or into a new section at the end. Nothing existing is changed,
 * except a patch-level bump of a semantic `version`.
 */

export type DraftSection = 'when' | 'steps' | 'pitfalls' | 'verification';

export interface MergedSkill {
  readonly text: string;
  /** What was added where; empty when the existing skill already says everything the draft does. */
  readonly added: readonly { readonly section: DraftSection; readonly heading: string; readonly items: readonly string[]; readonly newSection: boolean }[];
  /** The version before and after the bump, when the skill has a semantic version. */
  readonly version?: { readonly from: string; readonly to: string };
}

const SECTIONS: readonly { key: DraftSection; pattern: RegExp; heading: string }[] = [
  { key: 'when', pattern: /\bwhen to (?:use|apply)\b|\bwhen should\b|\buse cases?\b|\btriggers?\b/i, heading: 'When to use' },
  { key: 'pitfalls', pattern: /pitfall|gotcha|mistake|troubleshoot|caveat|known (?:issue|problem)|common (?:issue|error|problem)|\bwarnings?\b|don'?ts?\b/i, heading: 'Pitfalls' },
  { key: 'verification', pattern: /verif|validat|\bcheck|\btesting\b|\bconfirm/i, heading: 'Verification' },
  { key: 'steps', pattern: /\bsteps?\b|workflow|procedure|instructions|\bhow to\b|\bprocess\b|\busage\b|quick ?start/i, heading: 'Steps' },
];
/** Two lines saying the same thing share this much of their words (Jaccard). */
const SAME_POINT = 0.6;

interface Heading {
  readonly line: number;
  readonly level: number;
  readonly text: string;
}

function headingsOf(lines: readonly string[], from: number): Heading[] {
  const headings: Heading[] = [];
  let fence: string | undefined;
  for (const [i, line] of lines.entries()) {
    if (i < from) continue;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      continue;
    }
    const match = fence === undefined ? /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    // Both groups always take part in a match; the checks only narrow the type.
    const hashes = match?.[1];
    const text = match?.[2];
    if (hashes !== undefined && text !== undefined) headings.push({ line: i, level: hashes.length, text });
  }
  return headings;
}

function sectionOf(heading: string): DraftSection | undefined {
  return SECTIONS.find((section) => section.pattern.test(heading))?.key;
}

const ITEM = /^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(.*)$/;

/** List items of a section's lines, each with its continuation lines. */
function itemsOf(lines: readonly string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    // The group always takes part in a match, so `item` is undefined only when the line is no list item.
    const item = ITEM.exec(line)?.[1];
    if (item !== undefined) items.push(item);
    else if (items.length > 0 && /^\s{2,}\S/.test(line)) items[items.length - 1] += `\n${line}`;
  }
  return items;
}

const words = (text: string): Set<string> => new Set(searchTerms(text.replace(/[-_./]+/g, ' ')));

function saysTheSame(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared) >= SAME_POINT || shared === a.size;
}

/** The draft's sections by kind, with their list items. */
function draftSections(draft: string): Map<DraftSection, string[]> {
  const lines = draft.replace(/\r\n?/g, '\n').split('\n');
  const start = bodyStart(lines);
  const headings = headingsOf(lines, start).filter((h) => h.level >= 2);
  const sections = new Map<DraftSection, string[]>();
  headings.forEach((heading, i) => {
    const key = sectionOf(heading.text);
    if (!key || sections.has(key)) return;
    const end = headings[i + 1]?.line ?? lines.length;
    // The draft's "nothing came up" placeholder says nothing to an existing skill.
    sections.set(key, itemsOf(lines.slice(heading.line + 1, end)).filter((item) => item.trim() !== NO_PITFALLS));
  });
  return sections;
}

function bodyStart(lines: readonly string[]): number {
  if (lines[0]?.replace(/^\uFEFF/, '').trim() !== '---') return 0;
  const close = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'));
  return close < 0 ? 0 : close + 1;
}

function bumpVersion(lines: string[], end: number): { from: string; to: string } | undefined {
  for (let i = 1; i < end; i++) {
    // i < end <= lines.length; '' (which never matches) only satisfies the type checker.
    const match = /^(version\s*:\s*["']?)(\d+)\.(\d+)\.(\d+)(["']?\s*)$/.exec(lines[i] ?? '');
    if (!match) continue;
    const from = `${match[2]}.${match[3]}.${match[4]}`;
    const to = `${match[2]}.${match[3]}.${Number(match[4]) + 1}`;
    lines[i] = `${match[1]}${to}${match[5]}`;
    return { from, to };
  }
  return undefined;
}

export function mergeDraftIntoSkill(existing: string, draft: string): MergedSkill {
  const bom = existing.startsWith('\uFEFF') ? '\uFEFF' : '';
  const crlf = existing.includes('\r\n');
  const lines = existing.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const start = bodyStart(lines);
  const known = lines.slice(start).filter((line) => line.trim() !== '').map(words);
  const added: { section: DraftSection; heading: string; items: string[]; newSection: boolean }[] = [];
  const appended: string[] = [];
  // Insertions are applied from the bottom up so earlier line numbers stay valid.
  const insertions: { at: number; lines: string[] }[] = [];
  const headings = headingsOf(lines, start);
  for (const [key, items] of draftSections(draft)) {
    const fresh = items.filter((item) => {
      const terms = words(item);
      if (known.some((line) => saysTheSame(terms, line))) return false;
      known.push(terms);
      return true;
    });
    if (fresh.length === 0) continue;
    const index = headings.findIndex((h) => h.level >= 2 && sectionOf(h.text) === key);
    const heading = headings[index];
    if (heading) {
      let end = headings.slice(index + 1).find((h) => h.level <= heading.level)?.line ?? lines.length;
      while (end > heading.line + 1 && lines[end - 1]?.trim() === '') end--;
      const body = lines.slice(heading.line + 1, end);
      const numbers = body.map((line) => /^\s{0,3}(\d{1,3})[.)]\s/.exec(line)?.[1]).filter(Boolean);
      const last = numbers.length > 0 ? Number(numbers[numbers.length - 1]) : undefined;
      // New items follow the section's last list item (and its continuation lines), not a code block or subsection after it.
      let at = end;
      const lastItem = body.map((line) => ITEM.test(line)).lastIndexOf(true);
      if (lastItem >= 0) {
        at = heading.line + 1 + lastItem + 1;
        while (at < end && /^\s{2,}\S/.test(lines[at] ?? '')) at++;
      }
      const rendered = fresh.map((item, i) => (last !== undefined ? `${last + i + 1}. ${item}` : `- ${item}`));
      insertions.push({ at, lines: rendered.flatMap((item) => item.split('\n')) });
      added.push({ section: key, heading: heading.text, items: fresh, newSection: false });
    } else if (key !== 'when') {
      // A "When to use" list belongs near the top; the description already says when, so it is not appended at the end.
      const title = (SECTIONS.find((s) => s.key === key) as { heading: string }).heading;
      appended.push('', `## ${title}`, '', ...fresh.flatMap((item, i) => (key === 'steps' ? `${i + 1}. ${item}` : `- ${item}`).split('\n')));
      added.push({ section: key, heading: title, items: fresh, newSection: true });
    }
  }
  if (added.length === 0) return { text: existing, added: [] };
  for (const insertion of insertions.sort((a, b) => b.at - a.at)) lines.splice(insertion.at, 0, ...insertion.lines);
  while (lines.at(-1)?.trim() === '') lines.pop();
  lines.push(...appended, '');
  const version = bumpVersion(lines, start);
  const text = bom + (crlf ? lines.join('\r\n') : lines.join('\n'));
  return { text, added, ...(version ? { version } : {}) };
}
