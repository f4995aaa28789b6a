import type { AgentEvent, AgentTurnResult, CompactOutcome, TurnContext } from './agentLoop';
import { runAgentTurn } from './agentLoop';
import type { AgentTool, ApprovalGate } from '../toolkit/agentTool';
import type { ChatMessage, ChatModel, ModelError, ToolSpec } from '../llm/chatTypes';
import type { ContextWindow } from '../llm/contextWindows';
import { windowFromContextError } from '../llm/contextWindows';
import type { TokenCounter } from '../llm/tokenCounter';
import type { PriorCompaction } from '../sessions/compactedHistory';
import type { NewCompaction } from '../sessions/sessionWriter';
import type { CompactionInfo, CompactionReason } from './compactionInfo';
import type { ContextUsage } from './contextUsage';
import { measureContext, thresholdShareOf } from './contextUsage';
import { compactConversation } from './conversationCompactor';
import { withSkillSuggestions } from './systemPrompt';

/** How the session keeps its requests inside the model's context window. */
export interface SessionContextOptions {
  readonly counter: TokenCounter;
  /** Asked before each request, so a changed setting or a newly learned window applies at once. */
  readonly window: () => ContextWindow;
  /** Compact when a request would pass this share of the window (0.8). */
  readonly thresholdShare: number;
  /** Writes the summaries; the chat model when absent. */
  readonly summaryModel?: ChatModel;
  /** The summary model's window, when it is another model with a smaller one. */
  readonly summaryWindow?: () => ContextWindow;
  /** The window a context-length error revealed (from its text, else 3/4 of the estimate): remember it for the model. */
  readonly onWindowLearned?: (tokens: number) => void;
  /** User turns kept verbatim (default 2; fewer when they alone do not fit). */
  readonly keepRecentTurns?: number;
  /** A skill's SKILL.md text, to re-attach it after a compaction (undefined: only a pointer). */
  readonly readSkill?: (name: string) => Promise<string | undefined>;
}

export interface AgentSessionOptions {
  readonly model: ChatModel;
  readonly tools: readonly AgentTool[];
  /** Built once when the session starts and never rebuilt: the cached prefix of every request. */
  readonly systemPrompt: string;
  /** Earlier messages of a resumed session (without the system prompt): `compactedHistory(session).messages`. */
  readonly history?: readonly ChatMessage[];
  /** The compaction `history` starts from (`compactedHistory(session).prior`). */
  readonly priorCompaction?: PriorCompaction;
  readonly approvals?: ApprovalGate;
  readonly maxSteps?: number;
  /** Skills that fit a message, sent after the cached prefix with the message (a Promise for rankers that embed the message). */
  readonly suggest?: (text: string) => readonly { name: string; description: string }[] | Promise<readonly { name: string; description: string }[]>;
  /** Called with each message as soon as it is complete (the session log). */
  readonly onMessage?: (message: ChatMessage) => void;
  /** Without it nothing is measured or compacted. */
  readonly context?: SessionContextOptions;
  /** After each compaction: append `record` to the session log (SessionWriter.appendCompaction), in order with the messages. */
  readonly onCompaction?: (info: CompactionInfo, record: NewCompaction) => void;
}

export const DEFAULT_MAX_STEPS = 25;

export type CompactResponse = { readonly ok: true; readonly compaction: CompactionInfo } | { readonly ok: false; readonly reason: string; readonly error?: ModelError };

/**
 * One conversation: the frozen system prompt, the history, and turns run through the agent loop.
 * The prefix of every request is byte-identical, so a provider's prompt cache keeps hitting; a
 * compaction replaces only messages after the system prompt.
 */
export class AgentSession {
  private readonly messages: ChatMessage[];
  private running = false;
  private prior: PriorCompaction | undefined;
  /** The tools' specs, once: measured before every request. */
  private readonly specs: readonly ToolSpec[];
  /** From the server's context-length error: tighter than the configured window, it wins in this session. */
  private learnedWindow: number | undefined;

  constructor(private readonly options: AgentSessionOptions) {
    this.specs = options.tools.map((tool) => tool.spec);
    this.messages = [{ role: 'system', content: options.systemPrompt }, ...(options.history ?? [])];
    this.prior = options.priorCompaction;
  }

  get history(): readonly ChatMessage[] {
    return this.messages;
  }

  get busy(): boolean {
    return this.running;
  }

  /** What the next request would cost now; undefined without context options. */
  contextUsage(): ContextUsage | undefined {
    return this.options.context ? this.measure(this.messages) : undefined;
  }

  /**
   * Forgets the last user message and everything after it ("edit and resend"). The session log is
   * append-only and keeps them; only what the model sees next changes. A compaction's summary is
   * never dropped.
   */
  dropLastTurn(): void {
    if (this.running) throw new Error('Stop the running turn before editing the last message.');
    const floor = 1 + (this.prior?.replacementMessages ?? 0);
    for (let i = this.messages.length - 1; i >= floor; i--) {
      if (this.messages[i]?.role === 'user') {
        this.messages.splice(i);
        return;
      }
    }
  }

  async send(text: string, turn: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void } = {}): Promise<AgentTurnResult> {
    if (this.running) throw new Error('A turn is already running; stop it or wait for it to finish.');
    this.running = true;
    try {
      const suggestions = (await this.options.suggest?.(text)) ?? [];
      const user: ChatMessage = { role: 'user', content: withSkillSuggestions(text, suggestions) };
      this.messages.push(user);
      this.options.onMessage?.(user);
      const context = this.turnContext();
      const result = await runAgentTurn({
        model: this.options.model,
        messages: this.messages,
        tools: this.options.tools,
        maxSteps: this.options.maxSteps ?? DEFAULT_MAX_STEPS,
        ...(turn.signal ? { signal: turn.signal } : {}),
        ...(this.options.approvals ? { approvals: this.options.approvals } : {}),
        ...(turn.onEvent ? { onEvent: turn.onEvent } : {}),
        ...(context ? { context } : {}),
        onMessage: (message) => {
          this.messages.push(message);
          this.options.onMessage?.(message);
        },
      });
      return result;
    } finally {
      this.running = false;
    }
  }

  /** Compact Conversation (command, chat header, /compact): between turns only. */
  async compact(options: { signal?: AbortSignal; onEvent?: (e: AgentEvent) => void; reason?: 'manual' } = {}): Promise<CompactResponse> {
    if (this.running) return { ok: false, reason: 'A turn is running: compact after it ends, or stop it first.' };
    if (!this.options.context) return { ok: false, reason: 'Compaction is not set up for this session.' };
    this.running = true;
    try {
      const outcome = await this.compactNow(this.messages, options.reason ?? 'manual', options.signal ?? new AbortController().signal, options.onEvent ?? (() => undefined));
      if (outcome.kind === 'failed') return { ok: false, reason: `${outcome.error.message} ${outcome.error.advice}`.trim(), error: outcome.error };
      if (outcome.kind === 'compacted' && outcome.info) return { ok: true, compaction: outcome.info };
      return { ok: false, reason: outcome.kind === 'unchanged' ? capitalise(outcome.reason) : 'Only messages too large for the window were clipped; nothing older to summarise yet.' };
    } finally {
      this.running = false;
    }
  }

  private window(): ContextWindow {
    const configured = this.options.context?.window() ?? { tokens: 0, source: 'default' as const };
    return this.learnedWindow !== undefined && this.learnedWindow < configured.tokens ? { tokens: this.learnedWindow, source: 'learned' } : configured;
  }

  private turnContext(): TurnContext | undefined {
    if (!this.options.context) return undefined;
    return {
      measure: (messages) => this.measure(messages),
      compact: async (messages, reason, signal, emit, cause) => {
        if (reason === 'server' && cause) this.learnFrom(cause, messages);
        return this.compactNow(messages, reason, signal, emit);
      },
    };
  }

  private measure(messages: readonly ChatMessage[]): ContextUsage {
    const context = this.options.context as SessionContextOptions;
    return measureContext({ counter: context.counter, window: this.window(), thresholdShare: context.thresholdShare, messages, tools: this.specs });
  }

  /** The server's figure, or 3/4 of what was about to be sent when its message gives none. */
  private learnFrom(error: ModelError, messages: readonly ChatMessage[]): void {
    const current = this.measure(messages);
    const stated = windowFromContextError(error.message);
    const learned = stated ?? Math.floor(Math.min(current.window, current.total) * 0.75);
    this.learnedWindow = Math.min(learned, this.learnedWindow ?? Number.POSITIVE_INFINITY);
    this.options.context?.onWindowLearned?.(this.learnedWindow);
  }

  private async compactNow(messages: readonly ChatMessage[], reason: CompactionReason, signal: AbortSignal, emit: (event: AgentEvent) => void): Promise<CompactOutcome> {
    const context = this.options.context as SessionContextOptions;
    const result = await compactConversation({
      messages,
      tools: this.specs,
      counter: context.counter,
      window: this.window().tokens,
      thresholdShare: thresholdShareOf(context.thresholdShare),
      model: context.summaryModel ?? this.options.model,
      reason,
      ...(context.summaryWindow ? { summaryWindow: context.summaryWindow().tokens } : {}),
      ...(context.keepRecentTurns !== undefined ? { keepRecentTurns: context.keepRecentTurns } : {}),
      ...(this.prior ? { prior: this.prior } : {}),
      ...(context.readSkill ? { readSkill: context.readSkill } : {}),
      signal,
      onStart: () => emit({ type: 'compaction_start', reason }),
    });
    if (result.kind === 'failed') return { kind: 'failed', error: result.error };
    if (result.kind === 'unchanged') return { kind: 'unchanged', reason: result.reason };
    // The system prompt is the same object: the bytes before the first conversation message never change.
    this.messages.splice(0, this.messages.length, ...result.messages);
    if (result.kind === 'compacted') {
      this.prior = result.prior;
      emit({ type: 'compaction', compaction: result.info });
      this.options.onCompaction?.(result.info, result.record);
      return { kind: 'compacted', messages: result.messages, info: result.info };
    }
    return { kind: 'compacted', messages: result.messages };
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');
}
