import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ReplyEnvelope } from './openAiWire';
import {
  completionBody,
  computeUsage,
  embeddingsBody,
  errorBody,
  promptText,
  resolveToolCalls,
  streamChunks,
} from './openAiWire';
import type { ChatRequestBody, OpenAiErrorFields, ScriptedReply, TurnMatcher } from './scriptedModelScript';
import { Script, describeLastMessage, isRecord } from './scriptedModelScript';

export type { ChatRequestBody, Fault, FinishReason, ScriptedReply, ScriptedToolCall } from './scriptedModelScript';
export type { TextMatcher, TurnMatcher, UsageOverride } from './scriptedModelScript';
export { faults } from './scriptedModelScript';

/**
 * An OpenAI-compatible model on 127.0.0.1 that answers from a script, for tests on a machine
 * without internet (TESTING.md §3). The real `openai` client talks to it like to any provider:
 *
 *   const server = await ScriptedModelServer.start();
 *   server
 *     .on({ user: 'fix the bug' }, faults.rateLimit(1), { toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } }] })
 *     .on({ toolResult: { toolCallId: 'c1' } }, { text: 'Fixed.' });
 *   const openai = new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries: 1 });
 *   // ... run the agent, then assert on server.chatRequests / server.pendingScript(); finally:
 *   await server.close();
 */

/** `error.code` of the answer to a chat request no script rule or queued reply matched. */
export const NO_SCRIPT_MATCHED = 'no_script_matched';

export interface ScriptedModelServerOptions {
  /** Ids listed by GET /v1/models. */
  models?: string[];
  /** Embedding length when the request does not ask for `dimensions`; default 64. */
  embeddingDimensions?: number;
  /**
   * Answer to an unmatched chat request. Default `'error'`: HTTP 500 with `x-should-retry: false`
   * (so the client fails at once instead of retrying a script gap) and code NO_SCRIPT_MATCHED.
   */
  unmatched?: 'error' | ScriptedReply;
  /**
   * Plays a model with this small a context window: GET /v1/models lists it as `context_length`
   * and `max_model_len` (OpenRouter's and vLLM's fields), and a chat request whose prompt is longer
   * (prompt tokens estimated as openAiWire.computeUsage does: the JSON of tools and messages / 4)
   * is answered with OpenAI's 400 `context_length_exceeded`, before any script rule is used.
   */
  contextWindow?: number;
}

export interface RecordedRequest {
  method: string;
  /** Without the query string. */
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON, or undefined when the body was empty or not JSON. */
  body: unknown;
  /** A chat request that no script matched (see NO_SCRIPT_MATCHED). */
  unmatched: boolean;
  /** A chat request refused as longer than `contextWindow`. */
  tooLong?: boolean;
  /**
   * `closed-early`: the connection closed before the response was complete, because the client
   * left (Stop, timeout), a cut fault, or close(). A hung request stays `open` until then.
   */
  state: 'open' | 'completed' | 'closed-early';
}

const CHAT_PATH = '/v1/chat/completions';
/** How many recent prompts the simulated prefix cache remembers. */
const PROMPT_CACHE_ENTRIES = 8;

export class ScriptedModelServer {
  private readonly script = new Script();
  private readonly recorded: RecordedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  /** Aborted by close(), so pending delays end and no timer outlives the server. */
  private readonly lifetime = new AbortController();
  /** The prompt-cache entries: recent processed prompts, newest last. */
  private readonly recentPrompts: string[] = [];
  private replyCount = 0;
  private toolCallCount = 0;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: http.Server,
    private readonly options: ScriptedModelServerOptions,
    readonly baseUrl: string,
  ) {}

  static async start(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const fake = new ScriptedModelServer(server, options, `http://127.0.0.1:${port}/v1`);
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.once('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req, res) => fake.receive(req, res));
    return fake;
  }

  /** Replies are played one per matching request, in order; a used-up rule stops matching. */
  on(matcher: TurnMatcher, ...replies: ScriptedReply[]): this {
    this.script.on(matcher, replies);
    return this;
  }

  /** A rule that never gets used up, e.g. a provider that is down for the whole test. */
  always(matcher: TurnMatcher, reply: ScriptedReply): this {
    this.script.always(matcher, reply);
    return this;
  }

  /** Fallback replies, played in order for requests no rule matches. */
  enqueue(...replies: ScriptedReply[]): this {
    this.script.enqueue(replies);
    return this;
  }

  /** Descriptions of replies not played yet; `[]` once the whole script ran. */
  pendingScript(): string[] {
    return this.script.pending();
  }

  /** Every request received, in arrival order. */
  get requests(): readonly RecordedRequest[] {
    return this.recorded;
  }

  /** Bodies of the chat completion requests, in arrival order, retries included. */
  get chatRequests(): ChatRequestBody[] {
    return this.recorded
      .filter((r) => r.method === 'POST' && r.path === CHAT_PATH && isChatBody(r.body))
      .map((r) => r.body as ChatRequestBody);
  }

  /** Forgets script, recordings and the prompt-cache baseline, for a server shared across tests. */
  reset(): void {
    this.script.clear();
    this.recorded.length = 0;
    this.recentPrompts.length = 0;
  }

  /** Stops listening and destroys every socket, hung ones included, so the process can exit. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.lifetime.abort();
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
      // A response learns of its socket's end only some loop turns later; settle `state` now.
      for (const record of this.recorded) if (record.state === 'open') record.state = 'closed-early';
    });
    return this.closing;
  }

  private receive(req: http.IncomingMessage, res: http.ServerResponse): void {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const rawBody = Buffer.concat(parts).toString('utf8');
      const record: RecordedRequest = {
        method: req.method ?? '',
        // split always returns at least one piece; '' only satisfies the type checker.
        path: (req.url ?? '').split('?')[0] ?? '',
        headers: req.headers,
        rawBody,
        body: parseJson(rawBody),
        unmatched: false,
        state: 'open',
      };
      this.recorded.push(record);
      // 'close' follows 'finish' on a complete response, so only an unfinished one counts as early.
      res.once('close', () => (record.state = res.writableFinished ? 'completed' : 'closed-early'));
      this.route(record, res).catch((err: unknown) => {
        if (!res.headersSent) sendError(res, 500, { message: `ScriptedModelServer crashed: ${String(err)}`, type: 'server_error' });
        else res.destroy();
      });
    });
  }

  private async route(record: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const route = `${record.method} ${record.path}`;
    if (route === `POST ${CHAT_PATH}`) return this.chat(record, res);
    if (route === 'POST /v1/embeddings') return this.embeddings(record, res);
    if (route === 'GET /v1/models') {
      const ids = this.options.models ?? ['scripted-model', 'scripted-embedding'];
      const window = this.options.contextWindow;
      const sizes = window === undefined ? {} : { context_length: window, max_model_len: window };
      return sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted', ...sizes })) });
    }
    sendError(res, 404, { message: `ScriptedModelServer: no route for ${route}`, code: 'unknown_url' });
  }

  private async chat(record: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const body = record.body;
    if (!isChatBody(body)) return sendError(res, 400, { message: 'ScriptedModelServer: body needs a `messages` array' });

    const window = this.options.contextWindow;
    const promptTokens = Math.ceil(promptText(body).length / 4);
    if (window !== undefined && promptTokens > window) {
      record.tooLong = true;
      const message = `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`;
      return sendError(res, 400, { message, type: 'invalid_request_error', code: 'context_length_exceeded' });
    }

    const unmatched = this.options.unmatched ?? 'error';
    const reply = this.script.next(body) ?? (unmatched === 'error' ? undefined : unmatched);
    if (reply === undefined) {
      record.unmatched = true;
      const message = `ScriptedModelServer: no script matched the request (last message: ${describeLastMessage(body)})`;
      return sendError(res, 500, { message, type: 'server_error', code: NO_SCRIPT_MATCHED }, { 'x-should-retry': 'false' });
    }

    const signal = abortedWhenGone(res, this.lifetime.signal);
    if (reply.delayMs && !(await sleep(reply.delayMs, signal))) return;
    const fault = reply.fault;
    if (fault?.kind === 'http') return sendError(res, fault.status, fault.error, fault.headers);

    // Only a request the "model" actually processed moves the prompt-cache baseline; a 429 does not.
    const prompt = promptText(body);
    const previous = [...this.recentPrompts];
    this.recentPrompts.push(prompt);
    if (this.recentPrompts.length > PROMPT_CACHE_ENTRIES) this.recentPrompts.shift();
    const calls = resolveToolCalls(reply, () => `call_${++this.toolCallCount}`);
    const usage = computeUsage(prompt, previous, reply, calls);
    const envelope: ReplyEnvelope = {
      id: `chatcmpl-scripted-${++this.replyCount}`,
      model: body.model,
      created: Math.floor(Date.now() / 1000),
    };

    // Without afterChunks not even headers go out, so the client's own timeout is what fires.
    if (fault?.kind === 'hang' && (fault.afterChunks === undefined || body.stream !== true)) return;
    if (body.stream !== true) {
      if (fault?.kind === 'cut') return void res.socket?.destroy();
      return sendJson(res, 200, completionBody(envelope, reply, calls, usage));
    }

    const chunks = streamChunks(envelope, reply, calls, body.stream_options?.include_usage ? usage : undefined);
    const limit = fault === undefined ? chunks.length : Math.min(fault.afterChunks ?? 0, chunks.length);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders(); // the client must see headers before a hang, or its timeout fires instead
    for (let i = 0; i < limit; i++) {
      if (i > 0 && reply.chunkDelayMs && !(await sleep(reply.chunkDelayMs, signal))) return;
      if (signal.aborted) return;
      await write(res, `data: ${JSON.stringify(chunks[i])}\n\n`);
    }
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'cut' && fault.mode === 'destroy') return void res.socket?.destroy();
    if (fault?.kind !== 'cut') res.write('data: [DONE]\n\n');
    res.end();
  }

  private embeddings(record: RecordedRequest, res: http.ServerResponse): void {
    const payload = embeddingsBody(record.body, this.options.embeddingDimensions ?? 64);
    if (payload === undefined) {
      return sendError(res, 400, { message: 'ScriptedModelServer: `input` must be a string, strings or token arrays' });
    }
    sendJson(res, 200, payload);
  }
}

function isChatBody(body: unknown): body is ChatRequestBody {
  return isRecord(body) && Array.isArray(body['messages']);
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}

function sendError(res: http.ServerResponse, status: number, error: OpenAiErrorFields, headers?: Record<string, string>): void {
  sendJson(res, status, errorBody(error), headers);
}

/** Resolves once the data is handed to the socket, so a cut right after it does not swallow it. */
function write(res: http.ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => res.write(data, () => resolve()));
}

/** Aborts when the client goes away mid-answer (Stop) or the server closes. */
function abortedWhenGone(res: http.ServerResponse, lifetime: AbortSignal): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  if (lifetime.aborted) controller.abort();
  else lifetime.addEventListener('abort', () => controller.abort(), { once: true, signal: controller.signal });
  return controller.signal;
}

/** True when the time passed, false when aborted first; never leaves a timer behind. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
