import type { ChatMessage, ChatModel, ToolSpec } from '../llm/chatTypes';
import { ModelError } from '../llm/chatTypes';
import type { TokenCounter } from '../llm/tokenCounter';
import type { PriorCompaction } from '../sessions/compactedHistory';
import type { NewCompaction } from '../sessions/sessionWriter';
import type { CompactionInfo, CompactionReason } from './compactionInfo';
import { clipToTokens, REPLACEMENT_ACK, renderTranscript, replacementText, summarise } from './compactionSummary';
import { compactedFacts, memorySection, reattachSkills } from './skillReattach';

export const DEFAULT_KEEP_RECENT_TURNS = 2;
/** Shares of the window: the summary at most, the re-attached skills at most. */
export const SUMMARY_SHARE = 0.25;
/** Models' output limits start around 4,000 tokens; a summary needs no more, whatever the window. */
export const MAX_SUMMARY_TOKENS = 4_000;
export const SKILLS_SHARE = 0.15;
/** A kept message is never clipped below this (it would say nothing). */
const MIN_MESSAGE_TOKENS = 200;

export interface CompactRequest {
  /** The conversation, system prompt first: it is never touched. */
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly counter: TokenCounter;
  readonly window: number;
  readonly thresholdShare: number;
  /** Writes the summary: the chat model, or a cheaper one. */
  readonly model: ChatModel;
  readonly reason: CompactionReason;
  /** The summarising model's window when it is another model (a smaller one limits the transcript). */
  readonly summaryWindow?: number;
  readonly keepRecentTurns?: number;
  readonly prior?: PriorCompaction;
  readonly readSkill?: (name: string) => Promise<string | undefined>;
  readonly signal?: AbortSignal;
  /** Told just before the summarising model is asked (the chat shows "Compacting…"). */
  readonly onStart?: () => void;
  readonly now?: () => Date;
  readonly id?: string;
}

export type CompactResult =
  | {
      readonly kind: 'compacted';
      readonly messages: ChatMessage[];
      readonly info: CompactionInfo;
      readonly record: NewCompaction;
      readonly prior: PriorCompaction;
    }
  /** No summary, but messages too large for the window were clipped (the log keeps them whole). */
  | { readonly kind: 'clipped'; readonly messages: ChatMessage[] }
  | { readonly kind: 'unchanged'; readonly reason: string }
  | { readonly kind: 'failed'; readonly error: ModelError };

let compactionCounter = 0;

const isCut = (message: ChatMessage | undefined): boolean => message?.role === 'user' || message?.role === 'assistant';

/**
 * Compacts a conversation: the older part becomes a summary (plus the skills it used and the
 * memory it wrote), the latest turns stay verbatim, the system prompt stays byte for byte. The
 * cut falls before a user message (keeping up to `keepRecentTurns` turns, fewer when they do not
 * fit) or, when even the last turn is too large, before an assistant message, so a tool call and
 * its results always stay together.
 */
export async function compactConversation(request: CompactRequest): Promise<CompactResult> {
  const { counter, messages } = request;
  const system = messages[0];
  if (system?.role !== 'system') return { kind: 'unchanged', reason: 'the conversation has no system prompt' };
  const body = messages.slice(1);
  const start = Math.min(request.prior?.replacementMessages ?? 0, body.length);
  const threshold = Math.floor(request.window * request.thresholdShare);
  const fixed = counter.countMessages([system]) + counter.countTools(request.tools);
  const summaryBudget = Math.max(256, Math.min(MAX_SUMMARY_TOKENS, Math.floor(request.window * SUMMARY_SHARE)));
  const skillsBudget = Math.floor(request.window * SKILLS_SHARE);
  const keptBudget = Math.max(MIN_MESSAGE_TOKENS, threshold - fixed - summaryBudget - skillsBudget);
  const sizes = body.map((message) => counter.countMessages([message]));
  const suffix = (cut: number) => sizes.slice(cut).reduce((sum, n) => sum + n, 0);

  const cut = chooseCut(body, start, request.keepRecentTurns ?? DEFAULT_KEEP_RECENT_TURNS, keptBudget, suffix);
  if (cut === undefined) {
    // Nothing older to summarise: clip only what could not fit the window at all (a tenth left for the reply).
    const clipped = clipOversized(body, Math.max(MIN_MESSAGE_TOKENS, request.window - fixed - Math.floor(request.window / 10)), counter, request.window);
    if (clipped) return { kind: 'clipped', messages: [system, ...clipped] };
    return { kind: 'unchanged', reason: `nothing to compact yet: the conversation is only its last ${countTurns(body, start)} turn(s), which are kept verbatim` };
  }

  const older = body.slice(0, cut);
  const kept = clipOversized(body.slice(cut), keptBudget, counter, request.window) ?? body.slice(cut);
  const facts = compactedFacts(older, { skills: request.prior?.skills ?? [], memoryWrites: request.prior?.memoryWrites ?? [] });
  request.onStart?.();
  const summaryPrompt = 600;
  const result = await summarise({
    model: request.model,
    counter,
    transcript: renderTranscript(older),
    transcriptBudget: Math.max(MIN_MESSAGE_TOKENS, Math.min(request.window, request.summaryWindow ?? request.window) - summaryBudget - summaryPrompt),
    summaryBudget,
    ...(request.signal ? { signal: request.signal } : {}),
  });
  if (!result.ok) return { kind: 'failed', error: result.error };
  // Stop after the summary arrived still counts: the caller asked for the conversation as it was.
  if (request.signal?.aborted) return { kind: 'failed', error: abortedDuringCompaction() };

  const skills = await reattachSkills(facts, { counter, budget: skillsBudget, ...(request.readSkill ? { readSkill: request.readSkill } : {}) });
  const messagesCompacted = cut - start;
  const replacement: ChatMessage[] = [{ role: 'user', content: replacementText(result.summary, messagesCompacted, [skills.text, memorySection(facts.memoryWrites)]) }];
  // Two user messages in a row are refused by some servers' templates; an assistant kept first needs no reply.
  if (kept[0]?.role === 'user') replacement.push({ role: 'assistant', content: REPLACEMENT_ACK });
  const after: ChatMessage[] = [system, ...replacement, ...kept];
  const now = (request.now ?? (() => new Date()))();
  const id = request.id ?? `c${now.getTime().toString(36)}${(++compactionCounter).toString(36)}`;
  const total = (list: readonly ChatMessage[]) => counter.countMessages(list) + counter.countTools(request.tools);
  const info: CompactionInfo = {
    id,
    at: now.toISOString(),
    reason: request.reason,
    messagesCompacted,
    summary: result.summary,
    summaryTokens: counter.count(result.summary),
    tokensBefore: total(messages),
    tokensAfter: total(after),
    skills: skills.skills,
    memoryWrites: facts.memoryWrites,
  };
  const record: NewCompaction = {
    ...info,
    messages: replacement.map((message) => ({ role: message.role as 'user' | 'assistant', content: message.content })),
    kept: kept.length,
    model: request.model.id,
  };
  return { kind: 'compacted', messages: after, info, record, prior: { replacementMessages: replacement.length, skills: skills.skills.map((skill) => skill.name), memoryWrites: facts.memoryWrites } };
}

export function abortedDuringCompaction(): ModelError {
  return new ModelError('aborted', 'Compacting the conversation was stopped.', 'Nothing was lost: the conversation is as it was.');
}

/** Where the kept part starts, or undefined when nothing older than it can be summarised. */
function chooseCut(body: readonly ChatMessage[], start: number, keepTurns: number, budget: number, suffix: (cut: number) => number): number | undefined {
  const userCuts: number[] = [];
  for (let i = start; i < body.length; i++) if (body[i]?.role === 'user') userCuts.push(i);
  for (let turns = Math.max(1, keepTurns); turns >= 1; turns--) {
    const cut = userCuts[userCuts.length - turns];
    // Kept whole when they fit: with nothing older than them there is nothing to compact.
    if (cut !== undefined && suffix(cut) <= budget) return cut > start ? cut : undefined;
  }
  // Even the last turn is too large: cut inside it, before an assistant message, keeping as much as fits.
  const lastUser = userCuts[userCuts.length - 1] ?? start;
  let best: number | undefined;
  for (let i = Math.max(start + 1, lastUser); i < body.length; i++) {
    if (!isCut(body[i])) continue;
    best = i;
    if (suffix(i) <= budget) return i;
  }
  if (best !== undefined) return best;
  const last = userCuts[userCuts.length - 1];
  return last !== undefined && last > start ? last : undefined;
}

function countTurns(body: readonly ChatMessage[], start: number): number {
  return body.slice(start).filter((message) => message.role === 'user').length;
}

/**
 * Clips the largest messages until `messages` fit `budget`, each to no less than
 * MIN_MESSAGE_TOKENS, with a note saying so; undefined when nothing needed clipping.
 */
export function clipOversized(messages: readonly ChatMessage[], budget: number, counter: TokenCounter, window: number): ChatMessage[] | undefined {
  const out = [...messages];
  const sizes = out.map((message) => counter.countMessages([message]));
  let total = sizes.reduce((sum, n) => sum + n, 0);
  let changed = false;
  for (let guard = 0; guard < out.length && total > budget; guard++) {
    let largest = 0;
    for (let i = 1; i < sizes.length; i++) if ((sizes[i] ?? 0) > (sizes[largest] ?? 0)) largest = i;
    const size = sizes[largest] ?? 0;
    const target = Math.max(MIN_MESSAGE_TOKENS, size - (total - budget));
    if (size <= target) break;
    const message = out[largest] as ChatMessage;
    const clip = clipToTokens(message.content, target, counter);
    const note = `\n[… cut here: this message was ${size} tokens, more than fits in the model's context window of ${window} tokens; the rest is in the session log]`;
    const content = clip.clipped ? `${clip.text}${note}` : message.content;
    const next: ChatMessage =
      message.role === 'assistant'
        ? { ...message, content, ...(message.toolCalls ? { toolCalls: message.toolCalls.map((call) => clipArguments(call, target, counter)) } : {}) }
        : { ...message, content };
    out[largest] = next;
    const newSize = counter.countMessages([next]);
    total += newSize - size;
    sizes[largest] = newSize;
    changed = true;
  }
  return changed ? out : undefined;
}

function clipArguments<T extends { arguments: string }>(call: T, max: number, counter: TokenCounter): T {
  if (counter.count(call.arguments) <= max) return call;
  // Still JSON, so servers that parse arguments accept the request.
  return { ...call, arguments: JSON.stringify({ clipped: clipToTokens(call.arguments, max, counter).text, note: 'arguments cut: too large for the context window' }) };
}
