import { Bm25Index, MAX_BM25_QUERY_TERMS } from './bm25Index';
import { queryTerms, searchTerms } from './searchText';
import type { SkillRecord } from './skillTypes';

export interface SkillSearchHit {
  readonly record: SkillRecord;
  /** BM25-based for `search` (unbounded, only comparable within one result list); 0–1 for `similar`. */
  readonly score: number;
  /**
   * `search`: the query terms that matched, in query order; `similar`: the terms the draft shares with
   * the record. Both in normalized form (lower-case, stemmed: "deploying" → "deploi"), as searchTerms gives.
   */
  readonly matched: readonly string[];
  /**
   * `search`: the record fields that matched, in the order name, description, tags, useCases,
   * exampleQueries, headings, category; `similar`: `['name']` when the names are equal, else empty.
   */
  readonly fields: readonly string[];
}

export interface SkillSearchOptions {
  /** Most hits to return; default 10. */
  readonly top?: number;
  readonly filter?: (record: SkillRecord) => boolean;
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

type Field = 'name' | 'description' | 'tags' | 'useCases' | 'exampleQueries' | 'headings' | 'category';
const FIELDS: readonly Field[] = ['name', 'description', 'tags', 'useCases', 'exampleQueries', 'headings', 'category'];

/**
 * Field weights. The name and the skill's own trigger phrases (tags, use cases, example queries) are
 * written to be matched; headings are many and generic, so they only break ties. See
 * docs/search-and-catalog.md for how these were measured.
 */
const BOOST: Readonly<Record<Field, number>> = {
  name: 2,
  description: 1.5,
  tags: 1.5,
  useCases: 1,
  exampleQueries: 1,
  headings: 0.3,
  category: 0.5,
};
const BOOSTS: readonly number[] = FIELDS.map((field) => BOOST[field]);

/** Query terms kept from one query: enough for any real question, and a pasted document stays fast. */
const MAX_QUERY_TERMS = MAX_BM25_QUERY_TERMS;
/** Prefix matching only for longer terms: short stems ("test", "app") would match half the index. */
const PREFIX_MIN_LENGTH = 5;
const DEFAULT_TOP = 10;
const DEFAULT_MIN_SIMILARITY = 0.35;

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
    case 'category':
      return record.category;
  }
}

/** The terms of each field of one record (in FIELDS order), tokenized once for search and `similar`. */
interface IndexedSkill {
  readonly file: string;
  readonly terms: readonly (readonly string[])[];
}

function indexedSkill(record: SkillRecord): IndexedSkill {
  return { file: record.file, terms: FIELDS.map((field) => searchTerms(fieldText(record, field))) };
}

function byName(a: SkillRecord, b: SkillRecord): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

function byScoreThenName(a: SkillSearchHit, b: SkillSearchHit): number {
  return b.score - a.score || byName(a.record, b.record);
}

function topCount(top: number | undefined, fallback: number): number {
  if (top === undefined || !Number.isFinite(top)) return fallback;
  return Math.max(0, Math.floor(top));
}

/**
 * Lexical ranking of skills (BM25+ over name, description, tags, use cases, example queries,
 * headings and category, with stemming and per-field weights), updated one record at a time.
 * Records are keyed by `file`.
 */
export class SkillSearch {
  private index = new Bm25Index(FIELDS.length);
  private readonly records = new Map<string, SkillRecord>();
  /** What `similar` compares: the record's own words (name, description, trigger phrases) and its headings. */
  private readonly coreTerms = new TermSets();
  private readonly headingTerms = new TermSets();

  constructor(records: readonly SkillRecord[] = []) {
    this.setAll(records);
  }

  get size(): number {
    return this.records.size;
  }

  /** Replaces the whole content (a full rescan); a later record with the same `file` wins. */
  setAll(records: readonly SkillRecord[]): void {
    this.index = new Bm25Index(FIELDS.length);
    this.records.clear();
    this.coreTerms.clear();
    this.headingTerms.clear();
    const unique = new Map<string, SkillRecord>();
    for (const record of records) unique.set(record.file, record);
    const docs = [...unique.values()].map(indexedSkill);
    this.index.setAll(docs.map((doc) => [doc.file, doc.terms] as const));
    for (const doc of docs) {
      this.records.set(doc.file, unique.get(doc.file) as SkillRecord);
      this.addTerms(doc);
    }
  }

  upsert(record: SkillRecord): void {
    const doc = indexedSkill(record);
    this.index.set(doc.file, doc.terms);
    this.removeTerms(record.file);
    this.records.set(record.file, record);
    this.addTerms(doc);
  }

  /** Removes the record whose SKILL.md is `file`; unknown files are ignored. */
  remove(file: string): void {
    if (!this.records.has(file)) return;
    this.index.delete(file);
    this.records.delete(file);
    this.removeTerms(file);
  }

  search(query: string, options: SkillSearchOptions = {}): SkillSearchHit[] {
    const top = topCount(options.top, DEFAULT_TOP);
    if (top === 0 || typeof query !== 'string') return [];
    const terms = queryTerms(query, MAX_QUERY_TERMS);
    if (terms.length === 0) return [];
    const filter = options.filter;
    const recordOf = (file: string) => this.records.get(file) as SkillRecord;
    const results = this.index.search(terms, {
      boosts: BOOSTS,
      prefix: (term) => term.length >= PREFIX_MIN_LENGTH,
      top,
      accept: filter ? (file) => filter(recordOf(file)) : undefined,
      tieBreak: (a, b) => byName(recordOf(a), recordOf(b)),
    });
    return results.map((result) => ({
      record: recordOf(result.id),
      score: result.score,
      matched: result.terms,
      fields: result.fields.map((f) => FIELDS[f] as Field),
    }));
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
    for (const hit of this.search(`${draft.name}\n${draft.description}`, { top: 50 })) candidates.add(hit.record.file);
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

  private addTerms(doc: IndexedSkill): void {
    const core: string[] = [];
    const headings: string[] = [];
    FIELDS.forEach((field, f) => {
      const terms = doc.terms[f] ?? [];
      if (field === 'headings') headings.push(...terms);
      else if (field !== 'category') core.push(...terms);
    });
    this.coreTerms.set(doc.file, core);
    this.headingTerms.set(doc.file, headings);
  }

  private removeTerms(file: string): void {
    this.coreTerms.delete(file);
    this.headingTerms.delete(file);
  }
}

/** Distinct terms per record and how many records hold each one (the IDF of `similar`). */
class TermSets {
  private readonly sets = new Map<string, ReadonlySet<string>>();
  private readonly docFreq = new Map<string, number>();

  clear(): void {
    this.sets.clear();
    this.docFreq.clear();
  }

  set(file: string, terms: readonly string[]): void {
    this.delete(file);
    const set = new Set(terms);
    this.sets.set(file, set);
    for (const term of set) this.docFreq.set(term, (this.docFreq.get(term) ?? 0) + 1);
  }

  delete(file: string): void {
    const set = this.sets.get(file);
    if (!set) return;
    for (const term of set) {
      const count = (this.docFreq.get(term) ?? 1) - 1;
      if (count > 0) this.docFreq.set(term, count);
      else this.docFreq.delete(term);
    }
    this.sets.delete(file);
  }

  /** Cosine of the IDF-weighted binary vectors of `terms` and the record's set, with the shared terms. */
  cosine(terms: ReadonlySet<string>, file: string): { score: number; shared: string[] } {
    const other = this.sets.get(file);
    if (!other || terms.size === 0 || other.size === 0) return { score: 0, shared: [] };
    const shared: string[] = [];
    let dot = 0;
    for (const term of terms) {
      if (!other.has(term)) continue;
      shared.push(term);
      dot += this.idf(term) ** 2;
    }
    return { score: dot / (this.norm(terms) * this.norm(other)), shared };
  }

  private idf(term: string): number {
    return Math.log(1 + (this.sets.size + 1) / ((this.docFreq.get(term) ?? 0) + 1));
  }

  private norm(terms: ReadonlySet<string>): number {
    let sum = 0;
    for (const term of terms) sum += this.idf(term) ** 2;
    return Math.sqrt(sum);
  }
}

/** Markdown heading text of a body: lines starting with `#`, outside fenced code. */
function headingLines(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && line.startsWith('#')) out.push(line.replace(/^#+\s*/, ''));
  }
  return out;
}
