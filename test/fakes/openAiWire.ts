import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { FinishReason, OpenAiErrorFields, ScriptedReply } from './scriptedModelScript';
import { isRecord } from './scriptedModelScript';

/**
 * Builds OpenAI wire shapes for the scripted server. Typed against the `openai` package's own
 * response types, so a drift between our fake and the real protocol fails to compile.
 */

export interface ResolvedToolCall {
  id: string;
  name: string;
  /** Exactly what goes on the wire, malformed or not. */
  arguments: string;
}

export interface ReplyEnvelope {
  id: string;
  model: string;
  created: number;
}

const DEFAULT_CHUNK_SIZE = 8;

export function resolveToolCalls(reply: ScriptedReply, nextId: () => string): ResolvedToolCall[] {
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? nextId(),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
}

/**
 * What prompt caching keys on: tools, then messages, as the client serialised them. Tools come
 * first because providers put them ahead of the messages in the cached prefix.
 */
export function promptText(body: { tools?: unknown; messages: unknown }): string {
  return JSON.stringify({ tools: body.tools ?? [], messages: body.messages });
}

/**
 * Default figures: 4 characters per token; cached tokens are the longest common prefix with the
 * recent chat requests' prompt texts (a provider's prefix cache holds several entries, so a
 * summarising request in between does not evict the conversation's prefix), so a byte-identical
 * system prompt shows up as a cache hit and a changed one as a miss. The script's `usage`
 * overrides any figure.
 */
export function computeUsage(
  prompt: string,
  previousPrompts: string | undefined | readonly string[],
  reply: ScriptedReply,
  calls: ResolvedToolCall[],
): CompletionUsage {
  const previous = previousPrompts === undefined ? [] : typeof previousPrompts === 'string' ? [previousPrompts] : previousPrompts;
  const shared = previous.reduce((best, earlier) => Math.max(best, commonPrefixLength(prompt, earlier)), 0);
  const completionChars = (reply.text ?? '').length + calls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const promptTokens = reply.usage?.promptTokens ?? Math.ceil(prompt.length / 4);
  const completionTokens = reply.usage?.completionTokens ?? Math.ceil(completionChars / 4);
  const cachedTokens =
    reply.usage?.cachedTokens ??
    Math.min(promptTokens, Math.floor(shared / 4));
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  };
}

function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function finishReason(reply: ScriptedReply, calls: ResolvedToolCall[]): FinishReason {
  return reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
}

export function completionBody(
  envelope: ReplyEnvelope,
  reply: ScriptedReply,
  calls: ResolvedToolCall[],
  usage: CompletionUsage,
): ChatCompletion {
  const choices: ChatCompletion.Choice[] = reply.emptyChoices
    ? []
    : [
        {
          index: 0,
          finish_reason: finishReason(reply, calls),
          logprobs: null,
          message: {
            role: 'assistant',
            // OpenAI sends null, not '', when the model only calls tools.
            content: reply.text ?? null,
            refusal: null,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: 'function' as const,
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
        },
      ];
  return { ...envelope, object: 'chat.completion', choices, usage };
}

/**
 * The data events of a streamed reply, in OpenAI's order: a role delta, content fragments, each
 * tool call (header delta with id and name and empty arguments, then argument fragments), the
 * finish delta, and, when asked for, a usage-only chunk with `choices: []`.
 */
export function streamChunks(
  envelope: ReplyEnvelope,
  reply: ScriptedReply,
  calls: ResolvedToolCall[],
  usage: CompletionUsage | undefined,
): ChatCompletionChunk[] {
  // With include_usage OpenAI puts `usage: null` on every chunk but the last.
  const chunk = (choices: ChatCompletionChunk.Choice[]): ChatCompletionChunk => ({
    ...envelope,
    object: 'chat.completion.chunk',
    choices,
    ...(usage ? { usage: null } : {}),
  });
  const delta = (d: ChatCompletionChunk.Choice.Delta, finish: FinishReason | null = null): ChatCompletionChunk =>
    chunk([{ index: 0, delta: d, finish_reason: finish, logprobs: null }]);

  const chunks: ChatCompletionChunk[] = [];
  if (reply.emptyChoices) {
    chunks.push(chunk([]));
  } else {
    const size = Math.max(1, reply.chunkSize ?? DEFAULT_CHUNK_SIZE);
    chunks.push(delta({ role: 'assistant', content: '', refusal: null }));
    for (const piece of split(reply.text ?? '', size)) chunks.push(delta({ content: piece }));
    calls.forEach((call, index) => {
      chunks.push(
        delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      );
      for (const piece of split(call.arguments, size)) {
        chunks.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    chunks.push(delta({}, finishReason(reply, calls)));
  }
  if (usage) chunks.push({ ...envelope, object: 'chat.completion.chunk', choices: [], usage });
  return chunks;
}

/** Splits by code point so a fragment never ends inside a surrogate pair. */
function split(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(''));
  return pieces;
}

export function errorBody(error: OpenAiErrorFields): { error: OpenAiErrorFields & { param: null } } {
  return { error: { message: error.message, type: error.type ?? 'invalid_request_error', param: null, code: error.code ?? null } };
}

/**
 * Hashed bag of words: deterministic, dependency-free, and texts sharing words get a positive
 * cosine similarity, which is all search tests need. L2-normalised like OpenAI's vectors.
 */
export function embed(input: string | number[], dimensions: number): number[] {
  const tokens = typeof input === 'string' ? (input.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) : input.map(String);
  const vector = new Array<number>(dimensions).fill(0);
  for (const token of tokens) {
    const hash = fnv1a(token);
    // The top bit picks the sign so unrelated words cancel out instead of all piling up positively.
    const slot = hash % dimensions;
    vector[slot] = (vector[slot] ?? 0) + (hash & 0x80000000 ? -1 : 1);
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm === 0 ? vector : vector.map((x) => x / norm);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The `openai` client asks for base64 unless told otherwise: little-endian float32s. */
function toBase64Floats(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** The /v1/embeddings answer, or undefined when `input` is none of the shapes OpenAI accepts. */
export function embeddingsBody(body: unknown, defaultDimensions: number): unknown {
  const inputs = isRecord(body) ? embeddingInputs(body['input']) : undefined;
  if (!isRecord(body) || inputs === undefined) return undefined;
  const requested = body['dimensions'];
  const dimensions = typeof requested === 'number' && requested > 0 ? requested : defaultDimensions;
  const base64 = body['encoding_format'] === 'base64';
  const tokens = inputs.reduce<number>((n, input) => n + (typeof input === 'string' ? Math.ceil(input.length / 4) : input.length), 0);
  return {
    object: 'list',
    model: typeof body['model'] === 'string' ? body['model'] : 'scripted-embedding',
    data: inputs.map((input, index) => {
      const vector = embed(input, dimensions);
      return { object: 'embedding', index, embedding: base64 ? toBase64Floats(vector) : vector };
    }),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

function embeddingInputs(input: unknown): Array<string | number[]> | undefined {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return undefined;
  if (input.length > 0 && input.every((x) => typeof x === 'number')) return [input as number[]];
  const ok = input.every((x) => typeof x === 'string' || (Array.isArray(x) && x.every((t) => typeof t === 'number')));
  return ok ? (input as Array<string | number[]>) : undefined;
}
