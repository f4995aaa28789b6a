import { randomUUID } from 'node:crypto';
import * as semver from 'semver';
import type { Logger } from '../base/logger';
import { describeError, nullLogger } from '../base/logger';
import type {
  AttemptOutcome,
  ErrorKind,
  HttpPort,
  RunApproval,
  RunContextVariables,
  RunOrigin,
  RunResult,
  RunTrace,
  ScriptPort,
  SkillKind,
  Sleep,
  TraceAttempt,
  TraceStep,
} from './executionTypes';
import type { ExecutableSkill } from './executableSkill';
import { runsSomething } from './executableSkill';
import type { SkillLoader } from './skillLoader';
import { bindArguments } from './argumentBinding';
import type { SchemaValidator } from './schemaValidator';
import { permissionProblem } from './runPermissions';
import { runScriptSkill } from './scriptRunner';
import { runHttpSkill } from './httpRunner';
import type { StepProgress, StepRun } from './workflowRunner';
import { runWorkflow } from './workflowRunner';
import { outputBytes } from './outputSize';
import { bindInstructions } from './instructionBinding';

/** Workflows calling workflows: deeper than this is a design problem (and the cycle check's backstop). */
export const MAX_NESTING = 8;

export interface RunFeedback {
  recordRun(name: string, run: { readonly success: boolean; readonly latencyMs: number; readonly drift: boolean; readonly error?: string; readonly calledSkills?: readonly string[] }): void;
}

export interface RunTuning {
  /** Tuned values to bind in place of schema defaults; undefined when the skill is not tuned. */
  valuesFor(skill: ExecutableSkill): Readonly<Record<string, unknown>> | undefined;
  /** Told after each run of a skill with `adaptation`, with the arguments it ran with. */
  afterRun(skill: ExecutableSkill, run: { readonly success: boolean; readonly latencyMs: number; readonly arguments: Readonly<Record<string, unknown>> }): void;
}

export interface ExecutorDeps {
  readonly load: SkillLoader;
  readonly scripts: ScriptPort;
  readonly http: HttpPort;
  readonly validator: SchemaValidator;
  readonly sleep: Sleep;
  readonly approve: RunApproval;
  /** Static checks of everything a run would reach (unknown skills, versions, cycles); messages, none when fine. */
  readonly checkBeforeRun?: (name: string) => readonly string[];
  readonly traces?: { append(trace: RunTrace): Promise<void> };
  readonly feedback?: RunFeedback;
  readonly tuning?: RunTuning;
  /** The environment scripts may draw declared variables from. */
  readonly processEnv: Readonly<Record<string, string | undefined>>;
  /** The Node that runs `.js` scripts: the one running the extension or the CLI. */
  readonly nodePath: string;
  readonly readFirstLine: (file: string) => Promise<string | undefined>;
  /** Restricted Mode, or headless without --yes-commands: nothing runs. */
  readonly mayRun: () => { readonly allowed: true } | { readonly allowed: false; readonly reason: string };
  readonly logger?: Logger;
  readonly now?: () => number;
  readonly newId?: () => string;
}

export interface RunOptions {
  readonly context: RunContextVariables;
  readonly origin: RunOrigin;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: StepProgress) => void;
  /** Who approves scripts and endpoints for this run (the chat's cards, a modal, the CLI's flags); default: the executor's. */
  readonly approve?: RunApproval;
}

export type ExecutedRun = RunResult & { readonly trace: RunTrace };

/**
 * The one executor behind `skill_run`, Run Skill… and `skillwright run-skill`: bind → check
 * permissions → approve → run → validate the output (drift) → trace → feedback.
 */
export class SkillExecutor {
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly deps: ExecutorDeps) {
    this.now = deps.now ?? Date.now;
    this.logger = deps.logger ?? nullLogger;
  }

  async run(name: string, args: unknown, options: RunOptions): Promise<ExecutedRun> {
    const traceId = (this.deps.newId ?? randomUUID)();
    const started = this.now();
    const signal = options.signal ?? new AbortController().signal;
    const elapsed = (): number => this.now() - started;
    const state: RunState = { traceId, signal, elapsed, options, drift: undefined, tokens: undefined };

    const preflight = this.deps.checkBeforeRun?.(name) ?? [];
    const run: StepRun & { skill?: ExecutableSkill; attempts?: readonly TraceAttempt[] } =
      preflight.length > 0
        ? { outcome: { ok: false, error: `"${name}" cannot run: ${preflight.join('; ')}`, kind: 'validation' }, kind: 'unknown', nested: [], called: [] }
        : await this.runSkill(name, args, 0, 'main', state);

    const outcome = run.outcome;
    const durationMs = elapsed();
    const steps: TraceStep[] =
      run.kind === 'workflow'
        ? [...run.nested]
        : [
            {
              id: 'main',
              skill: run.skill?.name ?? name,
              ...(run.version !== undefined ? { version: run.version } : {}),
              kind: run.kind,
              status: outcome.ok ? (run.attempts && run.attempts.length > 1 ? 'retried_success' : 'success') : 'failed',
              attempts: run.attempts ?? [{ offsetMs: 0, durationMs, ...(outcome.ok ? {} : { error: outcome.error, kind: outcome.kind }) }],
              offsetMs: 0,
              durationMs,
              outputBytes: outcome.ok ? outputBytes(outcome.output) : 0,
              ...(outcome.ok && outcome.tokens ? { tokens: outcome.tokens } : {}),
              ...(outcome.ok ? {} : { error: outcome.error }),
            },
          ];
    const skillName = run.skill?.name ?? name;
    const trace: RunTrace = {
      type: 'trace',
      trace_id: traceId,
      skill: skillName,
      ...(run.version !== undefined ? { version: run.version } : {}),
      kind: run.kind === 'unknown' ? 'instructions' : run.kind,
      success: outcome.ok,
      ...(outcome.ok ? {} : { error: outcome.error }),
      started: new Date(started).toISOString(),
      durationMs,
      outputBytes: outcome.ok ? outputBytes(outcome.output) : 0,
      steps,
      calledSkills: [...new Set(run.called)].filter((called) => called !== skillName),
      ...(state.drift !== undefined ? { drift: state.drift } : {}),
      ...(options.context.sessionId !== undefined ? { sessionId: options.context.sessionId } : {}),
      origin: options.origin,
    };
    try {
      await this.deps.traces?.append(trace);
    } catch (error) {
      // The run happened either way; a full disk must not turn its result into a failure.
      this.logger.warn(`The trace of ${skillName} could not be saved: ${describeError(error)}`);
    }
    return { success: outcome.ok, output: outcome.ok ? outcome.output : null, error: outcome.ok ? null : outcome.error, trace_id: traceId, trace };
  }

  /** Runs one skill (a workflow's steps through here too) and tells feedback how it went. */
  private async runSkill(ref: string, args: unknown, depth: number, traceStepId: string, state: RunState): Promise<StepRun & { skill?: ExecutableSkill; attempts?: readonly TraceAttempt[] }> {
    const { name, range } = splitRef(ref);
    const unknownRun = (outcome: AttemptOutcome): StepRun => ({ outcome, kind: 'unknown', nested: [], called: [name] });
    if (depth > MAX_NESTING) return unknownRun({ ok: false, error: `workflows nest deeper than ${MAX_NESTING} levels at "${name}"; flatten them`, kind: 'validation' });
    if (state.signal.aborted) return unknownRun({ ok: false, error: 'stopped by the user', kind: 'aborted' });
    const loaded = await this.deps.load(name);
    if (!loaded.ok) return unknownRun({ ok: false, error: loaded.error, kind: loaded.kind });
    const skill = loaded.skill;
    const base = { kind: skill.kind as SkillKind, ...(skill.version !== undefined ? { version: skill.version } : {}), skill, called: depth > 0 ? [skill.name] : [] };
    const failed = (error: string, kind: ErrorKind): StepRun & { skill: ExecutableSkill } => ({ ...base, outcome: { ok: false, error, kind }, nested: [] });
    const top = depth === 0;

    if (range !== undefined && !(skill.version !== undefined && semver.valid(skill.version) && semver.satisfies(skill.version, range))) {
      return failed(`the workflow needs ${name}@${range}, but the installed version is ${skill.version ?? 'not set (no `version` in its frontmatter)'}`, 'not_found');
    }
    if (skill.problems.length > 0) return failed(`"${skill.name}" cannot run: ${skill.problems.join('; ')}`, 'validation');

    const started = state.elapsed();
    const bound = bindArguments(
      {
        skill: skill.name,
        inputSchema: skill.inputSchema,
        explicit: args,
        context: state.options.context,
        env: this.deps.processEnv,
        declaredEnv: skill.env,
        ...(this.deps.tuning?.valuesFor(skill) ? { tuned: this.deps.tuning.valuesFor(skill) as Record<string, unknown> } : {}),
      },
      this.deps.validator,
    );
    if (!bound.ok) return this.settle(skill, failed(bound.error, 'validation'), state, started, {}, top);

    let result: StepRun & { attempts?: readonly TraceAttempt[] };
    if (runsSomething(skill)) {
      const refused = permissionProblem(skill) ?? this.refusal(skill);
      if (refused !== undefined) return this.settle(skill, failed(refused, 'permission'), state, started, bound.arguments, top);
      const target = skill.kind === 'script' ? `${skill.entry ?? ''} (in ${skill.dir})` : skill.endpoint ?? '';
      const approval = await (state.options.approve ?? this.deps.approve)({ skill: skill.name, kind: skill.kind === 'script' ? 'script' : 'http', target, arguments: bound.arguments, permissions: skill.permissions });
      if (!approval.allowed) return this.settle(skill, failed(`not run: ${approval.reason}`, 'permission'), state, started, bound.arguments, top);
    }
    switch (skill.kind) {
      case 'instructions':
        result = { ...base, outcome: { ok: true, output: bindInstructions(skill, bound.arguments) }, nested: [] };
        break;
      case 'script': {
        const outcome = await runScriptSkill(
          { name: skill.name, dir: skill.dir, entry: skill.entry ?? '', timeoutMs: skill.timeoutMs, envNames: skill.env },
          bound.arguments,
          { port: this.deps.scripts, cwd: state.options.context.workspaceFolder ?? skill.dir, processEnv: this.deps.processEnv, nodePath: this.deps.nodePath, signal: state.signal, readFirstLine: this.deps.readFirstLine },
        );
        result = { ...base, outcome, nested: [] };
        break;
      }
      case 'http': {
        const http = await runHttpSkill(
          { name: skill.name, ...(skill.version !== undefined ? { version: skill.version } : {}), endpoint: skill.endpoint ?? '', timeoutMs: skill.timeoutMs, maxRetries: skill.maxRetries, retryBackoffSeconds: skill.retryBackoffSeconds },
          bound.arguments,
          state.traceId,
          { port: this.deps.http, sleep: this.deps.sleep, signal: state.signal },
        );
        result = { ...base, outcome: http.outcome, nested: [], attempts: http.attempts.map((a) => ({ ...a, offsetMs: a.offsetMs + started })) };
        break;
      }
      case 'workflow': {
        const workflow = await runWorkflow({
          steps: skill.workflow ?? [],
          input: bound.arguments,
          context: { ...state.options.context },
          runStep: (request) => this.runSkill(request.skill, request.args, depth + 1, request.traceStepId, state),
          signal: state.signal,
          sleep: this.deps.sleep,
          elapsed: state.elapsed,
          prefix: depth === 0 ? '' : `${traceStepId}/`,
          ...(state.options.onProgress ? { onProgress: state.options.onProgress } : {}),
        });
        result = { ...base, outcome: workflow.outcome, nested: workflow.steps, called: [...base.called, ...workflow.called] };
        break;
      }
    }
    return this.settle(skill, result, state, started, bound.arguments, top);
  }

  private refusal(skill: ExecutableSkill): string | undefined {
    const may = this.deps.mayRun();
    return may.allowed ? undefined : `"${skill.name}" was not run: ${may.reason}`;
  }

  /** Output validation (drift), feedback and tuning for one skill's run. */
  private settle<T extends StepRun & { skill?: ExecutableSkill }>(skill: ExecutableSkill, run: T, state: RunState, started: number, args: Readonly<Record<string, unknown>>, top: boolean): T {
    const latencyMs = state.elapsed() - started;
    let drift: string | undefined;
    if (run.outcome.ok && skill.outputSchema !== undefined && skill.kind !== 'instructions') {
      const compiled = this.deps.validator.compile(skill.name, 'output', skill.outputSchema);
      if (compiled.ok) {
        const checked = compiled.validate(run.outcome.output);
        if (!checked.ok) drift = `the output does not match output_schema: ${checked.errors.join('; ')}`;
      } else {
        drift = `output_schema cannot be used: ${compiled.error}`;
      }
      if (drift !== undefined && top) state.drift = drift;
    }
    const aborted = !run.outcome.ok && run.outcome.kind === 'aborted';
    if (!aborted) {
      this.deps.feedback?.recordRun(skill.name, {
        success: run.outcome.ok,
        latencyMs,
        drift: drift !== undefined,
        ...(run.outcome.ok ? {} : { error: run.outcome.error }),
        calledSkills: [...new Set(run.called)].filter((called) => called !== skill.name),
      });
      if (skill.adaptation !== undefined) this.deps.tuning?.afterRun(skill, { success: run.outcome.ok, latencyMs, arguments: args });
    }
    return run;
  }
}

interface RunState {
  readonly traceId: string;
  readonly signal: AbortSignal;
  readonly elapsed: () => number;
  readonly options: RunOptions;
  drift: string | undefined;
  tokens: undefined;
}

/** `deploy@^1.2` → name and range; a name without `@` has no range. */
export function splitRef(ref: string): { name: string; range?: string } {
  const at = ref.indexOf('@');
  if (at <= 0) return { name: ref.trim() };
  const range = ref.slice(at + 1).trim();
  return { name: ref.slice(0, at).trim(), ...(range !== '' ? { range } : {}) };
}
