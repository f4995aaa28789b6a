import * as assert from 'node:assert/strict';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import { SkillUsage } from '../../../src/core/skills/index/skillUsage';
import { readFixture } from './formatFixtures';

describe('persisted formats: skill usage statistics (skill-usage.json)', () => {
  it('v1: every count and the last use of every skill still load, and feed the catalog ranking', async () => {
    const usage = new SkillUsage(new MemoryTextStore(readFixture('usage', 'v1.json')));
    await usage.load();
    assert.deepEqual(usage.get('deploy'), { views: 3, runs: 2, edits: 0, successes: 1, failures: 1, totalLatencyMs: 1500, lastUsed: Date.UTC(2025, 4, 1, 9, 5, 0) });
    assert.deepEqual(usage.get('flaky-tests'), { views: 1, runs: 0, edits: 1, successes: 0, failures: 0, totalLatencyMs: 0, lastUsed: Date.UTC(2025, 4, 1, 9, 7, 0) });
    assert.deepEqual(usage.forCatalog(), {
      deploy: { uses: 5, lastUsed: Date.UTC(2025, 4, 1, 9, 5, 0) },
      'flaky-tests': { uses: 1, lastUsed: Date.UTC(2025, 4, 1, 9, 7, 0) },
      review: { uses: 1, lastUsed: Date.UTC(2025, 4, 1, 9, 8, 0) },
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
});
