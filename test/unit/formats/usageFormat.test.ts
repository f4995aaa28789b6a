import * as assert from 'node:assert/strict';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import { skillContentHash } from '../../../src/core/agent/triggerTest';
import { healthOf, triggerTestLine } from '../../../src/core/skills/index/skillHealth';
import { SkillUsage } from '../../../src/core/skills/index/skillUsage';
import { readFixture } from './formatFixtures';

describe('persisted formats: skill usage statistics (skill-usage.json)', () => {
  it('v1: every count and the last use of every skill still load, and feed the catalog ranking', async () => {
    const usage = new SkillUsage(new MemoryTextStore(readFixture('usage', 'v1.json')));
    await usage.load();
    assert.deepEqual(usage.get('deploy'), { views: 3, runs: 2, edits: 0, successes: 1, failures: 1, totalLatencyMs: 1500, lastUsed: Date.UTC(2025, 4, 1, 9, 5, 0) });
    assert.deepEqual(usage.get('flaky-tests'), { views: 1, runs: 0, edits: 1, successes: 0, failures: 0, totalLatencyMs: 0, lastUsed: Date.UTC(2025, 4, 1, 9, 7, 0) });
    assert.deepEqual(usage.forCatalog(), {
      deploy: { uses: 5, lastUsed: Date.UTC(2025, 4, 1, 9, 5, 0), successes: 1, failures: 1 },
      'flaky-tests': { uses: 1, lastUsed: Date.UTC(2025, 4, 1, 9, 7, 0), successes: 0, failures: 0 },
      review: { uses: 1, lastUsed: Date.UTC(2025, 4, 1, 9, 8, 0), successes: 1, failures: 0 },
    });
  });

  it('v1: new use adds to the old counts, and no skill is lost when the file is written back', async () => {
    const store = new MemoryTextStore(readFixture('usage', 'v1.json'));
    const usage = new SkillUsage(store, () => Date.UTC(2025, 5, 1));
    await usage.load();
    usage.record('deploy', 'run', { ok: true, latencyMs: 500 });
    await usage.flush();
    const saved = JSON.parse((await store.read()) ?? '{}') as { skills?: Record<string, { runs?: number; totalLatencyMs?: number }> };
    assert.deepEqual([saved.skills?.['deploy']?.runs, saved.skills?.['deploy']?.totalLatencyMs], [3, 2000]);
    assert.deepEqual(Object.keys(saved.skills ?? {}), ['deploy', 'flaky-tests', 'review']);
  });

  const DAY_MS = 24 * 60 * 60 * 1000;
  /** The deploy SKILL.md the kept trigger test ran against (test/fixtures/formats/generate.mjs, usage-triggers). */
  const TESTED_DEPLOY = '---\nname: deploy\ndescription: Ship the app to staging and production with the release checklist.\n---\n\n# Deploy\n';

  it('v1 with trigger counts and a trigger test: the counts load, and the health line and preview line show them', async () => {
    const usage = new SkillUsage(new MemoryTextStore(readFixture('usage', 'v1-triggers.json')));
    await usage.load();
    const deploy = usage.get('deploy');
    assert.deepEqual([deploy.views, deploy.suggested, deploy.loadedTurns, deploy.loadedWhenSuggested, deploy.ranTurns], [2, 2, 2, 1, undefined]);
    const flaky = usage.get('flaky-tests');
    assert.deepEqual([flaky.runs, flaky.failures, flaky.suggested, flaky.loadedTurns, flaky.ranTurns], [1, 1, 1, undefined, 1]);
    assert.deepEqual([usage.get('review').suggested, usage.get('review').loadedTurns], [1, undefined]);

    const test = deploy.triggerTest;
    assert.ok(test);
    assert.deepEqual([test.model, test.runs, test.loaded], ['openai:gpt-4.1-mini', 6, 5]);
    assert.deepEqual(test.queries, [
      { query: 'deploy to staging', runs: 3, loaded: 3, others: [] },
      { query: 'ship the release to production', runs: 3, loaded: 2, others: [{ name: 'review', runs: 1 }] },
    ]);
    const later = test.at + 2 * DAY_MS;
    const health = healthOf(deploy, later);
    assert.deepEqual([health.suggested, health.loadedTurns, health.triggerTest], [2, 2, test]);
    assert.equal(health.line, 'suggested 2×, loaded 2× · trigger test 5/6');
    assert.equal(healthOf(flaky, later).line, `1 run · 0% ok · median 900 ms · last failure 2 days ago: "npm test exited with 1" · suggested 1×, loaded 0×`);
    assert.equal(healthOf(usage.get('review'), later).line, 'suggested 1×, loaded 0×');
    // The kept hash is compared with today's hash of the SKILL.md: the same text must not read as changed.
    assert.equal(triggerTestLine(test, later, skillContentHash(new TextEncoder().encode(TESTED_DEPLOY))), 'Triggering: 5/6 runs loaded it, 2 days ago');
    assert.equal(
      triggerTestLine(test, later, skillContentHash(new TextEncoder().encode(`${TESTED_DEPLOY}\nA new step.\n`))),
      'Triggering: 5/6 runs loaded it, 2 days ago (SKILL.md changed since: test again)',
    );
  });

  it('v1 with trigger counts: a new turn adds to them, and the trigger test survives the file being written back', async () => {
    const store = new MemoryTextStore(readFixture('usage', 'v1-triggers.json'));
    const usage = new SkillUsage(store, () => Date.UTC(2025, 5, 1));
    await usage.load();
    usage.recordTurn({ suggested: ['deploy'], loaded: ['deploy'], run: [] });
    await usage.flush();
    const again = new SkillUsage(store);
    await again.load();
    const deploy = again.get('deploy');
    assert.deepEqual([deploy.suggested, deploy.loadedTurns, deploy.loadedWhenSuggested], [3, 3, 2]);
    assert.deepEqual(deploy.triggerTest, usage.get('deploy').triggerTest);
    assert.equal(deploy.triggerTest?.runs, 6);
    assert.deepEqual(again.names(), ['deploy', 'flaky-tests', 'review']);
  });
});
