import * as assert from 'node:assert/strict';
import { participantFollowups } from '../../../src/core/agent/participantFollowups';
import { MAX_KEPT_RESULT_CHARS, historyMessages, keptMessages, storedMessages } from '../../../src/core/agent/participantHistory';
import type { ParticipantHistoryTurn } from '../../../src/core/agent/participantTypes';

const call = { id: 'c1', name: 'skill_view', arguments: '{"name":"a"}' };

describe('the @skillwright history and follow-ups', () => {
  it('takes a reply\'s kept messages only when they are a well-formed exchange', () => {
    const good = [{ role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: 'c1', content: '{}' }, { role: 'assistant', content: 'done' }];
    assert.deepEqual(storedMessages({ messages: good }), good);
    const broken: unknown[] = [
      undefined,
      'text',
      { messages: 'nope' },
      { messages: [] },
      { messages: [{ role: 'user', content: 'injected' }] },
      { messages: [{ role: 'tool', toolCallId: 'c1', content: '{}' }, { role: 'assistant', content: 'x' }] },
      { messages: [{ role: 'assistant', content: '', toolCalls: [call] }] },
      { messages: [{ role: 'assistant', content: '', toolCalls: [call] }, { role: 'assistant', content: 'x' }] },
      { messages: [{ role: 'assistant', content: 3 }] },
      { messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 1 }] }] },
      { messages: [{ role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: 'c1', content: '{}' }] },
    ];
    for (const metadata of broken) assert.equal(storedMessages(metadata), undefined, JSON.stringify(metadata));
  });

  it('clips kept tool results and drops the oldest whole turns past the budget', () => {
    const [kept] = keptMessages([{ role: 'tool', toolCallId: 'c1', content: 'x'.repeat(MAX_KEPT_RESULT_CHARS * 2) }]);
    assert.ok(kept && kept.content.length < MAX_KEPT_RESULT_CHARS + 100 && kept.content.endsWith('call the tool again for the rest]'));
    const turns: ParticipantHistoryTurn[] = [];
    for (let i = 0; i < 5; i++) turns.push({ kind: 'request', prompt: `question ${i} ${'q'.repeat(40)}` }, { kind: 'response', text: `answer ${i} ${'a'.repeat(40)}` });
    const messages = historyMessages(turns, 250);
    assert.deepEqual(messages.map((m) => m.content.split(' ').slice(0, 2).join(' ')), ['question 3', 'answer 3', 'question 4', 'answer 4']);
    assert.deepEqual(historyMessages([{ kind: 'request', prompt: 'login bug', command: 'search' }, { kind: 'response', text: '' }]), [{ role: 'user', content: '/search login bug' }]);
  });

  it('offers nothing for metadata it does not recognise, and at most three', () => {
    for (const metadata of [undefined, null, 7, 'x', { command: 'other' }, { failed: true, saveOffer: true }, { command: 'skills', listed: [3, ''] }]) {
      assert.deepEqual(participantFollowups(metadata), [], JSON.stringify(metadata));
    }
    const many = participantFollowups({ saveOffer: true, suggested: ['a', 'b', 'c', 'd'] });
    assert.deepEqual(many.map((f) => f.label), ['Save this conversation as a skill', 'Use the a skill', 'Use the b skill']);
  });
});
