import type { ChatMessage, ToolCall } from '../../llm/chatTypes';
import type { SessionData } from '../../sessions/sessionLog';
import { clipWords as clip, oneLine } from '../../text/clip';
import { markdownListItems, redactSecrets } from './draftText';
import { selectionFacts } from './selectionFacts';

/**
 * The facts a skill can be drafted from, read from a chat session (or a text selection): what was
 * asked, what was done, what failed and what fixed it, how it ended. Bounded, so a session of any
 * size gives a draft prompt of a known size; secrets are redacted on the way in.
 */

import type { CommandFact, ErrorFact, FileFact, Resolution, SelectionInput, ToolCallFact, ToolKind, TranscriptFacts } from './draftFacts';
import { parseJsonObject } from '../../../shared/system/jsonObject';

export const FACT_LIMITS = {
  requests: 8,
  requestChars: 600,
  /** The first and the last calls are kept: how the work started and how it was finished. */
  toolCallsHead: 40,
  toolCallsTail: 20,
  detailChars: 160,
  errorChars: 300,
  files: 40,
  commands: 30,
  errors: 12,
  outcomeChars: 1_200,
  outcomeSteps: 12,
  selectionChars: 8_000,
} as const;

interface Turn {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly toolCallId?: string;
  readonly cutShort?: boolean;
}

const SUGGESTIONS_BLOCK = /\n*<skill-suggestions>[\s\S]*?(?:<\/skill-suggestions>|$)/g;
const SAVE_AS_SKILL = /^[ \t>*_]*Save as skill:?[*_ \t]*`?([A-Za-z0-9][\w-]*)`?.*$/gim;

const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  list_files: 'read',
  find_files: 'search',
  search_text: 'search',
  skills_list: 'search',
  session_search: 'search',
  edit_file: 'change',
  write_file: 'change',
  run_command: 'command',
  skill_view: 'skill',
  skill_manage: 'skill',
};
// Per tool, the arguments that say what the call was about, most telling first.
const TELLING: Readonly<Record<string, readonly string[]>> = {
  find_files: ['glob', 'path'],
  search_text: ['query', 'path'],
  skills_list: ['query', 'category'],
  skill_view: ['name', 'file_path'],
  skill_manage: ['action', 'name', 'file_path'],
  memory: ['action', 'target'],
  session_search: ['query', 'session_id'],
  run_command: ['command'],
};
const GENERIC_TELLING = ['path', 'file', 'command', 'query', 'name', 'url', 'pattern'];

function turnsOf(source: SessionData | readonly ChatMessage[]): Turn[] {
  const messages: readonly (ChatMessage | SessionData['messages'][number])[] = Array.isArray(source) ? source : (source as SessionData).messages;
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === 'system' || typeof message.content !== 'string') continue;
    const record = message as Partial<SessionData['messages'][number]>;
    turns.push({
      role: message.role,
      content: message.content,
      ...('toolCalls' in message && message.toolCalls?.length ? { toolCalls: message.toolCalls } : {}),
      ...('toolCallId' in message && typeof message.toolCallId === 'string' ? { toolCallId: message.toolCallId } : {}),
      ...(record.status ? { cutShort: true } : {}),
    });
  }
  return turns;
}


function telling(tool: string, args: Record<string, unknown> | undefined): string {
  if (!args) return '';
  const keys = TELLING[tool] ?? GENERIC_TELLING;
  const parts = keys.map((key) => args[key]).filter((value): value is string => typeof value === 'string' && value.trim() !== '');
  const shown = TELLING[tool] ? parts : parts.slice(0, 1);
  if (shown.length === 0 && !TELLING[tool]) {
    const first = Object.values(args).find((value): value is string => typeof value === 'string' && value.trim() !== '');
    if (first) shown.push(first);
  }
  return clip(oneLine(redactSecrets(shown.join(' '))), FACT_LIMITS.detailChars);
}

/** The outcome a tool message reports: ok, or the error (for a command, its exit and the end of its output). */
function outcomeOf(tool: string, content: string | undefined): { ok: boolean | undefined; error?: string } {
  if (content === undefined) return { ok: undefined };
  const result = parseJsonObject(content);
  if (!result || typeof result['success'] !== 'boolean') return { ok: undefined };
  if (result['success'] === false) return { ok: false, error: clip(oneLine(redactSecrets(String(result['error'] ?? 'failed'))), FACT_LIMITS.errorChars) };
  if (tool === 'run_command' && (result['timed_out'] === true || (result['exit_code'] !== 0 && result['exit_code'] !== undefined))) {
    const note = typeof result['note'] === 'string' ? result['note'] : `exited with code ${String(result['exit_code'])}`;
    const output = typeof result['output'] === 'string' ? result['output'] : '';
    const tail = output.split('\n').map((line) => line.trim()).filter(Boolean).slice(-3).join(' | ');
    return { ok: false, error: clip(oneLine(redactSecrets(tail ? `${note}: ${tail}` : note)), FACT_LIMITS.errorChars) };
  }
  return { ok: true };
}

function firstSentence(text: string): string {
  const flat = oneLine(text.replace(/```[\s\S]*?(?:```|$)/g, ' '));
  return clip((flat.split(/(?<=[.!?])\s/)[0] ?? '').trim(), 240);
}

/** The first and last items of a long list, and how many were left out between them. */
function keepEnds<T>(items: readonly T[], head: number, tail: number): { kept: T[]; omitted: number } {
  if (items.length <= head + tail) return { kept: [...items], omitted: 0 };
  return { kept: [...items.slice(0, head), ...items.slice(items.length - tail)], omitted: items.length - head - tail };
}

interface CallRecord {
  readonly fact: ToolCallFact;
  /** Index of the turn that requested it, to find the assistant's words after a failure. */
  readonly turn: number;
}

function collectCalls(turns: readonly Turn[]): CallRecord[] {
  const results = new Map<string, string>();
  for (const turn of turns) if (turn.role === 'tool' && turn.toolCallId !== undefined) results.set(turn.toolCallId, turn.content);
  const calls: CallRecord[] = [];
  turns.forEach((turn, index) => {
    for (const call of turn.toolCalls ?? []) {
      const outcome = outcomeOf(call.name, results.get(call.id));
      const fact: ToolCallFact = { tool: call.name, kind: KINDS[call.name] ?? 'other', detail: telling(call.name, parseJsonObject(call.arguments)), ...outcome };
      calls.push({ fact, turn: index });
    }
  });
  return calls;
}

const sameAction = (a: ToolCallFact, b: ToolCallFact): boolean => {
  if (a.tool !== b.tool) return false;
  if (a.kind !== 'command') return a.detail === b.detail;
  // `npm test -- --grep x` then `npm test` is the same check run wider.
  const head = (command: string) => command.split(/\s+/).slice(0, 2).join(' ');
  return head(a.detail) === head(b.detail);
};

/** The words of the assistant's next message after turn `index`, if it said something before acting again. */
function nextReply(turns: readonly Turn[], index: number): string {
  for (const turn of turns.slice(index + 1)) {
    if (turn.role === 'user') break;
    if (turn.role === 'assistant') return turn.content.trim() !== '' ? firstSentence(redactSecrets(turn.content)) : '';
  }
  return '';
}

const shown = (fact: ToolCallFact): string => (fact.kind === 'command' ? fact.detail : `${fact.tool}${fact.detail ? ` ${fact.detail}` : ''}`);

/**
 * The first failures, each with what was done before the same action succeeded (the changes in
 * between, or the other actions when nothing changed), and how many failures there were in all.
 */
function errorFacts(calls: readonly CallRecord[], turns: readonly Turn[]): { errors: ErrorFact[]; total: number } {
  const errors: ErrorFact[] = [];
  let total = 0;
  calls.forEach(({ fact, turn }, i) => {
    if (fact.ok !== false) return;
    total++;
    if (errors.length >= FACT_LIMITS.errors) return;
    const explanation = nextReply(turns, turn);
    const j = calls.findIndex((later, k) => k > i && later.fact.ok === true && sameAction(fact, later.fact));
    const success = j > 0 ? calls[j] : undefined;
    let resolution: Resolution | undefined;
    if (success) {
      const between = calls.slice(i + 1, j).map((c) => c.fact).filter((c) => c.ok !== false && c.kind !== 'search');
      const changed = [...new Set(between.filter((c) => c.kind === 'change' && c.detail).map((c) => c.detail))].slice(0, 4);
      const actions = changed.length > 0 ? [] : [...new Set(between.map(shown))].slice(0, 3);
      resolution = { changed, actions, succeeded: shown(success.fact) };
    }
    errors.push({ during: shown(fact), message: fact.error ?? 'failed', ...(explanation ? { explanation } : {}), ...(resolution ? { resolution } : {}) });
  });
  return { errors, total };
}

function fileFacts(calls: readonly ToolCallFact[]): FileFact[] {
  const files = new Map<string, boolean>();
  for (const call of calls) {
    if (call.tool !== 'read_file' && call.kind !== 'change') continue;
    if (!call.detail) continue;
    const changed = call.kind === 'change' && call.ok !== false;
    files.set(call.detail, (files.get(call.detail) ?? false) || changed);
  }
  return [...files].map(([path, changed]) => ({ path, changed }));
}

function commandFacts(calls: readonly ToolCallFact[]): CommandFact[] {
  const commands = new Map<string, { ok: boolean | undefined; runs: number; failed: boolean; failedFirst: boolean }>();
  for (const call of calls) {
    if (call.kind !== 'command' || !call.detail) continue;
    const seen = commands.get(call.detail) ?? { ok: undefined, runs: 0, failed: false, failedFirst: false };
    commands.set(call.detail, {
      ok: call.ok,
      runs: seen.runs + 1,
      failed: seen.failed || call.ok === false,
      failedFirst: seen.failedFirst || (seen.failed && call.ok === true),
    });
  }
  return [...commands].map(([command, c]) => ({ command, ok: c.ok, runs: c.runs, failedFirst: c.failedFirst }));
}

function outcomeFacts(turns: readonly Turn[]): { outcome?: string; steps: string[]; suggestedName?: string } {
  const last = [...turns].reverse().find((turn) => turn.role === 'assistant' && turn.content.trim() !== '');
  if (!last) return { steps: [] };
  // The group always takes part in a match; flatMap only narrows the type.
  const names = [...last.content.matchAll(SAVE_AS_SKILL)].flatMap((match) => match[1]?.toLowerCase() ?? []);
  const suggestedName = names.at(-1);
  const text = redactSecrets(last.content.replace(SAVE_AS_SKILL, '').trim());
  const cut = turns[turns.length - 1]?.cutShort ? ' (the last reply was cut short)' : '';
  return {
    ...(text ? { outcome: clip(text, FACT_LIMITS.outcomeChars) + cut } : {}),
    steps: markdownListItems(text, 240).slice(0, FACT_LIMITS.outcomeSteps),
    ...(suggestedName !== undefined ? { suggestedName } : {}),
  };
}

/**
 * The facts of a session, of messages (e.g. the live conversation, system prompt ignored), or of a
 * selection when there is no conversation. With both, the selection travels along as the part the
 * user pointed at.
 */
export function transcriptFacts(source: SessionData | readonly ChatMessage[] | undefined, selection?: SelectionInput): TranscriptFacts {
  const cappedSelection = selection ? { ...selection, text: clip(redactSecrets(selection.text), FACT_LIMITS.selectionChars) } : undefined;
  if (!source || (Array.isArray(source) ? source.length === 0 : (source as SessionData).messages.length === 0)) {
    if (cappedSelection && cappedSelection.text.trim() !== '') return selectionFacts(cappedSelection);
  }
  const turns = source ? turnsOf(source) : [];
  const userTexts = turns.filter((turn) => turn.role === 'user' && turn.content.trim() !== '').map((turn) => turn.content);
  // Only the kept requests are cleaned: a long session has thousands of messages.
  const requests = userTexts
    .slice(0, FACT_LIMITS.requests * 2)
    .map((text) => clip(redactSecrets(text.replace(SUGGESTIONS_BLOCK, '').slice(0, FACT_LIMITS.requestChars * 4)).trim(), FACT_LIMITS.requestChars))
    .filter((text) => text !== '');
  const calls = collectCalls(turns);
  const allFacts = calls.map((call) => call.fact);
  const files = fileFacts(allFacts);
  const commands = commandFacts(allFacts);
  const { errors, total: errorCount } = errorFacts(calls, turns);
  const kept = keepEnds(allFacts, FACT_LIMITS.toolCallsHead, FACT_LIMITS.toolCallsTail);
  const skillsUsed = [...new Set(allFacts.filter((c) => c.tool === 'skill_view' && c.ok !== false && c.detail).map((c) => c.detail.split(' ')[0] ?? c.detail))];
  const { outcome, steps, suggestedName } = outcomeFacts(turns);
  const session = source && !Array.isArray(source) ? (source as SessionData) : undefined;
  return {
    origin: session ? 'session' : 'messages',
    ...(session?.title ? { title: clip(oneLine(redactSecrets(session.title)), 120) } : {}),
    requests: requests.slice(0, FACT_LIMITS.requests),
    toolCalls: kept.kept,
    // Files changed matter more than files read: they come first when the list is cut.
    files: [...files.filter((f) => f.changed), ...files.filter((f) => !f.changed)].slice(0, FACT_LIMITS.files),
    commands: commands.slice(0, FACT_LIMITS.commands),
    errors,
    skillsUsed: skillsUsed.slice(0, 10),
    ...(outcome ? { outcome } : {}),
    outcomeSteps: steps,
    ...(suggestedName ? { suggestedName } : {}),
    ...(cappedSelection && cappedSelection.text.trim() !== '' ? { selection: cappedSelection } : {}),
    omitted: {
      requests: Math.max(0, userTexts.length - Math.min(requests.length, FACT_LIMITS.requests)),
      toolCalls: kept.omitted,
      files: Math.max(0, files.length - FACT_LIMITS.files),
      commands: Math.max(0, commands.length - FACT_LIMITS.commands),
      errors: errorCount - errors.length,
    },
  };
}
