import { clipWithCount } from '../../core/text/clip';
import type { AgentEvent, TurnEndReason } from '../../core/agent/agentLoop';
import type { ApprovalPrompt } from '../../core/agent/approvalGate';
import type { ToolCall } from '../../core/llm/chatTypes';
import type { RunTrace } from '../../core/execution/executionTypes';
import type { StepProgress } from '../../core/execution/workflowRunner';
import type { SessionData } from '../../core/sessions/sessionLog';
import type { SessionMessageRecord } from '../../core/sessions/sessionRecords';
import type { ApprovalAnswerValue, ChatAction, ChatItem, RunStepView, UsageLine } from '../../shared/protocol';
import type { CompactionInfo } from '../../core/agent/compactionInfo';
import { compactionDone, compactionFailed, compactionFromRecord, compactionRunning } from './compactionItems';
import { clipError, nestedOrder, readRunResult } from './runResultSteps';
import { parseJsonObject } from '../../shared/system/jsonObject';

/**
 * The chat as the panel shows it, built from agent events (live) or from a session log (resume).
 * It never imports `vscode`, so its mapping is unit-tested in plain Node; the chat controller
 * forwards its upserts and deltas to the webview.
 */

export interface TranscriptSink {
  item(item: ChatItem): void;
  delta(id: string, delta: string): void;
}

export interface TranscriptOptions {
  /** The trace of a run that just ended (exact step times and nesting); undefined when not at hand. */
  readonly traceOf?: (traceId: string) => RunTrace | undefined;
  /** Times steps between their progress reports until the trace has the exact figures. */
  readonly now?: () => number;
}

/** Nested cards under one skill_run call, at most: the trace panel shows every step of a larger workflow. */
export const MAX_CARD_STEPS = 100;
const SKILL_RUN = 'skill_run';

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


/** Which skill a call loads, changes or runs, for the "loaded skill `x`" mark. */
export function skillOfCall(call: Pick<ToolCall, 'name' | 'arguments'>): { name: string; action: 'loaded' | 'ran' | 'changed' } | undefined {
  const args = parseJsonObject(call.arguments) ?? {};
  const name = typeof args['name'] === 'string' ? args['name'] : undefined;
  if (call.name === 'skill_view' && name) return { name, action: 'loaded' };
  if (call.name === 'skill_manage' && name) return { name, action: 'changed' };
  if (call.name === SKILL_RUN && name) return { name, action: 'ran' };
  if (call.name === 'run_command' && typeof args['command'] === 'string') {
    const match = /(?:^|[\s/'"])skills\/(?:[\w.-]+\/)*?([a-z0-9][a-z0-9-]*)\/scripts\//.exec(args['command']);
    if (match?.[1]) return { name: match[1], action: 'ran' };
  }
  return undefined;
}

function summarizeCall(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const args = parseJsonObject(call.arguments) ?? {};
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

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

interface RunState {
  /** When each step reported `running`, by the transcript's clock. */
  readonly started: Map<string, number>;
  /** Steps past MAX_CARD_STEPS, counted once each. */
  readonly hidden: Set<string>;
}

interface TurnState {
  readonly id: string;
  readonly offered: { catalog: number; suggestions: string[] };
  readonly loaded: Set<string>;
  readonly ran: Set<string>;
  usage: UsageLine;
  toolCalls: number;
  assistantId: string | undefined;
  parts: number;
  /** The divider of a compaction still being written. */
  compaction?: string | undefined;
}

export class ChatTranscript {
  private readonly order: string[] = [];
  private readonly byId = new Map<string, ChatItem>();
  private turn: TurnState | undefined;
  private counter = 0;
  private readonly runs = new Map<string, RunState>();
  private readonly now: () => number;

  constructor(
    private readonly sink: TranscriptSink = { item: () => undefined, delta: () => undefined },
    private readonly options: TranscriptOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

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
      ran: new Set(),
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
        if (skill?.action === 'ran') turn.ran.add(skill.name);
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
        const ended: ToolItem = { ...item, state: event.ok ? 'done' : 'failed', result: clip(event.result), durationMs: Math.max(0, Math.round(event.durationMs)) };
        this.put(item.name === SKILL_RUN ? this.finishRun(ended, event.result) : ended);
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
      case 'context':
        // The chat header's meter shows it; the transcript has nothing to add.
        return;
      case 'compaction_start':
        turn.assistantId = undefined;
        turn.compaction = `${turn.id}-c${++turn.parts}`;
        this.put(compactionRunning(turn.compaction, event.reason));
        return;
      case 'compaction':
        this.put(compactionDone(turn.compaction ?? `${turn.id}-c${++turn.parts}`, event.compaction));
        turn.compaction = undefined;
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  /**
   * A workflow step of the skill_run call `callId` started or ended: its nested card is added or
   * updated at once. Without a call id it belongs to the skill_run call still running.
   */
  stepProgress(progress: StepProgress, callId: string | undefined): void {
    const item = this.runningRun(callId);
    if (!item) return;
    const run = this.runs.get(item.id) ?? { started: new Map<string, number>(), hidden: new Set<string>() };
    this.runs.set(item.id, run);
    const now = this.now();
    if (progress.state === 'running') run.started.set(progress.id, now);
    const startedAt = run.started.get(progress.id);
    const step: RunStepView = {
      id: progress.id,
      ...(progress.parent !== undefined ? { parent: progress.parent } : {}),
      skill: progress.skill,
      state: progress.state,
      ...(progress.error !== undefined ? { error: clipError(progress.error) } : {}),
      ...(progress.state !== 'running' && startedAt !== undefined ? { durationMs: Math.max(0, Math.round(now - startedAt)) } : {}),
    };
    const steps = [...(item.steps ?? [])];
    const at = steps.findIndex((known) => known.id === progress.id);
    if (at >= 0) steps[at] = step;
    else if (steps.length < MAX_CARD_STEPS) steps.push(step);
    else run.hidden.add(progress.id);
    this.put({ ...item, steps, ...(run.hidden.size > 0 ? { moreSteps: run.hidden.size } : {}) });
  }

  /** The skill_run card a progress report belongs to: by call id, else the newest one still running. */
  private runningRun(callId: string | undefined): ToolItem | undefined {
    const byCall = callId ? this.byId.get(callId) : undefined;
    if (byCall?.kind === 'tool' && byCall.name === SKILL_RUN) return byCall;
    for (let i = this.order.length - 1; i >= 0; i--) {
      const item = this.byId.get(this.order[i] ?? '');
      if (item?.kind === 'tool' && item.name === SKILL_RUN && item.state === 'running') return item;
    }
    return undefined;
  }

  /**
   * The call returned: its trace id, and the steps as the trace records them (exact times and
   * nesting) or, without the trace at hand (a resumed session), as the result lists them.
   */
  private finishRun(item: ToolItem, result: string): ToolItem {
    const read = readRunResult(result);
    const trace = read.traceId !== undefined ? this.options.traceOf?.(read.traceId) : undefined;
    const live = new Map((item.steps ?? []).map((step) => [step.id, step]));
    this.runs.delete(item.id);
    let steps: RunStepView[] = [];
    if (trace) {
      if (trace.kind === 'workflow') {
        steps = trace.steps.map((step) => ({
          id: step.id,
          ...(step.parent !== undefined ? { parent: step.parent } : {}),
          skill: step.skill,
          state: step.status,
          ...(step.error !== undefined ? { error: clipError(step.error) } : {}),
          durationMs: Math.max(0, Math.round(step.durationMs)),
        }));
      }
    } else if (read.steps) {
      steps = read.steps.map((step) => {
        const seen = live.get(step.id)?.durationMs;
        return seen !== undefined ? { ...step, durationMs: seen } : step;
      });
    } else {
      // No word on how the steps ended (the run was stopped, the result was cut): say so, do not guess success.
      steps = [...live.values()].map((step) => (step.state === 'running' ? { ...step, state: 'failed', error: 'the run ended before this step reported back' } : step));
    }
    const ordered = nestedOrder(steps);
    const shown = ordered.slice(0, MAX_CARD_STEPS);
    const ended: ToolItem = { ...item };
    delete ended.steps;
    delete ended.moreSteps;
    return {
      ...ended,
      ...(shown.length > 0 ? { steps: shown } : {}),
      ...(ordered.length > shown.length ? { moreSteps: ordered.length - shown.length } : {}),
      ...(read.traceId !== undefined ? { traceId: read.traceId } : {}),
    };
  }

  /**
   * Records a thumbs up or down on a finished turn: the skills it loaded or ran, for their usage
   * statistics. A turn is rated once; undefined when the id is not a rateable turn.
   */
  rate(id: string, rating: 1 | -1): string[] | undefined {
    const item = this.byId.get(id);
    if (item?.kind !== 'turn' || item.rating !== undefined) return undefined;
    const skills = [...new Set([...item.loaded, ...(item.ran ?? [])])];
    if (skills.length === 0) return undefined;
    this.put({ ...item, rating });
    return skills;
  }

  /** Compact Conversation between turns: the divider while the summary is written, then its outcome. */
  compactionStarted(id: string): void {
    this.put(compactionRunning(id, 'manual'));
  }

  compactionEnded(id: string, outcome: { ok: true; compaction: CompactionInfo } | { ok: false; error: string } | { ok: false; nothing: true }): void {
    if (outcome.ok) this.put(compactionDone(id, outcome.compaction));
    else if ('error' in outcome) this.put(compactionFailed(id, 'manual', outcome.error));
    else this.drop(id);
  }

  private drop(id: string): void {
    if (!this.byId.delete(id)) return;
    this.order.splice(this.order.indexOf(id), 1);
  }

  /** Marks unanswered approval cards of a finished turn as expired. */
  expirePending(): void {
    for (const item of this.items) if (item.kind === 'approval' && item.state === 'pending') this.approvalAnswered(item.id, 'expired');
  }

  private endTurn(reason: TurnEndReason, error?: { kind: string; message: string; advice: string }): void {
    const turn = this.turn;
    if (!turn) return;
    this.expirePending();
    const divider = turn.compaction ? this.byId.get(turn.compaction) : undefined;
    if (divider?.kind === 'compaction') this.put(compactionFailed(divider.id, divider.reason, reason === 'aborted' ? 'stopped' : (error?.message ?? 'the turn ended first')));
    this.put({
      kind: 'turn',
      id: `${turn.id}-end`,
      reason,
      usage: turn.usage,
      toolCalls: turn.toolCalls,
      offered: turn.offered,
      loaded: [...turn.loaded],
      ...(turn.ran.size > 0 ? { ran: [...turn.ran] } : {}),
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
    const dividers = session.compactions ?? [];
    let divider = 0;
    const putDividers = (before: number) => {
      for (; divider < dividers.length && (dividers[divider]?.messagesBefore ?? Infinity) <= before; divider++) {
        const entry = dividers[divider];
        if (entry) transcript.put(compactionFromRecord(entry.record));
      }
    };
    for (const [index, message] of session.messages.entries()) {
      putDividers(index);
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
    putDividers(Infinity);
    finish();
    return transcript;
  }
}
