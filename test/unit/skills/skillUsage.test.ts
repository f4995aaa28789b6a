import * as assert from 'node:assert/strict';
import { MAX_CALL_RUNS, MAX_LATENCY_SAMPLES, SkillUsage, calledSkills, medianLatencyMs, undeclaredCalls } from '../../../src/core/skills/index/skillUsage';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import { makeWorkspace, skillMd } from './skillToolWorkspace';

async function reloaded(store: MemoryTextStore): Promise<SkillUsage> {
  const again = new SkillUsage(store);
  await again.load();
  return again;
}

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
    const again = await reloaded(store);
    assert.deepEqual(again.get('deploy'), {
      views: 1,
      runs: 2,
      edits: 0,
      successes: 1,
      failures: 1,
      totalLatencyMs: 150,
      lastUsed: 2_000,
      latencies: [120, 30],
      lastFailure: { at: 2_000, message: 'failed without a message' },
    });
    assert.deepEqual(again.forCatalog().deploy, { uses: 3, lastUsed: 2_000, successes: 1, failures: 1 });
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
    const hostile = new SkillUsage(
      new MemoryTextStore(
        JSON.stringify({
          skills: {
            a: { views: -5, runs: 'many', edits: 2, drift: -1, thumbsUp: 'lots', latencies: [5, -1, 'x', 7], lastFailure: { at: 'now', message: 3 }, calls: ['x', [1, 'y']], createdBy: 'robot' },
            b: 'not an entry',
          },
        }),
      ),
    );
    await hostile.load();
    assert.deepEqual(hostile.get('a'), { views: 0, runs: 0, edits: 2, successes: 0, failures: 0, totalLatencyMs: 0, latencies: [5, 7], calls: [['y']] });
    assert.deepEqual(hostile.get('b'), { views: 0, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0 });
  });

  it('loads a file written before drift, ratings and latency samples existed, and keeps its counts', async () => {
    const old = { version: 1, skills: { deploy: { views: 3, runs: 2, edits: 0, successes: 1, failures: 1, totalLatencyMs: 1500, lastUsed: 5_000 } } };
    const store = new MemoryTextStore(JSON.stringify(old));
    const usage = new SkillUsage(store, () => 9_000);
    await usage.load();
    assert.deepEqual(usage.get('deploy'), old.skills.deploy);
    assert.equal(medianLatencyMs(usage.get('deploy')), undefined, 'no samples: no median rather than a made-up one');
    usage.recordRun('deploy', { success: true, latencyMs: 700, drift: true });
    usage.rate('deploy', 1);
    await usage.flush();
    const saved = JSON.parse((await store.read()) ?? '{}') as { version?: number; skills?: Record<string, Record<string, unknown>> };
    assert.equal(saved.version, 1, 'the added fields are optional, so the format keeps its version');
    assert.deepEqual(saved.skills?.['deploy'], { ...old.skills.deploy, runs: 3, successes: 2, totalLatencyMs: 2200, lastUsed: 9_000, latencies: [700], drift: 1, thumbsUp: 1 });
  });

  it('records runs for the executor: drift, the last failure, latency samples and the skills each run called', async () => {
    const store = new MemoryTextStore();
    let clock = 10;
    const usage = new SkillUsage(store, () => clock);
    await usage.load();
    usage.recordRun('wf', { success: true, latencyMs: 100, drift: false, calledSkills: ['build', 'test'] });
    clock = 20;
    usage.recordRun('wf', { success: false, latencyMs: 300, drift: true, error: '  timed out\nafter 60 s ', calledSkills: ['build', 'deploy', 'build', ''] });
    clock = 30;
    usage.recordRun('wf', { success: false, latencyMs: Number.NaN, drift: true, error: 'x'.repeat(1_000) });
    const entry = usage.get('wf');
    assert.deepEqual([entry.runs, entry.successes, entry.failures, entry.drift, entry.totalLatencyMs], [3, 1, 2, 2, 400]);
    assert.deepEqual(entry.latencies, [100, 300], 'a run without a usable latency adds no sample');
    assert.equal(entry.lastFailure?.at, 30);
    assert.equal(entry.lastFailure?.message.length, 300);
    assert.deepEqual(entry.calls, [['build', 'test'], ['build', 'deploy'], []]);
    assert.deepEqual(calledSkills(entry), ['build', 'test', 'deploy']);
    usage.recordRun('wf2', { success: false, latencyMs: 5, drift: false, error: 'timed out\nafter 60 s' });
    assert.equal(usage.get('wf2').lastFailure?.message, 'timed out after 60 s');
    await usage.flush();
    assert.deepEqual((await reloaded(store)).get('wf'), entry);
  });

  it('keeps the latest 50 latencies for the median and the callees of the latest 20 runs', async () => {
    const usage = new SkillUsage(new MemoryTextStore());
    await usage.load();
    for (let i = 1; i <= 60; i++) usage.recordRun('s', { success: true, latencyMs: i, drift: false, calledSkills: [`callee-${i}`] });
    const entry = usage.get('s');
    assert.equal(entry.latencies?.length, MAX_LATENCY_SAMPLES);
    assert.equal(entry.latencies?.[0], 11);
    // Samples 11..60: an even count, so the mean of the middle two (35 and 36).
    assert.equal(medianLatencyMs(entry), 35.5);
    assert.equal(medianLatencyMs({ ...entry, latencies: [900, 10, 30] }), 30);
    assert.equal(entry.calls?.length, MAX_CALL_RUNS);
    assert.deepEqual(calledSkills(entry).slice(0, 2), ['callee-41', 'callee-42']);
  });

  it('counts thumbs up and down without touching the time of last use', async () => {
    let clock = 100;
    const usage = new SkillUsage(new MemoryTextStore(), () => clock);
    await usage.load();
    usage.record('deploy', 'view');
    clock = 900;
    usage.rate('deploy', 1);
    usage.rate('deploy', 1);
    usage.rate('deploy', -1);
    usage.rate('deploy', 0 as 1);
    assert.deepEqual([usage.get('deploy').thumbsUp, usage.get('deploy').thumbsDown, usage.get('deploy').lastUsed], [2, 1, 100]);
  });

  it('compares called skills with the declared ones, ignoring case and blanks', () => {
    assert.deepEqual(undeclaredCalls(['Build', 'test'], ['build', 'deploy', ' ', 'lint', 'deploy']), ['deploy', 'lint']);
    assert.deepEqual(undeclaredCalls([], []), []);
  });

  it('marks a skill created through skill_manage (the model or Save as Skill) as the assistant\'s', async () => {
    const ws = await makeWorkspace();
    try {
      const usage = new SkillUsage(new MemoryTextStore(), () => 42);
      await usage.load();
      ws.ctx = { ...ws.ctx, usage };
      await ws.ok('skill_manage', { action: 'create', name: 'fresh-skill', content: skillMd('fresh-skill') });
      await ws.ok('skill_manage', { action: 'patch', name: 'fresh-skill', old_string: 'Do the thing.', new_string: 'Do it well.' });
      const entry = usage.get('fresh-skill');
      assert.deepEqual([entry.createdBy, entry.createdAt, entry.edits], ['agent', 42, 2]);
      usage.markCreated('mine', 'user');
      assert.equal(usage.get('mine').createdBy, 'user');
    } finally {
      ws.cleanup();
    }
  });
});
