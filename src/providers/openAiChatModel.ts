import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Stream } from 'openai/streaming';
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  FinishReason,
  ModelEvent,
  TokenUsage,
  ToolCall,
  ToolSpec,
} from '../core/llm/chatTypes';
import { ModelError } from '../core/llm/chatTypes';
import type { Logger } from '../core/base/logger';
import { nullLogger } from '../core/base/logger';
import type { ModelErrorContext } from './modelErrors';
import { abortedError, checkBaseUrl, displayUrl, timeoutError, toModelError } from './modelErrors';
import { presetForBaseUrl } from './modelPresets';

/** Where an OpenAI-compatible server is and how to talk to it. */
export interface OpenAiEndpoint {
  readonly baseUrl: string;
  /** From SecretStorage or OPENAI_API_KEY; local servers (Ollama, LM Studio) need none. */
  readonly apiKey?: string;
  /** Extra headers for every request, e.g. for a gateway in front of the API. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Until response headers arrive, and the longest silence allowed between streamed chunks. */
  readonly timeoutMs?: number;
}

export interface OpenAiChatModelOptions extends OpenAiEndpoint {
  readonly model: string;
  /** Retries after 408/409/429/5xx and connection failures, honouring `retry-after`; default 2. */
  readonly maxRetries?: number;
  readonly logger?: Logger;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 2;

/**
 * Given to the client when no key is configured: it refuses to start without one, and without an
 * explicit value it would quietly pick up OPENAI_API_KEY, which is the host's decision. It never
 * goes on the wire: the Authorization header is removed instead.
 */
const NO_KEY = 'no-key-configured';

/** A ChatModel on any OpenAI-compatible chat completions endpoint (OpenAI, Azure, OpenRouter, Ollama, …). */
export class OpenAiChatModel implements ChatModel {
  readonly id: string;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private client: OpenAI | undefined;

  constructor(private readonly options: OpenAiChatModelOptions) {
    this.id = `openai:${options.model}`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.logger = options.logger ?? nullLogger;
  }

  async *stream(request: ChatRequest): AsyncGenerator<ModelEvent> {
    const { signal } = request;
    const context: ModelErrorContext = {
      baseUrl: this.options.baseUrl,
      model: this.options.model,
      apiKey: this.options.apiKey,
      timeoutMs: this.timeoutMs,
    };
    const urlProblem = checkBaseUrl(this.options.baseUrl);
    if (urlProblem) throw urlProblem;
    if (signal?.aborted) throw abortedError();

    const body = requestBody(this.options, request);
    this.logger.debug(
      `chat request to ${displayUrl(this.options.baseUrl)}: model ${this.options.model}, ${request.messages.length} messages, ${request.tools?.length ?? 0} tools`,
    );

    let stream: Stream<ChatCompletionChunk>;
    try {
      stream = await untilAborted(this.openAi().chat.completions.create(body, { signal }), signal);
    } catch (error) {
      throw this.failure(error, context, signal);
    }

    const reply = new ReplyAssembler();
    // The client's timeout stops at the response headers; a stream that goes silent needs its own.
    const idle = new IdleTimer(this.timeoutMs, () => stream.controller.abort());
    try {
      idle.start();
      for await (const chunk of stream) {
        idle.stop();
        const delta = reply.add(chunk);
        if (delta !== '') yield { type: 'text', delta };
        idle.start();
      }
    } catch (error) {
      throw this.failure(error, { ...context, midStream: true }, signal, idle.fired);
    } finally {
      idle.stop();
    }
    // Aborting the stream's controller ends the iteration quietly instead of throwing.
    if (signal?.aborted || idle.fired) throw this.failure(undefined, { ...context, midStream: true }, signal, idle.fired);

    if (!reply.sawChoice) {
      if (reply.usage) yield { type: 'usage', usage: reply.usage };
      throw this.logged(
        new ModelError(
          'no_choices',
          `The model "${this.options.model}" at ${displayUrl(this.options.baseUrl)} sent a reply with no choices.`,
          'The reply may have been filtered or the model failed quietly; rephrase the message or try another model.',
        ),
      );
    }
    if (reply.finishReason === undefined && reply.usage === undefined) {
      // Text came, then the stream simply ended: a proxy or server gave up mid-reply.
      throw this.logged(
        new ModelError(
          'connection',
          `The reply from ${displayUrl(this.options.baseUrl)} ended before the model finished.`,
          'The partial reply was kept; try again, and check the server or any proxy in between if it keeps happening.',
        ),
      );
    }
    const calls = reply.toolCalls();
    for (const call of calls) yield { type: 'tool_call', call };
    if (reply.usage) yield { type: 'usage', usage: reply.usage };
    const finishReason = mapFinishReason(reply.finishReason, calls.length > 0);
    this.logger.debug(`chat reply done: ${finishReason}, ${calls.length} tool calls`);
    yield { type: 'done', finishReason };
  }

  private openAi(): OpenAI {
    this.client ??= createOpenAiClient(this.options, {
      timeoutMs: this.timeoutMs,
      maxRetries: this.options.maxRetries ?? DEFAULT_MAX_RETRIES,
      logger: this.logger,
    });
    return this.client;
  }

  private failure(error: unknown, context: ModelErrorContext, signal: AbortSignal | undefined, idleFired = false): ModelError {
    if (signal?.aborted) {
      this.logger.debug('chat request stopped by the caller');
      return abortedError();
    }
    return this.logged(idleFired ? timeoutError(context) : toModelError(error, context));
  }

  private logged(error: ModelError): ModelError {
    this.logger.warn(`model request failed (${error.kind}${error.status ? ` ${error.status}` : ''}): ${error.message}`);
    return error;
  }
}

/** One configured `openai` client; also used by listModels and testConnection. */
export function createOpenAiClient(
  endpoint: OpenAiEndpoint,
  settings: { timeoutMs: number; maxRetries: number; logger?: Logger },
): OpenAI {
  const apiKey = endpoint.apiKey?.trim() || undefined;
  const headers: Record<string, string | null> = { ...endpoint.headers };
  // Azure OpenAI authenticates keys through its own header; the bearer header is for Entra tokens.
  if (apiKey && presetForBaseUrl(endpoint.baseUrl)?.id === 'azure' && !hasHeader(headers, 'api-key')) {
    headers['api-key'] = apiKey;
  }
  // Without a key, send no Authorization at all rather than the placeholder (null removes it).
  if (!apiKey && !hasHeader(headers, 'authorization')) headers['Authorization'] = null;
  const logger = settings.logger ?? nullLogger;
  return new OpenAI({
    baseURL: endpoint.baseUrl.trim(),
    apiKey: apiKey ?? NO_KEY,
    // Explicit nulls keep the client from reading OPENAI_ORG_ID etc. behind the host's back.
    organization: null,
    project: null,
    adminAPIKey: null,
    defaultHeaders: headers,
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    logLevel: 'info',
    // The client's own lines (retries, status) go to our log one level lower; it redacts auth headers.
    logger: {
      debug: (message: string, ...args: unknown[]) => logger.trace(`openai: ${message}`, ...args),
      info: (message: string) => logger.debug(`openai: ${message}`),
      warn: (message: string) => logger.warn(`openai: ${message}`),
      error: (message: string) => logger.error(`openai: ${message}`),
    },
  });
}

function hasHeader(headers: Record<string, string | null>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

/** The chat completions body for a request; exported for tests of the exact wire shape. */
export function requestBody(
  options: Pick<OpenAiChatModelOptions, 'model' | 'baseUrl'>,
  request: ChatRequest,
): ChatCompletionCreateParamsStreaming {
  const tools = request.tools ?? [];
  const body: ChatCompletionCreateParamsStreaming = {
    model: options.model,
    messages: request.messages.map(toOpenAiMessage),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (tools.length > 0) {
    body.tools = tools.map(toOpenAiTool);
    body.parallel_tool_calls = true;
  }
  if (request.maxOutputTokens !== undefined) {
    // OpenAI's newer models refuse max_tokens; most other servers only know max_tokens.
    const preset = presetForBaseUrl(options.baseUrl)?.id;
    if (preset === 'openai' || preset === 'azure') body.max_completion_tokens = request.maxOutputTokens;
    else body.max_tokens = request.maxOutputTokens;
  }
  return body;
}

export function toOpenAiMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // OpenAI's own shape for a reply that only calls tools; some servers reject "" next to tool_calls.
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
  }
}

function toOpenAiTool(tool: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function mapFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  // Some local servers say "stop" even when the reply is a tool call; the calls are what matter.
  if (hasToolCalls && (reason === undefined || reason === 'stop')) return 'tool_calls';
  switch (reason) {
    case 'stop':
    case 'length':
    case 'content_filter':
    case 'tool_calls':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** Collects a streamed reply: text, tool calls by `index`, finish reason and usage. */
class ReplyAssembler {
  sawChoice = false;
  finishReason: string | undefined;
  usage: TokenUsage | undefined;
  private readonly calls = new Map<number, PartialCall>();
  private lastIndex = -1;

  /** Returns the text delta of this chunk ('' when none). */
  add(chunk: ChatCompletionChunk): string {
    if (chunk.usage) this.usage = readUsage(chunk.usage);
    let text = '';
    for (const choice of chunk.choices ?? []) {
      // We never ask for n > 1; a server that sends other choices anyway is ignored for them.
      if ((choice.index ?? 0) !== 0) continue;
      this.sawChoice = true;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') text += delta.content;
      for (const part of delta.tool_calls ?? []) this.addCallPart(part);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return text;
  }

  private addCallPart(part: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const index = typeof part.index === 'number' ? part.index : this.guessIndex(part.id);
    this.lastIndex = index;
    let call = this.calls.get(index);
    if (call === undefined) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(index, call);
    }
    if (part.id && call.id === '') call.id = part.id;
    const name = part.function?.name;
    // OpenAI sends the whole name once; some servers repeat it on every delta, a few send pieces.
    if (name && name !== call.name) call.name += name;
    if (part.function?.arguments) call.arguments += part.function.arguments;
  }

  /** For servers that leave out `index`: a new id starts a new call, otherwise it continues the last. */
  private guessIndex(id: string | undefined): number {
    const last = this.calls.get(this.lastIndex);
    if (last === undefined || (id !== undefined && id !== '' && last.id !== '' && id !== last.id)) return this.calls.size;
    return this.lastIndex;
  }

  toolCalls(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({
        // A few local servers send no id; the tool result still needs one to refer to.
        id: call.id || `call_${index}_${Date.now().toString(36)}`,
        name: call.name,
        arguments: call.arguments,
      }));
  }
}

function readUsage(usage: CompletionUsage): TokenUsage {
  // DeepSeek reports cache hits under its own name.
  const deepSeekHits = (usage as { prompt_cache_hit_tokens?: unknown }).prompt_cache_hit_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? (typeof deepSeekHits === 'number' ? deepSeekHits : 0);
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    cachedTokens: cached ?? 0,
  };
}

/**
 * Resolves like `promise`, but rejects as soon as `signal` aborts: the client sleeps through
 * `retry-after` without looking at the signal, and Stop must not wait for that.
 */
function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return Promise.resolve(promise);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

class IdleTimer {
  fired = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  start(): void {
    this.stop();
    this.timer = setTimeout(() => {
      this.fired = true;
      this.onIdle();
    }, this.ms);
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
