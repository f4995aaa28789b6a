/**
 * Provider-neutral chat types. Core's agent loop speaks only these; src/providers adapts real back
 * ends (OpenAI-compatible endpoints, the VS Code Language Model API) to ChatModel.
 */

export interface ToolCall {
  /** Provider's id for the call; tool results refer to it. */
  readonly id: string;
  readonly name: string;
  /** The raw JSON text the model produced: it may be malformed, and the loop must cope. */
  readonly arguments: string;
}

export type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

/** A tool offered to the model (OpenAI function-calling shape, provider-neutral). */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON schema of the arguments object. */
  readonly parameters: Record<string, unknown>;
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens served from the provider's prompt cache. */
  readonly cachedTokens: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/** What a streaming model reply yields, in order: text deltas, then complete tool calls, usage, done. */
export type ModelEvent =
  | { readonly type: 'text'; readonly delta: string }
  | { readonly type: 'tool_call'; readonly call: ToolCall }
  | { readonly type: 'usage'; readonly usage: TokenUsage }
  | { readonly type: 'done'; readonly finishReason: FinishReason };

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  /** Aborting it cancels the HTTP request and ends the stream with a ModelError of kind `aborted`. */
  readonly signal?: AbortSignal;
  readonly maxOutputTokens?: number;
}

export interface ChatModel {
  /** e.g. `openai:gpt-4.1-mini` or `vscode-lm:copilot/gpt-4o`. */
  readonly id: string;
  /** The context window the provider itself reports (VS Code's language models do), when it does. */
  readonly maxInputTokens?: number | undefined;
  stream(request: ChatRequest): AsyncIterable<ModelEvent>;
}

export type ModelErrorKind =
  | 'auth'
  | 'not_found'
  | 'rate_limit'
  | 'server'
  | 'connection'
  | 'timeout'
  | 'no_choices'
  | 'bad_request'
  /** The prompt is longer than the model's context window (the agent compacts and retries once). */
  | 'context_length'
  | 'aborted'
  | 'unknown';

/** A failed model call with advice a person can act on (shown on the panel's error card). */
export class ModelError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    /** One sentence: what to do about it. */
    readonly advice: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
