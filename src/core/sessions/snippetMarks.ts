/**
 * Highlight ranges for a search snippet, as [start, end) offsets into the snippet text (UTF-16
 * code units, as JavaScript strings count them). The panel turns them into `<mark>` elements; no
 * markup is ever built from the text.
 *
 * Words are found the way the index found them: unicode61 with `remove_diacritics=2` splits on
 * everything that is not a letter or digit, folds case and drops accents, and does not stem (see
 * docs/sessions.md, Limits). So a word of the snippet is marked when its folded form is one of the
 * query's index tokens: `Café` and `CAFE` both match `cafe`, `tests` does not match `test`.
 */

export type MarkRange = [start: number, end: number];

/** A run of letters and digits (with the combining marks that belong to them): one index token. */
const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{M}\p{Co}]*/gu;
/**
 * What may sit between two marked words for them to show as one mark: one space or one joining
 * character (`memory limit`, `auth-service`, `proxy_read_timeout`), never a sentence break.
 */
const JOINER = /^[ \-_./:]$/;

/** Case- and accent-insensitive form of one token, matching what the index stores. */
export function foldToken(token: string): string {
  return token.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The index tokens of a piece of text, folded (for terms given as words rather than tokens). */
export function tokensOf(text: string): string[] {
  return [...text.matchAll(TOKEN)].map((match) => foldToken(match[0]));
}

/**
 * The ranges of `text` to highlight for the query tokens `terms`, in order and never overlapping;
 * neighbouring marked words separated by one space or joining character are joined into one range.
 * Tokens in `skip` (words the search left out as too common) are not marked unless nothing else is.
 */
export function snippetMarks(text: string, terms: readonly string[], skip: readonly string[] = []): MarkRange[] {
  const wanted = new Set(terms.flatMap(tokensOf));
  const skipped = new Set(skip.flatMap(tokensOf));
  const kept = new Set([...wanted].filter((token) => !skipped.has(token)));
  const marks = rangesOf(text, kept.size > 0 ? kept : wanted);
  const joined: MarkRange[] = [];
  for (const mark of marks) {
    const last = joined[joined.length - 1];
    if (last && JOINER.test(text.slice(last[1], mark[0]))) last[1] = mark[1];
    else joined.push([mark[0], mark[1]]);
  }
  return joined;
}

function rangesOf(text: string, tokens: ReadonlySet<string>): MarkRange[] {
  if (tokens.size === 0 || !text) return [];
  const ranges: MarkRange[] = [];
  for (const match of text.matchAll(TOKEN)) {
    if (tokens.has(foldToken(match[0]))) ranges.push([match.index, match.index + match[0].length]);
  }
  return ranges;
}
