import * as assert from 'node:assert/strict';
import { SkillUsage } from '../../../src/core/skills/index/skillUsage';
import { MemoryTextStore } from '../../../src/core/base/textStore';

describe('SkillUsage', () => {
  it('counts views, runs and edits with outcomes and last use, and survives a restart', async () => {
    const store = new MemoryTextStore();
    let clock = 1_000;
    const usage = new SkillUsage(store, () => clock);
    await usage.load();
    usage.record('deploy', 'view');
    clock = 2_000;
    usage.record('deploy', 'run', { ok: true, latencyMs: 120 });
    usage.record('deploy', 'run', { ok: false, latencyMs: 30 });
    usage.record('lint', 'edit');
    await usage.flush();
    const again = new SkillUsage(store);
    await again.load();
    assert.deepEqual(again.get('deploy'), { views: 1, runs: 2, edits: 0, successes: 1, failures: 1, totalLatencyMs: 150, lastUsed: 2_000 });
    assert.deepEqual(again.forCatalog().deploy, { uses: 3, lastUsed: 2_000 });
    assert.equal(again.get('unknown').views, 0);
  });

  it('starts afresh from unreadable or hostile data', async () => {
    const lines: string[] = [];
    const warn = (message: string) => lines.push(message);
    const logger = { trace: warn, debug: warn, info: warn, warn, error: warn };
    const broken = new SkillUsage(new MemoryTextStore('{not json'), Date.now, logger);
    await broken.load();
    assert.equal(broken.get('x').runs, 0);
    assert.match(lines[0] ?? '', /unreadable/);
    const hostile = new SkillUsage(new MemoryTextStore(JSON.stringify({ skills: { a: { views: -5, runs: 'many', edits: 2 } } })));
    await hostile.load();
    assert.deepEqual(hostile.get('a'), { views: 0, runs: 0, edits: 2, successes: 0, failures: 0, totalLatencyMs: 0 });
  });
});
