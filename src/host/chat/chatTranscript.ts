import { clipWithCount } from '../../core/text/clip';
import type { AgentEvent, TurnEndReason } from '../../core/agent/agentLoop';
import type { ApprovalPrompt } from '../../core/agent/approvalGate';
import type { ToolCall } from '../../core/llm/chatTypes';
import type { SessionData } from '../../core/sessions/sessionLog';
import type { SessionMessageRecord } from '../../core/sessions/sessionRecords';
import type { ApprovalAnswerValue, ChatAction, ChatItem, UsageLine } from '../../shared/protocol';

/**
 * The chat as the panel shows it, built from agent events (live) or from a session log (resume).
 * It never imports `vscode`, so its mapping is unit-tested in plain Node; the chat controller
 * forwards its upserts and deltas to the webview.
 */

export interface TranscriptSink {
  item(item: ChatItem): void;
  delta(id: string, delta: string): void;
}

/** At this many tool calls a finished turn offers "Save this as a skill" (issue 4's guidance). */
export const SKILL_OFFER_TOOL_CALLS = 5;
const MAX_ARGS_CHARS = 4_000;
const MAX_RESULT_CHARS = 4_000;
const SUGGESTIONS_BLOCK = /\n\n<skill-suggestions>\n[\s\S]*<\/skill-suggestions>\s*$/;

/** Splits a logged user message into what the person typed and the skills suggested with it. */
export function splitSuggestions(content: string): { text: string; suggestions: string[] } {
  const block = SUGGESTIONS_BLOCK.exec(content);
  if (!block) return { text: content, suggestions: [] };
  const suggestions = [...block[0].matchAll(/^- ([^:\n]+):/gm)].map((m) => (m[1] ?? '').trim()).filter(Boolean);
  return { text: content.slice(0, block.index), suggestions };
}

function prettyArgs(raw: string): string {
  let text = raw;
  try {
    text = JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    // Malformed arguments are shown as the model sent them.
  }
  return text.length > MAX_ARGS_CHARS ? `${text.slice(0, MAX_ARGS_CHARS)}\n… (${text.length - MAX_ARGS_CHARS} more characters)` : text;
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Which skill a call loads, changes or runs, for the "loaded skill `x`" mark. */
export function skillOfCall(call: Pick<ToolCall, 'name' | 'arguments'>): { name: string; action: 'loaded' | 'ran' | 'changed' } | undefined {
  const args = parseArgs(call.arguments);
  const name = typeof args['name'] === 'string' ? args['name'] : undefined;
  if (call.name === 'skill_view' && name) return { name, action: 'loaded' };
  if (call.name === 'skill_manage' && name) return { name, action: 'changed' };
  if (call.name === 'run_command' && typeof args['command'] === 'string') {
    const match = /(?:^|[\s/'"])skills\/(?:[\w.-]+\/)*?([a-z0-9][a-z0-9-]*)\/scripts\//.exec(args['command']);
    if (match?.[1]) return { name: match[1], action: 'ran' };
  }
  return undefined;
}

function summarizeCall(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const args = parseArgs(call.arguments);
  for (const key of ['command', 'path', 'name', 'query', 'glob', 'action']) {
    const value = args[key];
    if (typeof value === 'string') return `${call.name}: ${value.replace(/\s+/g, ' ').slice(0, 120)}`;
  }
  return call.name;
}

const clip = (text: string): string => clipWithCount(text, MAX_RESULT_CHARS);

/** The buttons an error card offers, by the kind of model error. */
export function actionsForError(kind: string): ChatAction[] {
  switch (kind) {
    case 'auth':
    case 'not_found':
    case 'bad_request':
      return ['configureModel', 'testConnection', 'openLogs'];
    case 'connection':
      return ['retry', 'configureModel', 'openLogs'];
    case 'rate_limit':
    case 'server':
    case 'timeout':
    case 'no_choices':
      return ['retry', 'openLogs'];
    default:
      return ['retry', 'openLogs'];
  }
}

interface TurnState {
  readonly id: string;
  readonly offered: { catalog: number; suggestions: string[] };
  readonly loaded: Set<string>;
  usage: UsageLine;
  toolCalls: number;
  assistantId: string | undefined;
  parts: number;
}

export class ChatTranscript {
  private readonly order: string[] = [];
  private readonly byId = new Map<string, ChatItem>();
  private turn: TurnState | undefined;
  private counter = 0;

  constructor(private readonly sink: TranscriptSink = { item: () => undefined, delta: () => undefined }) {}

  get items(): ChatItem[] {
    return this.order.map((id) => this.byId.get(id)).filter((item): item is ChatItem => item !== undefined);
  }

  get lastUserText(): string | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) {
      const item = this.byId.get(this.order[i] ?? '');
      if (item?.kind === 'user') return item.text;
    }
    return undefined;
  }

  /** Adds or replaces an item and tells the sink. */
  put(item: ChatItem): void {
    if (!this.byId.has(item.id)) this.order.push(item.id);
    this.byId.set(item.id, item);
    this.sink.item(item);
  }

  /** Drops everything from the last user message on (edit and resend). */
  dropLastTurn(): void {
    let index = -1;
    for (let i = this.order.length - 1; i >= 0; i--) {
      if (this.byId.get(this.order[i] ?? '')?.kind === 'user') {
        index = i;
        break;
      }
    }
    if (index < 0) return;
    for (const id of this.order.splice(index)) this.byId.delete(id);
  }

  notice(level: 'info' | 'warning' | 'error', text: string): void {
    this.put({ kind: 'notice', id: `notice-${++this.counter}`, level, text });
  }

  startTurn(turnId: string, userText: string, offered: { catalog: number; suggestions: string[] }): void {
    this.turn = {
      id: turnId,
      offered,
      loaded: new Set(),
      usage: { promptTokens: 0, cachedTokens: 0, completionTokens: 0, requests: 0 },
      toolCalls: 0,
      assistantId: undefined,
      parts: 0,
    };
    this.put({ kind: 'user', id: `${turnId}-user`, text: userText });
  }

  /** The skills suggested with the message, known once the turn has started. */
  setSuggestions(names: readonly string[]): void {
    if (this.turn) this.turn.offered.suggestions = [...names];
  }

  approval(id: string, prompt: ApprovalPrompt): void {
    const command = prompt.args && typeof prompt.args === 'object' ? (prompt.args as Record<string, unknown>)['command'] : undefined;
    const detail = prompt.diff ? prompt.diff.unified : typeof command === 'string' ? command : undefined;
    this.put({
      kind: 'approval',
      id,
      tool: prompt.tool,
      summary: prompt.reason ? `${prompt.summary} — ${prompt.reason}` : prompt.summary,
      ...(detail !== undefined ? { detail: clip(detail) } : {}),
      hasDiff: prompt.diff !== undefined,
      ...(prompt.suggestedPrefix ? { commandPrefix: prompt.suggestedPrefix } : {}),
      state: 'pending',
    });
  }

  approvalAnswered(id: string, answer: ApprovalAnswerValue | 'expired'): void {
    const item = this.byId.get(id);
    if (item?.kind === 'approval') this.put({ ...item, state: answer });
  }

  onEvent(event: AgentEvent): void {
    const turn = this.turn;
    if (!turn) return;
    switch (event.type) {
      case 'text': {
        if (!turn.assistantId) {
          turn.assistantId = `${turn.id}-a${++turn.parts}`;
          this.put({ kind: 'assistant', id: turn.assistantId, text: event.delta });
          return;
        }
        const item = this.byId.get(turn.assistantId);
        if (item?.kind === 'assistant') this.byId.set(item.id, { ...item, text: item.text + event.delta });
        this.sink.delta(turn.assistantId, event.delta);
        return;
      }
      case 'tool_start': {
        // Text after a tool call starts a new assistant bubble below the call.
        turn.assistantId = undefined;
        turn.toolCalls += 1;
        const skill = skillOfCall(event.call);
        if (skill?.action === 'loaded') turn.loaded.add(skill.name);
        this.put({
          kind: 'tool',
          id: event.call.id || `${turn.id}-t${turn.toolCalls}`,
          name: event.call.name,
          summary: summarizeCall(event.call),
          args: prettyArgs(event.call.arguments),
          state: 'running',
          ...(skill ? { skill } : {}),
        });
        return;
      }
      case 'tool_end': {
        const id = event.call.id || `${turn.id}-t${turn.toolCalls}`;
        const item = this.byId.get(id);
        if (item?.kind !== 'tool') return;
        this.put({ ...item, state: event.ok ? 'done' : 'failed', result: clip(event.result), durationMs: Math.max(0, Math.round(event.durationMs)) });
        return;
      }
      case 'approval':
        return;
      case 'usage':
        turn.usage = {
          promptTokens: turn.usage.promptTokens + event.usage.promptTokens,
          cachedTokens: turn.usage.cachedTokens + event.usage.cachedTokens,
          completionTokens: turn.usage.completionTokens + event.usage.completionTokens,
          requests: turn.usage.requests + 1,
        };
        return;
      case 'turn_done':
        this.endTurn(event.reason, event.error);
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  /** Marks unanswered approval cards of a finished turn as expired. */
  expirePending(): void {
    for (const item of this.items) if (item.kind === 'approval' && item.state === 'pending') this.approvalAnswered(item.id, 'expired');
  }

  private endTurn(reason: TurnEndReason, error?: { kind: string; message: string; advice: string }): void {
    const turn = this.turn;
    if (!turn) return;
    this.expirePending();
    this.put({
      kind: 'turn',
      id: `${turn.id}-end`,
      reason,
      usage: turn.usage,
      toolCalls: turn.toolCalls,
      offered: turn.offered,
      loaded: [...turn.loaded],
      ...(error ? { error: { kind: error.kind, message: error.message, advice: error.advice, actions: actionsForError(error.kind) } } : {}),
      offerSkill: reason === 'stop' && turn.toolCalls >= SKILL_OFFER_TOOL_CALLS,
    });
    this.turn = undefined;
  }

  /** Rebuilds a logged session's transcript (resume, or opening a History hit). */
  static fromSession(session: SessionData, catalogCount = 0): ChatTranscript {
    const transcript = new ChatTranscript();
    const tools = new Map<string, SessionMessageRecord>();
    for (const message of session.messages) if (message.role === 'tool' && message.toolCallId) tools.set(message.toolCallId, message);
    let turnId: string | undefined;
    const finish = () => {
      if (turnId) transcript.onEvent({ type: 'turn_done', reason: 'stop' });
    };
    for (const message of session.messages) {
      if (message.role === 'user') {
        finish();
        turnId = message.id;
        const { text, suggestions } = splitSuggestions(message.content);
        transcript.startTurn(turnId, text, { catalog: catalogCount, suggestions });
        // History hits point at message ids: the user item keeps the logged id.
        const started = transcript.byId.get(`${turnId}-user`);
        if (started) {
          transcript.byId.delete(started.id);
          transcript.order[transcript.order.indexOf(started.id)] = message.id;
          transcript.byId.set(message.id, { ...started, id: message.id });
        }
        continue;
      }
      if (message.role === 'assistant') {
        if (message.content) transcript.put({ kind: 'assistant', id: message.id, text: message.content });
        for (const call of message.toolCalls ?? []) {
          transcript.onEvent({ type: 'tool_start', call });
          const result = tools.get(call.id);
          if (result) transcript.onEvent({ type: 'tool_end', call, ok: !result.isError, result: result.content, summary: '', durationMs: result.durationMs ?? 0 });
        }
        if (transcript.turn) transcript.turn.assistantId = undefined;
      }
    }
    finish();
    return transcript;
  }
}
