import * as assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { NO_SCRIPT_MATCHED, ScriptedModelServer, faults } from '../fakes/scriptedModelServer';

// The real `openai` client talks to the fake over HTTP in every test (TESTING.md §3): the point is
// to prove the fake speaks the protocol the way that client understands it.

const MODEL = 'scripted-model';

interface Assembled {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string | null;
}

/** Reassembles deltas the way an agent loop would, keyed by tool call `index`. */
function assemble(chunks: ChatCompletionChunk[]): Assembled {
  const out: Assembled = { text: '', toolCalls: [], finishReason: null };
  for (const chunk of chunks) {
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    out.text += choice.delta.content ?? '';
    for (const call of choice.delta.tool_calls ?? []) {
      const slot = (out.toolCalls[call.index] ??= { id: '', name: '', arguments: '' });
      slot.id += call.id ?? '';
      slot.name += call.function?.name ?? '';
      slot.arguments += call.function?.arguments ?? '';
    }
    if (choice.finish_reason !== null) out.finishReason = choice.finish_reason;
  }
  return out;
}

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function user(content: string): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: 'You are Skillwright.' },
    { role: 'user', content },
  ];
}

describe('ScriptedModelServer', () => {
  let server: ScriptedModelServer;
  const client = (maxRetries = 0): OpenAI => new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries });

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
  });

  afterEach(async () => {
    await server.close();
  });

  describe('chat completions', () => {
    it('answers a non-streaming request with text and usage', async () => {
      server.on({ user: 'hello' }, { text: 'Hi there.' });
      const res = await client().chat.completions.create({ model: MODEL, messages: user('well hello') });
      assert.equal(res.object, 'chat.completion');
      assert.equal(res.model, MODEL);
      assert.equal(res.choices.length, 1);
      assert.equal(res.choices[0]?.message.content, 'Hi there.');
      assert.equal(res.choices[0]?.finish_reason, 'stop');
      assert.ok(res.usage && res.usage.prompt_tokens > 0);
      assert.equal(res.usage.completion_tokens, Math.ceil('Hi there.'.length / 4));
      assert.equal(res.usage.total_tokens, res.usage.prompt_tokens + res.usage.completion_tokens);
      assert.deepEqual(server.pendingScript(), []);
    });

    it('answers a non-streaming request with tool calls', async () => {
      server.on({ user: 'read' }, { toolCalls: [{ id: 'call_x', name: 'read_file', arguments: { path: 'a.ts' } }] });
      const res = await client().chat.completions.create({ model: MODEL, messages: user('read a.ts') });
      const [choice] = res.choices;
      assert.ok(choice);
      const message = choice.message;
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.equal(message.content, null);
      assert.deepEqual(message.tool_calls, [
        { id: 'call_x', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      ]);
    });

    it('streams text as several content deltas', async () => {
      const text = 'The quick brown fox jumps over the lazy dog.';
      server.on({ user: 'fox' }, { text, chunkSize: 5 });
      const chunks = await collect(
        await client().chat.completions.create({ model: MODEL, messages: user('fox?'), stream: true }),
      );
      assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
      assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
      const contentChunks = chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '');
      assert.equal(contentChunks.length, Math.ceil(text.length / 5));
      const assembled = assemble(chunks);
      assert.equal(assembled.text, text);
      assert.equal(assembled.finishReason, 'stop');
      assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
      // Without include_usage there is no usage chunk.
      assert.ok(chunks.every((c) => c.usage === undefined));
    });

    it('streams two parallel tool calls as OpenAI does: header delta, then argument fragments', async () => {
      const readArgs = { path: 'src/extension.ts', startLine: 1, endLine: 40 };
      const searchArgs = { query: 'activateSkillwright', glob: '**/*.ts' };
      server.on(
        { user: 'look around' },
        {
          text: 'Let me look.',
          toolCalls: [
            { id: 'call_read', name: 'read_file', arguments: readArgs },
            { id: 'call_search', name: 'search_text', arguments: searchArgs },
          ],
        },
      );
      const chunks = await collect(
        await client().chat.completions.create({ model: MODEL, messages: user('look around'), stream: true }),
      );

      const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      const headers = toolDeltas.filter((d) => d.id !== undefined);
      assert.deepEqual(headers, [
        { index: 0, id: 'call_read', type: 'function', function: { name: 'read_file', arguments: '' } },
        { index: 1, id: 'call_search', type: 'function', function: { name: 'search_text', arguments: '' } },
      ]);
      for (const index of [0, 1]) {
        const fragments = toolDeltas.filter((d) => d.index === index && d.id === undefined);
        assert.ok(fragments.length >= 3, `call ${index} arguments should span several chunks`);
        assert.ok(fragments.every((d) => d.function?.name === undefined));
      }

      const assembled = assemble(chunks);
      assert.equal(assembled.text, 'Let me look.');
      assert.equal(assembled.finishReason, 'tool_calls');
      assert.deepEqual(
        assembled.toolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) as unknown })),
        [
          { id: 'call_read', name: 'read_file', args: readArgs },
          { id: 'call_search', name: 'search_text', args: searchArgs },
        ],
      );
    });

    it('gives generated tool call ids when the script names none', async () => {
      server.enqueue({ toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }] });
      const res = await client().chat.completions.create({ model: MODEL, messages: user('x') });
      const ids = (res.choices[0]?.message.tool_calls ?? []).map((c) => c.id);
      assert.equal(ids.length, 2);
      assert.ok(ids.every((id) => /^call_\d+$/.test(id)));
      assert.notEqual(ids[0], ids[1]);
    });

    it('delivers malformed tool-call arguments verbatim', async () => {
      const broken = '{"path": "src/a.ts", "content": "unterminated';
      server.on({ user: 'write' }, { toolCalls: [{ id: 'call_bad', name: 'write_file', arguments: broken }] });
      const chunks = await collect(
        await client().chat.completions.create({ model: MODEL, messages: user('write it'), stream: true }),
      );
      const [call] = assemble(chunks).toolCalls;
      assert.ok(call);
      assert.equal(call.arguments, broken);
      assert.throws(() => JSON.parse(call.arguments), SyntaxError);
    });

    it('delivers a call to a tool the request never offered, name unchanged', async () => {
      server.on({ user: 'clean' }, { toolCalls: [{ id: 'call_u', name: 'delete_everything', arguments: {} }] });
      const res = await client().chat.completions.create({
        model: MODEL,
        messages: user('clean up'),
        tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }],
      });
      const call = res.choices[0]?.message.tool_calls?.[0];
      assert.equal(call?.type, 'function');
      assert.equal(call?.type === 'function' ? call.function.name : undefined, 'delete_everything');
    });

    it('can answer with empty choices, streaming or not', async () => {
      server.on({ user: 'filtered' }, { emptyChoices: true }, { emptyChoices: true });
      const res = await client().chat.completions.create({ model: MODEL, messages: user('filtered') });
      assert.deepEqual(res.choices, []);
      assert.ok(res.usage);
      const chunks = await collect(
        await client().chat.completions.create({ model: MODEL, messages: user('filtered'), stream: true }),
      );
      assert.equal(chunks.length, 1);
      assert.deepEqual(chunks[0]?.choices, []);
      assert.equal(assemble(chunks).finishReason, null);
    });
  });

  describe('usage', () => {
    it('reports cached tokens as the prompt prefix shared with the previous request', async () => {
      server.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
      const turn1 = user('first question');
      const turn2: ChatCompletionMessageParam[] = [...turn1, { role: 'assistant', content: 'one' }, { role: 'user', content: 'second' }];
      const turn3: ChatCompletionMessageParam[] = [{ role: 'system', content: 'A different system prompt.' }, ...turn2.slice(1)];
      const usages: CompletionUsage[] = [];
      for (const messages of [turn1, turn2, turn3]) {
        const chunks = await collect(
          await client().chat.completions.create({
            model: MODEL,
            messages,
            stream: true,
            stream_options: { include_usage: true },
          }),
        );
        const last = chunks.at(-1);
        assert.ok(last);
        assert.deepEqual(last.choices, [], 'usage chunk has no choices');
        assert.ok(chunks.slice(0, -1).every((c) => c.usage === null), 'earlier chunks carry usage: null');
        assert.ok(last.usage);
        usages.push(last.usage);
      }
      const [u1, u2, u3] = usages;
      assert.ok(u1 && u2 && u3);
      const cached = (u: CompletionUsage): number => u.prompt_tokens_details?.cached_tokens ?? -1;
      assert.equal(cached(u1), 0, 'nothing cached on the first request');
      assert.ok(u2.prompt_tokens > u1.prompt_tokens);
      // Turn 1's prompt is a prefix of turn 2's except for its closing brackets.
      const turn1Chars = JSON.stringify({ tools: [], messages: turn1 }).length;
      assert.equal(cached(u2), Math.floor((turn1Chars - 2) / 4));
      assert.ok(cached(u3) < 20, `changed system prompt busts the cache, got ${cached(u3)}`);
      for (const u of usages) assert.equal(u.total_tokens, u.prompt_tokens + u.completion_tokens);
    });

    it('uses the figures the script sets', async () => {
      server.enqueue({ text: 'ok', usage: { promptTokens: 2000, completionTokens: 7, cachedTokens: 1536 } });
      const chunks = await collect(
        await client().chat.completions.create({
          model: MODEL,
          messages: user('x'),
          stream: true,
          stream_options: { include_usage: true },
        }),
      );
      assert.deepEqual(chunks.at(-1)?.usage, {
        prompt_tokens: 2000,
        completion_tokens: 7,
        total_tokens: 2007,
        prompt_tokens_details: { cached_tokens: 1536 },
      });
    });
  });

  describe('script', () => {
    it('records every request, so tests can assert on the exact prompt', async () => {
      server.on({ user: 'first' }, { text: 'a' }).on({ user: 'second' }, { text: 'b' });
      const openai = client();
      await openai.chat.completions.create({ model: MODEL, messages: user('first'), temperature: 0 });
      await openai.chat.completions.create({
        model: MODEL,
        messages: [...user('first'), { role: 'assistant', content: 'a' }, { role: 'user', content: 'second' }],
      });

      assert.equal(server.requests.length, 2);
      const [r1, r2] = server.requests;
      assert.ok(r1 && r2);
      assert.equal(r1.method, 'POST');
      assert.equal(r1.path, '/v1/chat/completions');
      assert.equal(r1.headers.authorization, 'Bearer test');
      assert.equal(r1.state, 'completed');
      assert.equal(JSON.parse(r1.rawBody).temperature, 0);
      const [b1, b2] = server.chatRequests;
      assert.ok(b1 && b2);
      assert.equal(b1.model, MODEL);
      assert.deepEqual(b1.messages, user('first'));
      assert.equal(b2.messages.length, 4);
      assert.equal(JSON.stringify(b2.messages[0]), JSON.stringify(b1.messages[0]), 'system prompt byte-identical');
      assert.ok(r2.rawBody.startsWith(r1.rawBody.slice(0, r1.rawBody.indexOf('first'))));
    });

    it('matches tool results by call id or content, last message only', async () => {
      server
        .on({ toolResult: { toolCallId: 'call_1' } }, { text: 'saw call_1' })
        .on({ toolResult: { content: /ENOENT/ } }, { text: 'file missing' })
        .on({ user: 'go' }, { toolCalls: [{ id: 'call_1', name: 'read_file', arguments: {} }] });
      const openai = client();
      const ask = async (messages: ChatCompletionMessageParam[]): Promise<string | null | undefined> =>
        (await openai.chat.completions.create({ model: MODEL, messages })).choices[0]?.message.content;
      const start = user('go');
      const first = await openai.chat.completions.create({ model: MODEL, messages: start });
      const assistant: ChatCompletionMessageParam = {
        role: 'assistant',
        content: null,
        tool_calls: first.choices[0]?.message.tool_calls,
      };
      assert.equal(await ask([...start, assistant, { role: 'tool', tool_call_id: 'call_1', content: 'contents' }]), 'saw call_1');
      assert.equal(
        await ask([...start, assistant, { role: 'tool', tool_call_id: 'call_9', content: [{ type: 'text', text: 'ENOENT: no file' }] }]),
        'file missing',
      );
    });

    it('plays a rule’s replies in order, then falls back to the queue', async () => {
      server.on({ user: /^again$/ }, { text: 'r1' }, { text: 'r2' }).enqueue({ text: 'q1' });
      server.on({ request: (body) => body.model === 'other-model' }, { text: 'by predicate' });
      const openai = client();
      const say = async (model = MODEL): Promise<string | null | undefined> =>
        (await openai.chat.completions.create({ model, messages: user('again') })).choices[0]?.message.content;
      assert.equal(await say(), 'r1');
      assert.deepEqual(server.pendingScript(), [
        'user /^again$/: 1 unused reply',
        'request predicate: 1 unused reply',
        'queue: 1 unused reply',
      ]);
      assert.equal(await say(), 'r2');
      assert.equal(await say('other-model'), 'by predicate');
      assert.equal(await say(), 'q1');
      assert.deepEqual(server.pendingScript(), []);
    });

    it('answers an unmatched request with a 500 that says so and is not retried', async () => {
      server.on({ user: 'something else' }, { text: 'x' });
      const err = await client(2)
        .chat.completions.create({ model: MODEL, messages: user('nobody scripted this') })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.InternalServerError, `got ${String(err)}`);
      assert.equal(err.status, 500);
      assert.equal(err.code, NO_SCRIPT_MATCHED);
      assert.match(err.message, /no script matched.*user "nobody scripted this"/);
      assert.equal(server.requests.length, 1, 'x-should-retry: false stops the client retrying');
      assert.equal(server.requests[0]?.unmatched, true);
    });

    it('can answer unmatched requests with a default reply instead', async () => {
      await server.close();
      server = await ScriptedModelServer.start({ unmatched: { text: 'default' } });
      const res = await client().chat.completions.create({ model: MODEL, messages: user('anything') });
      assert.equal(res.choices[0]?.message.content, 'default');
    });
  });

  describe('faults', () => {
    it('429 with retry-after is retried by the client after the given delay', async () => {
      server.on({ user: 'busy' }, faults.rateLimit(1), { text: 'finally' });
      const started = Date.now();
      const res = await client(1).chat.completions.create({ model: MODEL, messages: user('busy?') });
      const elapsed = Date.now() - started;
      assert.equal(res.choices[0]?.message.content, 'finally');
      assert.equal(server.requests.length, 2);
      assert.ok(elapsed >= 950, `retry-after: 1 should delay about a second, took ${elapsed} ms`);
      assert.deepEqual(server.chatRequests[0], server.chatRequests[1]);
    });

    it('429 surfaces as RateLimitError with headers and an OpenAI error body', async () => {
      server.on({ user: 'busy' }, faults.rateLimit(7));
      const err = await client()
        .chat.completions.create({ model: MODEL, messages: user('busy') })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.RateLimitError, `got ${String(err)}`);
      assert.equal(err.headers?.get('retry-after'), '7');
      assert.equal(err.code, 'rate_limit_exceeded');
      assert.equal(err.type, 'requests');
    });

    it('500 surfaces as InternalServerError', async () => {
      server.on({ user: 'x' }, faults.serverError('boom'));
      const err = await client()
        .chat.completions.create({ model: MODEL, messages: user('x') })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.InternalServerError, `got ${String(err)}`);
      assert.equal(err.status, 500);
      assert.match(err.message, /boom/);
    });

    it('an `always` fault keeps failing through every retry', async () => {
      server.always({ user: 'x' }, faults.http(503, { message: 'overloaded', type: 'server_error' }, { 'retry-after-ms': '5' }));
      const err = await client(2)
        .chat.completions.create({ model: MODEL, messages: user('x') })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.APIError && err.status === 503, `got ${String(err)}`);
      assert.equal(server.requests.length, 3);
      assert.deepEqual(server.pendingScript(), []);
    });

    it('401 surfaces as AuthenticationError and is not retried', async () => {
      server.on({ user: 'x' }, faults.unauthorized());
      const err = await client(2)
        .chat.completions.create({ model: MODEL, messages: user('x') })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.AuthenticationError, `got ${String(err)}`);
      assert.equal(err.code, 'invalid_api_key');
      assert.equal(server.requests.length, 1);
    });

    it('a stream cut by a dropped connection makes the iterator throw after the chunks sent', async () => {
      server.on({ user: 'long' }, faults.cutStream(3, { text: 'a long answer that never finishes', chunkSize: 4 }));
      const stream = await client().chat.completions.create({ model: MODEL, messages: user('long'), stream: true });
      const seen: ChatCompletionChunk[] = [];
      const err = await (async () => {
        for await (const chunk of stream) seen.push(chunk);
      })().then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof Error, 'iteration must fail, not end quietly');
      // undici reports a dropped chunked body as TypeError('terminated'); openai passes it through.
      assert.equal(err.message, 'terminated');
      assert.equal(seen.length, 3);
      assert.equal(assemble(seen).text, 'a long a', 'role chunk + two 4-char content chunks');
      assert.equal(assemble(seen).finishReason, null);
      assert.equal(server.requests[0]?.state, 'closed-early');
    });

    it('a stream ended cleanly without [DONE] just ends, with no finish_reason', async () => {
      server.on({ user: 'long' }, faults.cutStream(2, { text: 'abcdefghijkl', chunkSize: 4 }, 'end'));
      const chunks = await collect(
        await client().chat.completions.create({ model: MODEL, messages: user('long'), stream: true }),
      );
      assert.equal(chunks.length, 2);
      assert.equal(assemble(chunks).text, 'abcd');
      assert.equal(assemble(chunks).finishReason, null);
    });

    it('a hang trips the client timeout', async () => {
      server.on({ user: 'x' }, faults.hang());
      const started = Date.now();
      const err = await new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries: 0, timeout: 300 })
        .chat.completions.create({ model: MODEL, messages: user('x') })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.APIConnectionTimeoutError, `got ${String(err)}`);
      assert.ok(Date.now() - started < 3000);
      assert.equal(server.requests.length, 1);
    });

    it('a hang ends when the caller aborts', async () => {
      server.on({ user: 'x' }, faults.hang());
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 100);
      const err = await client()
        .chat.completions.create({ model: MODEL, messages: user('x'), stream: true }, { signal: abort.signal })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.APIUserAbortError, `got ${String(err)}`);
    });

    it('a stream that stalls mid-answer ends quietly when the caller aborts it', async () => {
      server.on({ user: 'x' }, faults.hang(2, { text: 'partial answer here', chunkSize: 7 }));
      const stream = await client().chat.completions.create({ model: MODEL, messages: user('x'), stream: true });
      const seen: ChatCompletionChunk[] = [];
      setTimeout(() => stream.controller.abort(), 150);
      for await (const chunk of stream) seen.push(chunk);
      assert.equal(assemble(seen).text, 'partial');
      assert.equal(assemble(seen).finishReason, null);
    });

    it('delays between chunks, and sees the client leave when it stops reading', async () => {
      server.on({ user: 'x' }, { text: 'one two three four five six', chunkSize: 4, chunkDelayMs: 40 });
      const stream = await client().chat.completions.create({ model: MODEL, messages: user('x'), stream: true });
      const started = Date.now();
      let count = 0;
      for await (const chunk of stream) {
        assert.ok(chunk.choices.length > 0);
        if (++count === 3) break; // like pressing Stop
      }
      assert.ok(Date.now() - started >= 60, 'chunks were spaced out');
      for (let i = 0; i < 100 && server.requests[0]?.state === 'open'; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(server.requests[0]?.state, 'closed-early', 'the server saw the client leave');
    });

    it('delays the whole answer by delayMs', async () => {
      server.on({ user: 'x' }, { text: 'slow', delayMs: 200 });
      const started = Date.now();
      await client().chat.completions.create({ model: MODEL, messages: user('x') });
      assert.ok(Date.now() - started >= 190);
    });

    it('close() ends hung requests and can be called twice', async () => {
      server.on({ user: 'x' }, faults.hang());
      const pending = client()
        .chat.completions.create({ model: MODEL, messages: user('x') })
        .then(() => undefined, (e: unknown) => e);
      while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      assert.equal(server.requests[0]?.state, 'open');
      const started = Date.now();
      await Promise.all([server.close(), server.close()]);
      assert.ok(Date.now() - started < 1000);
      assert.ok((await pending) instanceof OpenAI.APIConnectionError);
      assert.equal(server.requests[0]?.state, 'closed-early');
    });
  });

  describe('embeddings and models', () => {
    const cosine = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

    it('returns deterministic, normalised vectors of one dimension', async () => {
      const openai = client();
      const input: [string, string, string] = ['Skill for release notes', 'notes, for release: skill', 'kubernetes pod crash loop'];
      const first = await openai.embeddings.create({ model: 'scripted-embedding', input });
      const again = await openai.embeddings.create({ model: 'scripted-embedding', input: input[0] });
      assert.equal(first.data.length, 3);
      assert.deepEqual(first.data.map((d) => d.index), [0, 1, 2]);
      assert.ok(first.data.every((d) => d.embedding.length === 64));
      assert.deepEqual(again.data[0]?.embedding, first.data[0]?.embedding);
      const [a, b, c] = first.data.map((d) => d.embedding);
      assert.ok(a && b && c);
      assert.ok(Math.abs(cosine(a, a) - 1) < 1e-5);
      assert.ok(Math.abs(cosine(a, b) - 1) < 1e-5, 'same words, same bag');
      assert.ok(cosine(a, c) < 0.5);
      assert.ok(first.usage.prompt_tokens > 0);
    });

    it('honours dimensions and float encoding', async () => {
      const res = await client().embeddings.create({
        model: 'scripted-embedding',
        input: 'hello world',
        dimensions: 16,
        encoding_format: 'float',
      });
      assert.equal(res.data[0]?.embedding.length, 16);
      assert.equal(server.chatRequests.length, 0);
      assert.equal((server.requests[0]?.body as { encoding_format?: string } | undefined)?.encoding_format, 'float');
    });

    it('lists the configured models', async () => {
      await server.close();
      server = await ScriptedModelServer.start({ models: ['m-one', 'm-two'] });
      const ids: string[] = [];
      for await (const model of client().models.list()) ids.push(model.id);
      assert.deepEqual(ids, ['m-one', 'm-two']);
    });

    it('answers unknown routes with 404', async () => {
      const err = await client()
        .completions.create({ model: MODEL, prompt: 'legacy' })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof OpenAI.NotFoundError, `got ${String(err)}`);
    });
  });
});
