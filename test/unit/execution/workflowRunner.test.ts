import * as assert from 'node:assert/strict';
import type { AttemptOutcome, Sleep } from '../../../src/core/execution/executionTypes';
import type { WorkflowStepSpec } from '../../../src/core/execution/executableSkill';
import type { StepRequest, StepRun, WorkflowRunOptions } from '../../../src/core/execution/workflowRunner';
import { runWorkflow } from '../../../src/core/execution/workflowRunner';

function step(id: string, skill: string, extra: Partial<WorkflowStepSpec> = {}): WorkflowStepSpec {
  return { id, skill, with: {}, dependsOn: [], strategy: 'fail_fast', maxRetries: 0, retryBackoffSeconds: 1, retryOn: ['timeout', 'network', 'http_status', 'exit_code'], fallbackParams: {}, ...extra };
}

const ok = (output: unknown): StepRun => ({ outcome: { ok: true, output }, kind: 'script', nested: [], called: [] });
const bad = (error: string, kind: Extract<AttemptOutcome, { ok: false }>['kind'] = 'exit_code'): StepRun => ({ outcome: { ok: false, error, kind }, kind: 'script', nested: [], called: [] });

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function options(steps: WorkflowStepSpec[], runStep: (request: StepRequest) => Promise<StepRun>, extra: Partial<WorkflowRunOptions> = {}): WorkflowRunOptions {
  let clock = 0;
  const waits: number[] = [];
  const sleep: Sleep = async (ms) => {
    waits.push(ms);
    clock += ms;
  };
  return { steps, input: { n: 2 }, context: { languageId: 'python' }, runStep, signal: new AbortController().signal, sleep, elapsed: () => clock, ...extra };
}

describe('runWorkflow', () => {
  it('passes typed outputs along references and returns the last step output', async () => {
    const seen: StepRequest[] = [];
    const result = await runWorkflow(
      options(
        [step('fetch', 'get', { with: { count: '${input.n}' } }), step('sum', 'add', { with: { items: '${steps.fetch.output.items}', label: 'n=${input.n} ${context.languageId}' } })],
        async (request) => {
          seen.push(request);
          return request.skill === 'get' ? ok({ items: [1, 2, 3] }) : ok({ total: 6 });
        },
      ),
    );
    assert.equal(result.outcome.ok, true);
    assert.deepEqual(result.outcome.ok && result.outcome.output, { total: 6 });
    assert.deepEqual(seen[0]?.args, { count: 2 });
    assert.deepEqual(seen[1]?.args, { items: [1, 2, 3], label: 'n=2 python' });
    assert.deepEqual(result.steps.map((s) => [s.id, s.status]), [['fetch', 'success'], ['sum', 'success']]);
  });

  it('runs independent steps in parallel, within the concurrency bound, and dependants after them', async () => {
    const gates = new Map<string, ReturnType<typeof deferred<StepRun>>>();
    const started: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const steps = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => step(id, id));
    steps.push(step('join', 'join', { dependsOn: ['a', 'b', 'c', 'd', 'e', 'f'] }));
    const allStarted = deferred<void>();
    const run = runWorkflow(
      options(
        steps,
        async (request) => {
          started.push(request.skill);
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          if (request.skill === 'join') return ok('joined');
          const gate = deferred<StepRun>();
          gates.set(request.skill, gate);
          if (gates.size === 3) allStarted.resolve();
          const value = await gate.promise;
          inFlight--;
          return value;
        },
        { concurrency: 3 },
      ),
    );
    await allStarted.promise;
    assert.deepEqual(started, ['a', 'b', 'c'], 'three at once, none of the rest yet');
    for (const id of ['a', 'b', 'c']) gates.get(id)?.resolve(ok(id));
    while (gates.size < 6) await new Promise((resolve) => setImmediate(resolve));
    for (const id of ['d', 'e', 'f']) gates.get(id)?.resolve(ok(id));
    const result = await run;
    assert.equal(maxInFlight, 3);
    assert.equal(started.at(-1), 'join');
    assert.equal(result.outcome.ok, true);
  });

  it('fail_fast stops the run: running steps are aborted, pending ones skipped', async () => {
    const result = await runWorkflow(
      options([step('a', 'x'), step('b', 'slow'), step('c', 'after', { dependsOn: ['a', 'b'] })], async (request) => {
        if (request.skill === 'x') return bad('boom');
        await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve(), { once: true }));
        return bad('stopped by the user', 'aborted');
      }),
    );
    assert.equal(result.outcome.ok, false);
    assert.match(!result.outcome.ok ? result.outcome.error : '', /step "a" failed: boom/);
    const status = Object.fromEntries(result.steps.map((s) => [s.id, s.status]));
    assert.deepEqual(status, { a: 'failed', b: 'failed', c: 'skipped' });
  });

  it('retries only the error kinds in retry_on, with growing backoff, and marks retried_success', async () => {
    let calls = 0;
    const opts = options([step('a', 'flaky', { strategy: 'retry', maxRetries: 3, retryBackoffSeconds: 0.5, retryOn: ['timeout'] })], async () => (++calls < 3 ? bad('timed out', 'timeout') : ok('fine')));
    const waits: number[] = [];
    const result = await runWorkflow({ ...opts, sleep: async (ms) => void waits.push(ms) });
    assert.equal(result.steps[0]?.status, 'retried_success');
    assert.equal(result.steps[0]?.attempts.length, 3);
    assert.deepEqual(waits, [500, 1000]);

    let other = 0;
    const noRetry = await runWorkflow(options([step('a', 'x', { strategy: 'retry', maxRetries: 3, retryOn: ['timeout'] })], async () => (other++, bad('exit 2', 'exit_code'))));
    assert.equal(other, 1, 'an exit code is not in retry_on');
    assert.equal(noRetry.steps[0]?.status, 'failed');
  });

  it('fallback runs the fallback skill with its parameters; continue keeps going and skips dependants', async () => {
    const result = await runWorkflow(
      options(
        [
          step('a', 'primary', { strategy: 'fallback', fallbackSkill: 'backup', fallbackParams: { why: 'fallback for ${input.n}' } }),
          step('b', 'broken', { strategy: 'continue' }),
          step('c', 'uses-b', { with: { v: '${steps.b.output}' } }),
          step('d', 'independent'),
          step('e', 'cleanup', { condition: "steps.b.status == 'failed'", dependsOn: ['b'] }),
        ],
        async (request) => {
          if (request.skill === 'primary' || request.skill === 'broken') return bad('nope');
          return ok({ from: request.skill, args: request.args });
        },
      ),
    );
    const byId = Object.fromEntries(result.steps.map((s) => [s.id, s]));
    assert.equal(byId['a']?.status, 'fallback');
    assert.equal(byId['a']?.fallbackSkill, 'backup');
    assert.equal(byId['b']?.status, 'failed');
    assert.equal(byId['c']?.status, 'skipped');
    assert.match(byId['c']?.reason ?? '', /step "b", which failed/);
    assert.equal(byId['d']?.status, 'success');
    assert.equal(byId['e']?.status, 'success', 'an `if` may run a step after a failure');
    assert.equal(result.outcome.ok, true);
    assert.ok(result.called.includes('backup'));
  });

  it('skips a step whose if is false and fails one whose if cannot be evaluated', async () => {
    const result = await runWorkflow(
      options([step('a', 'x', { condition: 'input.n > 5' }), step('b', 'y', { condition: 'input.n =~ 2', strategy: 'continue' })], async () => ok(1)),
    );
    const byId = Object.fromEntries(result.steps.map((s) => [s.id, s]));
    assert.equal(byId['a']?.status, 'skipped');
    assert.match(byId['a']?.reason ?? '', /false/);
    assert.equal(byId['b']?.status, 'failed');
    assert.match(byId['b']?.error ?? '', /cannot be evaluated/);
  });

  it('says which reference is missing, and refuses a cycle before running anything', async () => {
    const missing = await runWorkflow(options([step('a', 'x'), step('b', 'y', { with: { v: '${steps.a.output.nope}' } })], async () => ok({ yes: 1 })));
    assert.match(!missing.outcome.ok ? missing.outcome.error : '', /has no "nope" \(it has: yes\)/);

    let ran = 0;
    const cycle = await runWorkflow(options([step('a', 'x', { dependsOn: ['b'] }), step('b', 'y', { with: { v: '${steps.a.output}' } })], async () => (ran++, ok(1))));
    assert.equal(ran, 0);
    assert.match(!cycle.outcome.ok ? cycle.outcome.error : '', /cycle/);
  });

  it('stops in the middle of a parallel step: nothing keeps running and the trace is complete', async () => {
    const controller = new AbortController();
    let running = 0;
    const bothRunning = deferred<void>();
    const run = runWorkflow(
      options(
        [step('a', 'slow'), step('b', 'slow'), step('c', 'after', { dependsOn: ['a'] })],
        async (request) => {
          running++;
          if (running === 2) bothRunning.resolve();
          await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve(), { once: true }));
          running--;
          return bad('stopped by the user', 'aborted');
        },
        { signal: controller.signal },
      ),
    );
    await bothRunning.promise;
    controller.abort();
    const result = await run;
    assert.equal(running, 0);
    assert.equal(!result.outcome.ok && result.outcome.kind, 'aborted');
    assert.deepEqual(result.steps.map((s) => s.id).sort(), ['a', 'b', 'c']);
  });

  it('runs a 500-step chain', async () => {
    const steps = Array.from({ length: 500 }, (_, i) => step(`s${i}`, 'inc', { with: { v: i === 0 ? 0 : `\${steps.s${i - 1}.output}` } }));
    const result = await runWorkflow(options(steps, async (request) => ok((request.args['v'] as number) + 1)));
    assert.deepEqual(result.outcome.ok && result.outcome.output, 500);
    assert.equal(result.steps.length, 500);
  });
});
