import * as assert from 'node:assert/strict';
import { withSkillSuggestions } from '../../../src/core/agent/systemPrompt';
import { sessionFromRecords } from '../../../src/core/sessions/sessionLog';
import { actionsForError, ChatTranscript, skillOfCall, splitSuggestions } from '../../../src/host/chat/chatTranscript';
import type { ChatItem } from '../../../src/shared/protocol';

describe('ChatTranscript', () => {
  function recording() {
    const items: ChatItem[] = [];
    const deltas: string[] = [];
    const transcript = new ChatTranscript({ item: (i) => items.push(i), delta: (_id, d) => deltas.push(d) });
    return { transcript, items, deltas };
  }

  it('streams text into one assistant item, starts a new one after a tool call, and sums usage per turn', () => {
    const { transcript, deltas } = recording();
    transcript.startTurn('t1', 'hi', { catalog: 3, suggestions: [] });
    transcript.onEvent({ type: 'text', delta: 'Hel' });
    transcript.onEvent({ type: 'text', delta: 'lo' });
    const call = { id: 'c1', name: 'skill_view', arguments: '{"name":"count-files"}' };
    transcript.onEvent({ type: 'tool_start', call });
    transcript.onEvent({ type: 'tool_end', call, ok: true, result: '{"success":true}', summary: '', durationMs: 12.6 });
    transcript.onEvent({ type: 'text', delta: 'Done' });
    transcript.onEvent({ type: 'usage', usage: { promptTokens: 100, completionTokens: 5, cachedTokens: 80 }, step: 1 });
    transcript.onEvent({ type: 'usage', usage: { promptTokens: 120, completionTokens: 7, cachedTokens: 100 }, step: 2 });
    transcript.setSuggestions(['count-files']);
    transcript.onEvent({ type: 'turn_done', reason: 'stop' });
    assert.deepEqual(deltas, ['lo']);
    assert.deepEqual(
      transcript.items.map((i) => i.kind),
      ['user', 'assistant', 'tool', 'assistant', 'turn'],
    );
    const [, first, tool, second, turn] = transcript.items;
    assert.equal(first?.kind === 'assistant' && first.text, 'Hello');
    assert.equal(second?.kind === 'assistant' && second.text, 'Done');
    assert.deepEqual(tool?.kind === 'tool' && [tool.state, tool.durationMs, tool.skill], ['done', 13, { name: 'count-files', action: 'loaded' }]);
    assert.ok(turn?.kind === 'turn');
    assert.deepEqual(turn.usage, { promptTokens: 220, cachedTokens: 180, completionTokens: 12, requests: 2 });
    assert.deepEqual(turn.loaded, ['count-files']);
    assert.deepEqual(turn.offered, { catalog: 3, suggestions: ['count-files'] });
    assert.equal(turn.offerSkill, false);
  });

  it('offers "save as skill" after five or more tool calls, and gives error cards their fixing actions', () => {
    const { transcript } = recording();
    transcript.startTurn('t1', 'do a lot', { catalog: 0, suggestions: [] });
    for (let i = 0; i < 5; i++) {
      const call = { id: `c${i}`, name: 'read_file', arguments: `{"path":"f${i}"}` };
      transcript.onEvent({ type: 'tool_start', call });
      transcript.onEvent({ type: 'tool_end', call, ok: true, result: '{}', summary: '', durationMs: 1 });
    }
    transcript.onEvent({ type: 'turn_done', reason: 'stop' });
    const turn = transcript.items.at(-1);
    assert.ok(turn?.kind === 'turn' && turn.offerSkill && turn.toolCalls === 5);
    assert.deepEqual(actionsForError('auth').slice(0, 2), ['configureModel', 'testConnection']);
    assert.equal(actionsForError('rate_limit')[0], 'retry');
  });

  it('marks pending approvals expired when the turn ends, and keeps answered ones', () => {
    const { transcript } = recording();
    transcript.startTurn('t1', 'x', { catalog: 0, suggestions: [] });
    const prompt = { tool: 'run_command', args: { command: 'npm test' }, summary: 'run_command: npm test', kind: 'command' as const, reason: '' };
    transcript.approval('a1', prompt);
    transcript.approval('a2', prompt);
    transcript.approvalAnswered('a1', 'allow_once');
    transcript.onEvent({ type: 'turn_done', reason: 'aborted' });
    const states = transcript.items.filter((i) => i.kind === 'approval').map((i) => i.kind === 'approval' && i.state);
    assert.deepEqual(states, ['allow_once', 'expired']);
  });

  it('recognises skill runs by a script path, and not by unrelated commands', () => {
    assert.deepEqual(skillOfCall({ name: 'run_command', arguments: '{"command":"python .agents/skills/ops/count-files/scripts/count.py"}' }), { name: 'count-files', action: 'ran' });
    assert.equal(skillOfCall({ name: 'run_command', arguments: '{"command":"npm test"}' }), undefined);
    assert.equal(skillOfCall({ name: 'skill_view', arguments: 'not json' }), undefined);
  });

  it('splits the suggestions block off a logged user message', () => {
    const logged = withSkillSuggestions('deploy it', [{ name: 'k8s-deploy', description: 'Deploys: to clusters' }]);
    assert.deepEqual(splitSuggestions(logged), { text: 'deploy it', suggestions: ['k8s-deploy'] });
    assert.deepEqual(splitSuggestions('plain'), { text: 'plain', suggestions: [] });
  });

  it('rebuilds a logged session with message ids kept, so History hits can be focused', () => {
    const at = '2026-11-30T10:00:00.000Z';
    const session = sessionFromRecords('s1', [
      { type: 'session', v: 1, id: 's1', created: at, model: 'm', systemPrompt: 'sys' },
      { type: 'message', id: 'm1', role: 'user', content: 'find the bug', at },
      { type: 'message', id: 'm2', role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'search_text', arguments: '{"query":"bug"}' }], at },
      { type: 'message', id: 'm3', role: 'tool', toolCallId: 'c1', content: '{"success":false,"error":"x"}', isError: true, at },
      { type: 'message', id: 'm4', role: 'assistant', content: 'Found it.', at },
    ]);
    const items = ChatTranscript.fromSession(session, 7).items;
    assert.deepEqual(
      items.map((i) => `${i.kind}:${i.id}`),
      ['user:m1', 'tool:c1', 'assistant:m4', 'turn:m1-end'],
    );
    const tool = items[1];
    assert.ok(tool?.kind === 'tool' && tool.state === 'failed');
  });
});
