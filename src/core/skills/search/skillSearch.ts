import MiniSearch from 'minisearch';
import type { SearchOptions, SearchResult } from 'minisearch';
import { queryTerms, searchTerms } from './searchText';
import { synonymExpansions } from './synonyms';
import { TermSets, headingLines } from './termSets';
import { MAX_PRIOR, clampPrior } from './usagePrior';
import type { SkillRecord } from '../model/skillTypes';

export interface SkillSearchHit {
  readonly record: SkillRecord;
  /** BM25-based for `search` (unbounded, only comparable within one result list); 0–1 for `similar`. */
  readonly score: number;
  /**
   * `search`: the query terms that matched, in query order, then the synonyms of them that matched
   * (synonyms.ts); `similar`: the terms the draft shares with the record. Both in normalized form (lower-case, stemmed: "deploying" → "deploi"), as searchTerms gives.
   */
  readonly matched: readonly string[];
  /**
   * `search`: the record fields that matched, in the order name, description, tags, useCases,
   * exampleQueries, headings, about, category; `similar`: `['name']` when the names are equal, else empty.
   */
  readonly fields: readonly string[];
  /**
   * The lexical score before the usage prior, when one is set (`score` is then this times the
   * prior's multiplier, 0.98–1.02); absent without a prior, where `score` is the lexical score.
   */
  readonly relevance?: number;
}

/**
 * A record's usage prior: a multiplier of its lexical score (see usagePrior.ts). Whatever it
 * returns is held to [0.98, 1.02], so it can only reorder hits whose scores are within ~4 %.
 */
export type SearchPrior = (record: SkillRecord) => number;

export interface SkillSearchOptions {
  /** Most hits to return; default 10. */
  readonly top?: number;
  readonly filter?: (record: SkillRecord) => boolean;
}

export interface SuggestOptions extends SkillSearchOptions {
  /** Least score for a suggestion (same scale as `search`); default 2. Below it a hit is noise. */
  readonly minScore?: number;
}

export interface SimilarOptions {
  /** Most hits to return; default 5. */
  readonly top?: number;
  /** Least similarity (0–1) for a hit; default 0.35 (see docs/search-and-catalog.md). */
  readonly minScore?: number;
}

export interface SkillDraft {
  readonly name: string;
  readonly description: string;
  readonly body?: string;
}

type Field = 'name' | 'description' | 'tags' | 'useCases' | 'exampleQueries' | 'headings' | 'about' | 'category';
const FIELDS: readonly Field[] = ['name', 'description', 'tags', 'useCases', 'exampleQueries', 'headings', 'about', 'category'];

/**
 * Field weights. The name and the skill's own trigger phrases (tags, use cases, example queries) are
 * written to be matched; headings are many and generic, so they only break ties. `about` (the body's
 * opening paragraph and "When to use" section) is prose in the skill's own words for when it
 * applies: the words a request uses that the frontmatter does not, at a low weight. See
 * docs/search-and-catalog.md for how these were measured.
 */
const BOOST: Readonly<Record<Field, number>> = {
  name: 2,
  description: 1.5,
  tags: 1.5,
  useCases: 1,
  exampleQueries: 1,
  headings: 0.3,
  about: 0.4,
  category: 0.5,
};

/** Distinct terms read from one query, about 4,000 characters of prose; the rest is not read. */
const MAX_QUERY_TERMS = 256;
/**
 * Terms searched for, at most: more than any question has. minisearch's time grows with the records
 * each term occurs in, so of a longer text (a pasted document) only the rarest are searched.
 */
const MAX_SEARCHED_TERMS = 24;
/** Prefix matching only for longer terms: short stems ("test", "app") would match half the index. */
const PREFIX_MIN_LENGTH = 5;
const DEFAULT_TOP = 10;
const DEFAULT_MIN_SIMILARITY = 0.35;
const DEFAULT_SUGGESTIONS = 3;
const DEFAULT_MIN_SUGGESTION_SCORE = 2;
/**
 * Records a suggestion search may score, summed over its terms' document frequencies. minisearch
 * scores every record a term occurs in (about a microsecond each at 10,000 skills), so one message of
 * words that half the index holds costs as much as a full search, on every turn. Such words cannot
 * pick three skills out of thousands anyway: the rarest terms are searched, common ones only while
 * they fit. The whole corpus (612 skills) never reaches the budget on the dev queries, so there
 * suggestions equal the top of `search` (docs/search-and-catalog.md).
 */
const SUGGESTION_POSTING_BUDGET = 2_000;
/**
 * The weight of a synonym (synonyms.ts) against the query's own word: a record that says "image" is
 * a good match for "photo", but one that says "photo" is a better one.
 */
export const SYNONYM_WEIGHT = 0.7;
/** Synonyms searched for at most, over the whole query. */
const MAX_SYNONYMS = 24;
/**
 * Records a query's synonyms may add to a search, summed over their document frequencies. A synonym
 * thousands of skills hold ("create" for "make") barely tells them apart and costs the most; on the
 * corpus every synonym fits, at 10,000 skills the common ones are left out.
 */
const SYNONYM_POSTING_BUDGET = 2_000;

function fieldText(record: SkillRecord, field: Field): string {
  switch (field) {
    case 'name':
      return record.folderName && record.folderName !== record.name ? `${record.name} ${record.folderName}` : record.name;
    case 'description':
      return record.description;
    case 'tags':
      return record.tags.join('\n');
    case 'useCases':
      return record.useCases.join('\n');
    case 'exampleQueries':
      return record.exampleQueries.join('\n');
    case 'headings':
      return record.headings.join('\n');
    case 'about':
      return record.about ?? '';
    case 'category':
      return record.category;
  }
}

/** What minisearch holds per record: the terms of each field, tokenized once (also for `similar`). */
interface IndexedSkill {
  readonly file: string;
  readonly terms: Readonly<Record<Field, readonly string[]>>;
}

function indexedSkill(record: SkillRecord): IndexedSkill {
  const terms = {} as Record<Field, readonly string[]>;
  for (const field of FIELDS) terms[field] = searchTerms(fieldText(record, field));
  return { file: record.file, terms };
}

/** Each distinct term of a record once, whatever its fields. */
function distinctTerms(doc: IndexedSkill): Set<string> {
  return new Set(Object.values(doc.terms).flat());
}

/**
 * How every search runs. The ranking was tuned with these values (docs/search-and-catalog.md), so
 * the library defaults it relies on are spelled out rather than inherited.
 */
const SEARCH_OPTIONS: SearchOptions = {
  boost: { ...BOOST },
  combineWith: 'OR',
  prefix: (term) => term.length >= PREFIX_MIN_LENGTH,
  fuzzy: false,
  weights: { prefix: 0.375, fuzzy: 0.45 },
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
};

/**
 * Suggestions: exact terms only. The posting budget counts the records that hold each exact term; a
 * prefix would reach records the budget never saw (and it changed no dev-set suggestion).
 */
const SUGGEST_SEARCH_OPTIONS: SearchOptions = { prefix: false };

function newIndex(): MiniSearch<IndexedSkill> {
  return new MiniSearch<IndexedSkill>({
    idField: 'file',
    fields: [...FIELDS],
    // Terms never contain spaces, so joining and splitting on one restores them exactly; the query
    // is normalized by searchTerms the same way before it reaches minisearch.
    extractField: (doc, field) => (field === 'file' ? doc.file : doc.terms[field as Field].join(' ')),
    tokenize: (text) => (text ? text.split(' ') : []),
    processTerm: (term) => term,
    searchOptions: SEARCH_OPTIONS,
  });
}

function byName(a: SkillRecord, b: SkillRecord): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

function byScoreThenName(a: SkillSearchHit, b: SkillSearchHit): number {
  return b.score - a.score || byName(a.record, b.record);
}

/**
 * minisearch's score divided by its count of matched terms and multiplied by the count of distinct
 * query terms they stand for: "photo" and its synonym "image" both matching count as one word.
 */
function corrected(result: SearchResult, synonyms: ReadonlyMap<string, string>): number {
  const matched = result.queryTerms;
  let fromSynonyms = 0;
  for (const term of matched) if (synonyms.has(term)) fromSynonyms++;
  if (fromSynonyms === 0) return result.score;
  const sources = new Set(matched.map((term) => synonyms.get(term) ?? term));
  return (result.score / matched.length) * sources.size;
}

/** The `top`-th best score of `hits` (at least `top` of them). */
function leastOfBest(hits: readonly SkillSearchHit[], top: number): number {
  if (hits.length === top) {
    let least = Number.POSITIVE_INFINITY;
    for (const hit of hits) if (hit.score < least) least = hit.score;
    return least;
  }
  return hits.map((hit) => hit.score).sort((a, b) => b - a)[top - 1] ?? Number.NEGATIVE_INFINITY;
}

/** The record fields a result matched in, in FIELDS order. */
function matchedFields(result: SearchResult): Field[] {
  const matched = new Set(Object.values(result.match).flat());
  return FIELDS.filter((field) => matched.has(field));
}

function topCount(top: number | undefined, fallback: number): number {
  if (top === undefined || !Number.isFinite(top)) return fallback;
  return Math.max(0, Math.floor(top));
}

/**
 * Lexical ranking of skills (BM25+ over name, description, tags, use cases, example queries,
 * headings, the body's about text and category, with stemming, per-field weights and common synonyms at a lower weight),
 * updated one record at a time.
 * Records are keyed by `file`.
 */
export class SkillSearch {
  private index = newIndex();
  private readonly records = new Map<string, SkillRecord>();
  /**
   * What was indexed per file. minisearch's `remove` needs it; its cheaper `discard` leaves the
   * document in the posting lists until a vacuum, and until then other documents' scores are off.
   */
  private readonly indexed = new Map<string, IndexedSkill>();
  /** What `similar` compares: the record's own words (name, description, trigger phrases) and its headings. */
  private readonly coreTerms = new TermSets();
  private readonly headingTerms = new TermSets();
  /** In how many records each term occurs, in any field: which terms of a long query are rarest. */
  private readonly documentFrequency = new Map<string, number>();
  private prior: SearchPrior | undefined;
  private readonly synonyms: boolean;

  /** `synonyms: false` searches the query's own words only (the retrieval bench compares the two). */
  constructor(records: readonly SkillRecord[] = [], options: { readonly synonyms?: boolean } = {}) {
    this.synonyms = options.synonyms ?? true;
    this.setAll(records);
  }

  get size(): number {
    return this.records.size;
  }

  /** Sets (or, with undefined, removes) the usage prior of `search` and `suggest`; `similar` never uses it. */
  setPrior(prior: SearchPrior | undefined): void {
    this.prior = prior;
  }

  /** Replaces the whole content (a full rescan); a later record with the same `file` wins. */
  setAll(records: readonly SkillRecord[]): void {
    this.index = newIndex();
    this.records.clear();
    this.indexed.clear();
    this.coreTerms.clear();
    this.headingTerms.clear();
    this.documentFrequency.clear();
    const unique = new Map<string, SkillRecord>();
    for (const record of records) unique.set(record.file, record);
    const docs = [...unique.values()].map(indexedSkill);
    this.index.addAll(docs);
    for (const doc of docs) this.keep(unique.get(doc.file) as SkillRecord, doc);
  }

  /**
   * Makes the content equal `records` by upserting what differs (records are immutable, so a changed
   * skill is a different object) and removing what is gone: the changes that arrived while `build`
   * ran. Returns how many records it touched.
   */
  reconcile(records: readonly SkillRecord[]): number {
    const wanted = new Map<string, SkillRecord>();
    for (const record of records) wanted.set(record.file, record);
    let touched = 0;
    for (const file of [...this.records.keys()]) {
      if (!wanted.has(file)) {
        this.remove(file);
        touched++;
      }
    }
    for (const [file, record] of wanted) {
      if (this.records.get(file) === record) continue;
      this.upsert(record);
      touched++;
    }
    return touched;
  }

  upsert(record: SkillRecord): void {
    const doc = indexedSkill(record);
    this.remove(record.file);
    this.index.add(doc);
    this.keep(record, doc);
  }

  /** Removes the record whose SKILL.md is `file`; unknown files are ignored. */
  remove(file: string): void {
    const doc = this.indexed.get(file);
    if (!doc) return;
    this.index.remove(doc);
    this.forget(doc);
  }

  search(query: string, options: SkillSearchOptions = {}): SkillSearchHit[] {
    return this.searchWith(query, options, this.prior);
  }

  private searchWith(query: string, options: SkillSearchOptions, prior: SearchPrior | undefined): SkillSearchHit[] {
    const top = topCount(options.top, DEFAULT_TOP);
    if (top === 0 || typeof query !== 'string') return [];
    const terms = this.searchedTerms(queryTerms(query, MAX_QUERY_TERMS));
    if (terms.length === 0) return [];
    const synonyms = this.synonymsOf(terms, SYNONYM_POSTING_BUDGET);
    return this.ranked(this.run(terms, synonyms, SEARCH_OPTIONS), top, options.filter, prior, synonyms);
  }

  /**
   * minisearch's results for the query's terms and their synonyms (searched with SYNONYM_WEIGHT),
   * sorted by minisearch's score. That score is the sum over matched terms times how many matched,
   * and a synonym should not count as one more matched word of the query: ranked() corrects it.
   */
  private run(terms: readonly string[], synonyms: ReadonlyMap<string, string>, options: SearchOptions): SearchResult[] {
    if (synonyms.size === 0) return this.index.search(terms.join(' '), options);
    const boostTerm = (term: string) => (synonyms.has(term) ? SYNONYM_WEIGHT : 1);
    return this.index.search([...terms, ...synonyms.keys()].join(' '), { ...options, boostTerm });
  }

  /** Synonym → the query term it stands for, for the terms records hold, their postings within `budget`. */
  private synonymsOf(terms: readonly string[], budget: number): Map<string, string> {
    const out = new Map<string, string>();
    if (!this.synonyms) return out;
    let postings = 0;
    for (const { term, source } of synonymExpansions(terms, MAX_SYNONYMS)) {
      const frequency = this.documentFrequency.get(term) ?? 0;
      if (frequency === 0 || postings + frequency > budget) continue;
      postings += frequency;
      out.set(term, source);
    }
    return out;
  }

  /**
   * The few skills worth suggesting for a chat message, cheaply enough for every turn: the same
   * ranking as `search`, but over the message's rarer terms only (as many as a budget of scored
   * records allows), without prefix matching, and only hits scoring at least `minScore`.
   */
  suggest(message: string, options: SuggestOptions = {}): SkillSearchHit[] {
    const top = topCount(options.top, DEFAULT_SUGGESTIONS);
    if (top === 0 || typeof message !== 'string') return [];
    const { terms, postings } = this.affordableTerms(queryTerms(message, MAX_QUERY_TERMS));
    if (terms.length === 0) return [];
    // Synonyms only with what the budget has left: the message's own words come first.
    const synonyms = this.synonymsOf(terms, Math.min(SYNONYM_POSTING_BUDGET, SUGGESTION_POSTING_BUDGET - postings));
    // The floor applies to the lexical score: the prior can reorder suggestions, never make one.
    const minScore = options.minScore ?? DEFAULT_MIN_SUGGESTION_SCORE;
    return this.ranked(this.run(terms, synonyms, SUGGEST_SEARCH_OPTIONS), top, options.filter, this.prior, synonyms, minScore);
  }

  /**
   * The best `top` of minisearch's results at least `minScore`, by score (with the prior, when
   * given), ties ordered by name. A result that matched synonyms has its score corrected so each
   * query term counts once however many of its synonyms matched; the correction only lowers a score,
   * so minisearch's order still bounds what can follow.
   */
  private ranked(
    results: SearchResult[],
    top: number,
    filter: ((record: SkillRecord) => boolean) | undefined,
    prior: SearchPrior | undefined,
    synonyms: ReadonlyMap<string, string>,
    minScore = Number.NEGATIVE_INFINITY,
  ): SkillSearchHit[] {
    // minisearch scores and sorts every matching document; everything else is done for the few
    // that can be returned: the filter, the prior, the tie-break by name and the matched fields.
    const hits: SkillSearchHit[] = [];
    const lift = prior ? MAX_PRIOR : 1;
    /** Once `top` hits are kept: the least final score among the best `top` of them. */
    let floor = Number.NEGATIVE_INFINITY;
    for (const result of results) {
      // Results come by their uncorrected lexical score, which bounds the corrected one.
      if (result.score < minScore) break;
      if (hits.length >= top && result.score * lift < floor) break;
      const lexical = synonyms.size === 0 ? result.score : corrected(result, synonyms);
      if (lexical < minScore) continue;
      const record = this.records.get(result.id as string) as SkillRecord;
      if (filter && !filter(record)) continue;
      const score = prior ? lexical * clampPrior(prior(record)) : lexical;
      if (hits.length >= top && score < floor) continue;
      const fields = matchedFields(result);
      hits.push(prior ? { record, score, matched: result.queryTerms, fields, relevance: lexical } : { record, score, matched: result.queryTerms, fields });
      if (hits.length >= top) floor = leastOfBest(hits, top);
    }
    return hits.sort(byScoreThenName).slice(0, top);
  }

  /**
   * Skills that cover much the same ground as a draft: cosine similarity of IDF-weighted term sets
   * of name, description and trigger phrases (three quarters) and of headings (one quarter, when the
   * draft has a body with headings); 1 for the same name.
   */
  similar(draft: SkillDraft, options: SimilarOptions = {}): SkillSearchHit[] {
    const top = topCount(options.top, 5);
    const minScore = options.minScore ?? DEFAULT_MIN_SIMILARITY;
    if (top === 0 || !draft || typeof draft.name !== 'string' || typeof draft.description !== 'string') return [];
    const core = new Set(searchTerms(`${draft.name}\n${draft.description}`));
    const headings = new Set(searchTerms(typeof draft.body === 'string' ? headingLines(draft.body).join('\n') : ''));
    const draftName = draft.name.trim().toLowerCase();
    if (core.size === 0 && draftName === '') return [];

    const candidates = new Set<string>();
    // Without the usage prior: overlap is about content, not about how well a skill did.
    for (const hit of this.searchWith(`${draft.name}\n${draft.description}`, { top: 50 }, undefined)) candidates.add(hit.record.file);
    if (draftName) for (const record of this.records.values()) if (record.name.toLowerCase() === draftName) candidates.add(record.file);

    const hits: SkillSearchHit[] = [];
    for (const file of candidates) {
      const record = this.records.get(file) as SkillRecord;
      const byCore = this.coreTerms.cosine(core, file);
      let score = byCore.score;
      if (headings.size > 0 && record.headings.length > 0) score = 0.75 * score + 0.25 * this.headingTerms.cosine(headings, file).score;
      const sameName = draftName !== '' && record.name.toLowerCase() === draftName;
      if (sameName) score = 1;
      if (score < minScore) continue;
      hits.push({ record, score: Math.min(1, score), matched: byCore.shared, fields: sameName ? ['name'] : [] });
    }
    return hits.sort(byScoreThenName).slice(0, top);
  }

  /**
   * The rarest terms whose document frequencies add up to at most the posting budget (terms no
   * record holds cost nothing), no more than a full search would take, in query order.
   */
  private affordableTerms(terms: string[]): { terms: string[]; postings: number } {
    const frequency = (term: string) => this.documentFrequency.get(term) ?? 0;
    const kept = new Set<string>();
    let postings = 0;
    for (const term of [...terms].sort((a, b) => frequency(a) - frequency(b))) {
      if (kept.size >= MAX_SEARCHED_TERMS || postings + frequency(term) > SUGGESTION_POSTING_BUDGET) break;
      postings += frequency(term);
      kept.add(term);
    }
    return { terms: terms.filter((term) => kept.has(term)), postings };
  }

  /** All of a short query's terms; of a longer one, the rarest (unknown terms last), in query order. */
  private searchedTerms(terms: string[]): string[] {
    if (terms.length <= MAX_SEARCHED_TERMS) return terms;
    const rarity = (term: string) => this.documentFrequency.get(term) ?? Number.MAX_SAFE_INTEGER;
    const kept = new Set([...terms].sort((a, b) => rarity(a) - rarity(b)).slice(0, MAX_SEARCHED_TERMS));
    return terms.filter((term) => kept.has(term));
  }

  /** Everything but the index itself: the record, what was indexed, and the terms `similar` and long queries use. */
  private keep(record: SkillRecord, doc: IndexedSkill): void {
    this.records.set(doc.file, record);
    this.indexed.set(doc.file, doc);
    const { name, description, tags, useCases, exampleQueries, headings } = doc.terms;
    this.coreTerms.set(doc.file, [...name, ...description, ...tags, ...useCases, ...exampleQueries]);
    this.headingTerms.set(doc.file, headings);
    for (const term of distinctTerms(doc)) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
  }

  private forget(doc: IndexedSkill): void {
    this.records.delete(doc.file);
    this.indexed.delete(doc.file);
    this.coreTerms.delete(doc.file);
    this.headingTerms.delete(doc.file);
    for (const term of distinctTerms(doc)) {
      const count = (this.documentFrequency.get(term) ?? 1) - 1;
      if (count > 0) this.documentFrequency.set(term, count);
      else this.documentFrequency.delete(term);
    }
  }
}
