import { unifiedDiff } from '../../text/unifiedDiff';
import type { UnifiedDiff } from '../../text/unifiedDiff';
import { searchTerms } from '../search/searchText';
import { lintSkill } from '../lint/skillLint';
import type { MergedSkill } from './skillMerge';
import { mergeDraftIntoSkill } from './skillMerge';
import { parseSkillText } from '../model/skillParser';
import { qualifiedName } from '../model/skillPaths';
import { SkillSearch } from '../search/skillSearch';
import type { SemanticSource } from '../search/embeddingIndex';
import { SEMANTIC_DEPTH } from '../search/embeddingRanker';
import type { LintFinding, SkillRecord } from '../model/skillTypes';

/**
 * "This draft looks like skill x": finds existing skills a draft overlaps strongly, and proposes
 * x's SKILL.md with the draft's new points folded in, so the person can patch x instead of keeping
 * two skills. The score and its threshold are explained in docs/skill-tools.md.
 */

export interface SkillOverlap {
  readonly record: SkillRecord;
  /** 0–1: 0.5 × containment + 0.25 × similarity + 0.25 × name overlap; 1 for the same name. */
  readonly score: number;
  /** Share of the draft's topic words (IDF-weighted) that the skill's name, description and trigger phrases hold. */
  readonly containment: number;
  /** `SkillSearch.similar`: cosine of the IDF-weighted term sets of both sides. */
  readonly similarity: number;
  /** Dice coefficient of the words of the two names. */
  readonly nameOverlap: number;
}

export interface OverlapOptions {
  /** The host's search over the same records; one is built when absent. */
  readonly search?: SkillSearch;
  /** Least score for a strong overlap; default OVERLAP_THRESHOLD. */
  readonly threshold?: number;
  /** Most overlaps returned; default 3. */
  readonly top?: number;
  /**
   * More candidates to score, beside the lexical ones (the skills nearest by embedding). They are
   * scored the same way; one the lexical `similar` did not rank counts similarity 0.
   */
  readonly extraCandidates?: readonly SkillRecord[];
}

/** See docs/skill-tools.md, "Saving a session as a skill", for the measurements behind it. */
export const OVERLAP_THRESHOLD = 0.5;
const CANDIDATES = 50;

// Words descriptions use to say *when* rather than *what*; they would make every skill look related.
const BOILERPLATE: ReadonlySet<string> = new Set(
  searchTerms('user users ask asks asked request requests something similar again task tasks skill skills help want need like work also new make create'),
);

/** Topic words: stemmed, compounds split (file names and versions are not topics), no digits, no boilerplate. */
function topicTerms(text: string): Set<string> {
  return new Set(searchTerms(text.replace(/[-_./]+/g, ' ')).filter((term) => !/\d/.test(term) && !BOILERPLATE.has(term)));
}

const recordTerms = new WeakMap<SkillRecord, ReadonlySet<string>>();
function termsOf(record: SkillRecord): ReadonlySet<string> {
  let terms = recordTerms.get(record);
  if (!terms) {
    terms = topicTerms([record.name, record.folderName, record.description, ...record.tags, ...record.useCases, ...record.exampleQueries].join('\n'));
    recordTerms.set(record, terms);
  }
  return terms;
}

/** In how many records each topic word occurs: the IDF of containment, kept per records array. */
const frequencies = new WeakMap<readonly SkillRecord[], ReadonlyMap<string, number>>();
function documentFrequency(records: readonly SkillRecord[]): ReadonlyMap<string, number> {
  let df = frequencies.get(records);
  if (!df) {
    const counts = new Map<string, number>();
    for (const record of records) for (const term of termsOf(record)) counts.set(term, (counts.get(term) ?? 0) + 1);
    df = counts;
    frequencies.set(records, df);
  }
  return df;
}

function dice(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/**
 * Existing skills the draft overlaps strongly, best first. `records` should be the active skills:
 * only those could be patched instead, and only those are ranked.
 */
export function findSkillOverlaps(draft: { readonly name: string; readonly description: string }, records: readonly SkillRecord[], options: OverlapOptions = {}): SkillOverlap[] {
  const threshold = options.threshold ?? OVERLAP_THRESHOLD;
  const top = options.top ?? 3;
  if (records.length === 0 || top <= 0) return [];
  const files = new Set(records.map((record) => record.file));
  const search = options.search ?? new SkillSearch(records);
  const df = documentFrequency(records);
  const idf = (term: string) => Math.log(1 + (records.length + 1) / ((df.get(term) ?? 0) + 1));
  const topic = topicTerms(`${draft.name}\n${draft.description}`);
  const draftName = topicTerms(draft.name);
  let topicWeight = 0;
  for (const term of topic) topicWeight += idf(term) ** 2;

  const overlaps: SkillOverlap[] = [];
  const hits = search.similar({ name: draft.name, description: draft.description }, { top: CANDIDATES, minScore: 0 });
  const ranked = new Set(hits.map((hit) => hit.record.file));
  for (const record of options.extraCandidates ?? []) if (!ranked.has(record.file)) hits.push({ record, score: 0, matched: [], fields: [] });
  for (const hit of hits) {
    if (!files.has(hit.record.file)) continue;
    const terms = termsOf(hit.record);
    let shared = 0;
    for (const term of topic) if (terms.has(term)) shared += idf(term) ** 2;
    const containment = topicWeight > 0 ? shared / topicWeight : 0;
    const nameOverlap = dice(draftName, topicTerms(hit.record.name));
    const sameName = hit.record.name.toLowerCase() === draft.name.trim().toLowerCase();
    const score = sameName ? 1 : 0.5 * containment + 0.25 * hit.score + 0.25 * nameOverlap;
    if (score >= threshold) overlaps.push({ record: hit.record, score, containment, similarity: hit.score, nameOverlap });
  }
  return overlaps.sort((a, b) => b.score - a.score || (a.record.name < b.record.name ? -1 : 1)).slice(0, top);
}

export interface PatchProposal extends MergedSkill {
  /** Diff of the existing SKILL.md to `text`, labelled with the skill's qualified name. */
  readonly diff: UnifiedDiff;
}

/** The existing skill with the draft's new points folded in, and the diff to show for it. */
export function proposeSkillPatch(existingText: string, draftText: string, label: string): PatchProposal {
  const merged = mergeDraftIntoSkill(existingText, draftText);
  return { ...merged, diff: unifiedDiff(existingText, merged.text, `${label}/SKILL.md`) };
}

export interface OverlapOffer extends PatchProposal {
  readonly overlap: SkillOverlap;
  /** Pass to skill_manage `edit` as `name` to apply the patch. */
  readonly skillName: string;
  /** False when the skill lives in a folder Skillwright only reads; `reason` says which. */
  readonly canPatch: boolean;
  readonly reason?: string;
  /** Lint errors the patched text would have that the existing one did not (the edit would be refused). */
  readonly newErrors: readonly LintFinding[];
}

export interface OverlapOfferContext extends OverlapOptions {
  readonly records: readonly SkillRecord[];
  /** Reads a SKILL.md as text (the host's FileSystemPort, decoded). */
  readonly readText: (file: string) => Promise<string>;
  /** Skill embeddings: the skills nearest the draft by meaning become candidates too. */
  readonly semantic?: SemanticSource;
}

/**
 * The strong overlaps of a draft and, for the best one, the proposed patch: what the UI needs to
 * offer "Patch `x` instead". `offer` is absent when nothing overlaps or x cannot be read.
 */
export async function skillOverlapOffer(draftText: string, ctx: OverlapOfferContext): Promise<{ overlaps: SkillOverlap[]; offer?: OverlapOffer; error?: string }> {
  const parsed = parseSkillText(draftText);
  const name = typeof parsed.frontmatter['name'] === 'string' ? parsed.frontmatter['name'] : '';
  const description = typeof parsed.frontmatter['description'] === 'string' ? parsed.frontmatter['description'] : '';
  const near = ctx.semantic ? await ctx.semantic.nearest(`${name}\n${description}`, { top: SEMANTIC_DEPTH }).catch(() => undefined) : undefined;
  const overlaps = findSkillOverlaps({ name, description }, ctx.records, near ? { ...ctx, extraCandidates: near.map((hit) => hit.record) } : ctx);
  const best = overlaps[0];
  if (!best) return { overlaps };
  let existing: string;
  try {
    existing = await ctx.readText(best.record.file);
  } catch (error) {
    return { overlaps, error: `the SKILL.md of "${best.record.name}" could not be read (${(error as Error).message}); it cannot be patched from here` };
  }
  const skillName = qualifiedName(best.record);
  const proposal = proposeSkillPatch(existing, draftText, skillName);
  const lint = async (text: string) =>
    (await lintSkill(parseSkillText(text), { folderName: best.record.folderName, exists: () => true })).filter((f) => f.severity === 'error');
  const before = new Set((await lint(existing)).map((f) => `${f.code} ${f.message}`));
  const newErrors = proposal.added.length > 0 ? (await lint(proposal.text)).filter((f) => !before.has(`${f.code} ${f.message}`)) : [];
  const canPatch = best.record.root.writeTarget;
  return {
    overlaps,
    offer: {
      ...proposal,
      overlap: best,
      skillName,
      canPatch,
      ...(canPatch ? {} : { reason: `"${best.record.name}" lives in ${best.record.root.label}, which Skillwright only reads; save the draft as a new skill, or copy that skill into .agents/skills first` }),
      newErrors,
    },
  };
}
