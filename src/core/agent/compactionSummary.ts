import type { ChatMessage, ChatModel } from '../llm/chatTypes';
import { ModelError } from '../llm/chatTypes';
import type { TokenCounter } from '../llm/tokenCounter';
import { clipEnd } from '../text/clip';

/** Tool results are clipped in the transcript: the summary needs what happened, not whole files. */
const MAX_TRANSCRIPT_RESULT_CHARS = 1_500;
const MAX_TRANSCRIPT_MESSAGE_CHARS = 6_000;
export const SUMMARY_OPEN = '<conversation-summary>';
export const SUMMARY_CLOSE = '</conversation-summary>';
const SKILLS_OPEN = '<skills-reattached>';

export const SUMMARY_SYSTEM_PROMPT = [
  'You summarise the earlier part of a conversation between a user and a coding agent, so the agent can continue the work without it.',
  'Write in the language of the conversation. Be specific: names of files, functions, commands, error messages, numbers. Leave out greetings and chatter.',
  'Use exactly these sections, as Markdown headings, and write "none" under a heading with nothing to say:',
  '## Goal — what the user wants, in their own terms, and any constraints they set.',
  '## Decisions — what was decided or agreed, and why.',
  '## Files touched — each file read, created or changed, with what changed.',
  '## Commands run — each command and its outcome (passed, failed and why).',
  '## Skills — the skills loaded or run, and what they were used for.',
  '## Open questions — what is unfinished, unanswered or to do next.',
  'Reply with the summary only.',
].join('\n');

/**
 * The older part of the conversation as plain text for the summarising model. An earlier summary
 * goes in without its re-attached skills (they are attached again after the new summary).
 */
export function renderTranscript(messages: readonly ChatMessage[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user': {
        const cut = message.content.indexOf(SKILLS_OPEN);
        const text = message.content.startsWith(SUMMARY_OPEN) && cut >= 0 ? message.content.slice(0, cut) : message.content;
        lines.push(`[${message.content.startsWith(SUMMARY_OPEN) ? 'earlier summary' : 'user'}]\n${clipEnd(text.trim(), MAX_TRANSCRIPT_MESSAGE_CHARS)}`);
        break;
      }
      case 'assistant': {
        if (message.content.trim()) lines.push(`[assistant]\n${clipEnd(message.content.trim(), MAX_TRANSCRIPT_MESSAGE_CHARS)}`);
        for (const call of message.toolCalls ?? []) lines.push(`[assistant calls ${call.name} (${call.id})] ${clipEnd(call.arguments, MAX_TRANSCRIPT_RESULT_CHARS)}`);
        break;
      }
      case 'tool':
        lines.push(`[result of ${message.toolCallId}] ${clipEnd(message.content, MAX_TRANSCRIPT_RESULT_CHARS)}`);
        break;
    }
  }
  return lines;
}

/** Clips `text` to at most `max` tokens, cutting at the end; returns it unchanged when it fits. */
export function clipToTokens(text: string, max: number, counter: TokenCounter): { text: string; clipped: boolean } {
  let tokens = counter.count(text);
  if (tokens <= max) return { text, clipped: false };
  let end = text.length;
  // Shrink by the measured ratio a few times: tokenizers are not linear, so each pass re-measures.
  for (let pass = 0; pass < 8 && tokens > max && end > 0; pass++) {
    end = Math.max(0, Math.floor(end * (max / tokens) * 0.97));
    tokens = counter.count(text.slice(0, end));
  }
  return { text: text.slice(0, end), clipped: true };
}

export interface SummaryRequest {
  readonly model: ChatModel;
  readonly counter: TokenCounter;
  readonly transcript: readonly string[];
  /** Tokens the transcript may take in the summary request (its oldest lines go first when over). */
  readonly transcriptBudget: number;
  /** Most tokens the summary may have; a longer one is clipped with a note. */
  readonly summaryBudget: number;
  readonly signal?: AbortSignal;
}

export type SummaryResult = { readonly ok: true; readonly summary: string; readonly clipped: boolean } | { readonly ok: false; readonly error: ModelError };

const NOTHING_LOST = 'Nothing was lost: the conversation is as it was.';

/** Asks the model for the structured summary. Never throws: a failure is a ModelError whose advice says nothing was lost. */
export async function summarise(request: SummaryRequest): Promise<SummaryResult> {
  let budget = request.transcriptBudget;
  let text = '';
  // The summarising model may take less than estimated: its own context-length error halves the transcript once.
  for (let attempt = 0; ; attempt++) {
    text = '';
    try {
      for await (const event of request.model.stream({
        messages: [
          { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
          { role: 'user', content: transcriptMessage(request.transcript, budget, request.counter) },
        ],
        maxOutputTokens: request.summaryBudget,
        ...(request.signal ? { signal: request.signal } : {}),
      })) {
        if (event.type === 'text') text += event.delta;
      }
      break;
    } catch (error) {
      if (attempt === 0 && error instanceof ModelError && error.kind === 'context_length' && !request.signal?.aborted) {
        budget = Math.floor(budget / 2);
        continue;
      }
      return { ok: false, error: summaryError(error, request.signal) };
    }
  }
  return checkedSummary(text, request);
}

/** The transcript as the summary request's user message, its oldest lines left out past `budget` tokens. */
function transcriptMessage(transcript: readonly string[], budget: number, counter: TokenCounter): string {
  const lines = [...transcript];
  let dropped = 0;
  let size = counter.count(lines.join('\n\n'));
  while (size > budget && lines.length > 1) {
    const first = lines.shift() as string;
    size -= counter.count(first);
    dropped++;
  }
  if (lines.length === 1 && size > budget) lines[0] = clipToTokens(lines[0] as string, budget, counter).text;
  const head = dropped > 0 ? [`[${dropped} earlier messages left out: too long to summarise together]`] : [];
  return `Summarise this conversation so far:\n\n<transcript>\n${[...head, ...lines].join('\n\n')}\n</transcript>`;
}

function summaryError(error: unknown, signal: AbortSignal | undefined): ModelError {
  if (signal?.aborted || (error instanceof ModelError && error.kind === 'aborted')) {
    return new ModelError('aborted', 'Compacting the conversation was stopped.', NOTHING_LOST);
  }
  const cause = error instanceof ModelError ? error : new ModelError('unknown', String(error instanceof Error ? error.message : error), '');
  return new ModelError(
    cause.kind,
    `The conversation could not be compacted: the model failed while summarising it. ${cause.message}`,
    `${NOTHING_LOST} ${cause.advice} A model for summaries (cheaper, or with a larger window) can be set in skillwright.context.compactionModel.`.replace(/\s+/g, ' ').trim(),
    cause.status,
  );
}

function checkedSummary(text: string, request: SummaryRequest): SummaryResult {
  const { counter } = request;
  if (request.signal?.aborted) return { ok: false, error: new ModelError('aborted', 'Compacting the conversation was stopped.', NOTHING_LOST) };
  const summary = text.trim();
  if (summary === '') {
    return {
      ok: false,
      error: new ModelError(
        'no_choices',
        `The conversation could not be compacted: the model (${request.model.id}) returned an empty summary.`,
        `${NOTHING_LOST} Try again, or set another model for summaries in skillwright.context.compactionModel.`,
      ),
    };
  }
  const clip = clipToTokens(summary, request.summaryBudget, counter);
  return clip.clipped
    ? { ok: true, summary: `${clip.text.trimEnd()}\n\n[The summary was clipped to ${request.summaryBudget} tokens: it was longer than the budget for summaries.]`, clipped: true }
    : { ok: true, summary, clipped: false };
}

/** The user message that stands in for the compacted part: summary, re-attached skills, memory writes. */
export function replacementText(summary: string, compacted: number, sections: readonly string[]): string {
  return [
    SUMMARY_OPEN,
    `The earlier part of this conversation (${compacted} messages) was compacted to fit the model's context window; its summary:`,
    '',
    summary,
    SUMMARY_CLOSE,
    ...sections.filter((section) => section !== ''),
  ].join('\n');
}

/**
 * Keeps user and assistant alternating (some servers' chat templates refuse two user messages in
 * a row) and tells the model the summary is context, not a new request.
 */
export const REPLACEMENT_ACK = 'Understood. I will continue from this summary and follow the re-attached skills.';
