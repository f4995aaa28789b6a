import type { ChatMessage, ToolSpec } from '../llm/chatTypes';
import type { ContextWindow, ContextWindowSource } from '../llm/contextWindows';
import type { TokenCounter } from '../llm/tokenCounter';

/** What the next request costs, part by part (the chat header's context meter shows it). */
export interface ContextUsage {
  readonly window: number;
  readonly windowSource: ContextWindowSource;
  /** Tokens at which the conversation is compacted before the request goes out. */
  readonly threshold: number;
  readonly system: number;
  readonly tools: number;
  readonly conversation: number;
  readonly total: number;
  /** Counted by the model's own tokenizer (else an estimate). */
  readonly exact: boolean;
}

export const DEFAULT_THRESHOLD_SHARE = 0.8;

/** A share outside (0, 1] (a typo in the setting) falls back to the default rather than compacting on every request. */
export function thresholdShareOf(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= 1 ? value : DEFAULT_THRESHOLD_SHARE;
}

/** Measures a request: `messages` starts with the system prompt, as the agent loop sends it. */
export function measureContext(input: {
  readonly counter: TokenCounter;
  readonly window: ContextWindow;
  readonly thresholdShare: number;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
}): ContextUsage {
  const { counter, messages } = input;
  const limit = input.window;
  const first = messages[0];
  const hasSystem = first?.role === 'system';
  const all = counter.countMessages(messages);
  const system = hasSystem ? counter.countMessages([first]) : 0;
  const tools = counter.countTools(input.tools);
  const conversation = Math.max(0, all - system);
  return {
    window: limit.tokens,
    windowSource: limit.source,
    threshold: Math.floor(limit.tokens * thresholdShareOf(input.thresholdShare)),
    system,
    tools,
    conversation,
    total: system + tools + conversation,
    exact: counter.exact,
  };
}
