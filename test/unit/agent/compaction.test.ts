import * as assert from 'node:assert/strict';
import type { AgentEvent } from '../../../src/core/agent/agentLoop';
import type { AgentSessionOptions } from '../../../src/core/agent/agentSession';
import { AgentSession } from '../../../src/core/agent/agentSession';
import type { CompactionInfo } from '../../../src/core/agent/compactionInfo';
import { SUMMARY_SYSTEM_PROMPT } from '../../../src/core/agent/compactionSummary';
import type { ChatMessage } from '../../../src/core/llm/chatTypes';
import type { ContextWindow } from '../../../src/core/llm/contextWindows';
import { estimateCounter } from '../../../src/core/llm/tokenCounter';
import type { NewCompaction } from '../../../src/core/sessions/sessionWriter';
import { OpenAiChatModel } from '../../../src/providers/openAiChatModel';
import type { ChatRequestBody, ScriptedReply } from '../../fakes/scriptedModelServer';
import { faults, ScriptedModelServer } from '../../fakes/scriptedModelServer';

const SYSTEM = 'You are a test agent.';
const isSummary = (body: ChatRequestBody) => body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT;
const contextError = (window: number): ScriptedReply =>
  faults.http(400, { message: `This model's maximum context length is ${window} tokens. However, your messages resulted in 9000 tokens.`, type: 'invalid_request_error', code: 'context_length_exceeded' });

/** `turns` earlier exchanges of about 600 tokens each: over 80 % of a 4,000-token window from 6 on. */
function longHistory(turns: number): ChatMessage[] {
  return Array.from({ length: turns }, (_, i): ChatMessage[] => [
    { role: 'user', content: `question ${i + 1}: ${'details of the request '.repeat(100)}` },
    { role: 'assistant', content: `answer ${i + 1}` },
  ]).flat();
}

describe('conversation compaction against the scripted server', () => {
  let server: ScriptedModelServer;
  let model: OpenAiChatModel;
  let compactions: { info: CompactionInfo; record: NewCompaction }[];
  let learned: number[];

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
    model = new OpenAiChatModel({ baseUrl: server.baseUrl, model: 'scripted', apiKey: 'test-key', maxRetries: 0, timeoutMs: 10_000 });
    compactions = [];
    learned = [];
  });

  afterEach(async () => {
    await server.close();
  });

  function session(history: ChatMessage[], window: ContextWindow = { tokens: 4_000, source: 'setting' }, extra: Partial<AgentSessionOptions> = {}): AgentSession {
    return new AgentSession({
      model,
      tools: [],
      systemPrompt: SYSTEM,
      history,
      context: { counter: estimateCounter, window: () => window, thresholdShare: 0.8, onWindowLearned: (tokens) => learned.push(tokens) },
      onCompaction: (info, record) => compactions.push({ info, record }),
      ...extra,
    });
  }

  it('compacts before a request that would pass the threshold, keeping the last turns verbatim', async () => {
    server.always({ request: isSummary }, { text: '## Goal\nAnswer the questions.' }).on({ user: 'next' }, { text: 'ok' });
    const agent = session(longHistory(6));
    const events: AgentEvent['type'][] = [];
    const result = await agent.send('next', { onEvent: (event) => events.push(event.type) });
    assert.equal(result.reason, 'stop');
    assert.deepEqual(events.slice(0, 4), ['context', 'compaction_start', 'compaction', 'context']);
    const info = compactions[0]?.info;
    assert.ok(info);
    assert.equal(info.reason, 'threshold');
    assert.ok(info.tokensAfter < info.tokensBefore);
    const sent = server.chatRequests.at(-1);
    assert.equal(sent?.messages[0]?.content, SYSTEM);
    assert.match(String(sent?.messages[1]?.content), /<conversation-summary>[\s\S]*Answer the questions/);
    // The current turn and the one before it are kept as they were.
    const texts = sent?.messages.map((m) => String(m.content)) ?? [];
    assert.ok(texts.some((t) => t.startsWith('question 6:')));
    assert.ok(!texts.some((t) => t.startsWith('question 1:')));
    assert.equal(compactions[0]?.record.kept, 3);
    const usage = agent.contextUsage();
    assert.ok(usage && usage.total < usage.threshold && usage.exact === false);
  });

  it('summarises with the cheaper model when one is set, halving the transcript once if it is too long for it', async () => {
    server.on({ request: isSummary }, contextError(1_500), { text: '## Goal\nshort' }).on({ user: 'next' }, { text: 'ok' });
    const cheap = new OpenAiChatModel({ baseUrl: server.baseUrl, model: 'cheap', apiKey: 'test-key', maxRetries: 0, timeoutMs: 10_000 });
    const agent = new AgentSession({
      model,
      tools: [],
      systemPrompt: SYSTEM,
      history: longHistory(6),
      context: { counter: estimateCounter, window: () => ({ tokens: 4_000, source: 'setting' }), thresholdShare: 0.8, summaryModel: cheap },
    });
    assert.equal((await agent.send('next')).reason, 'stop');
    const summaries = server.chatRequests.filter(isSummary);
    assert.deepEqual(summaries.map((body) => body.model), ['cheap', 'cheap']);
    const sizes = summaries.map((body) => String(body.messages[1]?.content).length);
    assert.ok((sizes[1] ?? 0) < (sizes[0] ?? 0) * 0.75, `transcript ${sizes.join(' → ')}`);
    assert.match(String(summaries[1]?.messages[1]?.content), /earlier messages left out/);
    assert.deepEqual(server.pendingScript(), []);
  });

  it('ends the turn with a clear error and loses nothing when the summary is empty', async () => {
    server.always({ request: isSummary }, { text: '   ' });
    const history = longHistory(6);
    const agent = session(history);
    const result = await agent.send('next');
    assert.equal(result.reason, 'error');
    assert.equal(result.error?.kind, 'no_choices');
    assert.match(result.error?.message ?? '', /empty summary/);
    assert.match(result.error?.advice ?? '', /Nothing was lost/);
    assert.deepEqual(agent.history.slice(1, -1), history);
    assert.equal(compactions.length, 0);
  });

  it('ends the turn with the error when the summarising model fails, history unchanged', async () => {
    server.always({ request: isSummary }, faults.serverError('summariser down'));
    const history = longHistory(6);
    const agent = session(history);
    const result = await agent.send('next');
    assert.equal(result.reason, 'error');
    assert.equal(result.error?.kind, 'server');
    assert.match(result.error?.message ?? '', /could not be compacted[\s\S]*summariser down/);
    assert.deepEqual(agent.history.slice(1, -1), history);
  });

  it('clips a huge summary, and one just over the budget, to a quarter of the window with a note', async () => {
    for (const size of [400_000, 5_000]) {
      server.reset();
      compactions = [];
      server.always({ request: isSummary }, { text: `## Goal\n${'x'.repeat(size)}`, chunkSize: 4_096 }).always({ user: 'next' }, { text: 'ok' });
      const result = await session(longHistory(6)).send('next');
      assert.equal(result.reason, 'stop');
      const info = compactions[0]?.info;
      assert.ok(info);
      assert.match(info.summary, /summary was clipped to 1000 tokens/);
      assert.ok(info.summaryTokens <= 1_000 + 40, `summary of ${info.summaryTokens} tokens`);
    }
  });

  it('stops cleanly during a compaction: history unchanged, no record', async () => {
    server.always({ request: isSummary }, { text: 'late', delayMs: 10_000 });
    const history = longHistory(6);
    const agent = session(history);
    const stop = new AbortController();
    const result = await agent.send('next', { signal: stop.signal, onEvent: (event) => event.type === 'compaction_start' && stop.abort() });
    assert.equal(result.reason, 'aborted');
    assert.deepEqual(agent.history.slice(1, -1), history);
    assert.equal(compactions.length, 0);
    assert.equal(agent.busy, false);
  });

  it('compacts and retries once on a context-length error, and learns the window from it', async () => {
    server.always({ request: isSummary }, { text: '## Goal\nsummary' }).on({ user: 'next' }, contextError(2_000), { text: 'fits now' });
    const agent = session(longHistory(3), { tokens: 100_000, source: 'table' });
    const result = await agent.send('next');
    assert.equal(result.reason, 'stop');
    assert.deepEqual(learned, [2_000]);
    assert.equal(compactions[0]?.info.reason, 'server');
    assert.equal(agent.contextUsage()?.window, 2_000);
    assert.equal(agent.contextUsage()?.windowSource, 'learned');
    assert.deepEqual(server.pendingScript(), []);
  });

  it('ends the turn with the error when the retry is refused too', async () => {
    server.always({ request: isSummary }, { text: '## Goal\nsummary' }).on({ user: 'next' }, contextError(2_000), contextError(2_000));
    const result = await session(longHistory(3), { tokens: 100_000, source: 'table' }).send('next');
    assert.equal(result.reason, 'error');
    assert.equal(result.error?.kind, 'context_length');
    assert.equal(compactions.length, 1);
    assert.equal(server.chatRequests.filter((body) => !isSummary(body)).length, 2);
  });

  it('learns 3/4 of the estimate when the error states no window', async () => {
    server.always({ request: isSummary }, { text: 'summary' }).on({ user: 'next' }, faults.http(400, { message: 'prompt is too long', code: null }), { text: 'ok' });
    const agent = session(longHistory(3), { tokens: 100_000, source: 'table' });
    const before = agent.contextUsage()?.total ?? 0;
    assert.equal((await agent.send('next')).reason, 'stop');
    assert.ok(learned[0] !== undefined && Math.abs(learned[0] - Math.floor((before + 30) * 0.75)) < 40, `learned ${learned[0]} from ${before}`);
  });

  it('clips a single message larger than the window instead of failing', async () => {
    server.on({ user: (text) => text.startsWith('paste:') }, { text: 'read it' });
    const agent = session([]);
    const result = await agent.send(`paste: ${'log line '.repeat(20_000)}`);
    assert.equal(result.reason, 'stop');
    const sent = String(server.chatRequests[0]?.messages[1]?.content);
    assert.match(sent, /cut here: this message was \d+ tokens, more than fits in the model's context window of 4000 tokens/);
    assert.ok(sent.length < 20_000);
    assert.equal(compactions.length, 0);
  });

  it('compacts on request between turns, and not while a turn runs', async () => {
    server.always({ request: isSummary }, { text: 'manual summary' }).on({ user: 'slow' }, { text: 'done', delayMs: 200 });
    const agent = session(longHistory(4), { tokens: 100_000, source: 'setting' });
    const running = agent.send('slow');
    assert.deepEqual(await agent.compact(), { ok: false, reason: 'A turn is running: compact after it ends, or stop it first.' });
    await running;
    const done = await agent.compact();
    assert.ok(done.ok, done.ok ? '' : done.reason);
    assert.equal(done.compaction.reason, 'manual');
    assert.equal(done.compaction.messagesCompacted, 6);
    const again = await agent.compact();
    assert.equal(again.ok, false);
    assert.match(again.ok ? '' : again.reason, /^Nothing to compact yet/);
  });
});
