import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIConnectionError, APIError } from 'openai';
import type { ChatMessage, ChatRequest, ModelEvent, ToolSpec } from '../../../src/core/llm/chatTypes';
import { ModelError } from '../../../src/core/llm/chatTypes';
import type { Logger } from '../../../src/core/base/logger';
import { toModelError } from '../../../src/providers/modelErrors';
import type { OpenAiChatModelOptions } from '../../../src/providers/openAiChatModel';
import { OpenAiChatModel } from '../../../src/providers/openAiChatModel';
import { ScriptedModelServer, faults } from '../../fakes/scriptedModelServer';

const MODEL = 'scripted-model';

interface Outcome {
  events: ModelEvent[];
  error?: ModelError;
}

/** Runs a reply to the end, keeping every event and the error it ended with. */
async function run(model: OpenAiChatModel, request: ChatRequest, onEvent?: (event: ModelEvent) => void): Promise<Outcome> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of model.stream(request)) {
      events.push(event);
      onEvent?.(event);
    }
    return { events };
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    return { events, error };
  }
}

function textOf(events: readonly ModelEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.delta : '')).join('');
}

function ask(content: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { messages: [{ role: 'system', content: 'You are Skillwright.' }, { role: 'user', content }], ...extra };
}

function recordingLogger(lines: string[]): Logger {
  const record =
    (level: string) =>
    (message: string | Error, ...args: unknown[]): void => {
      lines.push(`${level} ${String(message)} ${args.map((a) => JSON.stringify(a) ?? String(a)).join(' ')}`);
    };
  return { trace: record('trace'), debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const READ_FILE: ToolSpec = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

describe('OpenAiChatModel', () => {
  let server: ScriptedModelServer;
  const model = (options: Partial<OpenAiChatModelOptions> = {}): OpenAiChatModel =>
    new OpenAiChatModel({ baseUrl: server.baseUrl, model: MODEL, apiKey: 'test-key', maxRetries: 0, ...options });

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
  });

  afterEach(async () => {
    await server.close();
  });

  describe('streaming', () => {
    it('streams text as it arrives, then usage, then done', async () => {
      const text = 'The quick brown fox jumps over the lazy dog.';
      server.on({ user: 'fox' }, { text, chunkSize: 6 });
      const { events, error } = await run(model(), ask('fox?'));
      assert.equal(error, undefined);
      const texts = events.filter((e) => e.type === 'text');
      assert.equal(texts.length, Math.ceil(text.length / 6), 'one text event per streamed fragment');
      assert.equal(textOf(events), text);
      assert.deepEqual(
        events.slice(texts.length).map((e) => e.type),
        ['usage', 'done'],
      );
      assert.deepEqual(events[events.length - 1], { type: 'done', finishReason: 'stop' });
      assert.equal(model().id, 'openai:scripted-model');
    });

    it('sends the conversation in OpenAI wire form, with usage asked for and tools offered', async () => {
      server.enqueue({ text: 'done' });
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You are Skillwright.' },
        { role: 'user', content: 'read a.ts and b.ts' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_a', name: 'read_file', arguments: '{"path":"a.ts"}' },
            { id: 'call_b', name: 'read_file', arguments: '{"path":"b.ts"}' },
          ],
        },
        { role: 'tool', toolCallId: 'call_a', content: 'export const a = 1;' },
        { role: 'tool', toolCallId: 'call_b', content: 'ENOENT: no such file' },
        { role: 'assistant', content: 'a.ts exports a; b.ts is missing.' },
        { role: 'user', content: 'thanks' },
      ];
      await run(model(), { messages, tools: [READ_FILE], maxOutputTokens: 512 });

      assert.equal(server.requests.length, 1);
      assert.equal(server.requests[0]?.headers.authorization, 'Bearer test-key');
      assert.deepEqual(server.requests[0]?.body, {
        model: MODEL,
        messages: [
          { role: 'system', content: 'You are Skillwright.' },
          { role: 'user', content: 'read a.ts and b.ts' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
              { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: 'export const a = 1;' },
          { role: 'tool', tool_call_id: 'call_b', content: 'ENOENT: no such file' },
          { role: 'assistant', content: 'a.ts exports a; b.ts is missing.' },
          { role: 'user', content: 'thanks' },
        ],
        stream: true,
        stream_options: { include_usage: true },
        tools: [{ type: 'function', function: { name: 'read_file', description: READ_FILE.description, parameters: READ_FILE.parameters } }],
        parallel_tool_calls: true,
        // A local server gets the classic field; api.openai.com would get max_completion_tokens.
        max_tokens: 512,
      });
    });

    it('leaves tool fields out when no tools are offered', async () => {
      server.enqueue({ text: 'hi' });
      await run(model(), ask('hello', { tools: [] }));
      const [request] = server.requests;
      assert.ok(request);
      const body = request.body as Record<string, unknown>;
      assert.equal('tools' in body, false);
      assert.equal('parallel_tool_calls' in body, false);
      assert.equal('max_tokens' in body, false);
    });

    it('assembles two parallel tool calls from fragmented arguments and yields them before usage', async () => {
      const readArgs = { path: 'src/extension.ts', startLine: 1, endLine: 40 };
      const searchArgs = { query: 'activateSkillwright', glob: '**/*.ts' };
      server.on(
        { user: 'look around' },
        {
          text: 'Let me look.',
          chunkSize: 5,
          toolCalls: [
            { id: 'call_read', name: 'read_file', arguments: readArgs },
            { id: 'call_search', name: 'search_text', arguments: searchArgs },
          ],
        },
      );
      const { events, error } = await run(model(), ask('look around', { tools: [READ_FILE] }));
      assert.equal(error, undefined);
      assert.equal(textOf(events), 'Let me look.');
      const tail = events.filter((e) => e.type !== 'text');
      assert.deepEqual(
        tail.map((e) => e.type),
        ['tool_call', 'tool_call', 'usage', 'done'],
      );
      const calls = tail.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
      assert.deepEqual(
        calls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) as unknown })),
        [
          { id: 'call_read', name: 'read_file', args: readArgs },
          { id: 'call_search', name: 'search_text', args: searchArgs },
        ],
      );
      assert.deepEqual(tail[tail.length - 1], { type: 'done', finishReason: 'tool_calls' });
    });

    it('passes malformed tool-call JSON through verbatim', async () => {
      const broken = '{"path": "src/a.ts", "content": "unterminated';
      server.on({ user: 'write' }, { toolCalls: [{ id: 'call_bad', name: 'write_file', arguments: broken }] });
      const { events, error } = await run(model(), ask('write it'));
      assert.equal(error, undefined);
      const call = events.find((e) => e.type === 'tool_call');
      assert.deepEqual(call, { type: 'tool_call', call: { id: 'call_bad', name: 'write_file', arguments: broken } });
    });

    it('passes a call to a tool that was never offered through unchanged', async () => {
      server.on({ user: 'clean' }, { toolCalls: [{ id: 'call_u', name: 'delete_everything', arguments: {} }] });
      const { events } = await run(model(), ask('clean up', { tools: [READ_FILE] }));
      const call = events.find((e) => e.type === 'tool_call');
      assert.deepEqual(call, { type: 'tool_call', call: { id: 'call_u', name: 'delete_everything', arguments: '{}' } });
    });

    it('reports prompt, completion and cached tokens from the final chunk', async () => {
      server.enqueue({ text: 'ok', usage: { promptTokens: 2000, completionTokens: 7, cachedTokens: 1536 } });
      const { events } = await run(model(), ask('x'));
      assert.deepEqual(
        events.find((e) => e.type === 'usage'),
        { type: 'usage', usage: { promptTokens: 2000, completionTokens: 7, cachedTokens: 1536 } },
      );
    });

    it('sees the prompt cache hit when the same prefix is sent again', async () => {
      server.enqueue({ text: 'one' }, { text: 'two' });
      const first = await run(model(), ask('first question'));
      const second = await run(model(), {
        messages: [...ask('first question').messages, { role: 'assistant', content: 'one' }, { role: 'user', content: 'second' }],
      });
      const cached = (o: Outcome): number => {
        const usage = o.events.find((e) => e.type === 'usage');
        return usage?.type === 'usage' ? usage.usage.cachedTokens : -1;
      };
      assert.equal(cached(first), 0);
      assert.ok(cached(second) > 0, `expected a cache hit, got ${cached(second)}`);
    });

    it('maps the finish reason when the reply was cut at the token limit', async () => {
      server.enqueue({ text: 'a long', finishReason: 'length' });
      const { events } = await run(model(), ask('x'));
      assert.deepEqual(events[events.length - 1], { type: 'done', finishReason: 'length' });
    });

    it('aborts the HTTP request when the caller stops reading', async () => {
      server.on({ user: 'x' }, { text: 'one two three four five six', chunkSize: 4, chunkDelayMs: 30 });
      for await (const event of model().stream(ask('x'))) {
        if (event.type === 'text') break;
      }
      await until(() => server.requests[0]?.state !== 'open');
      assert.equal(server.requests[0]?.state, 'closed-early');
    });
  });

  describe('failures', () => {
    it('retries a 429 after its retry-after and then succeeds', async () => {
      server.on({ user: 'busy' }, faults.rateLimit(1), { text: 'finally' });
      const { events, error } = await run(model({ maxRetries: 2 }), ask('busy?'));
      assert.equal(error, undefined);
      assert.equal(textOf(events), 'finally');
      assert.equal(server.requests.length, 2);
      assert.deepEqual(server.chatRequests[0], server.chatRequests[1], 'the retry sends the same request');
    });

    it('gives up on a 500 after the retries with a server error', async () => {
      server.always({ user: 'x' }, faults.http(500, { message: 'boom', type: 'server_error' }, { 'retry-after-ms': '10' }));
      const { events, error } = await run(model({ maxRetries: 2 }), ask('x'));
      assert.deepEqual(events, []);
      assert.equal(error?.kind, 'server');
      assert.equal(error?.status, 500);
      assert.match(error?.message ?? '', /boom/);
      assert.ok(error?.advice);
      assert.equal(server.requests.length, 3, 'first attempt + 2 retries');
    });

    it('gives up on a 429 that persists with a rate-limit error', async () => {
      server.always({ user: 'x' }, faults.http(429, { message: 'slow down', code: 'rate_limit_exceeded' }, { 'retry-after-ms': '10' }));
      const { error } = await run(model({ maxRetries: 1 }), ask('x'));
      assert.equal(error?.kind, 'rate_limit');
      assert.match(error?.message ?? '', /slow down/);
      assert.match(error?.advice ?? '', /try again/i);
      assert.equal(server.requests.length, 2);
    });

    it('401 is an auth error that says how to fix the key, and is not retried', async () => {
      server.on({ user: 'x' }, faults.unauthorized());
      const { error } = await run(model({ maxRetries: 2 }), ask('x'));
      assert.equal(error?.kind, 'auth');
      assert.equal(error?.status, 401);
      assert.match(error?.advice ?? '', /Check the API key: run Skillwright: Configure Model/);
      assert.equal(server.requests.length, 1);
    });

    it('401 without any key says a key is needed', async () => {
      server.on({ user: 'x' }, faults.unauthorized());
      const { error } = await run(model({ apiKey: undefined }), ask('x'));
      assert.equal(error?.kind, 'auth');
      assert.match(error?.message ?? '', /none is set/);
      assert.match(error?.advice ?? '', /Configure Model.*OPENAI_API_KEY/);
      const [request] = server.requests;
      assert.ok(request);
      assert.equal(request.headers.authorization, undefined, 'no placeholder key goes on the wire');
    });

    it('leaves OPENAI_API_KEY to the host instead of reading it behind its back', async () => {
      const saved = process.env['OPENAI_API_KEY'];
      process.env['OPENAI_API_KEY'] = 'sk-from-the-environment-0000';
      try {
        server.enqueue({ text: 'hi' });
        await run(model({ apiKey: undefined }), ask('x'));
        const [request] = server.requests;
        assert.ok(request);
        assert.equal(request.headers.authorization, undefined);
      } finally {
        if (saved === undefined) delete process.env['OPENAI_API_KEY'];
        else process.env['OPENAI_API_KEY'] = saved;
      }
    });

    it('a 404 for a wrong base URL asks about the model name and /v1', async () => {
      const withoutV1 = server.baseUrl.replace(/\/v1$/, '');
      const { error } = await run(model({ baseUrl: withoutV1 }), ask('x'));
      assert.equal(error?.kind, 'not_found');
      assert.equal(error?.status, 404);
      assert.equal(error?.advice, 'Is the model name right, and does the base URL end in /v1?');
      assert.ok(error?.message.includes(withoutV1), error?.message);
    });

    it('a 404 for an unknown model names the model', async () => {
      server.on(
        { user: 'x' },
        faults.http(404, { message: 'The model `gpt-9` does not exist or you do not have access to it.', code: 'model_not_found' }),
      );
      const { error } = await run(model({ model: 'gpt-9' }), ask('x'));
      assert.equal(error?.kind, 'not_found');
      assert.match(error?.message ?? '', /model "gpt-9" was not found/);
      assert.match(error?.advice ?? '', /model name/);
    });

    it('a 400 is a bad request carrying the server message', async () => {
      server.on({ user: 'x' }, faults.http(400, { message: "  registry.ollama.ai/library/gemma does not support tools\n" }));
      const { error } = await run(model(), ask('x', { tools: [READ_FILE] }));
      assert.equal(error?.kind, 'bad_request');
      assert.equal(error?.status, 400);
      assert.match(error?.message ?? '', /: registry\.ollama\.ai\/library\/gemma does not support tools$/);
      assert.match(error?.advice ?? '', /supports tool calling/);
    });

    it('connection refused is a connection error that names the URL', async () => {
      const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
      const { error } = await run(model({ baseUrl }), ask('x'));
      assert.equal(error?.kind, 'connection');
      assert.match(error?.message ?? '', /ECONNREFUSED/);
      assert.ok(error?.advice.includes(`Is the server running at ${baseUrl}?`), error?.advice);
    });

    it('a base URL that is not a URL fails before any request', async () => {
      const { error } = await run(model({ baseUrl: 'localhost:11434/v1' }), ask('x'));
      assert.equal(error?.kind, 'connection');
      assert.match(error?.message ?? '', /must start with http/);
      assert.equal(server.requests.length, 0);
    });

    it('a server that never answers trips the timeout', async () => {
      server.on({ user: 'x' }, faults.hang());
      const { events, error } = await run(model({ timeoutMs: 300 }), ask('x'));
      assert.deepEqual(events, []);
      assert.equal(error?.kind, 'timeout');
      assert.match(error?.message ?? '', /No answer from .* within 300 ms/);
    });

    it('a stream that stalls after some text trips the timeout and keeps the text', async () => {
      server.on({ user: 'x' }, faults.hang(3, { text: 'partial answer here', chunkSize: 8 }));
      const { events, error } = await run(model({ timeoutMs: 300 }), ask('x'));
      assert.equal(textOf(events), 'partial answer h');
      assert.equal(error?.kind, 'timeout');
      assert.match(error?.message ?? '', /stalled/);
    });

    it('a stream cut mid-message yields the text so far, then a connection error', async () => {
      server.on({ user: 'long' }, faults.cutStream(3, { text: 'a long answer that never finishes', chunkSize: 4 }));
      const { events, error } = await run(model(), ask('long'));
      assert.equal(textOf(events), 'a long a');
      assert.ok(events.every((e) => e.type === 'text'), 'no tool call, usage or done after a cut');
      assert.equal(error?.kind, 'connection');
      assert.match(error?.message ?? '', /dropped in the middle of the reply/);
      assert.match(error?.advice ?? '', /partial reply was kept/);
    });

    it('a stream that just ends before the model finished is a connection error too', async () => {
      server.on({ user: 'long' }, faults.cutStream(2, { text: 'abcdefghijkl', chunkSize: 4 }, 'end'));
      const { events, error } = await run(model(), ask('long'));
      assert.equal(textOf(events), 'abcd');
      assert.equal(error?.kind, 'connection');
      assert.match(error?.message ?? '', /ended before the model finished/);
    });

    it('a reply with no choices is a no_choices error', async () => {
      server.on({ user: 'filtered' }, { emptyChoices: true });
      const { events, error } = await run(model(), ask('filtered'));
      assert.equal(error?.kind, 'no_choices');
      assert.ok(error?.advice);
      assert.equal(events.filter((e) => e.type === 'text' || e.type === 'done').length, 0);
    });
  });

  describe('stop', () => {
    it('aborts before the response headers arrive', async () => {
      server.on({ user: 'x' }, faults.hang());
      const stop = new AbortController();
      const pending = run(model(), ask('x', { signal: stop.signal }));
      await until(() => server.requests.length === 1);
      stop.abort();
      const { events, error } = await pending;
      assert.deepEqual(events, []);
      assert.equal(error?.kind, 'aborted');
    });

    it('aborts a stream that has stalled mid-answer and keeps the text already delivered', async () => {
      server.on({ user: 'x' }, faults.hang(2, { text: 'partial answer here', chunkSize: 7 }));
      const stop = new AbortController();
      const { events, error } = await run(model(), ask('x', { signal: stop.signal }), (event) => {
        if (event.type === 'text') setTimeout(() => stop.abort(), 20);
      });
      assert.equal(textOf(events), 'partial');
      assert.equal(error?.kind, 'aborted');
      await until(() => server.requests[0]?.state !== 'open');
      assert.equal(server.requests[0]?.state, 'closed-early', 'the HTTP request was aborted');
    });

    it('aborts a stream that is still flowing', async () => {
      server.on({ user: 'x' }, { text: 'one two three four five six seven', chunkSize: 4, chunkDelayMs: 20 });
      const stop = new AbortController();
      let texts = 0;
      const { events, error } = await run(model(), ask('x', { signal: stop.signal }), (event) => {
        if (event.type === 'text' && ++texts === 2) stop.abort();
      });
      assert.equal(error?.kind, 'aborted');
      assert.equal(textOf(events), 'one two ');
      assert.equal(events.some((e) => e.type === 'done'), false);
    });

    it('does not wait out a retry-after once stopped', async function () {
      // Without a prompt abort this would sit in the client's 2 s retry sleep and hit the test timeout.
      this.timeout(1500);
      server.on({ user: 'busy' }, faults.rateLimit(2), { text: 'late' });
      const stop = new AbortController();
      const pending = run(model({ maxRetries: 1 }), ask('busy', { signal: stop.signal }));
      await until(() => server.requests.length === 1 && server.requests[0]?.state !== 'open');
      stop.abort();
      const { error } = await pending;
      assert.equal(error?.kind, 'aborted');
      assert.equal(server.requests.length, 1);
    });

    it('a signal aborted beforehand sends nothing', async () => {
      const stop = new AbortController();
      stop.abort();
      const { error } = await run(model(), ask('x', { signal: stop.signal }));
      assert.equal(error?.kind, 'aborted');
      assert.equal(server.requests.length, 0);
    });
  });

  describe('secrets', () => {
    it('never puts the API key in error messages or logs, even when the server echoes it', async () => {
      const key = 'sk-proj-SECRETkey0123456789abcdef';
      server.on(
        { user: 'x' },
        faults.http(400, { message: `Invalid header Authorization: Bearer ${key} (key ${key})` }),
      );
      const lines: string[] = [];
      const { error } = await run(model({ apiKey: key, logger: recordingLogger(lines) }), ask('x'));
      assert.equal(server.requests[0]?.headers.authorization, `Bearer ${key}`, 'the key was sent');
      assert.equal(error?.kind, 'bad_request');
      assert.match(error?.message ?? '', /Invalid header Authorization/);
      for (const text of [error?.message ?? '', error?.advice ?? '', error?.stack ?? '', ...lines]) {
        assert.equal(text.includes(key), false, `key leaked in: ${text}`);
        assert.equal(text.includes('SECRETkey'), false, `part of the key leaked in: ${text}`);
      }
      assert.ok(lines.some((l) => l.startsWith('warn model request failed (bad_request 400)')));
    });

    it('redacts a key of any shape that a server echoes', async () => {
      const key = 'local-gateway-token-42';
      server.on({ user: 'x' }, faults.http(403, { message: `token ${key} may not use this model` }));
      const { error } = await run(model({ apiKey: key }), ask('x'));
      assert.equal(error?.kind, 'auth');
      assert.equal(error?.message.includes(key), false, error?.message);
      assert.match(error?.message ?? '', /\[redacted\]/);
    });
  });
});

describe('toModelError', () => {
  const context = { baseUrl: 'https://user:pw@models.example.com/v1/?key=1', model: 'm' };

  it('names the endpoint without credentials or query', () => {
    const error = toModelError(new Error('odd'), context);
    assert.equal(error.kind, 'unknown');
    assert.match(error.message, /https:\/\/models\.example\.com\/v1 failed: odd/);
    assert.equal(/pw|key=1/.test(error.message), false);
  });

  it('tells an unknown host from a refused connection', () => {
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND models.example.com'), { code: 'ENOTFOUND' });
    const error = toModelError(new APIConnectionError({ cause: new TypeError('fetch failed', { cause: dns }) }), context);
    assert.equal(error.kind, 'connection');
    assert.match(error.message, /could not be found \(ENOTFOUND\)/);
    assert.match(error.advice, /host name/);
  });

  it('advises on quota and on an overlong conversation', () => {
    const quota = toModelError(APIError.generate(429, { error: { message: 'quota', code: 'insufficient_quota' } }, undefined, new Headers()), context);
    assert.equal(quota.kind, 'rate_limit');
    assert.match(quota.advice, /billing/);
    const long = toModelError(
      APIError.generate(400, { error: { message: 'too long', code: 'context_length_exceeded' } }, undefined, new Headers()),
      context,
    );
    assert.equal(long.kind, 'context_length');
    assert.match(long.advice, /compacts the conversation and retries once/);
  });

  it('keeps a ModelError as it is', () => {
    const original = new ModelError('timeout', 'slow', 'wait');
    assert.equal(toModelError(original, context), original);
  });
});
