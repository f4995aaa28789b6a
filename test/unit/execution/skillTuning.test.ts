import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { ExecutableSkill } from '../../../src/core/execution/executableSkill';
import { createSkillTuning } from '../../../src/core/execution/skillTuning';

const ADAPTATION = { strategy: 'script', entry: 'scripts/tune.js', min_signals: 2, tunable_params: { batch_size: { type: 'integer', min: 10, max: 500, default: 100, step: 10 } } };
const SCHEMA = { type: 'object', properties: { batch_size: { type: 'integer', minimum: 10, maximum: 500, default: 100 } } };

function skill(extra: Partial<ExecutableSkill> = {}): ExecutableSkill {
  return { name: 'batcher', dir: '/s', file: '/s/SKILL.md', kind: 'script', body: '', contentHash: 'x', entry: 'scripts/run.js', timeoutMs: 1000, maxRetries: 0, retryBackoffSeconds: 1, env: [], adaptation: ADAPTATION, inputSchema: SCHEMA, problems: [], ...extra };
}

/** Polls until the condition holds: a tuning change lands after a file write, which a busy machine delays. */
async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('skill tuning (level 2 wired to the executor)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-tuning-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the adaptation block against the skill input_schema, and moves a value only after min_signals runs', async () => {
    let calls = 0;
    const tuning = createSkillTuning({
      storageDir: dir,
      fs: new NodeFileSystem(),
      now: () => 1_700_000_000_000 + calls,
      runTuningScript: async (_skill, entry, input) => {
        calls++;
        assert.equal(entry, 'scripts/tune.js');
        assert.ok((input as { runs: unknown[] }).runs.length > 0);
        return { ok: true, output: { proposals: [{ param: 'batch_size', value: 120, reason: 'larger batches ran faster' }] } };
      },
    });
    await tuning.ready;
    const view = tuning.view(skill());
    assert.deepEqual(view.errors, []);
    assert.equal(view.values['batch_size'], 100);
    assert.deepEqual(tuning.valuesFor(skill()), { batch_size: 100 });

    tuning.afterRun(skill(), { success: true, latencyMs: 5, arguments: { batch_size: 100 } });
    await until('the first proposal', () => calls >= 1);
    assert.equal(tuning.view(skill()).changes.length, 0, 'one signal is not enough');
    tuning.afterRun(skill(), { success: true, latencyMs: 4, arguments: { batch_size: 100 } });
    const [change] = await until('a change', () => tuning.view(skill()).changes.length > 0 && tuning.view(skill()).changes);
    assert.deepEqual([change?.from, change?.to], [100, 120]);
    assert.equal(tuning.valuesFor(skill())?.['batch_size'], 120);

    assert.deepEqual(await tuning.revert(skill(), change?.id ?? ''), { ok: true });
    assert.equal(tuning.valuesFor(skill())?.['batch_size'], 100);
    assert.equal((await tuning.revert(skill(), 'no-such-change')).ok, false);
    await tuning.flush();
    assert.ok(fs.existsSync(path.join(dir, 'skill-tuning.json')));
  });

  it('says why an adaptation block cannot be used, and never runs a tuning script for a skill that is not a script', async () => {
    let calls = 0;
    const tuning = createSkillTuning({ storageDir: dir, fs: new NodeFileSystem(), runTuningScript: async () => (calls++, { ok: true, output: { proposals: [] } }) });
    await tuning.ready;
    assert.match(tuning.view(skill({ inputSchema: undefined })).errors.join(' '), /input_schema/);
    assert.equal(tuning.valuesFor(skill({ inputSchema: undefined })), undefined);
    tuning.afterRun(skill({ kind: 'instructions' }), { success: true, latencyMs: 1, arguments: { batch_size: 100 } });
    await tuning.flush();
    assert.equal(calls, 0);
  });
});
