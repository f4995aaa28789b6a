import type { ChatMessage, ToolCall } from '../llm/chatTypes';
import type { ParticipantHistoryTurn } from './participantTypes';

/** A tool result kept with the reply for later turns; the model can load the skill again for all of it. */
export const MAX_KEPT_RESULT_CHARS = 4_000;
/** The history sent with a request at most; older turns are left out whole. */
export const MAX_HISTORY_CHARS = 120_000;

function isToolCall(value: unknown): value is ToolCall {
  if (!value || typeof value !== 'object') return false;
  const call = value as Record<string, unknown>;
  return typeof call['id'] === 'string' && typeof call['name'] === 'string' && typeof call['arguments'] === 'string';
}

/**
 * The messages a reply's metadata says its turn added, when they are a well-formed exchange
 * (assistant messages, each tool result answering a call of the message before it, ending with
 * the assistant); undefined otherwise. Metadata comes back from VS Code, possibly from an older
 * version of ours, so nothing about its shape is assumed.
 */
export function storedMessages(metadata: unknown): ChatMessage[] | undefined {
  if (!metadata || typeof metadata !== 'object') return undefined;
  const raw = (metadata as Record<string, unknown>)['messages'];
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const out: ChatMessage[] = [];
  let open = new Set<string>();
  for (const item of raw as unknown[]) {
    if (!item || typeof item !== 'object') return undefined;
    const message = item as Record<string, unknown>;
    if (typeof message['content'] !== 'string') return undefined;
    const content = message['content'];
    if (message['role'] === 'assistant') {
      const calls = message['toolCalls'];
      if (calls !== undefined && !(Array.isArray(calls) && calls.every(isToolCall))) return undefined;
      const toolCalls = (calls as ToolCall[] | undefined) ?? [];
      if (open.size > 0) return undefined;
      open = new Set(toolCalls.map((call) => call.id));
      out.push(toolCalls.length > 0 ? { role: 'assistant', content, toolCalls: toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) } : { role: 'assistant', content });
    } else if (message['role'] === 'tool') {
      const id = message['toolCallId'];
      if (typeof id !== 'string' || !open.delete(id)) return undefined;
      out.push({ role: 'tool', toolCallId: id, content });
    } else {
      return undefined;
    }
  }
  return open.size === 0 && out.at(-1)?.role === 'assistant' ? out : undefined;
}

/** A turn's added messages as kept in its metadata: tool results clipped. */
export function keptMessages(added: readonly ChatMessage[]): ChatMessage[] {
  return added.map((message) =>
    message.role === 'tool' && message.content.length > MAX_KEPT_RESULT_CHARS
      ? { ...message, content: `${message.content.slice(0, MAX_KEPT_RESULT_CHARS)}… [cut for the chat history; call the tool again for the rest]` }
      : message,
  );
}

const size = (messages: readonly ChatMessage[]): number => messages.reduce((sum, message) => sum + message.content.length + (message.role === 'assistant' ? JSON.stringify(message.toolCalls ?? []).length : 0), 0);

/**
 * The conversation so far as chat messages: each request (with its slash command, since a
 * /search's hits are what "tell me more" refers to) and each reply (its kept messages, else its
 * text). Oldest turns go first when the whole is too long, never half a turn.
 */
export function historyMessages(turns: readonly ParticipantHistoryTurn[], budget = MAX_HISTORY_CHARS): ChatMessage[] {
  const groups: ChatMessage[][] = [];
  for (const turn of turns) {
    if (turn.kind === 'request') {
      const text = turn.command ? `/${turn.command} ${turn.prompt}`.trim() : turn.prompt;
      groups.push([{ role: 'user', content: text }]);
      continue;
    }
    const reply = storedMessages(turn.metadata) ?? (turn.text.trim() !== '' ? [{ role: 'assistant' as const, content: turn.text }] : []);
    const last = groups.at(-1);
    if (last && last[0]?.role === 'user' && last.length === 1) last.push(...reply);
    else if (reply.length > 0) groups.push(reply.filter((message) => message.role === 'assistant' && !message.toolCalls?.length));
  }
  let total = 0;
  const kept: ChatMessage[][] = [];
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i] as ChatMessage[];
    total += size(group);
    if (total > budget && kept.length > 0) break;
    kept.unshift(group);
  }
  return kept.flat();
}
