import { APIError } from 'openai';
import type OpenAI from 'openai';
import type { Logger } from '../core/base/logger';
import { nullLogger } from '../core/base/logger';
import { ModelError } from '../core/llm/chatTypes';
import { listModels } from './modelConnection';
import { checkBaseUrl, displayUrl, toModelError } from './modelErrors';
import type { OpenAiEndpoint } from './openAiChatModel';
import { createOpenAiClient } from './openAiChatModel';

/**
 * Embeddings from an OpenAI-compatible `/v1/embeddings` (OpenAI, Azure, Ollama, LM Studio, vLLM)
 * through the `openai` client. It checks the envelope (a `data` list, one entry per input, each
 * with its `index`); what each vector holds is checked by the caller (embeddingIndex.ts).
 */

/** A batch of 64 skill texts on a local CPU model can take tens of seconds. */
export const EMBEDDING_TIMEOUT_MS = 60_000;

export interface EmbeddingClientOptions extends OpenAiEndpoint {
  readonly model: string;
  /** The client's own retries after 408/409/429/5xx; default 2 (a query is bounded by its caller's deadline). */
  readonly maxRetries?: number;
  readonly logger?: Logger;
}

export class OpenAiEmbeddingClient {
  readonly model: string;
  private client: OpenAI | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: EmbeddingClientOptions) {
    this.model = options.model.trim();
    this.logger = options.logger ?? nullLogger;
  }

  /** One vector per input, in input order (as the server sent it: the caller validates the numbers). */
  async embed(inputs: readonly string[], signal?: AbortSignal): Promise<unknown[]> {
    const context = { baseUrl: this.options.baseUrl, model: this.model, apiKey: this.options.apiKey, timeoutMs: this.options.timeoutMs ?? EMBEDDING_TIMEOUT_MS };
    const urlProblem = checkBaseUrl(this.options.baseUrl);
    if (urlProblem) throw urlProblem;
    if (this.model === '') throw new ModelError('bad_request', 'No embedding model is set.', 'Set skillwright.retrieval.embeddingModel, or leave it empty to use the first model the endpoint lists with "embed" in its id.');
    if (inputs.length === 0) return [];
    let response: unknown;
    try {
      this.client ??= createOpenAiClient(this.options, { timeoutMs: context.timeoutMs, maxRetries: this.options.maxRetries ?? 2, logger: this.logger });
      // Asked for as floats: the client's default (base64) is decoded without a check, so a server
      // that ignores the field and sends numbers would come back as garbage.
      response = await this.client.embeddings.create({ model: this.model, input: [...inputs], encoding_format: 'float' }, signal ? { signal } : {});
    } catch (error) {
      if (error instanceof APIError && error.status === 404) {
        throw new ModelError(
          'not_found',
          `The server at ${displayUrl(this.options.baseUrl)} has no embeddings endpoint, or no model "${this.model}" (404).`,
          'Set skillwright.retrieval.embeddingModel to an embedding model the server serves (e.g. nomic-embed-text on Ollama), or turn skillwright.retrieval.embeddings off.',
          404,
        );
      }
      throw toModelError(error, context);
    }
    this.logger.trace(`embedded ${inputs.length} text(s) with ${this.model}`);
    return vectorsOf(response, inputs.length, displayUrl(this.options.baseUrl));
  }
}

function vectorsOf(response: unknown, count: number, url: string): unknown[] {
  const data = typeof response === 'object' && response !== null ? (response as { data?: unknown }).data : undefined;
  const bad = (what: string) =>
    new ModelError('server', `The embeddings endpoint at ${url} ${what}.`, 'Check that the server is OpenAI-compatible and the embedding model is loaded; or turn skillwright.retrieval.embeddings off.');
  if (!Array.isArray(data)) throw bad('answered without a `data` list');
  if (data.length !== count) throw bad(`answered ${data.length} vectors for ${count} texts`);
  const out = new Array<unknown>(count);
  data.forEach((item: unknown, position) => {
    const entry = typeof item === 'object' && item !== null ? (item as { index?: unknown; embedding?: unknown }) : {};
    const index = typeof entry.index === 'number' && Number.isInteger(entry.index) ? entry.index : position;
    if (index < 0 || index >= count || out[index] !== undefined) throw bad(`answered with a wrong or repeated index (${String(entry.index)})`);
    out[index] = typeof entry.embedding === 'string' ? fromBase64(entry.embedding) : entry.embedding;
  });
  return out;
}

/** A server that sends base64 anyway: little-endian float32s, as OpenAI encodes them. */
function fromBase64(text: string): number[] | string {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return text;
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) out.push(bytes.readFloatLE(i));
  return out;
}

export type ResolvedEmbeddingModel = { readonly model: string; readonly source: 'setting' | 'listed' } | { readonly model?: undefined; readonly reason: string };

/**
 * The embedding model: the setting when it names one, else the first model the endpoint lists
 * whose id contains "embed" (sorted ids: e.g. `nomic-embed-text`, `text-embedding-3-large`).
 */
export async function resolveEmbeddingModel(endpoint: OpenAiEndpoint & { readonly logger?: Logger }, configured: string): Promise<ResolvedEmbeddingModel> {
  const name = configured.trim();
  if (name !== '') return { model: name, source: 'setting' };
  let ids: string[];
  try {
    ids = await listModels(endpoint);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { reason: `the endpoint's model list could not be read (${message}); set skillwright.retrieval.embeddingModel to use embeddings` };
  }
  const model = ids.find((id) => id.toLowerCase().includes('embed'));
  if (!model) return { reason: `the endpoint lists no model with "embed" in its id; set skillwright.retrieval.embeddingModel to use embeddings` };
  return { model, source: 'listed' };
}
