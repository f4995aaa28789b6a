import type {
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

/**
 * The script of a ScriptedModelServer: which reply answers which chat request.
 * Kept apart from the HTTP code so the matching rules can be read (and reasoned about) on their own.
 */

/** The request body as the real `openai` client sends it; only `messages` is validated on arrival. */
export type ChatRequestBody = ChatCompletionCreateParams;

/** Substring match for strings (prompts often get wrapped with context), else RegExp or predicate. */
export type TextMatcher = string | RegExp | ((text: string) => boolean);

/**
 * What a rule looks at. `user` and `toolResult` only ever look at the LAST message of the request,
 * so a rule cannot accidentally fire again for a later turn that merely contains the same message.
 */
export type TurnMatcher =
  | { user: TextMatcher }
  | { toolResult: { toolCallId?: string; content?: TextMatcher } }
  | { request: (body: ChatRequestBody) => boolean };

export interface ScriptedToolCall {
  /** Defaults to `call_<n>`, unique per server, so the agent's tool results can be matched back. */
  id?: string;
  /** Any name: an unknown tool is just a name the agent did not offer. */
  name: string;
  /** A string is sent verbatim, which is how malformed JSON is scripted; anything else is JSON-encoded. */
  arguments: string | Record<string, unknown>;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** Replaces the computed token figures (see openAiWire.computeUsage for the defaults). */
export interface UsageOverride {
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
}

export interface OpenAiErrorFields {
  message: string;
  type?: string;
  code?: string | null;
}

export type Fault =
  /** A non-2xx answer with an OpenAI-style `{ error }` body. */
  | { kind: 'http'; status: number; error: OpenAiErrorFields; headers?: Record<string, string> }
  /**
   * Streams `afterChunks` data events, then either destroys the socket (`destroy`, like a dropped
   * connection) or ends the response cleanly without `[DONE]` (`end`, like a proxy that gives up).
   * On a non-streaming request the socket is destroyed before any response.
   */
  | { kind: 'cut'; afterChunks: number; mode: 'destroy' | 'end' }
  /**
   * Goes silent until the client leaves or close(). Without `afterChunks` nothing is sent, not even
   * headers (the client's request timeout fires); with it a stream sends headers and that many
   * events first (only an abort ends it, as the client's timeout stops counting at the headers).
   */
  | { kind: 'hang'; afterChunks?: number };

export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: FinishReason;
  /** Answer with `choices: []` (some gateways do this on content filtering). */
  emptyChoices?: boolean;
  usage?: UsageOverride;
  fault?: Fault;
  /** Wait before sending anything, e.g. to press Stop while the model "thinks". */
  delayMs?: number;
  /** Wait between stream events, e.g. to press Stop mid-answer. */
  chunkDelayMs?: number;
  /** Characters per streamed content / arguments fragment; default 8, so most args span chunks. */
  chunkSize?: number;
}

/** Reply builders for the faults, so a test reads as `server.on(m, faults.rateLimit(1), { text })`. */
export const faults = {
  rateLimit(retryAfterSeconds: number, message = 'Rate limit reached (scripted).'): ScriptedReply {
    return {
      fault: {
        kind: 'http',
        status: 429,
        headers: { 'retry-after': String(retryAfterSeconds) },
        error: { message, type: 'requests', code: 'rate_limit_exceeded' },
      },
    };
  },
  serverError(message = 'The server had an error while processing your request (scripted).'): ScriptedReply {
    return { fault: { kind: 'http', status: 500, error: { message, type: 'server_error', code: null } } };
  },
  unauthorized(message = 'Incorrect API key provided (scripted).'): ScriptedReply {
    return {
      fault: { kind: 'http', status: 401, error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } },
    };
  },
  http(status: number, error: OpenAiErrorFields, headers?: Record<string, string>): ScriptedReply {
    return { fault: { kind: 'http', status, error, headers } };
  },
  /** `content` is what would have been streamed had the connection survived. */
  cutStream(afterChunks: number, content: ScriptedReply, mode: 'destroy' | 'end' = 'destroy'): ScriptedReply {
    return { ...content, fault: { kind: 'cut', afterChunks, mode } };
  },
  hang(afterChunks?: number, content: ScriptedReply = {}): ScriptedReply {
    return { ...content, fault: { kind: 'hang', afterChunks } };
  },
};

interface Rule {
  matcher: TurnMatcher;
  replies: ScriptedReply[];
  /** `always` rules keep their single reply instead of being used up. */
  sticky: boolean;
}

export class Script {
  private readonly rules: Rule[] = [];
  private readonly queue: ScriptedReply[] = [];

  /** Replies are used one per matching request, in order; once used up the rule stops matching. */
  on(matcher: TurnMatcher, replies: ScriptedReply[]): void {
    if (replies.length === 0) throw new Error('Script.on: give at least one reply');
    this.rules.push({ matcher, replies: [...replies], sticky: false });
  }

  always(matcher: TurnMatcher, reply: ScriptedReply): void {
    this.rules.push({ matcher, replies: [reply], sticky: true });
  }

  /** Fallback replies, used in order by requests no rule matches. */
  enqueue(replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  /** Rules win over the queue, earlier rules over later ones. */
  next(body: ChatRequestBody): ScriptedReply | undefined {
    for (const rule of this.rules) {
      if (rule.replies.length === 0 || !matches(rule.matcher, body)) continue;
      return rule.sticky ? rule.replies[0] : rule.replies.shift();
    }
    return this.queue.shift();
  }

  /** Unused non-sticky replies, described, so a test can assert the whole script was played. */
  pending(): string[] {
    const left = this.rules
      .filter((rule) => !rule.sticky && rule.replies.length > 0)
      .map((rule) => `${describeMatcher(rule.matcher)}: ${rule.replies.length} unused repl${rule.replies.length === 1 ? 'y' : 'ies'}`);
    if (this.queue.length > 0) left.push(`queue: ${this.queue.length} unused repl${this.queue.length === 1 ? 'y' : 'ies'}`);
    return left;
  }

  clear(): void {
    this.rules.length = 0;
    this.queue.length = 0;
  }
}

function matches(matcher: TurnMatcher, body: ChatRequestBody): boolean {
  if ('request' in matcher) return matcher.request(body);
  const last = body.messages[body.messages.length - 1];
  if (last === undefined) return false;
  if ('user' in matcher) return last.role === 'user' && matchText(matcher.user, messageText(last));
  if (last.role !== 'tool') return false;
  const { toolCallId, content } = matcher.toolResult;
  if (toolCallId !== undefined && last.tool_call_id !== toolCallId) return false;
  return content === undefined || matchText(content, messageText(last));
}

function matchText(matcher: TextMatcher, text: string): boolean {
  if (typeof matcher === 'string') return text.includes(matcher);
  if (matcher instanceof RegExp) {
    // A /g or /y RegExp keeps lastIndex between calls, which would make matching order-dependent.
    matcher.lastIndex = 0;
    return matcher.test(text);
  }
  return matcher(text);
}

/** Content may be a string or an array of parts; only text parts carry what tests match on. */
export function messageText(message: ChatCompletionMessageParam): string {
  const content: unknown = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

export function describeLastMessage(body: ChatRequestBody): string {
  const last = body.messages[body.messages.length - 1];
  if (last === undefined) return 'no messages';
  const text = messageText(last);
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  const id = last.role === 'tool' ? ` ${last.tool_call_id}` : '';
  return `${last.role}${id} ${JSON.stringify(shown)}`;
}

function describeMatcher(matcher: TurnMatcher): string {
  if ('request' in matcher) return 'request predicate';
  if ('user' in matcher) return `user ${describeText(matcher.user)}`;
  const { toolCallId, content } = matcher.toolResult;
  return `tool result${toolCallId === undefined ? '' : ` ${toolCallId}`}${content === undefined ? '' : ` ${describeText(content)}`}`;
}

function describeText(matcher: TextMatcher): string {
  if (typeof matcher === 'string') return JSON.stringify(matcher);
  return matcher instanceof RegExp ? String(matcher) : 'predicate';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
