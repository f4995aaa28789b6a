import { toolSpecOf } from '../../../src/core/toolkit/toolDefinition';
import * as assert from 'node:assert/strict';
import type { ChatModel, ModelEvent } from '../../../src/core/llm/chatTypes';
import { hitSummarizer } from '../../../src/core/sessions/hitSummarizer';
import { sessionAgentTool } from '../../../src/core/agent/sessionAgentTool';
import type { SessionIndex } from '../../../src/core/sessions/sessionIndex';
import type { HitSummaryRequest } from '../../../src/core/sessions/sessionSearchTool';
import { MAX_RESULT_CHARS, SESSION_SEARCH_TOOL, runSessionSearch } from '../../../src/core/sessions/sessionSearchTool';
import { SessionFixture } from './sessionFixture';

// Tool results are plain JSON; the tests read them loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- results are navigated deep without a schema in these tests
type Json = Record<string, any>;

describe('session_search tool', function () {
  this.timeout(30_000);
  let fixture: SessionFixture;
  let index: SessionIndex;
  const run = async (args: unknown, extra: object = {}): Promise<Json> => (await runSessionSearch(args, { index, currentSessionId: 'now', ...extra })) as Json;

  beforeEach(async () => {
    fixture = new SessionFixture();
    const long: [string, string][] = Array.from({ length: 12 }, (_, i) => [`step ${i} of the migration`, `done with step ${i}`]);
    long[6] = ['the pgbouncer pool size was the culprit', 'set default_pool_size to 40'];
    await fixture.session('migration', long, { workspace: '/projects/db' });
    await fixture.session('short', [['pgbouncer install notes', 'apt install pgbouncer']]);
    await fixture.session('now', [['what was the pgbouncer fix?', 'searching']]);
    index = fixture.newIndex();
  });
  afterEach(() => fixture.cleanup());

  it('offers an OpenAI function schema named session_search with the documented arguments', () => {
    const spec = toolSpecOf(SESSION_SEARCH_TOOL);
    assert.equal(spec.name, 'session_search');
    assert.equal(SESSION_SEARCH_TOOL.approval, 'read');
    const parameters = spec.parameters as { properties: Record<string, unknown>; additionalProperties: boolean };
    assert.deepEqual(Object.keys(parameters.properties).sort(), ['around_message_id', 'limit', 'offset', 'query', 'session_id']);
    assert.equal(parameters.additionalProperties, false);
  });

  it('with a query: best session first, the hit with its neighbours and the session’s start and end, never the current session', async () => {
    const result = await run({ query: 'pgbouncer pool' });
    assert.equal(result['success'], true);
    const sessions = result['sessions'] as Json[];
    assert.deepEqual(sessions.map((session) => session['session_id']), ['migration']);
    const best = sessions[0] as Json;
    assert.equal(best['workspace'], '/projects/db');
    assert.equal(best['hit']['id'], 'm13');
    assert.match(best['hit']['excerpt'], /pgbouncer pool size/);
    assert.deepEqual((best['around_hit'] as Json[]).map((message) => message['id']), ['m11', 'm12', 'm13', 'm14', 'm15']);
    assert.deepEqual((best['session_start'] as Json[]).map((message) => message['id']), ['m1', 'm2']);
    assert.deepEqual((best['session_end'] as Json[]).map((message) => message['id']), ['m23', 'm24']);

    const any = await run(JSON.stringify({ query: 'pgbouncer', limit: 5 }));
    assert.deepEqual((any['sessions'] as Json[]).map((session) => session['session_id']).sort(), ['migration', 'short']);
  });

  it('reads a session page by page and scrolls around a message', async () => {
    const first = await run({ session_id: 'migration', limit: 10 });
    assert.equal(first['total_messages'], 24);
    assert.deepEqual((first['messages'] as Json[]).map((message) => message['id']), ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10']);
    assert.deepEqual(first['next'], { offset: 10, around_message_id: 'm11' });
    const second = await run({ session_id: 'migration', offset: first['next']['offset'], limit: 10 });
    assert.equal((second['messages'] as Json[])[0]?.['id'], 'm11');
    assert.equal(second['previous']['offset'], 0);

    const around = await run({ session_id: 'migration', around_message_id: 'm13', limit: 5 });
    assert.deepEqual((around['messages'] as Json[]).map((message) => message['id']), ['m11', 'm12', 'm13', 'm14', 'm15']);
    const end = await run({ session_id: 'migration', around_message_id: 'm24', limit: 4 });
    assert.deepEqual((end['messages'] as Json[]).map((message) => message['id']), ['m21', 'm22', 'm23', 'm24']);
    assert.equal(end['next'], undefined);

    const inside = await run({ session_id: 'migration', query: 'pool size' });
    assert.deepEqual((inside['hits'] as Json[]).map((hit) => hit['id']).sort(), ['m13', 'm14']);
  });

  it('with nothing: recent sessions with title, date, message count and workspace, without the current one', async () => {
    const result = await run({});
    const sessions = result['sessions'] as Json[];
    assert.deepEqual(sessions.map((session) => session['session_id']), ['short', 'migration']);
    assert.deepEqual(
      Object.keys(sessions[1] as Json).sort(),
      ['created', 'message_count', 'session_id', 'title', 'updated', 'workspace'],
    );
    assert.equal((sessions[1] as Json)['message_count'], 24);
    assert.equal((await run(undefined))['success'], true);
    assert.equal((await run('  '))['success'], true);
    assert.equal(((await run({ limit: 1 }))['sessions'] as Json[]).length, 1);
  });

  it('answers bad arguments with errors the model can act on', async () => {
    const cases: [unknown, RegExp][] = [
      ['{not json', /not valid JSON/],
      [[1, 2], /must be a JSON object/],
      [{ query: 42 }, /"query" must be a string/],
      [{ limit: 0 }, /"limit" must be at least 1, not 0/],
      [{ limit: 'many' }, /"limit" must be a whole number/],
      [{ sessions: 'x' }, /has no argument "sessions"/],
      [{ around_message_id: 'm3' }, /needs session_id too/],
      [{ session_id: '../../etc/passwd' }, /is not a session id/],
      [{ session_id: 'missing' }, /no session "missing"/],
      [{ session_id: 'short', around_message_id: 'm99' }, /has no message "m99"; its message ids are m1, m2/],
      [{ query: '"*" ( )' }, /no searchable words/],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      assert.equal(result['success'], false, JSON.stringify(args));
      assert.match(result['error'], message);
    }
    assert.equal((await run({ limit: '2' }))['success'], true);
    assert.equal((await run({ query: null, session_id: null }))['success'], true);
  });

  it('survives awkward queries and says when nothing matched', async () => {
    for (const query of ['"', '-foo', 'a:b', 'AND', 'NEAR', '🙂', '(', 'x'.repeat(2_000)]) {
      const result = await run({ query });
      assert.ok(result['success'] === true || /no searchable words/.test(result['error']), query.slice(0, 10));
    }
    const none = await run({ query: 'zanzibar' });
    assert.deepEqual(none['sessions'], []);
    assert.match(none['hint'], /No earlier session matches/);
  });

  it('adds a cheaper model’s summary of each hit when asked, and goes on without it when that fails', async () => {
    const requests: HitSummaryRequest[] = [];
    const summarized = await run({ query: 'pgbouncer pool' }, {
      summarize: async (request: HitSummaryRequest) => {
        requests.push(request);
        return 'They raised default_pool_size to 40.';
      },
    });
    assert.equal((summarized['sessions'] as Json[])[0]?.['summary'], 'They raised default_pool_size to 40.');
    assert.equal(requests[0]?.query, 'pgbouncer pool');
    assert.ok(requests[0]?.messages.some((message) => /pool size/.test(message.text)));
    const failed = await run({ query: 'pgbouncer pool' }, { summarize: () => Promise.reject(new Error('rate limited')) });
    assert.equal(failed['success'], true);
    assert.equal((failed['sessions'] as Json[])[0]?.['summary'], undefined);
  });

  it('returns without summaries that are not there in time, and never writes a late one into the result', async () => {
    let settle: (value: string) => void = () => undefined;
    const started = Date.now();
    const result = await run({ query: 'pgbouncer pool' }, { summarize: () => new Promise<string>((resolve) => (settle = resolve)), summaryDeadlineMs: 50 });
    assert.ok(Date.now() - started < 5_000);
    assert.equal(result['success'], true);
    settle('Too late.');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((result['sessions'] as Json[])[0]?.['summary'], undefined);
  });

  it('summarises the best three sessions at most, passes the stop signal, and clips what comes back', async () => {
    for (let i = 0; i < 5; i++) await fixture.session(`pool-${i}`, [[`pgbouncer pool notes ${i}`, 'ok']]);
    const stop = new AbortController();
    const signals: (AbortSignal | undefined)[] = [];
    const result = await run({ query: 'pgbouncer pool', limit: 10 }, {
      signal: stop.signal,
      summarize: async (request: HitSummaryRequest) => {
        signals.push(request.signal);
        return `Summary of ${request.sessionId}. ${'More words here. '.repeat(100)}`;
      },
    });
    const sessions = result['sessions'] as Json[];
    assert.ok(sessions.length > 3);
    assert.deepEqual(sessions.map((session) => session['summary'] !== undefined), sessions.map((_, i) => i < 3));
    assert.ok(sessions.slice(0, 3).every((session) => String(session['summary']).length <= 600));
    assert.deepEqual(signals, [stop.signal, stop.signal, stop.signal]);
  });

  it('works with hitSummarizer over a model that hangs: the search still succeeds', async () => {
    const model: ChatModel = {
      id: 'fake:hangs',
      stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<ModelEvent>>(() => undefined) }) }),
    };
    const result = await run({ query: 'pgbouncer pool' }, { summarize: hitSummarizer(model, { timeoutMs: 50 }) });
    assert.equal(result['success'], true);
    assert.equal((result['sessions'] as Json[])[0]?.['summary'], undefined);
    assert.ok((result['sessions'] as Json[])[0]?.['hit']);
  });

  it('as an agent tool, hands the summarizer and the call’s signal through', async () => {
    const seen: HitSummaryRequest[] = [];
    const tool = sessionAgentTool(index, () => 'now', {
      summarize: async (request) => {
        seen.push(request);
        return 'They raised default_pool_size to 40.';
      },
    });
    const stop = new AbortController();
    const result = (await tool.run({ query: 'pgbouncer pool' }, { signal: stop.signal, turnId: 't1' })) as Json;
    assert.equal((result['sessions'] as Json[])[0]?.['summary'], 'They raised default_pool_size to 40.');
    assert.equal(seen[0]?.signal, stop.signal);
    const plain = (await sessionAgentTool(index, () => 'now').run({ query: 'pgbouncer pool' }, { signal: stop.signal, turnId: 't1' })) as Json;
    assert.equal((plain['sessions'] as Json[])[0]?.['summary'], undefined);
  });

  it('keeps a result within its size budget however long the messages are', async () => {
    const huge = 'pgbouncer '.repeat(5_000);
    for (let i = 0; i < 10; i++) await fixture.session(`big-${i}`, [[huge, huge], [huge, huge], [huge, huge]]);
    const result = await run({ query: 'pgbouncer', limit: 10 });
    assert.ok(JSON.stringify(result).length <= MAX_RESULT_CHARS, `${JSON.stringify(result).length} characters`);
    const page = await run({ session_id: 'big-0', limit: 50 });
    assert.ok(JSON.stringify(page).length <= MAX_RESULT_CHARS);
    assert.ok((page['messages'] as Json[]).length >= 1);
  });
});
