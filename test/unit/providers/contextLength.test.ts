import * as assert from 'node:assert/strict';
import { APIError } from 'openai';
import type { ModelEvent } from '../../../src/core/llm/chatTypes';
import { ModelError } from '../../../src/core/llm/chatTypes';
import { listedWindow, listModelWindows } from '../../../src/providers/modelConnection';
import { toModelError } from '../../../src/providers/modelErrors';
import { OpenAiChatModel } from '../../../src/providers/openAiChatModel';
import { ScriptedModelServer } from '../../fakes/scriptedModelServer';

const context = { baseUrl: 'http://127.0.0.1:1234/v1', model: 'local-model' };
const generate = (status: number, error: unknown) => APIError.generate(status, error as Record<string, unknown>, undefined, new Headers());

describe('context-length errors and listed windows', () => {
  it('classifies the wordings of OpenAI, vLLM, llama.cpp, LM Studio and Ollama as context_length, with the window', () => {
    const cases: readonly [number, unknown, number | undefined][] = [
      [400, { error: { message: "This model's maximum context length is 8192 tokens.", code: 'context_length_exceeded' } }, 8192],
      [400, { error: { message: 'The prompt (total length 5000) is too long to fit into the model (context length 4096).' } }, 4096],
      [400, { error: { message: 'request (5000 tokens) exceeds the available context size (4096 tokens)', code: 'exceed_context_size_error' } }, 4096],
      [400, { error: { message: 'The model is loaded with context length of only 2048 tokens' } }, 2048],
      [500, { error: { message: 'input length exceeds maximum context length' } }, undefined],
      [413, { error: { message: 'prompt is too long: 210000 tokens > 200000 maximum' } }, 200000],
    ];
    for (const [status, body, window] of cases) {
      const error = toModelError(generate(status, body), context);
      assert.equal(error.kind, 'context_length', JSON.stringify(body));
      assert.match(error.advice, /compacts the conversation and retries once/);
      if (window !== undefined) assert.match(error.message, new RegExp(`its window is ${window.toLocaleString('en-US')} tokens`));
    }
    assert.equal(toModelError(generate(400, { error: { message: 'Invalid value for temperature' } }), context).kind, 'bad_request');
    assert.equal(toModelError(generate(500, { error: { message: 'out of memory' } }), context).kind, 'server');
  });

  it('reads a listed window from the fields servers use', () => {
    assert.equal(listedWindow({ id: 'a', context_length: 8192 }), 8192);
    assert.equal(listedWindow({ id: 'a', max_model_len: 4096 }), 4096);
    assert.equal(listedWindow({ id: 'a', meta: { n_ctx: '2048' } }), 2048);
    assert.equal(listedWindow({ id: 'a', top_provider: { context_length: 65536 } }), 65536);
    assert.equal(listedWindow({ id: 'a' }), undefined);
    assert.equal(listedWindow({ id: 'a', context_length: -1 }), undefined);
  });

  it('plays a small-window model: lists the window, refuses a longer prompt with 400, and shows the shared prefix as cached', async () => {
    const server = await ScriptedModelServer.start({ models: ['tiny'], contextWindow: 1_100 });
    try {
      assert.deepEqual([...(await listModelWindows({ baseUrl: server.baseUrl }))], [['tiny', 1_100]]);
      const model = new OpenAiChatModel({ baseUrl: server.baseUrl, model: 'tiny', apiKey: 'k', maxRetries: 0, timeoutMs: 5_000 });
      const system = { role: 'system' as const, content: 'S'.repeat(2_000) };
      server.always({ user: 'q' }, { text: 'a' });
      const usage = async (content: string) => {
        const events: ModelEvent[] = [];
        for await (const event of model.stream({ messages: [system, { role: 'user', content }] })) events.push(event);
        return events.find((event) => event.type === 'usage');
      };
      await usage('q1');
      const second = await usage('q2 is different');
      assert.ok(second?.type === 'usage' && second.usage.cachedTokens >= 500, 'the byte-identical system prompt is a cache hit');
      await assert.rejects(usage(`q ${'x'.repeat(4_000)}`), (error: unknown) => {
        assert.ok(error instanceof ModelError);
        assert.equal(error.kind, 'context_length');
        assert.match(error.message, /its window is 1,100 tokens/);
        return true;
      });
      assert.equal(server.requests.filter((r) => r.tooLong).length, 1);
    } finally {
      await server.close();
    }
  });
});
