import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import { z } from 'zod';
import { clipLine as clip } from '../text/clip';
import { defineTool, runToolDefinition } from '../toolkit/toolDefinition';
import type { ToolResult } from '../toolkit/toolResult';
import { fail } from '../toolkit/toolResult';
import type { SessionIndex, SessionSearchMatch, SessionSummary } from './sessionIndex';
import { indexedText } from './sessionIndexDb';
import type { SessionData } from './sessionLog';
import { isValidSessionId } from './sessionLog';
import type { SessionMessageRecord } from './sessionRecords';
import { snippetAround } from './sessionQuery';

export const SESSION_SEARCH_TOOL = defineTool({
  name: 'session_search',
  description: [
    'Search and read earlier chat sessions. Use it when the user refers to earlier work ("like last week", "the fix we found").',
    'With query: full-text search over every message and tool call of other sessions; returns the best sessions first, each with the matching message, its neighbours, and the start and end of the session.',
    'With session_id: read that session page by page (offset, limit), or around_message_id to scroll around one message; add query to search inside it.',
    'With no arguments: the most recent sessions.',
  ].join(' '),
  args: z.strictObject({
    query: z.string().optional().describe('Words or a phrase from the earlier conversation; "double quotes" keep words together.'),
    session_id: z.string().optional().describe('A session id from an earlier result.'),
    around_message_id: z.string().optional().describe('With session_id: show the messages around this message id.'),
    offset: z.int().min(0).optional().describe('With session_id: the first message to show (0-based), for paging.'),
    limit: z.int().min(1).optional().describe('Sessions to return (search: default 3, at most 10; list: default 10, at most 50) or messages per page (default 20, at most 50).'),
  }),
  approval: 'read',
  example: '{"query": "login timeout"}',
  // Stop also stops the hit summaries: the call's signal goes with the search.
  execute: (args, ctx: SessionSearchContext, run) => searchSessions(args, ctx.signal ? ctx : { ...ctx, signal: run.signal }),
});

export interface HitSummaryRequest {
  readonly query: string;
  readonly sessionId: string;
  readonly title: string;
  readonly messages: readonly { readonly role: string; readonly text: string }[];
  /** Aborted when the tool call is stopped. */
  readonly signal?: AbortSignal;
}

export interface SessionSearchContext {
  readonly index: SessionIndex;
  /** Left out of searches and lists: the model already has it. */
  readonly currentSessionId?: string;
  /**
   * A cheaper model's summary of each hit (setting; `hitSummarizer` builds one from a ChatModel).
   * A summary that fails, or is not there within SUMMARY_DEADLINE_MS, is left out.
   */
  readonly summarize?: (request: HitSummaryRequest) => Promise<string | undefined>;
  /** The tool call's signal: Stop also stops the summaries. */
  readonly signal?: AbortSignal;
  /** Longest wait for summaries; default SUMMARY_DEADLINE_MS. */
  readonly summaryDeadlineMs?: number;
  readonly logger?: Logger;
}

/** Keeps one result within what a model can take in next to its conversation. */
export const MAX_RESULT_CHARS = 24_000;
const CONTEXT_CHARS = 400;
const EXCERPT_CHARS = 800;
const PAGE_CHARS = 2_000;
/**
 * Longest the results wait for summaries, whatever hook is given: a summary is an extra, and a hook
 * that never settles must not turn the search into a tool timeout. (`hitSummarizer` keeps its own,
 * shorter limit and aborts its request.)
 */
export const SUMMARY_DEADLINE_MS = 15_000;
const MAX_SUMMARY_CHARS = 600;
/** Summaries cost a model request each: the best few sessions get one, the rest show their hit. */
const MAX_SUMMARIES = 3;

type Args = { query?: string; session_id?: string; around_message_id?: string; offset?: number; limit?: number };

/** Runs one session_search call; every outcome, including a bug, is a result the model can read. */
export function runSessionSearch(raw: unknown, ctx: SessionSearchContext): Promise<ToolResult> {
  return runToolDefinition(SESSION_SEARCH_TOOL, raw, ctx, { signal: ctx.signal ?? new AbortController().signal, turnId: '' }, (error) =>
    ctx.logger?.error(`session_search failed: ${describeError(error)}`),
  );
}

/** Blank strings count as not given. */
const given = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

async function searchSessions(checked: { query?: string | undefined; session_id?: string | undefined; around_message_id?: string | undefined; offset?: number | undefined; limit?: number | undefined }, ctx: SessionSearchContext): Promise<ToolResult> {
  const query = given(checked.query);
  const sessionId = given(checked.session_id);
  const around = given(checked.around_message_id);
  const args: Args = {
    ...(query !== undefined ? { query } : {}),
    ...(sessionId !== undefined ? { session_id: sessionId } : {}),
    ...(around !== undefined ? { around_message_id: around } : {}),
    ...(checked.offset !== undefined ? { offset: checked.offset } : {}),
    ...(checked.limit !== undefined ? { limit: checked.limit } : {}),
  };
  if (args.around_message_id !== undefined && args.session_id === undefined) {
    return fail('around_message_id needs session_id too (both come from an earlier session_search result)');
  }
  if (args.session_id !== undefined) return readOne(args, args.session_id, ctx);
  if (args.query !== undefined) return search(args.query, Math.min(args.limit ?? 3, 10), ctx);
  return listRecent(Math.min(args.limit ?? 10, 50), ctx);
}


/** A message as the model sees it in results: text clipped, tool calls named. */
function compact(message: SessionMessageRecord, max: number): Record<string, unknown> {
  return {
    id: message.id,
    role: message.role,
    at: message.at,
    text: clip(message.content, max),
    ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map((call) => `${call.name}(${clip(call.arguments, 200)})`) } : {}),
    ...(message.toolName ? { tool: message.toolName } : {}),
    ...(message.isError ? { error: true } : {}),
    ...(message.status ? { status: message.status } : {}),
  };
}

function sessionFacts(summary: SessionSummary): Record<string, unknown> {
  return {
    session_id: summary.id,
    title: summary.title,
    created: summary.created,
    updated: summary.updated,
    ...(summary.workspace ? { workspace: summary.workspace } : {}),
    message_count: summary.messageCount,
  };
}

const MATCHED = {
  all: 'messages with every word',
  any: 'no message had every word; these sessions have some of them',
  none: 'no earlier message has these words',
} as const;

const OPEN_HINT = 'To read more of a session, call session_search with its session_id (add around_message_id to scroll around a message).';

async function search(query: string, limit: number, ctx: SessionSearchContext): Promise<ToolResult> {
  const found = await ctx.index.searchSessions(query, { limit, ...(ctx.currentSessionId ? { excludeSessionId: ctx.currentSessionId } : {}) });
  if (found.mode === 'none' && found.ignored.length === 0 && found.terms.length === 0) {
    return fail('the query has no searchable words (letters or digits); describe the earlier work in a few words');
  }
  const sessions = await Promise.all(found.sessions.map((match) => withContext(match, found.terms, ctx)));
  await addSummaries(query, sessions, ctx);
  const result: Record<string, unknown> = {
    success: true,
    query,
    matched: MATCHED[found.mode],
    sessions: sessions.map((entry) => entry.shown),
  };
  if (found.ignored.length) result['ignored_words'] = found.ignored;
  if (found.capped) result['note'] = 'Very common words: only the newest matches were ranked; add a rarer word to reach older sessions.';
  if (found.truncatedQuery) result['query_note'] = 'The query was long; only its first words were used.';
  result['hint'] = sessions.length === 0 ? 'No earlier session matches; try other or fewer words, or call session_search with no arguments to list recent sessions.' : OPEN_HINT;
  return trimToBudget(result);
}

async function withContext(match: SessionSearchMatch, terms: readonly string[], ctx: SessionSearchContext): Promise<{ shown: Record<string, unknown>; context: SessionMessageRecord[] }> {
  const session = await ctx.index.readSession(match.id);
  const best = match.hits[0];
  const shown: Record<string, unknown> = { ...sessionFacts(match), matching_messages: match.matches };
  if (!session || !best) return { shown, context: [] };
  let at = session.messages.findIndex((message) => message.id === best.messageId);
  if (at < 0) at = Math.min(best.ordinal, session.messages.length - 1);
  const hit = session.messages[at];
  if (!hit) return { shown, context: [] };
  const from = Math.max(0, at - 2);
  const to = Math.min(session.messages.length, at + 3);
  const context = session.messages.slice(from, to);
  shown['hit'] = { id: hit.id, role: hit.role, at: hit.at, excerpt: snippetAround(indexedText(hit), terms, EXCERPT_CHARS) };
  shown['around_hit'] = context.map((message) => (message === hit ? { id: hit.id, role: hit.role, hit: true } : compact(message, CONTEXT_CHARS)));
  if (from > 0) shown['session_start'] = session.messages.slice(0, Math.min(2, from)).map((message) => compact(message, CONTEXT_CHARS));
  const tailFrom = Math.max(to, session.messages.length - 2);
  if (tailFrom < session.messages.length) shown['session_end'] = session.messages.slice(tailFrom).map((message) => compact(message, CONTEXT_CHARS));
  if (match.hits.length > 1) shown['other_hits'] = match.hits.slice(1).map((other) => ({ id: other.messageId, role: other.role, excerpt: clip(other.snippet, 240) }));
  return { shown, context };
}

async function addSummaries(query: string, sessions: { shown: Record<string, unknown>; context: SessionMessageRecord[] }[], ctx: SessionSearchContext): Promise<void> {
  const summarize = ctx.summarize;
  if (!summarize || ctx.signal?.aborted) return;
  const deadlineMs = ctx.summaryDeadlineMs ?? SUMMARY_DEADLINE_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), deadlineMs);
  });
  const summaries = Promise.all(
    sessions.slice(0, MAX_SUMMARIES).map(async ({ shown, context }) => {
      if (context.length === 0) return;
      try {
        const summary = await summarize({
          query,
          sessionId: String(shown['session_id']),
          title: String(shown['title']),
          messages: context.map((message) => ({ role: message.role, text: clip(message.content, EXCERPT_CHARS) })),
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        // Written only before the deadline: a late one would change a result already returned.
        if (typeof summary === 'string' && summary.trim() && timer !== undefined) shown['summary'] = clip(summary, MAX_SUMMARY_CHARS);
      } catch (error) {
        ctx.logger?.warn(`session_search: the hit summary failed, results go without it: ${describeError(error)}`);
      }
    }),
  );
  try {
    if ((await Promise.race([summaries, deadline])) === 'late') {
      ctx.logger?.warn(`session_search: hit summaries took over ${deadlineMs} ms; results go without the missing ones`);
    }
  } finally {
    clearTimeout(timer);
    timer = undefined;
  }
}

async function listRecent(limit: number, ctx: SessionSearchContext): Promise<ToolResult> {
  const all = await ctx.index.listSessions({ limit: limit + 1, ...(ctx.currentSessionId ? { excludeSessionId: ctx.currentSessionId } : {}) });
  const shown = all.slice(0, limit);
  const result: Record<string, unknown> = { success: true, sessions: shown.map(sessionFacts) };
  if (all.length > limit) result['more'] = 'Older sessions exist; search them with query.';
  result['hint'] = shown.length === 0 ? 'There are no earlier sessions yet.' : OPEN_HINT;
  return trimToBudget(result);
}

async function readOne(args: Args, id: string, ctx: SessionSearchContext): Promise<ToolResult> {
  if (!isValidSessionId(id)) return fail(`"${clip(id, 80)}" is not a session id; use a session_id from an earlier session_search result`);
  const session = await ctx.index.readSession(id);
  if (!session) return fail(`no session "${id}"; call session_search with no arguments to list recent sessions, or with query to find one`);
  if (args.query !== undefined) {
    const found = await ctx.index.searchSessions(args.query, { sessionId: id, limit: 1, hitsPerSession: 10 });
    const hits = found.sessions[0]?.hits ?? [];
    return {
      success: true,
      session: sessionFacts(summaryOfData(session)),
      query: args.query,
      hits: hits.map((hit) => ({ id: hit.messageId, role: hit.role, at: hit.at, excerpt: hit.snippet })),
      hint: hits.length ? 'Call again with around_message_id to read around a hit.' : 'No message of this session matches; try other words.',
    };
  }
  const total = session.messages.length;
  const limit = Math.min(args.limit ?? (args.around_message_id ? 10 : 20), 50);
  let from = Math.min(args.offset ?? 0, total);
  if (args.around_message_id !== undefined) {
    const at = session.messages.findIndex((message) => message.id === args.around_message_id);
    if (at < 0) {
      const ids = session.messages.map((message) => message.id);
      const sample = ids.length <= 6 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')} … ${ids.slice(-3).join(', ')}`;
      return fail(`session ${id} has no message "${clip(args.around_message_id, 80)}"; its message ids are ${sample || 'none (it is empty)'}`);
    }
    from = Math.max(0, Math.min(at - Math.floor((limit - 1) / 2), total - limit));
  }
  const messages: Record<string, unknown>[] = [];
  let chars = 0;
  for (const message of session.messages.slice(from, from + limit)) {
    const item = compact(message, PAGE_CHARS);
    chars += JSON.stringify(item).length;
    if (messages.length > 0 && chars > MAX_RESULT_CHARS - 2_000) break;
    messages.push(item);
  }
  const next = from + messages.length;
  const result: Record<string, unknown> = { success: true, session: sessionFacts(summaryOfData(session)), offset: from, total_messages: total, messages };
  if (from > 0) result['previous'] = { offset: Math.max(0, from - limit), around_message_id: session.messages[from - 1]?.id };
  if (next < total) result['next'] = { offset: next, around_message_id: session.messages[next]?.id };
  return result as ToolResult;
}

function summaryOfData(session: SessionData): SessionSummary {
  const firstUser = session.messages.find((message) => message.role === 'user')?.content ?? '';
  return {
    id: session.id,
    title: session.title ?? (clip(firstUser, 120) || 'Untitled session'),
    preview: clip(firstUser, 120),
    created: session.created ?? '',
    updated: session.updated ?? '',
    ...(session.header?.workspace ? { workspace: session.header.workspace } : {}),
    messageCount: session.messages.length,
  };
}

/** Drops the least useful parts (session ends, then whole later sessions) until the result fits. */
function trimToBudget(result: Record<string, unknown>): ToolResult {
  const sessions = result['sessions'] as Record<string, unknown>[];
  const size = (): number => JSON.stringify(result).length;
  for (let i = sessions.length - 1; i >= 0 && size() > MAX_RESULT_CHARS; i--) {
    delete sessions[i]?.['session_start'];
    delete sessions[i]?.['session_end'];
    delete sessions[i]?.['other_hits'];
  }
  while (sessions.length > 1 && size() > MAX_RESULT_CHARS) sessions.pop();
  return result as ToolResult;
}
