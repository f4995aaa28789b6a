import * as assert from 'node:assert/strict';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import type { ChatMessage } from '../../../src/core/llm/chatTypes';
import { browserSkills } from '../../../src/core/skills/catalog/skillListItems';
import { healthOf, triggerTestLine } from '../../../src/core/skills/index/skillHealth';
import type { TriggerTestRecord } from '../../../src/core/skills/index/skillUsage';
import { MAX_TRIGGER_OTHERS, SkillUsage } from '../../../src/core/skills/index/skillUsage';
import { recordTurnTriggers, skillTouchOf, turnTriggers } from '../../../src/core/skills/index/turnTriggers';
import { skillRecord } from './skillRecordFixture';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2025, 5, 1);

function call(id: string, name: string, args: Record<string, unknown>): { id: string; name: string; arguments: string } {
  return { id, name, arguments: JSON.stringify(args) };
}

const TEST: TriggerTestRecord = {
  at: NOW - 2 * DAY,
  contentHash: 'abc123',
  model: 'openai:scripted',
  runs: 6,
  loaded: 5,
  queries: [
    { query: 'deploy the app', runs: 3, loaded: 3, others: [] },
    { query: 'ship it to prod', runs: 3, loaded: 2, others: [{ name: 'release-notes', runs: 1 }] },
  ],
};

describe('turn triggers: suggested, loaded and run per chat turn', () => {
  it('reads loads and runs from the calls whose results worked, by the name the view resolved', () => {
    const added: ChatMessage[] = [
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          call('a', 'skill_view', { name: 'ops/Deploy' }),
          call('b', 'skill_view', { name: 'nope' }),
          call('c', 'skill_view', { name: 'deploy', file_path: 'references/env.md' }),
          call('d', 'read_file', { path: 'README.md' }),
        ],
      },
      { role: 'tool', toolCallId: 'a', content: JSON.stringify({ success: true, name: 'deploy', content: '…' }) },
      { role: 'tool', toolCallId: 'b', content: JSON.stringify({ success: false, error: 'no skill "nope"' }) },
      { role: 'tool', toolCallId: 'c', content: JSON.stringify({ success: true, name: 'deploy', content: '…' }) },
      { role: 'tool', toolCallId: 'd', content: JSON.stringify({ success: true }) },
      { role: 'assistant', content: '', toolCalls: [call('e', 'skill_run', { name: 'ops/smoke-test' }), call('f', 'skill_run', { name: 'ghost' })] },
      // A run that started and failed still ran; one refused before starting (no trace) did not.
      { role: 'tool', toolCallId: 'e', content: JSON.stringify({ success: false, error: 'exit 1', trace_id: 't1' }) },
      { role: 'tool', toolCallId: 'f', content: JSON.stringify({ success: false, error: 'unknown skill' }) },
    ];
    assert.deepEqual(turnTriggers(['deploy', 'lint', 'deploy'], added), { suggested: ['deploy', 'lint'], loaded: ['deploy'], run: ['smoke-test'] });
  });

  it('ignores calls without a result (a turn stopped mid-call) and unreadable arguments or results', () => {
    assert.equal(skillTouchOf({ name: 'skill_view', arguments: '{not json' }, 'also not json'), undefined);
    assert.equal(skillTouchOf({ name: 'read_file', arguments: '{}' }, '{"success":true}'), undefined);
    assert.deepEqual(skillTouchOf({ name: 'skill_view', arguments: '{"name":"cat/x"}' }, '{"success":true}'), { name: 'x', action: 'loaded' });
    const triggers = turnTriggers([], [{ role: 'assistant', content: '', toolCalls: [call('z', 'skill_view', { name: 'deploy' })] }]);
    assert.deepEqual(triggers.loaded, []);
  });

  it('counts each skill once per turn, keeps the time of last use, and survives a restart', async () => {
    const store = new MemoryTextStore();
    const usage = new SkillUsage(store, () => NOW);
    await usage.load();
    recordTurnTriggers(usage, { suggested: ['deploy', 'lint'], loaded: ['deploy', 'deploy'], run: [] });
    recordTurnTriggers(usage, { suggested: ['deploy'], loaded: [], run: ['deploy'] });
    recordTurnTriggers(usage, { suggested: [], loaded: ['lint'], run: [] });
    recordTurnTriggers(usage, { suggested: [], loaded: [], run: [] });
    await usage.flush();
    const again = new SkillUsage(store);
    await again.load();
    const deploy = again.get('deploy');
    assert.deepEqual([deploy.suggested, deploy.loadedTurns, deploy.loadedWhenSuggested, deploy.ranTurns, deploy.lastUsed, deploy.views], [2, 1, 1, 1, undefined, 0]);
    const lint = again.get('lint');
    assert.deepEqual([lint.suggested, lint.loadedTurns, lint.loadedWhenSuggested, lint.ranTurns], [1, 1, undefined, undefined]);
    assert.deepEqual(again.names(), ['deploy', 'lint']);
  });

  it('keeps the latest trigger test per skill, cleaned on the way in and on load', async () => {
    const store = new MemoryTextStore();
    const usage = new SkillUsage(store, () => NOW);
    await usage.load();
    usage.recordTriggerTest('deploy', { ...TEST, runs: 1, loaded: 1 });
    usage.recordTriggerTest('deploy', TEST);
    const many = Array.from({ length: MAX_TRIGGER_OTHERS + 3 }, (_, i) => ({ name: `other-${i}`, runs: 1 }));
    usage.recordTriggerTest('lint', { ...TEST, loaded: 99, queries: [{ query: 'x'.repeat(1_000), runs: 2, loaded: 7, others: many }] });
    await usage.flush();
    const again = new SkillUsage(store);
    await again.load();
    assert.deepEqual(again.get('deploy').triggerTest, TEST);
    const lint = again.get('lint').triggerTest;
    assert.ok(lint);
    assert.equal(lint.loaded, 6, 'loaded is never above runs');
    const [first] = lint.queries;
    assert.ok(first);
    assert.deepEqual([first.loaded, first.others.length, first.query.length <= 300], [2, MAX_TRIGGER_OTHERS, true]);
  });

  it('drops a damaged trigger test but keeps the rest of the entry', async () => {
    const file = { version: 1, skills: { deploy: { views: 2, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0, suggested: 'many', triggerTest: { at: 'yesterday' } } } };
    const usage = new SkillUsage(new MemoryTextStore(JSON.stringify(file)));
    await usage.load();
    assert.deepEqual(usage.get('deploy'), { views: 2, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0 });
  });

  it('puts "suggested N×, loaded M×" and the latest test in the health line', () => {
    const entry = { views: 9, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0, suggested: 14, loadedTurns: 9, triggerTest: TEST };
    const health = healthOf(entry, NOW);
    assert.equal(health.line, 'suggested 14×, loaded 9× · trigger test 5/6');
    assert.deepEqual([health.suggested, health.loadedTurns, health.triggerTest?.loaded], [14, 9, 5]);
    assert.equal(healthOf({ ...entry, suggested: 0, loadedTurns: 0, triggerTest: undefined }, NOW).line, '');
  });

  it('says how the latest test went, when, and whether the SKILL.md changed since', () => {
    assert.equal(triggerTestLine(TEST, NOW, 'abc123'), 'Triggering: 5/6 runs loaded it, 2 days ago');
    assert.equal(triggerTestLine(TEST, NOW, 'fff000'), 'Triggering: 5/6 runs loaded it, 2 days ago (SKILL.md changed since: test again)');
    assert.equal(triggerTestLine({ ...TEST, runs: 0, loaded: 0, at: NOW }, NOW), 'Triggering: no run got an answer, just now');
  });

  it('gives a row a health line for a skill that was only suggested (never loaded: worth a look)', () => {
    const record = skillRecord('deploy', 'Deploys the app.');
    const usage = { views: 0, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0, suggested: 3 };
    const [row] = browserSkills({ records: [record], lint: () => undefined, usage: () => usage, now: NOW });
    assert.equal(row?.health?.line, 'suggested 3×, loaded 0×');
  });
});
