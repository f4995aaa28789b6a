import { stemmer } from 'stemmer';

/**
 * English function words and request filler. They carry no topic, and long task-style queries
 * ("write me a script that …") are mostly made of them; BM25's IDF alone does not quiet them enough
 * because skill descriptions are short.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'also', 'am', 'an', 'and', 'any', 'are', 'as',
  'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can', 'could',
  'did', 'do', 'does', 'doing', 'done', 'down', 'during', 'each', 'either', 'etc', 'few', 'for', 'from',
  'further', 'get', 'gets', 'got', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'him', 'his',
  'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'let', 'lets', 'me', 'might', 'more',
  'most', 'much', 'must', 'my', 'myself', 'need', 'needs', 'no', 'nor', 'not', 'now', 'of', 'off', 'on',
  'once', 'one', 'only', 'or', 'other', 'our', 'ours', 'out', 'over', 'own', 'please', 'same', 'shall', 'she',
  'should', 'so', 'some', 'such', 'than', 'that', 'the', 'their', 'theirs', 'them', 'then', 'there', 'these',
  'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up', 'us', 'very', 'want', 'wants',
  'was', 'we', 'were', 'what', 'when', 'where', 'whether', 'which', 'while', 'who', 'whom', 'why', 'will',
  'with', 'within', 'would', 'yet', 'you', 'your', 'yours', 'yourself', 'use', 'used', 'uses', 'using',
  // Contraction remainders after the apostrophe split ("don't" → "don", "t").
  's', 't', 'd', 'll', 're', 've', 'm', 'don', 'doesn', 'isn', 'aren', 'won', 'didn',
]);

/** Longer tokens are hashes, base64 or minified code: noise in an index of skill metadata. */
const MAX_TERM_LENGTH = 40;

/** A word and the words glued to it by `-`, `_`, `.` or `/` without spaces: `p5.js`, `publish-to-pages`. */
const COMPOUND = /[\p{L}\p{N}]+(?:[-_./][\p{L}\p{N}]+)*/gu;
const PART = /[\p{L}\p{N}]+/gu;
// The same for plain ASCII text, which is most text and much faster without Unicode classes.
const ASCII_COMPOUND = /[a-z0-9]+(?:[-_./][a-z0-9]+)*/g;
const ASCII_PART = /[a-z0-9]+/g;
const SEPARATOR = /[-_./]/;
const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING_MARKS = /\p{M}+/gu;
const LETTERS = /^[a-z]+$/;

const stemCache = new Map<string, string>();

/** Porter stem of one lower-case word; digits and short words are left alone. */
export function stemWord(word: string): string {
  let stem = stemCache.get(word);
  if (stem === undefined) {
    stem = word.length < 3 || !LETTERS.test(word) ? word : stemmer(word);
    // The cache only saves work; bound it so a stream of unique words cannot grow it forever.
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(word, stem);
  }
  return stem;
}

function addWord(word: string, terms: string[]): void {
  if (word.length <= MAX_TERM_LENGTH && !STOP_WORDS.has(word)) terms.push(stemWord(word));
}

/**
 * The index and query terms of a text: every word lower-cased, accent-folded, stop words dropped and
 * Porter-stemmed; a compound (`publish-to-pages`, `p5.js`) also yields its parts glued together
 * (`publishtopages`, `p5js`), so `Next.js` finds a skill named `nextjs` and a full skill name is a rare,
 * strongly scoring term. The same function serves indexing and querying, so both sides agree.
 */
export function searchTerms(text: string): string[] {
  let folded = text.toLowerCase();
  const ascii = !NON_ASCII.test(folded);
  // Accents are folded so "café" finds "cafe".
  if (!ascii) folded = folded.normalize('NFKD').replace(COMBINING_MARKS, '');
  const terms: string[] = [];
  for (const compound of folded.match(ascii ? ASCII_COMPOUND : COMPOUND) ?? []) {
    if (!SEPARATOR.test(compound)) {
      addWord(compound, terms);
      continue;
    }
    const parts = compound.match(ascii ? ASCII_PART : PART) ?? [];
    for (const part of parts) addWord(part, terms);
    // Longer chains are paths and URLs, whose glued form would only add noise.
    if (parts.length <= 4) {
      const glued = parts.join('');
      if (glued.length <= MAX_TERM_LENGTH) terms.push(glued);
    }
  }
  return terms;
}

/** How much of a long query is tokenized at a time; cuts fall on white space, which no term spans. */
const QUERY_CHUNK_CHARS = 1000;
const WHITE_SPACE = /\s/g;

/**
 * Distinct query terms in first-seen order, at most `limit` of them. A long text is read a piece at a
 * time and no further than needed, so a pasted document costs little.
 */
export function queryTerms(text: string, limit: number): string[] {
  const seen = new Set<string>();
  for (let start = 0; start < text.length && seen.size < limit; ) {
    WHITE_SPACE.lastIndex = start + QUERY_CHUNK_CHARS;
    const end = start + QUERY_CHUNK_CHARS >= text.length ? text.length : (WHITE_SPACE.exec(text)?.index ?? text.length - 1) + 1;
    for (const term of searchTerms(text.slice(start, end))) {
      if (seen.size >= limit) break;
      seen.add(term);
    }
    start = end;
  }
  return [...seen];
}
