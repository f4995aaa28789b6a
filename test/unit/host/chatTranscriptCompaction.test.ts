import * as assert from 'node:assert/strict';
import type { CompactionInfo } from '../../../src/core/agent/compactionInfo';
import { sessionFromRecords } from '../../../src/core/sessions/sessionLog';
import type { SessionRecord } from '../../../src/core/sessions/sessionRecords';
import { ChatTranscript } from '../../../src/host/chat/chatTranscript';
import type { ChatItem } from '../../../src/shared/protocol';
import { compactionTitle, meterLevel, shortTokens } from '../../../src/webview/compactionText';
import { ModelError } from '../../../src/core/llm/chatTypes';

const INFO: CompactionInfo = {
  id: 'k1',
  at: '2026-12-02T10:00:00.000Z',
  reason: 'threshold',
  messagesCompacted: 14,
  summary: '## Goal\nShip the release.',
  summaryTokens: 180,
  tokensBefore: 7_000,
  tokensAfter: 2_100,
  skills: [
    { name: 'count-files', attached: 'full' },
    { name: 'big-skill', attached: 'pointer', reason: 'its SKILL.md is 40,000 tokens, over the 4,000-token budget' },
  ],
  memoryWrites: ['add to MEMORY.md: build with npm run build'],
};

type Divider = Extract<ChatItem, { kind: 'compaction' }>;
const dividers = (transcript: ChatTranscript): Divider[] => transcript.items.filter((item): item is Divider => item.kind === 'compaction');

describe('ChatTranscript: compaction dividers', () => {
  it('shows a running divider inside the turn, then "N messages → summary" with the skills, and the reply after it in a new bubble', () => {
    const shown: ChatItem[] = [];
    const transcript = new ChatTranscript({ item: (item) => shown.push(item), delta: () => undefined });
    transcript.startTurn('t9', 'go on', { catalog: 2, suggestions: [] });
    transcript.onEvent({ type: 'text', delta: 'Looking' });
    transcript.onEvent({ type: 'compaction_start', reason: 'threshold' });
    assert.equal(dividers(transcript)[0]?.state, 'running');
    transcript.onEvent({ type: 'compaction', compaction: INFO });
    transcript.onEvent({ type: 'text', delta: 'Done' });
    transcript.onEvent({ type: 'turn_done', reason: 'stop' });
    assert.deepEqual(transcript.items.map((item) => item.kind), ['user', 'assistant', 'compaction', 'assistant', 'turn']);
    const [divider] = dividers(transcript);
    assert.ok(divider);
    assert.equal(divider.state, 'done');
    assert.equal(compactionTitle(divider), 'Conversation compacted: 14 messages → summary (180 tokens)');
    assert.deepEqual(divider.skills, ['count-files', 'big-skill (pointer: its SKILL.md is 40,000 tokens, over the 4,000-token budget)']);
    assert.deepEqual(divider.memoryWrites, INFO.memoryWrites);
    assert.equal(divider.summary, INFO.summary);
    // The sink saw the same divider twice: running, then done, under one id.
    assert.deepEqual(shown.filter((item) => item.kind === 'compaction').map((item) => [item.id, item.kind === 'compaction' && item.state]), [[divider.id, 'running'], [divider.id, 'done']]);
  });

  it('marks a divider failed when the turn ends before the summary arrived (a model error, or Stop)', () => {
    for (const [reason, expected] of [['error', 'the summary model timed out'], ['aborted', 'stopped']] as const) {
      const transcript = new ChatTranscript();
      transcript.startTurn('t1', 'hi', { catalog: 0, suggestions: [] });
      transcript.onEvent({ type: 'compaction_start', reason: 'server' });
      transcript.onEvent({ type: 'turn_done', reason, ...(reason === 'error' ? { error: new ModelError('timeout', 'the summary model timed out', 'Try again.') } : {}) });
      const [divider] = dividers(transcript);
      assert.equal(divider?.state, 'failed');
      assert.equal(divider.error, expected);
      assert.equal(compactionTitle(divider), `Compaction failed: ${expected}. Nothing was lost.`);
    }
  });

  it('compacts between turns: a divider of its own, failed with the reason, or gone when there was nothing to compact', () => {
    const transcript = new ChatTranscript();
    transcript.compactionStarted('m1');
    transcript.compactionEnded('m1', { ok: true, compaction: { ...INFO, reason: 'manual' } });
    transcript.compactionStarted('m2');
    transcript.compactionEnded('m2', { ok: false, error: 'The model returned an empty summary.' });
    transcript.compactionStarted('m3');
    transcript.compactionEnded('m3', { ok: false, nothing: true });
    assert.deepEqual(dividers(transcript).map((d) => [d.id, d.state, d.reason]), [['m1', 'done', 'manual'], ['m2', 'failed', 'manual']]);
  });

  it('puts a logged compaction back where it happened when a session is resumed, keeping every original message', () => {
    const at = '2026-12-02T10:00:00.000Z';
    const message = (id: string, role: 'user' | 'assistant', content: string): SessionRecord => ({ type: 'message', id, role, content, at });
    const records: SessionRecord[] = [
      { type: 'session', id: 's1', created: at, model: 'openai:gpt-4.1', systemPrompt: 'You are Skillwright.' },
      message('u1', 'user', 'first question'),
      message('a1', 'assistant', 'first answer'),
      message('u2', 'user', 'second question'),
      message('a2', 'assistant', 'second answer'),
      {
        type: 'compaction',
        id: 'k1',
        at,
        reason: 'threshold',
        summary: INFO.summary,
        messages: [{ role: 'user', content: 'summary' }],
        kept: 2,
        messagesCompacted: 2,
        summaryTokens: 180,
        tokensBefore: 7_000,
        tokensAfter: 2_100,
        skills: [{ name: 'count-files', attached: 'full' }],
      },
      message('u3', 'user', 'third question'),
      message('a3', 'assistant', 'third answer'),
    ];
    const transcript = ChatTranscript.fromSession(sessionFromRecords('s1', records));
    const kinds = transcript.items.map((item) => (item.kind === 'user' || item.kind === 'assistant' ? `${item.kind}:${item.text}` : item.kind));
    assert.deepEqual(kinds, [
      'user:first question',
      'assistant:first answer',
      'turn',
      'user:second question',
      'assistant:second answer',
      'compaction',
      'turn',
      'user:third question',
      'assistant:third answer',
      'turn',
    ]);
    const [divider] = dividers(transcript);
    assert.equal(divider && compactionTitle(divider), 'Conversation compacted: 2 messages → summary (180 tokens)');
    assert.deepEqual(divider?.skills, ['count-files']);
  });
});

describe('the chat header’s context meter', () => {
  const meter = { window: 128_000, threshold: 102_400, system: 4_000, tools: 2_000, conversation: 0, total: 0, exact: true, source: 'table' };

  it('turns amber at the compaction threshold and red past the window', () => {
    assert.equal(meterLevel({ ...meter, total: 102_399 }), 'ok');
    assert.equal(meterLevel({ ...meter, total: 102_400 }), 'high');
    assert.equal(meterLevel({ ...meter, total: 128_001 }), 'over');
  });

  it('writes token counts short enough for the header', () => {
    assert.deepEqual([0, 999, 1_000, 1_234, 9_960, 12_345, 128_000].map(shortTokens), ['0', '999', '1k', '1.2k', '10k', '12k', '128k']);
  });
});
