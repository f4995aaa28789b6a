import { APIError } from 'openai';
import { ModelError } from '../core/llm/chatTypes';
import type { Logger } from '../core/base/logger';
import { checkBaseUrl, displayUrl, toModelError } from './modelErrors';
import type { OpenAiEndpoint } from './openAiChatModel';
import { createOpenAiClient } from './openAiChatModel';

/** Listing models is a quick-pick step; a person is waiting, so fail fast instead of retrying. */
export const LIST_MODELS_TIMEOUT_MS = 10_000;
/** Long enough for a local server that loads the model on the first request. */
export const TEST_CONNECTION_TIMEOUT_MS = 30_000;
const TEST_PROMPT = 'Reply with OK';
const MAX_REPLY_CHARS = 200;

export interface ConnectionOptions extends OpenAiEndpoint {
  readonly logger?: Logger;
}

export type ConnectionVerdict =
  | { readonly ok: true; readonly model: string; readonly latencyMs: number; readonly reply: string }
  | { readonly ok: false; readonly error: ModelError };

/**
 * The model ids the server offers (GET /models), sorted. A server that has no such route fails
 * with kind `not_found`, which the configure flow treats as "type the model name".
 */
export async function listModels(options: ConnectionOptions): Promise<string[]> {
  const context = { baseUrl: options.baseUrl, model: '', apiKey: options.apiKey, timeoutMs: options.timeoutMs ?? LIST_MODELS_TIMEOUT_MS };
  const urlProblem = checkBaseUrl(options.baseUrl);
  if (urlProblem) throw urlProblem;
  const client = createOpenAiClient(options, { timeoutMs: context.timeoutMs, maxRetries: 0, logger: options.logger });
  const ids = new Set<string>();
  try {
    for await (const model of client.models.list()) {
      if (typeof model?.id === 'string' && model.id.trim() !== '') ids.add(model.id);
    }
  } catch (error) {
    if (error instanceof APIError && (error.status === 404 || error.status === 405)) {
      throw new ModelError(
        'not_found',
        `The server at ${displayUrl(options.baseUrl)} does not list its models (${error.status}).`,
        'Type the model name instead; if the server should list them, check that the base URL ends in /v1.',
        error.status,
      );
    }
    throw toModelError(error, context);
  }
  options.logger?.debug(`listed ${ids.size} models at ${displayUrl(options.baseUrl)}`);
  return [...ids].sort((a, b) => a.localeCompare(b));
}

/** Fields servers use for a model's window in GET /models: OpenRouter, LM Studio, vLLM, llama.cpp, others. */
const WINDOW_FIELDS = ['context_length', 'max_model_len', 'context_window', 'max_context_length', 'max_position_embeddings', 'n_ctx'] as const;

/** The context window a listed model states, if any (top level, or under `meta`, `top_provider`, `details`). */
export function listedWindow(model: unknown): number | undefined {
  if (model === null || typeof model !== 'object') return undefined;
  const record = model as Record<string, unknown>;
  for (const place of [record, record['meta'], record['top_provider'], record['details']]) {
    if (place === null || typeof place !== 'object') continue;
    for (const field of WINDOW_FIELDS) {
      const value = (place as Record<string, unknown>)[field];
      const number = typeof value === 'string' ? Number(value) : value;
      if (typeof number === 'number' && Number.isFinite(number) && number > 0) return Math.floor(number);
    }
  }
  return undefined;
}

/**
 * The windows the server states for its models (GET /models), by id; models it says nothing about
 * are left out. Never throws: a server without a model list just has no windows to tell.
 */
export async function listModelWindows(options: ConnectionOptions): Promise<Map<string, number>> {
  const windows = new Map<string, number>();
  if (checkBaseUrl(options.baseUrl)) return windows;
  const client = createOpenAiClient(options, { timeoutMs: options.timeoutMs ?? LIST_MODELS_TIMEOUT_MS, maxRetries: 0, logger: options.logger });
  try {
    for await (const model of client.models.list()) {
      const window = listedWindow(model);
      if (typeof model?.id === 'string' && window !== undefined) windows.set(model.id, window);
    }
  } catch (error) {
    options.logger?.debug(`no model windows from ${displayUrl(options.baseUrl)}: ${toModelError(error, { baseUrl: options.baseUrl, model: '', apiKey: options.apiKey }).message}`);
  }
  return windows;
}

/**
 * Sends one tiny non-streaming chat request and turns the outcome into a verdict a person can act
 * on. Never throws.
 */
export async function testConnection(options: ConnectionOptions & { readonly model: string }): Promise<ConnectionVerdict> {
  const timeoutMs = options.timeoutMs ?? TEST_CONNECTION_TIMEOUT_MS;
  const context = { baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey, timeoutMs };
  const urlProblem = checkBaseUrl(options.baseUrl);
  if (urlProblem) return { ok: false, error: urlProblem };
  if (options.model.trim() === '') {
    return {
      ok: false,
      error: new ModelError('bad_request', 'No model name is set.', 'Run Skillwright: Configure Model and pick or type a model name.'),
    };
  }
  const started = Date.now();
  try {
    const client = createOpenAiClient(options, { timeoutMs, maxRetries: 0, logger: options.logger });
    const completion = await client.chat.completions.create({
      model: options.model.trim(),
      messages: [{ role: 'user', content: TEST_PROMPT }],
    });
    const latencyMs = Date.now() - started;
    const choice = completion.choices?.[0];
    if (choice === undefined) {
      return {
        ok: false,
        error: new ModelError(
          'no_choices',
          `The model "${options.model}" at ${displayUrl(options.baseUrl)} answered with no choices.`,
          'The server is reachable but this model gave no reply; try another model.',
        ),
      };
    }
    const content = typeof choice.message?.content === 'string' ? choice.message.content.trim() : '';
    const reply = content.length > MAX_REPLY_CHARS ? `${content.slice(0, MAX_REPLY_CHARS - 1)}…` : content;
    const model = typeof completion.model === 'string' && completion.model !== '' ? completion.model : options.model;
    options.logger?.info(`connection test passed: ${model} at ${displayUrl(options.baseUrl)} in ${latencyMs} ms`);
    return { ok: true, model, latencyMs, reply };
  } catch (error) {
    const modelError = toModelError(error, context);
    options.logger?.warn(`connection test failed (${modelError.kind}): ${modelError.message}`);
    return { ok: false, error: modelError };
  }
}
