import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ModelError } from '../../../src/core/llm/chatTypes';
import { listModels, testConnection } from '../../../src/providers/modelConnection';
import { ScriptedModelServer, faults } from '../../fakes/scriptedModelServer';

async function closedPortUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

async function rejection(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
  return error;
}

describe('listModels', () => {
  let server: ScriptedModelServer;

  beforeEach(async () => {
    server = await ScriptedModelServer.start({ models: ['qwen2.5-coder', 'llama3.1', 'gpt-4.1-mini', 'llama3.1'] });
  });

  afterEach(async () => {
    await server.close();
  });

  it('lists the model ids the server offers, sorted and without duplicates', async () => {
    const ids = await listModels({ baseUrl: server.baseUrl, apiKey: 'k', headers: { 'x-team': 'docs' } });
    assert.deepEqual(ids, ['gpt-4.1-mini', 'llama3.1', 'qwen2.5-coder']);
    const [request] = server.requests;
    assert.ok(request);
    assert.equal(request.method, 'GET');
    assert.equal(request.path, '/v1/models');
    assert.equal(request.headers.authorization, 'Bearer k');
    assert.equal(request.headers['x-team'], 'docs');
  });

  it('says "type the name" when the server has no model list', async () => {
    const error = await rejection(listModels({ baseUrl: `${server.baseUrl.replace(/\/v1$/, '')}/api/v1` }));
    assert.equal(error.kind, 'not_found');
    assert.equal(error.status, 404);
    assert.match(error.message, /does not list its models/);
    assert.match(error.advice, /Type the model name/);
  });

  it('fails with connection advice when nothing listens', async () => {
    const baseUrl = await closedPortUrl();
    const error = await rejection(listModels({ baseUrl }));
    assert.equal(error.kind, 'connection');
    assert.ok(error.advice.includes(baseUrl), error.advice);
  });

  it('refuses a base URL that is not http(s) without a request', async () => {
    const error = await rejection(listModels({ baseUrl: 'ftp://models.example.com/v1' }));
    assert.match(error.message, /must start with http/);
    assert.equal(server.requests.length, 0);
  });
});

describe('testConnection', () => {
  let server: ScriptedModelServer;

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
  });

  afterEach(async () => {
    await server.close();
  });

  it('passes with the model, its reply and the latency', async () => {
    server.on({ user: 'Reply with OK' }, { text: ' OK \n' });
    const verdict = await testConnection({ baseUrl: server.baseUrl, apiKey: 'k', model: 'scripted-model' });
    assert.ok(verdict.ok, JSON.stringify(verdict));
    assert.equal(verdict.model, 'scripted-model');
    assert.equal(verdict.reply, 'OK');
    assert.ok(Number.isFinite(verdict.latencyMs) && verdict.latencyMs >= 0);
    const [body] = server.chatRequests;
    assert.ok(body);
    assert.deepEqual(body.messages, [{ role: 'user', content: 'Reply with OK' }]);
    assert.notEqual(body.stream, true, 'one plain request, not a stream');
  });

  it('fails with auth advice on a 401, without retrying', async () => {
    server.on({ user: 'Reply with OK' }, faults.unauthorized());
    const verdict = await testConnection({ baseUrl: server.baseUrl, apiKey: 'wrong', model: 'scripted-model' });
    assert.equal(verdict.ok, false);
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'auth');
    assert.match(verdict.ok ? '' : verdict.error.advice, /Configure Model/);
    assert.equal(server.requests.length, 1);
  });

  it('fails with not_found when the model is unknown', async () => {
    server.on(
      { user: 'Reply with OK' },
      faults.http(404, { message: 'model "nope" not found, try pulling it first', type: 'api_error' }),
    );
    const verdict = await testConnection({ baseUrl: server.baseUrl, model: 'nope' });
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'not_found');
    assert.match(verdict.ok ? '' : verdict.error.message, /model "nope" was not found/);
  });

  it('fails with a rate-limit verdict on a 429 instead of waiting', async () => {
    server.on({ user: 'Reply with OK' }, faults.rateLimit(30));
    const verdict = await testConnection({ baseUrl: server.baseUrl, model: 'scripted-model' });
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'rate_limit');
    assert.equal(server.requests.length, 1);
  });

  it('fails with a connection verdict when nothing listens', async () => {
    const baseUrl = await closedPortUrl();
    const verdict = await testConnection({ baseUrl, model: 'm' });
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'connection');
    assert.ok(verdict.ok ? false : verdict.error.advice.includes(`Is the server running at ${baseUrl}?`));
  });

  it('fails with a timeout verdict when the server hangs', async () => {
    server.on({ user: 'Reply with OK' }, faults.hang());
    const verdict = await testConnection({ baseUrl: server.baseUrl, model: 'scripted-model', timeoutMs: 300 });
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'timeout');
    assert.match(verdict.ok ? '' : verdict.error.message, /within 300 ms/);
  });

  it('fails with no_choices when the reply has none', async () => {
    server.on({ user: 'Reply with OK' }, { emptyChoices: true });
    const verdict = await testConnection({ baseUrl: server.baseUrl, model: 'scripted-model' });
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'no_choices');
  });

  it('asks for a model name before sending anything', async () => {
    const verdict = await testConnection({ baseUrl: server.baseUrl, model: '  ' });
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'bad_request');
    assert.match(verdict.ok ? '' : verdict.error.advice, /model name/);
    assert.equal(server.requests.length, 0);
  });

  it('never throws, even for a base URL that is not a URL', async () => {
    const verdict = await testConnection({ baseUrl: 'not a url', model: 'm' });
    assert.equal(verdict.ok ? undefined : verdict.error.kind, 'connection');
    assert.match(verdict.ok ? '' : verdict.error.message, /is not a URL/);
  });
});
