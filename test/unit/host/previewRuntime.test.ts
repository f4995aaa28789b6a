import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TuningState } from '../../../src/core/execution/adaptation';
import { applyProposals, EMPTY_TUNING_STATE, effectiveValues, revertChange } from '../../../src/core/execution/adaptation';
import type { AdaptationSpec } from '../../../src/core/execution/adaptationSpec';
import { parseAdaptation } from '../../../src/core/execution/adaptationSpec';
import { nodeTraceAppend } from '../../../src/core/execution/executorSetup';
import type { RunTrace } from '../../../src/core/execution/executionTypes';
import type { TuningView } from '../../../src/core/execution/skillTuning';
import { TraceStore } from '../../../src/core/execution/traceStore';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import { SkillUsage } from '../../../src/core/skills/index/skillUsage';
import { buildPreviewRuntime, LAST_RUNS, loadPreviewRuntime, MAX_LISTED_CHANGES, showsRuntime } from '../../../src/host/preview/previewRuntime';
import type { SkillPreview } from '../../../src/shared/previewProtocol';
import { parseHostPreviewMessage, parsePreviewMessage } from '../../../src/shared/previewProtocol';

const NOW = Date.parse('2025-06-01T12:00:00Z');

function trace(skill: string, minutesAgo: number, overrides: Partial<RunTrace> = {}): RunTrace {
  return {
    type: 'trace',
    trace_id: `${skill}-${minutesAgo}`,
    skill,
    kind: 'workflow',
    success: true,
    started: new Date(NOW - minutesAgo * 60_000).toISOString(),
    durationMs: 1_200,
    outputBytes: 10,
    steps: [],
    calledSkills: [],
    origin: 'palette',
    ...overrides,
  };
}

const ADAPTATION = {
  min_signals: 1,
  tunable_params: {
    batch_size: { type: 'integer', min: 10, max: 500, default: 100, step: 10 },
    mode: { type: 'string', enum: ['fast', 'safe'], default: 'fast' },
    verbose: { type: 'boolean', default: false },
  },
};
const INPUT_SCHEMA = { type: 'object', properties: { batch_size: { type: 'integer' }, mode: { type: 'string' }, verbose: { type: 'boolean' } } };

function spec(): AdaptationSpec {
  const parsed = parseAdaptation({ adaptation: ADAPTATION, input_schema: INPUT_SCHEMA });
  assert.ok(parsed?.ok, JSON.stringify(parsed));
  return parsed.spec;
}

/** Tuning history made by the real rules: batch_size 100 → 120 → 140, mode fast → safe. */
function tunedState(s: AdaptationSpec): TuningState {
  let state = EMPTY_TUNING_STATE;
  const step = (param: string, value: unknown, at: number) => {
    const applied = applyProposals(s, state, [{ param, value, reason: `${param} did better at ${String(value)}` }], at, 'heuristic');
    assert.equal(applied.accepted.length, 1, JSON.stringify(applied.refused));
    state = applied.state;
  };
  step('batch_size', 120, NOW - 3_000_000);
  step('mode', 'safe', NOW - 2_000_000);
  step('batch_size', 140, NOW - 1_000_000);
  return state;
}

function viewOf(s: AdaptationSpec, state: TuningState): TuningView {
  return { spec: s, errors: [], values: effectiveValues(s, state), changes: state.changes };
}

function previewWith(runtime: SkillPreview['runtime']): SkillPreview {
  return { file: '/skills/x/SKILL.md', card: { tags: [], permissions: [], platforms: [] }, body: '', bodyLine: 0, files: [], findings: [], catalogLine: '', catalogListed: false, ...(runtime ? { runtime } : {}) };
}

describe('preview runtime (runs, health, dependencies, tuned values)', () => {
  const workflowFrontmatter = {
    workflow: [
      { step: 'gather', skill: 'count-files@^1' },
      { step: 'report', skill: 'write-changelog-entry', error_strategy: 'fallback', fallback_skill: 'plain-report' },
    ],
  };

  it('is shown for executable and Level 2 skills only', () => {
    assert.equal(showsRuntime({ kind: 'instructions' }), false);
    assert.equal(showsRuntime({ kind: 'instructions', adaptation: ADAPTATION }), true);
    for (const kind of ['script', 'http', 'workflow'] as const) assert.equal(showsRuntime({ kind }), true);
  });

  it('lists the newest runs of the skill itself, with status, duration and a trace id for the link', () => {
    const usage = new SkillUsage(new MemoryTextStore(), () => NOW);
    const traces = [
      trace('release', 30),
      trace('release', 5, { success: false, error: `boom ${'x'.repeat(400)}`, durationMs: 80 }),
      trace('other', 1, { calledSkills: ['release'] }),
      trace('release', 60),
      trace('release', 10),
    ];
    const runtime = buildPreviewRuntime({ skill: { name: 'release', kind: 'workflow', version: '1.2.0' }, frontmatter: workflowFrontmatter, usage: usage.get('release'), traces, now: NOW });
    assert.equal(runtime.runs.length, LAST_RUNS);
    assert.deepEqual(
      runtime.runs.map((run) => [run.traceId, run.success, run.durationMs]),
      [
        ['release-5', false, 80],
        ['release-10', true, 1_200],
        ['release-30', true, 1_200],
      ],
      'newest first; a run of another skill that called this one is not one of its runs',
    );
    assert.ok((runtime.runs[0]?.error ?? '').length <= 200);
    assert.equal(runtime.version, '1.2.0');
    assert.equal(runtime.health, '', 'no usage recorded yet: nothing to say');
  });

  it('compares what the runs called with what the workflow declares: "calls x, not declared"', () => {
    const usage = new SkillUsage(new MemoryTextStore(), () => NOW);
    usage.recordRun('release', { success: true, latencyMs: 900, drift: false, calledSkills: ['count-files', 'write-changelog-entry'] });
    usage.recordRun('release', { success: false, latencyMs: 300, drift: false, error: 'step report failed', calledSkills: ['count-files', 'deploy-prod'] });
    const traces = [trace('release', 2, { calledSkills: ['count-files', 'Plain-Report', 'notify-team'] })];
    const runtime = buildPreviewRuntime({ skill: { name: 'release', kind: 'workflow' }, frontmatter: workflowFrontmatter, usage: usage.get('release'), traces, now: NOW });
    assert.deepEqual(runtime.declared, ['count-files', 'write-changelog-entry', 'plain-report']);
    assert.deepEqual(runtime.called, ['count-files', 'write-changelog-entry', 'deploy-prod', 'Plain-Report', 'notify-team']);
    assert.deepEqual(runtime.undeclared, ['deploy-prod', 'notify-team'], 'names compare without case; the fallback counts as declared');
    assert.match(runtime.health, /^2 runs · 50% ok · median 600 ms · last failure just now: "step report failed"$/);
    assert.doesNotMatch(runtime.health, /not declared/, 'the undeclared calls have their own list');
  });

  it('shows each tunable parameter with default, bounds and current value, and the history newest first', () => {
    const s = spec();
    const state = tunedState(s);
    const runtime = buildPreviewRuntime({ skill: { name: 'batcher', kind: 'script', adaptation: ADAPTATION }, frontmatter: {}, usage: new SkillUsage(new MemoryTextStore()).get('batcher'), traces: [], tuning: viewOf(s, state), now: NOW });
    const tuning = runtime.tuning;
    assert.ok(tuning);
    assert.deepEqual(tuning.params, [
      { name: 'batch_size', type: 'integer', default: '100', bounds: '10 to 500, step 10', current: '140', tuned: true },
      { name: 'mode', type: 'string', default: '"fast"', bounds: 'one of fast, safe', current: '"safe"', tuned: true },
      { name: 'verbose', type: 'boolean', default: 'false', bounds: 'true or false', current: 'false', tuned: false },
    ]);
    assert.deepEqual(
      tuning.changes.map((c) => [c.param, c.from, c.to, c.alsoReverts]),
      [
        ['batch_size', '120', '140', 0],
        ['mode', '"fast"', '"safe"', 0],
        ['batch_size', '100', '120', 1],
      ],
      'reverting the first batch_size change takes the later one back too',
    );
    assert.equal(tuning.changes[2]?.reason, 'batch_size did better at 120');

    const first = state.changes[0];
    assert.ok(first);
    const reverted = revertChange(state, first.id, NOW);
    assert.ok(reverted.ok);
    const after = buildPreviewRuntime({ skill: { name: 'batcher', kind: 'script', adaptation: ADAPTATION }, frontmatter: {}, usage: new SkillUsage(new MemoryTextStore()).get('batcher'), traces: [], tuning: viewOf(s, reverted.state), now: NOW }).tuning;
    assert.equal(after?.params[0]?.current, '100');
    assert.equal(after?.params[0]?.tuned, false);
    assert.deepEqual(
      after?.changes.map((c) => [c.param, c.revertedAt !== undefined, c.alsoReverts]),
      [
        ['batch_size', true, 0],
        ['mode', false, 0],
        ['batch_size', true, 0],
      ],
    );
  });

  it('lists at most the newest changes, says how many older ones there are, and passes on why a block cannot be used', () => {
    const s = spec();
    let state = EMPTY_TUNING_STATE;
    for (let i = 0; i < MAX_LISTED_CHANGES + 5; i++) {
      state = applyProposals(s, state, [{ param: 'verbose', value: i % 2 === 0, reason: `round ${i}` }], NOW - 100_000 + i, 'script').state;
    }
    const tuning = buildPreviewRuntime({ skill: { name: 'b', kind: 'script', adaptation: ADAPTATION }, frontmatter: {}, usage: new SkillUsage(new MemoryTextStore()).get('b'), traces: [], tuning: viewOf(s, state), now: NOW }).tuning;
    assert.equal(tuning?.changes.length, MAX_LISTED_CHANGES);
    assert.equal(tuning?.hiddenChanges, state.changes.length - MAX_LISTED_CHANGES);
    assert.equal(tuning?.changes[0]?.reason, `round ${MAX_LISTED_CHANGES + 4}`);

    const broken = buildPreviewRuntime({ skill: { name: 'b', kind: 'script', adaptation: 'yes' }, frontmatter: {}, usage: new SkillUsage(new MemoryTextStore()).get('b'), traces: [], tuning: { errors: ['`adaptation` must be a mapping'], values: {}, changes: [] }, now: NOW });
    assert.deepEqual(broken.tuning?.errors, ['`adaptation` must be a mapping']);
    assert.deepEqual(broken.tuning?.params, []);
  });

  it('reads the trace files and passes the protocol check, with the new messages the webview sends', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'preview-runtime-'));
    try {
      const traces = new TraceStore({ fs: new NodeFileSystem(), append: nodeTraceAppend, storageDir: dir });
      await traces.append(trace('batcher', 3, { kind: 'script' }));
      await traces.append(trace('batcher', 1, { kind: 'script', success: false, error: 'exit code 2' }));
      const s = spec();
      const stores = { traces, tuning: { view: () => viewOf(s, tunedState(s)) }, usage: new SkillUsage(new MemoryTextStore()), now: () => NOW };
      const runtime = await loadPreviewRuntime(stores, { name: 'batcher', kind: 'script', adaptation: ADAPTATION }, {});
      assert.ok(runtime);
      assert.deepEqual(runtime.runs.map((run) => run.traceId), ['batcher-1', 'batcher-3']);
      assert.equal(await loadPreviewRuntime(stores, { name: 'notes', kind: 'instructions' }, {}), undefined);

      const parsed = parseHostPreviewMessage({ type: 'preview/update', preview: previewWith(runtime) });
      assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
      assert.ok(parsePreviewMessage({ type: 'preview/showTrace', traceId: 'batcher-1' }).ok);
      assert.ok(parsePreviewMessage({ type: 'preview/revertTuning', changeId: runtime.tuning?.changes[0]?.id ?? '' }).ok);
      for (const bad of [{ type: 'preview/showTrace' }, { type: 'preview/showTrace', traceId: '' }, { type: 'preview/revertTuning', changeId: 7 }]) {
        assert.equal(parsePreviewMessage(bad).ok, false, JSON.stringify(bad));
      }
      const tampered = previewWith({ ...runtime, runs: [{ ...runtime.runs[0], durationMs: -1 }] } as SkillPreview['runtime']);
      assert.equal(parseHostPreviewMessage({ type: 'preview/update', preview: tampered }).ok, false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
