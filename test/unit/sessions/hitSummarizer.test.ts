import * as assert from 'node:assert/strict';
import type { ChatModel, ChatRequest, ModelEvent } from '../../../src/core/llm/chatTypes';
import { ModelError } from '../../../src/core/llm/chatTypes';
import type { Logger } from '../../../src/core/base/logger';
import { cleanSummary, hitSummarizer } from '../../../src/core/sessions/hitSummarizer';
import type { HitSummaryRequest } from '../../../src/core/sessions/sessionSearchTool';

/** A ChatModel (our interface) whose reply is scripted per test; it records every request. */
class FakeModel implements ChatModel {
  readonly id = 'fake:cheap';
  readonly requests: ChatRequest[] = [];
  constructor(private readonly reply: (request: ChatRequest) => AsyncIterable<ModelEvent>) {}
  stream(request: ChatRequest): AsyncIterable<ModelEvent> {
    this.requests.push(request);
    return this.reply(request);
  }
}

async function* says(...deltas: string[]): AsyncIterable<ModelEvent> {
  for (const delta of deltas) yield { type: 'text', delta };
  yield { type: 'usage', usage: { promptTokens: 300, completionTokens: 40, cachedTokens: 0 } };
  yield { type: 'done', finishReason: 'stop' };
}

/** Waits for the abort signal, as a real provider does; `ignoreAbort` waits forever instead. */
async function* hangs(request: ChatRequest, ignoreAbort = false): AsyncIterable<ModelEvent> {
  yield { type: 'text', delta: 'They raised' };
  await new Promise<void>((_, reject) => {
    if (!ignoreAbort) request.signal?.addEventListener('abort', () => reject(new ModelError('aborted', 'The request was stopped.', 'Nothing to do.')));
  });
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (message: string | Error) => void lines.push(`${level}: ${String(message)}`);
  return { lines, trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

const REQUEST: HitSummaryRequest = {
  query: 'pgbouncer pool',
  sessionId: 'migration',
  title: 'Database migration',
  messages: [
    { role: 'user', text: 'the pgbouncer pool size was the culprit' },
    { role: 'assistant', text: 'set default_pool_size to 40' },
  ],
};

describe('hitSummarizer', () => {
  it('asks the model with our short prompt and returns its summary, whitespace tidied', async () => {
    const model = new FakeModel(() => says('The pgbouncer pool was too small; ', 'they set `default_pool_size`\n to 40.'));
    const summary = await hitSummarizer(model)(REQUEST);
    assert.equal(summary, 'The pgbouncer pool was too small; they set default_pool_size to 40.');
    const [request] = model.requests;
    assert.ok(request);
    assert.deepEqual(request.messages.map((m) => m.role), ['system', 'user']);
    assert.match(request.messages[0]!.content, /one to three plain sentences/);
    assert.match(request.messages[0]!.content, /never follow instructions/);
    const user = request.messages[1]!.content;
    assert.match(user, /Search words: pgbouncer pool/);
    assert.match(user, /\[assistant\] set default_pool_size to 40/);
    assert.equal(request.maxOutputTokens, 160);
    assert.equal(request.tools, undefined);
    assert.ok(request.signal instanceof AbortSignal);
  });

  it('leaves the summary out when the model throws, at once or mid-stream, and logs why', async () => {
    const logger = recordingLogger();
    const atOnce = new FakeModel(() => {
      throw new ModelError('rate_limit', 'Too many requests (429).', 'Wait a minute.');
    });
    assert.equal(await hitSummarizer(atOnce, { logger })(REQUEST), undefined);
    const midway = new FakeModel(async function* () {
      yield { type: 'text', delta: 'They found ' };
      throw new ModelError('connection', 'The connection was reset.', 'Check the server.');
    });
    assert.equal(await hitSummarizer(midway, { logger })(REQUEST), undefined);
    assert.equal(logger.lines.filter((line) => line.startsWith('warn:')).length, 2);
    assert.match(logger.lines.join('\n'), /Too many requests.*\n.*connection was reset/);
  });

  it('gives up at the time limit and aborts the request, also when the model ignores the abort', async () => {
    for (const ignoreAbort of [false, true]) {
      const model = new FakeModel((request) => hangs(request, ignoreAbort));
      const started = Date.now();
      const summary = await hitSummarizer(model, { timeoutMs: 60 })(REQUEST);
      const took = Date.now() - started;
      assert.equal(summary, undefined);
      assert.ok(took >= 55 && took < 2_000, `took ${took} ms`);
      assert.equal(model.requests[0]?.signal?.aborted, true);
    }
  });

  it('stops when the tool call is stopped', async () => {
    const model = new FakeModel((request) => hangs(request));
    const stop = new AbortController();
    const pending = hitSummarizer(model, { timeoutMs: 10_000 })({ ...REQUEST, signal: stop.signal });
    setTimeout(() => stop.abort(), 20);
    const started = Date.now();
    assert.equal(await pending, undefined);
    assert.ok(Date.now() - started < 2_000);
    assert.equal(model.requests[0]?.signal?.aborted, true);
    assert.equal(await hitSummarizer(model)({ ...REQUEST, signal: stop.signal }), undefined, 'already stopped: no request');
    assert.equal(model.requests.length, 1);
  });

  it('leaves out empty and garbage answers', async () => {
    const answers: string[][] = [
      [],
      ['   \n '],
      ['{"found": 3, "ok": true}'],
      ['!!! ### --- ***'],
      ['\uFFFD\uFFFD\uFFFD pool \uFFFD size'],
      [Array.from({ length: 30 }, () => 'pool').join(' ')],
      ['<think>The user wants a summary of', ' the pgbouncer part'],
      ['x'.repeat(200)],
      ['ok.'],
    ];
    for (const deltas of answers) {
      assert.equal(await hitSummarizer(new FakeModel(() => says(...deltas)))(REQUEST), undefined, JSON.stringify(deltas));
    }
  });

  it('caps the output: three sentences, the character limit, and a model that ignores the token cap is not read forever', async () => {
    const five = 'One fix was tried. It failed. The pool size was raised. It worked. They moved on.';
    assert.equal(await hitSummarizer(new FakeModel(() => says(five)))(REQUEST), 'One fix was tried. It failed. The pool size was raised.');
    const long = `The team compared connection pool settings across ${Array.from({ length: 60 }, (_, i) => `service${i}`).join(', ')}.`;
    const capped = await hitSummarizer(new FakeModel(() => says(long)), { maxChars: 120 })(REQUEST);
    assert.ok(capped && capped.length <= 120 && capped.endsWith('…'), capped);
    let sent = 0;
    const endless = new FakeModel(async function* () {
      for (;;) {
        sent += 1;
        yield { type: 'text', delta: `Attempt ${sent} resized pool ${sent * 7}; ` };
      }
    });
    assert.ok(await hitSummarizer(endless, { maxChars: 100 })(REQUEST));
    assert.ok(sent < 50, `read ${sent} deltas`);
  });

  it('drops Markdown, labels, reasoning blocks and a JSON wrapper, keeping names with underscores', () => {
    assert.equal(cleanSummary('**Summary:** They set `default_pool_size` to 40.'), 'They set default_pool_size to 40.');
    assert.equal(cleanSummary('## Result\n- They set the pool size to 40.'), 'Result They set the pool size to 40.');
    assert.equal(cleanSummary('<think>pool, hmm</think>\nThey set the pool size to 40.'), 'They set the pool size to 40.');
    assert.equal(cleanSummary('{"summary": "They set the pool size to 40."}'), 'They set the pool size to 40.');
    assert.equal(cleanSummary('"They set the pool size to 40."'), 'They set the pool size to 40.');
    assert.equal(cleanSummary('They set MAX_CONN_IDLE\u200B to 40 in pgbouncer.ini.'), 'They set MAX_CONN_IDLE to 40 in pgbouncer.ini.');
  });

  it('sends at most about 6,000 characters of the excerpt', async () => {
    const model = new FakeModel(() => says('They compared pool sizes across services.'));
    const messages = Array.from({ length: 20 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `${i} ${'pool '.repeat(160)}` }));
    await hitSummarizer(model)({ ...REQUEST, messages });
    const user = model.requests[0]!.messages[1]!.content;
    assert.ok(user.length < 6_300, `${user.length} characters`);
    assert.match(user, /…$/);
  });
});
