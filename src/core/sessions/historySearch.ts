import { clipEnd as clip } from '../text/clip';
import { performance } from 'node:perf_hooks';
import { describeError } from '../base/logger';
import type { SessionIndex, SessionSearchResult } from './sessionIndex';
import { snippetMarks } from './snippetMarks';

/** Sessions a History search shows, and hits per session. */
export const HISTORY_SEARCH_SESSIONS = 20;
export const HISTORY_HITS_PER_SESSION = 3;

/** The History tab's search answer; the same shape as the panel protocol's `history/results`. */
export interface HistorySearchResults {
  readonly query: string;
  readonly sessions: {
    readonly id: string;
    readonly title: string;
    readonly startedAt: string;
    readonly hits: { readonly messageId: string; readonly role: string; readonly snippet: { readonly text: string; readonly marks: [number, number][] } }[];
  }[];
  /** Set when the query cannot be used, with what to do instead. */
  readonly error?: string;
  /** Query words the index skips (stop words, too short); shown so few hits make sense. */
  readonly ignored?: string[];
  readonly tookMs: number;
  /** Past sessions still being read for the first time: the results cover `done` of `total`. */
  readonly indexing?: { readonly done: number; readonly total: number };
}

/**
 * Full-text search for the History tab: every session (the open one included), best first, each
 * hit with highlight ranges. Never throws: a query with nothing to search for, or an index that
 * cannot open, comes back as `error` with an explanation.
 */
export async function searchHistory(index: Pick<SessionIndex, 'searchSessions'>, query: string): Promise<HistorySearchResults> {
  const started = performance.now();
  const took = (): number => Math.round((performance.now() - started) * 10) / 10;
  if (!query.trim()) return { query, sessions: [], error: 'Type a word or a phrase from a conversation to search for.', tookMs: 0 };
  let result: SessionSearchResult;
  try {
    result = await index.searchSessions(query, { limit: HISTORY_SEARCH_SESSIONS, hitsPerSession: HISTORY_HITS_PER_SESSION, partial: true });
  } catch (error) {
    return { query, sessions: [], error: `Searching failed: ${describeError(error)}. Try again, or run "Skillwright: Show Logs" for details.`, tookMs: took() };
  }
  if (result.terms.length === 0) {
    return { query, sessions: [], error: `“${clip(query.trim(), 60)}” has no letters or digits to search for. Search for a word from the conversation instead.`, tookMs: took() };
  }
  const sessions = result.sessions.map((session) => ({
    id: session.id,
    title: session.title,
    startedAt: session.created,
    hits: session.hits.map((hit) => ({
      messageId: hit.messageId,
      role: hit.role,
      snippet: { text: hit.snippet, marks: snippetMarks(hit.snippet, result.terms, result.ignored) },
    })),
  }));
  return {
    query,
    sessions,
    ...(result.ignored.length > 0 ? { ignored: [...result.ignored] } : {}),
    ...(result.indexing ? { indexing: result.indexing } : {}),
    tookMs: took(),
  };
}

