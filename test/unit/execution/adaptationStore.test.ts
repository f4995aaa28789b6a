import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/base/logger';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { TextStore } from '../../../src/core/base/textStore';
import { FileTextStore, MemoryTextStore } from '../../../src/core/base/textStore';
import type { Proposal } from '../../../src/core/execution/adaptation';
import { applyProposals, effectiveValues, revertChange } from '../../../src/core/execution/adaptation';
import type { AdaptationSpec } from '../../../src/core/execution/adaptationSpec';
import { parseAdaptation } from '../../../src/core/execution/adaptationSpec';
import { ADAPTATION_STORE_VERSION, AdaptationStore } from '../../../src/core/execution/adaptationStore';

function specOf(params: Record<string, unknown>, minSignals = 1): AdaptationSpec {
  const result = parseAdaptation({
    adaptation: { min_signals: minSignals, tunable_params: params },
    input_schema: { type: 'object', properties: Object.fromEntries(Object.keys(params).map((name) => [name, {}])) },
  });
  assert.ok(result?.ok, JSON.stringify(result));
  return result.spec;
}

const SPEC = specOf({
  batch_size: { type: 'integer', min: 10, max: 500, default: 100, step: 10 },
  mode: { type: 'string', enum: ['fast', 'thorough'], default: 'fast' },
});

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const none = (): undefined => undefined;
  return { warnings, logger: { trace: none, debug: none, info: none, warn: (message: string) => void warnings.push(message), error: none } };
}

const tune = (proposals: Proposal[], at = 1) => (state: Parameters<typeof applyProposals>[1]) => applyProposals(SPEC, state, proposals, at, 'heuristic').state;

describe('AdaptationStore', () => {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-adaptation-store-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps each skill’s tuning in a file and reads it back after a restart', async () => {
    const file = new FileTextStore(new NodeFileSystem(), path.join(dir, 'adaptation.json'));
    const store = new AdaptationStore(file);
    await store.load();
    assert.deepEqual(store.get('batch', SPEC), { values: {}, changes: [], pending: {} });
    await store.update('batch', SPEC, tune([{ param: 'batch_size', value: 300, reason: 'bigger batches failed less' }], 1_000));
    await store.update('other', SPEC, tune([{ param: 'mode', value: 'thorough', reason: 'fewer misses' }]));

    const again = new AdaptationStore(new FileTextStore(new NodeFileSystem(), path.join(dir, 'adaptation.json')));
    await again.load();
    assert.deepEqual(again.names(), ['batch', 'other']);
    const state = again.get('batch', SPEC);
    assert.deepEqual(effectiveValues(SPEC, state), { batch_size: 120, mode: 'fast' });
    assert.deepEqual(state.changes.map((c) => [c.id, c.from, c.to, c.reason, c.at]), [['c1', 100, 120, 'bigger batches failed less (moved at most 20 % of the default towards 300)', 1_000]]);
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, 'adaptation.json'), 'utf8')) as { version: number };
    assert.equal(onDisk.version, ADAPTATION_STORE_VERSION);
    assert.deepEqual(fs.readdirSync(dir), ['adaptation.json'], 'the atomic write leaves no temporary file behind');
  });

  it('starts afresh from a corrupt or foreign file, and says so', async () => {
    for (const garbage of ['{"version": 1, "skills": {"a": ', 'null', '[1,2]', '{"version": 99, "skills": {}}', '\u0000\u0001binary']) {
      const { logger, warnings } = recordingLogger();
      const store = new AdaptationStore(new MemoryTextStore(garbage), logger);
      await store.load();
      assert.deepEqual(store.get('a', SPEC), { values: {}, changes: [], pending: {} }, garbage);
      assert.equal(warnings.length, 1, garbage);
      assert.match(warnings[0] ?? '', /unreadable and start afresh/);
    }
    const { logger, warnings } = recordingLogger();
    const partly = new AdaptationStore(new MemoryTextStore(JSON.stringify({ version: 1, skills: { bad: 'x', good: { values: { batch_size: 200 } } } })), logger);
    await partly.load();
    assert.deepEqual(effectiveValues(SPEC, partly.get('good', SPEC)), { batch_size: 200, mode: 'fast' });
    assert.deepEqual(warnings, ['The tuned values of skill "bad" were unreadable; it starts from its defaults.']);
  });

  it('re-clamps stored values against the spec as it is now, and drops forged history', async () => {
    const text = JSON.stringify({
      version: 1,
      skills: {
        s: {
          values: { batch_size: 480, mode: 'exhaustive', removed: 4 },
          changes: [
            { id: 'c1', param: 'batch_size', from: 460, to: 480, reason: 'r', at: 5, source: 'heuristic' },
            { id: 'c2', param: 'batch_size', from: { evil: true }, to: 1, reason: 'r', at: 6, source: 'heuristic' },
            { id: 'c3', param: 'mode', from: 'fast', to: 'exhaustive', reason: 'r', at: Number.MAX_VALUE, source: 'person' },
          ],
          pending: { batch_size: { direction: 1, count: 2 }, mode: { direction: 1, count: 9, value: 'exhaustive' } },
        },
      },
    });
    const store = new AdaptationStore(new MemoryTextStore(text));
    await store.load();
    const narrower = specOf({ batch_size: { type: 'integer', min: 10, max: 300, default: 100, step: 10 }, mode: { type: 'string', enum: ['fast', 'thorough'], default: 'fast' } });
    const state = store.get('s', narrower);
    assert.deepEqual(state.values, { batch_size: 300 }, 'clamped to the new max; an enum value no longer listed falls back to the default');
    assert.deepEqual(effectiveValues(narrower, state), { batch_size: 300, mode: 'fast' });
    assert.deepEqual(state.changes.map((c) => c.id), ['c1']);
    assert.deepEqual(state.pending, { batch_size: { direction: 1, count: 2 } });
  });

  it('runs concurrent updates one after another, so none is lost', async () => {
    const memory = new MemoryTextStore();
    const store = new AdaptationStore(memory);
    await store.load();
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => store.update('s', SPEC, tune([{ param: 'batch_size', value: 500, reason: `round ${i}` }], i))),
    );
    const again = new AdaptationStore(memory);
    await again.load();
    assert.deepEqual(
      again.get('s', SPEC).changes.map((c) => c.to),
      [120, 140, 160, 180, 200],
    );
  });

  it('undoes a change that could not be saved and reports it; a revert is saved like any change', async () => {
    let failing = false;
    const memory = new MemoryTextStore();
    const flaky: TextStore = {
      read: () => memory.read(),
      write: (text) => (failing ? Promise.reject(new Error('disk full')) : memory.write(text)),
    };
    const store = new AdaptationStore(flaky);
    await store.load();
    await store.update('s', SPEC, tune([{ param: 'batch_size', value: 500, reason: 'up' }]));
    failing = true;
    await assert.rejects(store.update('s', SPEC, tune([{ param: 'batch_size', value: 500, reason: 'again' }])), /Could not save the tuned values of "s": disk full/);
    assert.equal(effectiveValues(SPEC, store.get('s', SPEC))['batch_size'], 120, 'the unsaved change is not shown');
    await assert.rejects(store.update('s', SPEC, () => { throw new Error('broken strategy'); }), /broken strategy/);
    failing = false;
    await store.update('s', SPEC, (state) => {
      const reverted = revertChange(state, 'c1', 9);
      assert.ok(reverted.ok);
      return reverted.state;
    });
    const again = new AdaptationStore(memory);
    await again.load();
    assert.deepEqual(effectiveValues(SPEC, again.get('s', SPEC)), { batch_size: 100, mode: 'fast' });
    assert.equal(again.get('s', SPEC).changes[0]?.revertedAt, 9);
    await again.remove('s');
    assert.deepEqual(again.names(), []);
  });
});
