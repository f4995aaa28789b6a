import type { AttemptOutcome, ErrorKind, Sleep, SkillKind, StepStatus, TokenCount, TraceAttempt, TraceStep } from './executionTypes';
import type { WorkflowStepSpec } from './executableSkill';
import { checkCondition } from '../skills/model/conditionExpression';
import type { ReferenceScope } from './workflowReferences';
import { lookupPath, referencedSteps, resolveReferences } from './workflowReferences';
import { outputBytes } from './outputSize';

/** Steps running at once in one workflow: enough for I/O-bound skills, gentle on a laptop. */
export const DEFAULT_CONCURRENCY = 4;
const MAX_BACKOFF_MS = 30_000;

/** What running one step's skill produced (a nested workflow's own steps included). */
export interface StepRun {
  readonly outcome: AttemptOutcome;
  readonly kind: SkillKind | 'unknown';
  readonly version?: string;
  /** Trace steps of a nested workflow, ids already prefixed. */
  readonly nested: readonly TraceStep[];
  /** Skills the run called below this one. */
  readonly called: readonly string[];
}

export interface StepRequest {
  readonly skill: string;
  readonly args: Record<string, unknown>;
  /** The trace id of this step; nested steps are prefixed with it. */
  readonly traceStepId: string;
  readonly signal: AbortSignal;
}

export type StepProgress = { readonly id: string; readonly parent?: string; readonly skill: string; readonly state: 'running' | StepStatus; readonly error?: string };

export interface WorkflowRunOptions {
  readonly steps: readonly WorkflowStepSpec[];
  readonly input: Readonly<Record<string, unknown>>;
  readonly context: Readonly<Record<string, unknown>>;
  readonly runStep: (request: StepRequest) => Promise<StepRun>;
  readonly signal: AbortSignal;
  readonly sleep: Sleep;
  /** Milliseconds since the whole run started. */
  readonly elapsed: () => number;
  readonly concurrency?: number;
  /** Prefix of the trace ids (`parent/`) for a nested workflow. */
  readonly prefix?: string;
  readonly onProgress?: (progress: StepProgress) => void;
}

export interface WorkflowRunResult {
  readonly outcome: AttemptOutcome;
  readonly steps: TraceStep[];
  readonly called: string[];
}

interface Settled {
  readonly status: StepStatus;
  readonly output?: unknown;
  readonly error?: string;
}

const SUCCEEDED: ReadonlySet<StepStatus> = new Set(['success', 'retried_success', 'fallback']);

/** Order the steps so each comes after what it waits for; undefined names the steps caught in a cycle. */
function dependencies(steps: readonly WorkflowStepSpec[]): { deps: Map<string, Set<string>>; cycle?: string[] } {
  const ids = new Set(steps.map((step) => step.id));
  const deps = new Map<string, Set<string>>();
  for (const step of steps) {
    const found = referencedSteps([step.with, step.condition ?? '', step.fallbackParams]);
    for (const dep of step.dependsOn) found.add(dep);
    found.delete(step.id);
    deps.set(step.id, new Set([...found].filter((id) => ids.has(id))));
  }
  const indegree = new Map([...deps].map(([id, set]) => [id, set.size]));
  const queue = [...indegree].filter(([, n]) => n === 0).map(([id]) => id);
  let done = 0;
  while (queue.length > 0) {
    const id = queue.pop() as string;
    done++;
    for (const [other, set] of deps) {
      if (set.has(id)) {
        const left = (indegree.get(other) ?? 0) - 1;
        indegree.set(other, left);
        if (left === 0) queue.push(other);
      }
    }
  }
  if (done === steps.length) return { deps };
  return { deps, cycle: [...indegree].filter(([, n]) => n > 0).map(([id]) => id) };
}

/** Runs a Level 1 workflow: independent steps in parallel (bounded), dependants after what they use. */
export async function runWorkflow(options: WorkflowRunOptions): Promise<WorkflowRunResult> {
  const { steps, signal } = options;
  const prefix = options.prefix ?? '';
  const parent = prefix === '' ? undefined : prefix.slice(0, -1);
  const { deps, cycle } = dependencies(steps);
  if (cycle) {
    const error = `the steps ${cycle.map((id) => `"${id}"`).join(', ')} wait for each other in a cycle; break it so each step only uses earlier results`;
    return { outcome: { ok: false, error, kind: 'validation' }, steps: [], called: [] };
  }
  const internal = new AbortController();
  const onAbort = (): void => internal.abort();
  if (signal.aborted) internal.abort();
  else signal.addEventListener('abort', onAbort, { once: true });

  const settled = new Map<string, Settled>();
  const trace: TraceStep[] = [];
  const called: string[] = [];
  let failure: { step: string; error: string; kind: ErrorKind } | undefined;
  const scope: ReferenceScope = { input: options.input, context: options.context, steps: {} };
  const scopeSteps = scope.steps as Record<string, Settled>;

  const finish = (spec: WorkflowStepSpec, record: Omit<TraceStep, 'id' | 'skill'> & { skill?: string }, output?: unknown): void => {
    const entry: Settled = { status: record.status, ...(output !== undefined ? { output } : {}), ...(record.error !== undefined ? { error: record.error } : {}) };
    settled.set(spec.id, entry);
    scopeSteps[spec.id] = entry;
    trace.push({ ...record, id: prefix + spec.id, skill: record.skill ?? spec.skill, ...(parent !== undefined ? { parent } : {}) });
    options.onProgress?.({ id: prefix + spec.id, ...(parent !== undefined ? { parent } : {}), skill: record.skill ?? spec.skill, state: record.status, ...(record.error !== undefined ? { error: record.error } : {}) });
  };

  const skip = (spec: WorkflowStepSpec, reason: string): void =>
    finish(spec, { kind: 'unknown', status: 'skipped', attempts: [], offsetMs: options.elapsed(), durationMs: 0, outputBytes: 0, reason });

  const runOne = async (spec: WorkflowStepSpec): Promise<void> => {
    const waitedOn = [...(deps.get(spec.id) ?? [])];
    const unmet = waitedOn.find((id) => !SUCCEEDED.has(settled.get(id)?.status ?? 'skipped'));
    if (spec.condition !== undefined) {
      const checked = checkCondition(spec.condition, (path) => lookupPath(scope, path));
      if (!checked.ok) return fail(spec, `its \`if\` cannot be evaluated: ${checked.error}`, 'condition', options.elapsed(), []);
      if (!checked.value) return skip(spec, `if: ${spec.condition} is false`);
    } else if (unmet !== undefined) {
      return skip(spec, `it uses step "${unmet}", which ${settled.get(unmet)?.status === 'failed' ? 'failed' : 'was skipped'}`);
    }
    const args = resolveReferences(spec.with, scope);
    if (!args.ok) return fail(spec, args.error, 'validation', options.elapsed(), []);

    const started = options.elapsed();
    options.onProgress?.({ id: prefix + spec.id, ...(parent !== undefined ? { parent } : {}), skill: spec.skill, state: 'running' });
    const attempts: TraceAttempt[] = [];
    const tries = 1 + (spec.strategy === 'retry' ? spec.maxRetries : 0);
    let run: StepRun | undefined;
    const nested: TraceStep[] = [];
    for (let attempt = 1; attempt <= tries; attempt++) {
      const at = options.elapsed();
      run = await options.runStep({ skill: spec.skill, args: args.value as Record<string, unknown>, traceStepId: prefix + spec.id, signal: internal.signal });
      nested.push(...run.nested);
      called.push(...run.called);
      const outcome = run.outcome;
      attempts.push({ offsetMs: at, durationMs: options.elapsed() - at, ...(outcome.ok ? {} : { error: outcome.error, kind: outcome.kind }) });
      if (outcome.ok || outcome.kind === 'aborted' || internal.signal.aborted || !spec.retryOn.includes(outcome.kind) || attempt === tries) break;
      const backoff = Math.min(spec.retryBackoffSeconds * 1000 * 2 ** (attempt - 1), MAX_BACKOFF_MS);
      await options.sleep(Math.max(backoff, outcome.retryAfterMs ?? 0), internal.signal);
    }
    trace.push(...nested);
    const outcome = (run as StepRun).outcome;
    const common = { kind: (run as StepRun).kind, ...((run as StepRun).version !== undefined ? { version: (run as StepRun).version as string } : {}), attempts, offsetMs: started };
    if (outcome.ok) {
      const status: StepStatus = attempts.length > 1 ? 'retried_success' : 'success';
      return finish(spec, { ...common, status, durationMs: options.elapsed() - started, outputBytes: outputBytes(outcome.output), ...tokensOf(outcome.tokens) }, outcome.output);
    }
    if (spec.strategy === 'fallback' && spec.fallbackSkill !== undefined && outcome.kind !== 'aborted' && !internal.signal.aborted) {
      const params = Object.keys(spec.fallbackParams).length > 0 ? resolveReferences(spec.fallbackParams, scope) : args;
      if (params.ok) {
        const at = options.elapsed();
        const fallback = await options.runStep({ skill: spec.fallbackSkill, args: params.value as Record<string, unknown>, traceStepId: `${prefix + spec.id}.fallback`, signal: internal.signal });
        trace.push(...fallback.nested);
        called.push(spec.fallbackSkill, ...fallback.called);
        attempts.push({ offsetMs: at, durationMs: options.elapsed() - at, ...(fallback.outcome.ok ? {} : { error: fallback.outcome.error, kind: fallback.outcome.kind }) });
        if (fallback.outcome.ok) {
          return finish(spec, { ...common, status: 'fallback', fallbackSkill: spec.fallbackSkill, error: outcome.error, durationMs: options.elapsed() - started, outputBytes: outputBytes(fallback.outcome.output) }, fallback.outcome.output);
        }
        return fail(spec, `${outcome.error}; the fallback ${spec.fallbackSkill} failed too: ${fallback.outcome.error}`, fallback.outcome.kind, started, attempts, common);
      }
      return fail(spec, `${outcome.error}; the fallback's parameters cannot be resolved: ${params.error}`, 'validation', started, attempts, common);
    }
    return fail(spec, outcome.error, outcome.kind, started, attempts, common);
  };

  const fail = (spec: WorkflowStepSpec, error: string, kind: ErrorKind, started: number, attempts: TraceAttempt[], common?: { kind: SkillKind | 'unknown'; version?: string }): void => {
    finish(spec, { kind: common?.kind ?? 'unknown', ...(common?.version !== undefined ? { version: common.version } : {}), status: 'failed', attempts, offsetMs: started, durationMs: options.elapsed() - started, outputBytes: 0, error });
    if (spec.strategy !== 'continue' && failure === undefined) {
      failure = { step: spec.id, error, kind };
      internal.abort();
    }
  };

  const pending = [...steps];
  const running = new Set<Promise<void>>();
  const limit = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  try {
    while (pending.length > 0 || running.size > 0) {
      if (internal.signal.aborted) {
        const why = failure ? `step "${failure.step}" failed first` : 'the run was stopped';
        for (const spec of pending.splice(0)) skip(spec, why);
      }
      for (let i = 0; i < pending.length && running.size < limit; ) {
        const spec = pending[i] as WorkflowStepSpec;
        if ([...(deps.get(spec.id) ?? [])].every((id) => settled.has(id))) {
          pending.splice(i, 1);
          const task: Promise<void> = runOne(spec).finally(() => running.delete(task));
          running.add(task);
        } else {
          i++;
        }
      }
      if (running.size === 0) break;
      await Promise.race(running);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }

  if (signal.aborted) return { outcome: { ok: false, error: 'stopped by the user', kind: 'aborted' }, steps: trace, called };
  if (failure) return { outcome: { ok: false, error: `step "${failure.step}" failed: ${failure.error}`, kind: failure.kind }, steps: trace, called };
  return { outcome: { ok: true, output: workflowOutput(steps, settled) }, steps: trace, called };
}

function tokensOf(tokens: TokenCount | undefined): { tokens?: TokenCount } {
  return tokens ? { tokens } : {};
}

/** The steps' `output_var`s as one object; without any, the output of the last step that produced one. */
function workflowOutput(steps: readonly WorkflowStepSpec[], settled: ReadonlyMap<string, Settled>): unknown {
  const named = steps.filter((step) => step.outputVar !== undefined);
  if (named.length > 0) {
    const out: Record<string, unknown> = {};
    for (const step of named) out[step.outputVar as string] = settled.get(step.id)?.output ?? null;
    return out;
  }
  for (let i = steps.length - 1; i >= 0; i--) {
    const entry = settled.get((steps[i] as WorkflowStepSpec).id);
    if (entry && SUCCEEDED.has(entry.status)) return entry.output ?? null;
  }
  return null;
}
