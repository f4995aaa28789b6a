import type { SqlJsDatabase, SqlJsStatement, SqlValue } from './sqlJsTypes';

/**
 * Turning a person's (or a model's) words into safe FTS4 MATCH expressions, and ranking with BM25
 * from matchinfo. No user text ever reaches MATCH syntax: each word is split by the index's own
 * tokenizer and the tokens are quoted as a phrase, so quotes, hyphens, colons, AND/OR/NOT/NEAR,
 * `*`, `^` and parentheses are plain words or separators. See docs/sessions.md for the design.
 */

/** docid = session number × 2^20 + message ordinal: a session is one contiguous docid range. */
export const SESSION_DOCIDS = 2 ** 20;
export const MAX_QUERY_CHARS = 2_000;
export const MAX_TERMS = 12;
/** Per MATCH, only the newest this many matching messages are scored (common words stay cheap). */
export const CANDIDATE_CAP = 1_000;
/**
 * A token in more than this share of messages (and more than COMMON_MIN of them) is "common": it
 * is left out of the AND and out of phrases. It barely changes a ranking, and FTS4 reads a
 * token's whole doclist for every query with more than one token, which is what made naive
 * queries with such words take 100 ms and more.
 */
const COMMON_SHARE = 0.2;
const COMMON_MIN = 5_000;
/** Token frequencies are counted exactly in small indexes and estimated from the newest messages in big ones. */
const SAMPLE_DOCS = 5_000;
const K1 = 1.2;
const B = 0.75;

/** One word of the query, or one "quoted phrase": the index's tokens for it. */
export interface QueryTerm {
  readonly tokens: readonly string[];
  readonly text: string;
}

export interface RankedHit {
  readonly docid: number;
  readonly score: number;
}

export interface SessionGroup {
  readonly sessionNumber: number;
  readonly score: number;
  /** Best first, at most `hitsPerSession`. */
  readonly hits: readonly RankedHit[];
  /** Matching messages of this session among the scored candidates. */
  readonly matches: number;
}

export interface RankOutcome {
  /** `all`: messages with every word; `any`: no message had them all, so any word counts. */
  readonly mode: 'all' | 'any' | 'none';
  readonly terms: readonly QueryTerm[];
  /** Words found in no message, or in so many that they were not required. */
  readonly ignored: readonly string[];
  readonly groups: readonly SessionGroup[];
  /** True when a word matched more than CANDIDATE_CAP messages and only the newest were ranked. */
  readonly capped: boolean;
  readonly truncatedQuery: boolean;
}

export interface RankScope {
  /** Only docids in this range (one session). */
  readonly within?: readonly [number, number];
  /** Never docids in this range (the current session). */
  readonly excluding?: readonly [number, number];
  readonly limit: number;
  readonly hitsPerSession?: number;
}

/** What the engine needs to know about the index it queries. */
export interface IndexShape {
  /** Messages in the index. */
  documents(): number;
  /** The lowest docid of the newest sessions holding about `docs` messages (a sample for estimates). */
  recent(docs: number): { readonly low: number; readonly docs: number };
}

/** A term as it goes into MATCH: runs of uncommon tokens, joined by NEAR where common ones were. */
interface PlannedTerm {
  readonly term: QueryTerm;
  readonly expression: string;
  /** Phrases the expression adds to matchinfo. */
  readonly phrases: number;
  readonly idf: number;
}

/** Words of a query: whitespace-separated, with "double-quoted text" kept together as one phrase. */
export function splitQueryWords(query: string): { words: string[]; truncated: boolean } {
  const text = String(query ?? '');
  const truncated = text.length > MAX_QUERY_CHARS;
  const clean = text.slice(0, MAX_QUERY_CHARS).replace(/[\u0000-\u001f\u007f]/g, ' ');
  const words: string[] = [];
  for (const match of clean.matchAll(/"([^"]*)"|(\S+)/g)) {
    const word = (match[1] ?? match[2] ?? '').trim();
    if (word) words.push(word);
  }
  return { words, truncated };
}

/** Tokens as one MATCH phrase: they come from the tokenizer, so they never hold a double quote. */
export function phraseExpression(tokens: readonly string[]): string {
  return `"${tokens.join(' ')}"`;
}

/**
 * A term without its common tokens: the remaining runs as phrases, with NEAR/n standing for the n
 * tokens left out between them ("read the file" → "read" NEAR/1 "file").
 */
export function termExpression(tokens: readonly string[], isCommon: (token: string) => boolean): { expression: string; phrases: number } | undefined {
  const parts: string[] = [];
  let run: string[] = [];
  let gap = 0;
  let phrases = 0;
  const close = (): void => {
    if (run.length === 0) return;
    if (parts.length > 0) parts.push(`NEAR/${gap}`);
    parts.push(phraseExpression(run));
    phrases++;
    run = [];
    gap = 0;
  };
  for (const token of tokens) {
    if (isCommon(token)) {
      if (run.length > 0) close();
      if (phrases > 0) gap++;
    } else run.push(token);
  }
  close();
  return phrases > 0 ? { expression: parts.join(' '), phrases } : undefined;
}

/** BM25 of each phrase for one row, from a matchinfo 'pcnaly' blob (column 0 is the text). */
export function bm25FromMatchinfo(blob: Uint8Array, idf: readonly number[], out: Float64Array): number {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const u32 = (index: number): number => view.getUint32(index * 4, true);
  const phrases = u32(0);
  const columns = u32(1);
  const avg = Math.max(1, u32(3));
  const length = u32(3 + columns);
  const norm = K1 * (1 - B + (B * length) / avg);
  const hitsAt = 3 + 2 * columns;
  let total = 0;
  for (let p = 0; p < phrases; p++) {
    const tf = u32(hitsAt + p * columns);
    const score = tf === 0 ? 0 : ((idf[p] ?? 0) * tf * (K1 + 1)) / (tf + norm);
    out[p] = score;
    total += score;
  }
  return total;
}

export function idfOf(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/** Runs ranked queries against the session index's FTS4 table. Owned by one SessionIndexDb. */
export class SessionQueryEngine {
  private readonly dfCache = new Map<string, { df: number; docs: number }>();
  private readonly tokenizeStatement: SqlJsStatement;
  private readonly countAll: SqlJsStatement;
  private readonly countRecent: SqlJsStatement;
  private readonly candidateStatement: SqlJsStatement;

  constructor(
    db: SqlJsDatabase,
    private readonly shape: IndexShape,
  ) {
    db.run(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens USING fts3tokenize(unicode61, "remove_diacritics=2")`);
    this.tokenizeStatement = db.prepare('SELECT token FROM temp.query_tokens WHERE input = ?');
    this.countAll = db.prepare('SELECT count(*) FROM message_text WHERE message_text MATCH ?');
    this.countRecent = db.prepare('SELECT count(*) FROM message_text WHERE message_text MATCH ? AND docid >= ?');
    this.candidateStatement = db.prepare(
      `SELECT docid, matchinfo(message_text, 'pcnaly') FROM message_text
       WHERE message_text MATCH ?1 AND docid BETWEEN ?2 AND ?3 AND NOT (docid BETWEEN ?4 AND ?5)
       ORDER BY docid DESC LIMIT ?6`,
    );
  }

  /** Forget token frequencies, e.g. after sessions were deleted. */
  invalidate(): void {
    this.dfCache.clear();
  }

  /** The index tokenizer's tokens for a piece of text, so query and index always agree. */
  tokenize(text: string): string[] {
    const tokens: string[] = [];
    this.tokenizeStatement.bind([text]);
    try {
      while (this.tokenizeStatement.step()) tokens.push(String(this.tokenizeStatement.get()[0]));
    } finally {
      this.tokenizeStatement.reset();
    }
    return tokens;
  }

  parse(query: string): { terms: QueryTerm[]; truncated: boolean } {
    const { words, truncated } = splitQueryWords(query);
    const seen = new Set<string>();
    const terms: QueryTerm[] = [];
    for (const word of words) {
      const tokens = this.tokenize(word);
      const text = tokens.join(' ');
      if (!text || seen.has(text)) continue;
      seen.add(text);
      terms.push({ tokens, text });
      if (terms.length === MAX_TERMS) return { terms, truncated: true };
    }
    return { terms, truncated };
  }

  /**
   * Messages holding the token: exact in small indexes and for rare tokens, else estimated from its
   * share of the newest messages (one cheap read instead of the whole doclist). Cached until the
   * index grows or shrinks by 2%.
   */
  tokenFrequency(token: string): number {
    const docs = this.shape.documents();
    const cached = this.dfCache.get(token);
    if (cached && Math.abs(docs - cached.docs) <= Math.max(50, docs * 0.02)) return cached.df;
    const expression = phraseExpression([token]);
    let df: number;
    if (docs <= SAMPLE_DOCS * 2) {
      df = count(this.countAll, [expression]);
    } else {
      const sample = this.shape.recent(SAMPLE_DOCS);
      const share = count(this.countRecent, [expression, sample.low]) / Math.max(1, sample.docs);
      df = share < COMMON_SHARE / 4 ? count(this.countAll, [expression]) : Math.min(docs, Math.round(share * docs));
    }
    if (this.dfCache.size > 5_000) this.dfCache.clear();
    this.dfCache.set(token, { df, docs });
    return df;
  }

  rank(query: string, scope: RankScope): RankOutcome {
    const { terms, truncated } = this.parse(query);
    const base = { terms, truncatedQuery: truncated, groups: [], capped: false };
    if (terms.length === 0) return { ...base, mode: 'none', ignored: [] };
    const { required, ignored } = this.plan(terms);
    if (required.length === 0) return { ...base, mode: 'none', ignored };

    const all = this.candidates(required, scope);
    if (all.rows.length > 0 || required.length === 1) {
      return { ...base, mode: 'all', ignored, capped: all.capped, groups: group(all.rows, required.length, scope) };
    }
    // No message has every word: score each word on its own and add up (a session covering more words ranks higher).
    const merged = new Map<number, Float64Array>();
    let capped = false;
    required.forEach((term, t) => {
      const one = this.candidates([term], scope);
      capped ||= one.capped;
      for (const row of one.rows) {
        let scores = merged.get(row.docid);
        if (!scores) merged.set(row.docid, (scores = new Float64Array(required.length)));
        scores[t] = row.scores[0] as number;
      }
    });
    const rows = [...merged].map(([docid, scores]) => ({ docid, scores }));
    return { ...base, mode: 'any', ignored, capped, groups: group(rows, required.length, scope) };
  }

  /** Which terms must match and how: absent terms and all-common terms are left out (and reported). */
  private plan(terms: readonly QueryTerm[]): { required: PlannedTerm[]; ignored: string[] } {
    const docs = Math.max(1, this.shape.documents());
    const commonAbove = Math.max(docs * COMMON_SHARE, COMMON_MIN);
    const required: PlannedTerm[] = [];
    const ignored: string[] = [];
    const common: { term: QueryTerm; df: number }[] = [];
    for (const term of terms) {
      const dfs = new Map(term.tokens.map((token) => [token, this.tokenFrequency(token)]));
      const values = [...dfs.values()];
      if (values.some((df) => df === 0)) {
        ignored.push(term.text);
        continue;
      }
      const isCommon = (token: string): boolean => (dfs.get(token) ?? 0) > commonAbove;
      const built = termExpression(term.tokens, isCommon);
      if (!built) {
        common.push({ term, df: Math.min(...values) });
        continue;
      }
      const rarest = Math.min(...term.tokens.filter((token) => !isCommon(token)).map((token) => dfs.get(token) ?? 0));
      required.push({ term, expression: built.expression, phrases: built.phrases, idf: idfOf(docs, rarest) });
    }
    common.sort((a, b) => a.df - b.df);
    const fallback = required.length === 0 ? common.shift() : undefined;
    // Only common words: the least common one still finds something (among the newest matches).
    if (fallback) required.push({ term: fallback.term, expression: phraseExpression(fallback.term.tokens), phrases: 1, idf: idfOf(docs, fallback.df) });
    ignored.push(...common.map((entry) => entry.term.text));
    return { required, ignored };
  }

  /** The newest matches (at most CANDIDATE_CAP) with one BM25 score per term. */
  private candidates(terms: readonly PlannedTerm[], scope: RankScope): { rows: { docid: number; scores: Float64Array }[]; capped: boolean } {
    const [low, high] = scope.within ?? [0, Number.MAX_SAFE_INTEGER];
    const [skipLow, skipHigh] = scope.excluding ?? [-1, -1];
    const idf = terms.flatMap((term) => Array<number>(term.phrases).fill(term.idf));
    const phraseScores = new Float64Array(idf.length);
    const statement = this.candidateStatement;
    statement.bind([terms.map((term) => term.expression).join(' '), low, high, skipLow, skipHigh, CANDIDATE_CAP + 1]);
    const rows: { docid: number; scores: Float64Array }[] = [];
    try {
      while (statement.step()) {
        const [docid, blob] = statement.get();
        if (rows.length === CANDIDATE_CAP) return { rows, capped: true };
        bm25FromMatchinfo(blob as Uint8Array, idf, phraseScores);
        const scores = new Float64Array(terms.length);
        let phrase = 0;
        terms.forEach((term, t) => {
          let sum = 0;
          for (let i = 0; i < term.phrases; i++) sum += phraseScores[phrase++] as number;
          scores[t] = sum / term.phrases;
        });
        rows.push({ docid: Number(docid), scores });
      }
    } finally {
      statement.reset();
    }
    return { rows, capped: false };
  }
}

function count(statement: SqlJsStatement, params: SqlValue[]): number {
  statement.bind(params);
  try {
    return statement.step() ? Number(statement.get()[0]) : 0;
  } finally {
    statement.reset();
  }
}

const total = (scores: Float64Array): number => scores.reduce((sum, value) => sum + value, 0);

/**
 * Groups scored messages by session. A session scores the best of each word over its messages,
 * summed: one message with every word and several messages sharing them both count.
 */
function group(rows: readonly { docid: number; scores: Float64Array }[], termCount: number, scope: RankScope): SessionGroup[] {
  const sessions = new Map<number, { best: Float64Array; hits: RankedHit[] }>();
  for (const row of rows) {
    const number = Math.floor(row.docid / SESSION_DOCIDS);
    let entry = sessions.get(number);
    if (!entry) sessions.set(number, (entry = { best: new Float64Array(termCount), hits: [] }));
    for (let p = 0; p < termCount; p++) entry.best[p] = Math.max(entry.best[p] as number, row.scores[p] as number);
    entry.hits.push({ docid: row.docid, score: total(row.scores) });
  }
  const byScore = (a: { score: number; docid: number }, b: { score: number; docid: number }): number => b.score - a.score || b.docid - a.docid;
  const ranked = [...sessions].map(([sessionNumber, entry]) => {
    const hits = entry.hits.sort(byScore);
    return { group: { sessionNumber, score: total(entry.best), hits: hits.slice(0, scope.hitsPerSession ?? 3), matches: hits.length }, score: total(entry.best), docid: hits[0]?.docid ?? 0 };
  });
  return ranked
    .sort(byScore)
    .slice(0, scope.limit)
    .map((entry) => entry.group);
}

/** Case- and accent-insensitive copy of the text with the same length, for finding words. */
function fold(text: string): string {
  let out = '';
  for (const char of text) {
    const base = char.normalize('NFD').charAt(0).toLowerCase();
    out += base.length === char.length ? base : char.length === 2 ? `${base} `.slice(0, 2) : base.charAt(0);
  }
  return out;
}

/** About `width` characters of `text` around the first query term, cut at word boundaries. */
export function snippetAround(text: string, terms: readonly string[], width = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  const folded = fold(flat);
  let at = -1;
  for (const term of terms) {
    const index = folded.indexOf(term);
    if (index >= 0 && (at < 0 || index < at)) at = index;
  }
  let start = Math.max(0, (at < 0 ? 0 : at) - Math.floor(width / 3));
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    start = space >= 0 && space < start + 20 ? space + 1 : start;
  }
  let end = Math.min(flat.length, start + width);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    end = space > start + width / 2 ? space : end;
  }
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}
