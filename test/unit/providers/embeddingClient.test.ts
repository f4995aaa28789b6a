import * as assert from 'node:assert/strict';
import { ModelError } from '../../../src/core/llm/chatTypes';
import { OpenAiEmbeddingClient, resolveEmbeddingModel } from '../../../src/providers/embeddingClient';
import { ScriptedModelServer } from '../../fakes/scriptedModelServer';
import { EmbeddingFaultServer } from '../skills/embeddingFaultServer';

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
  return error;
}

describe('OpenAiEmbeddingClient', () => {
  let server: ScriptedModelServer;

  beforeEach(async () => {
    server = await ScriptedModelServer.start({ embeddingDimensions: 16, models: ['llama3.1', 'nomic-embed-text', 'text-embedding-3-small'] });
  });

  afterEach(async () => {
    await server.close();
  });

  it('posts the texts as floats to /v1/embeddings with the key, one vector per text', async () => {
    const client = new OpenAiEmbeddingClient({ baseUrl: server.baseUrl, model: ' nomic-embed-text ', apiKey: 'sk-test' });
    const vectors = await client.embed(['alpha beta', 'gamma']);
    assert.equal(vectors.length, 2);
    assert.ok(vectors.every((vector) => Array.isArray(vector) && vector.length === 16));
    const [request] = server.requests;
    assert.equal(request?.path, '/v1/embeddings');
    assert.equal(request?.headers.authorization, 'Bearer sk-test');
    assert.deepEqual(request?.body, { model: 'nomic-embed-text', input: ['alpha beta', 'gamma'], encoding_format: 'float' });
    assert.deepEqual(await client.embed([]), []);
    assert.equal(server.requests.length, 1, 'no texts, no request');
  });

  it('sends no Authorization header without a key (Ollama, LM Studio)', async () => {
    await new OpenAiEmbeddingClient({ baseUrl: server.baseUrl, model: 'nomic-embed-text' }).embed(['x']);
    assert.equal(server.requests[0]?.headers.authorization, undefined);
  });

  it('puts vectors in input order by their index, and decodes base64 from a server that sends it anyway', async () => {
    const floats = Buffer.from(new Float32Array([0.5, -0.25]).buffer).toString('base64');
    const fault = await EmbeddingFaultServer.start((input) => ({
      status: 200,
      body: JSON.stringify({ data: [{ index: 1, embedding: floats }, { index: 0, embedding: [1, 0] }].slice(0, input.length) }),
    }));
    try {
      const vectors = await new OpenAiEmbeddingClient({ baseUrl: fault.baseUrl, model: 'm' }).embed(['first', 'second']);
      assert.deepEqual(vectors, [
        [1, 0],
        [0.5, -0.25],
      ]);
      fault.answer = () => ({ status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] }) });
      assert.match((await rejection(new OpenAiEmbeddingClient({ baseUrl: fault.baseUrl, model: 'm' }).embed(['a', 'b']))).message, /wrong or repeated index \(0\)/);
      fault.answer = () => ({ status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: [1] }] }) });
      assert.match((await rejection(new OpenAiEmbeddingClient({ baseUrl: fault.baseUrl, model: 'm' }).embed(['a', 'b']))).message, /answered 1 vectors for 2 texts/);
    } finally {
      await fault.close();
    }
  });

  it('explains a 404: no embeddings route or no such model', async () => {
    const client = new OpenAiEmbeddingClient({ baseUrl: `${server.baseUrl.replace(/\/v1$/, '')}/nothing/v1`, model: 'nomic-embed-text', maxRetries: 0 });
    const error = await rejection(client.embed(['x']));
    assert.equal(error.kind, 'not_found');
    assert.match(error.message, /has no embeddings endpoint, or no model "nomic-embed-text" \(404\)/);
    assert.match(error.advice, /skillwright\.retrieval\.embeddingModel/);
  });

  it('refuses an empty model name and a base URL that is not http(s)', async () => {
    assert.match((await rejection(new OpenAiEmbeddingClient({ baseUrl: server.baseUrl, model: '  ' }).embed(['x']))).message, /No embedding model is set/);
    assert.equal((await rejection(new OpenAiEmbeddingClient({ baseUrl: 'ftp://example.com/v1', model: 'm' }).embed(['x']))).kind, 'connection');
  });

  it('stops when its signal fires', async () => {
    const fault = await EmbeddingFaultServer.start(() => 'hang');
    try {
      const controller = new AbortController();
      const pending = new OpenAiEmbeddingClient({ baseUrl: fault.baseUrl, model: 'm', maxRetries: 0 }).embed(['x'], controller.signal);
      controller.abort();
      assert.equal((await rejection(pending)).kind, 'aborted');
    } finally {
      await fault.close();
    }
  });
});

describe('resolveEmbeddingModel', () => {
  let server: ScriptedModelServer;

  afterEach(async () => {
    await server.close();
  });

  it('takes the setting, else the first listed model with "embed" in its id', async () => {
    server = await ScriptedModelServer.start({ models: ['text-embedding-3-small', 'llama3.1', 'nomic-embed-text'] });
    assert.deepEqual(await resolveEmbeddingModel({ baseUrl: server.baseUrl }, ' my-embedder '), { model: 'my-embedder', source: 'setting' });
    assert.equal(server.requests.length, 0, 'a set model needs no list');
    assert.deepEqual(await resolveEmbeddingModel({ baseUrl: server.baseUrl }, ''), { model: 'nomic-embed-text', source: 'listed' });
  });

  it('says why when no model fits or the list cannot be read', async () => {
    server = await ScriptedModelServer.start({ models: ['llama3.1', 'qwen2.5'] });
    const none = await resolveEmbeddingModel({ baseUrl: server.baseUrl }, '');
    assert.equal(none.model, undefined);
    assert.match('reason' in none ? none.reason : '', /lists no model with "embed" in its id; set skillwright\.retrieval\.embeddingModel/);
    const unreadable = await resolveEmbeddingModel({ baseUrl: `${server.baseUrl.replace(/\/v1$/, '')}/x/v1` }, '');
    assert.match('reason' in unreadable ? unreadable.reason : '', /model list could not be read/);
  });
});
