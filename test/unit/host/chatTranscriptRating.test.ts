import * as assert from 'node:assert/strict';
import { ChatTranscript } from '../../../src/host/chat/chatTranscript';
import type { ChatItem } from '../../../src/shared/protocol';

type Turn = Extract<ChatItem, { kind: 'turn' }>;

function finishedTurn(calls: { name: string; arguments: string }[]): { transcript: ChatTranscript; turn: () => Turn } {
  const items: ChatItem[] = [];
  const transcript = new ChatTranscript({ item: (i) => items.push(i), delta: () => undefined });
  transcript.startTurn('t1', 'go', { catalog: 2, suggestions: [] });
  calls.forEach((call, i) => {
    const full = { id: `c${i}`, ...call };
    transcript.onEvent({ type: 'tool_start', call: full });
    transcript.onEvent({ type: 'tool_end', call: full, ok: true, result: '{"success":true}', summary: '', durationMs: 1 });
  });
  transcript.onEvent({ type: 'turn_done', reason: 'stop' });
  const turn = (): Turn => {
    const last = [...items].reverse().find((item): item is Turn => item.kind === 'turn');
    assert.ok(last, 'the turn ended with a turn item');
    return last;
  };
  return { transcript, turn };
}

describe('ChatTranscript: rating a turn', () => {
  it('lists the skills a turn ran beside those it loaded, and rates them once', () => {
    const { transcript, turn } = finishedTurn([
      { name: 'skill_view', arguments: '{"name":"deploy"}' },
      { name: 'skill_run', arguments: '{"name":"word-count","arguments":{}}' },
    ]);
    assert.deepEqual(turn().loaded, ['deploy']);
    assert.deepEqual(turn().ran, ['word-count']);
    assert.deepEqual(transcript.rate(turn().id, 1), ['deploy', 'word-count']);
    assert.equal(turn().rating, 1);
    assert.equal(transcript.rate(turn().id, -1), undefined, 'a turn is rated once');
    assert.equal(turn().rating, 1);
  });

  it('has nothing to rate on a turn that used no skill, or an id that is not a turn', () => {
    const { transcript, turn } = finishedTurn([{ name: 'read_file', arguments: '{"path":"a"}' }]);
    assert.equal(transcript.rate(turn().id, 1), undefined);
    assert.equal(transcript.rate('c0', 1), undefined);
    assert.equal(turn().rating, undefined);
  });
});
