import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import type { Logger } from '../base/logger';
import { describeError, nullLogger } from '../base/logger';
import { FileTextStore } from '../base/textStore';
import type { TuningChange, TuningState } from './adaptation';
import { applyProposals, effectiveValues, revertChange } from './adaptation';
import type { RunSummary } from './adaptationHeuristic';
import { heuristicProposals, parseScriptProposals, scriptInput } from './adaptationHeuristic';
import type { AdaptationSpec } from './adaptationSpec';
import { parseAdaptation } from './adaptationSpec';
import { AdaptationStore } from './adaptationStore';
import type { ExecutableSkill } from './executableSkill';
import type { AttemptOutcome } from './executionTypes';
import type { RunTuning } from './skillExecutor';

/** Run summaries kept per skill: more than any feedback window needs at a few runs a day. */
const MAX_SUMMARIES = 500;
const SAVE_DELAY_MS = 2_000;

export interface TuningView {
  readonly spec?: AdaptationSpec;
  /** Why the `adaptation` block cannot be used, when it cannot. */
  readonly errors: readonly string[];
  /** The values the next run binds (defaults overlaid with tuned ones). */
  readonly values: Readonly<Record<string, unknown>>;
  readonly changes: readonly TuningChange[];
}

/** What tuning reads of a skill: its name, its `adaptation` block and the `input_schema` the tuned params belong to. */
export type TunedSkill = Pick<ExecutableSkill, 'name' | 'adaptation' | 'inputSchema'>;

export interface SkillTuning extends RunTuning {
  readonly ready: Promise<void>;
  view(skill: TunedSkill): TuningView;
  revert(skill: TunedSkill, changeId: string): Promise<{ ok: true } | { ok: false; error: string }>;
  flush(): Promise<void>;
}

export interface SkillTuningOptions {
  readonly storageDir: string;
  readonly fs: FileSystemPort;
  readonly logger?: Logger;
  readonly now?: () => number;
  /** Runs a skill's tuning script (strategy: script) with the given JSON; only script skills get one. */
  readonly runTuningScript?: (skill: ExecutableSkill, entry: string, input: unknown) => Promise<AttemptOutcome>;
}

/**
 * Level 2 as the executor sees it: tuned values for binding, and after each run a summary for the
 * strategy, whose proposals go through applyProposals (bounds, 20 % steps, min_signals) only.
 */
export function createSkillTuning(options: SkillTuningOptions): SkillTuning {
  const logger = options.logger ?? nullLogger;
  const now = options.now ?? Date.now;
  const store = new AdaptationStore(new FileTextStore(options.fs, path.join(options.storageDir, 'skill-tuning.json')), logger);
  const runsStore = new FileTextStore(options.fs, path.join(options.storageDir, 'skill-tuning-runs.json'));
  const summaries = new Map<string, RunSummary[]>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ready = (async () => {
    await store.load();
    try {
      const text = await runsStore.read();
      const data = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      for (const [name, list] of Object.entries(data)) if (Array.isArray(list)) summaries.set(name, list.filter(isSummary).slice(-MAX_SUMMARIES));
    } catch (error) {
      logger.warn(`Tuning run summaries were unreadable and start afresh: ${describeError(error)}`);
    }
  })();
  const save = (): Promise<void> => runsStore.write(JSON.stringify(Object.fromEntries(summaries)));
  const scheduleSave = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void save().catch((error: unknown) => logger.warn(`Saving tuning run summaries failed: ${describeError(error)}`)), SAVE_DELAY_MS);
  };
  // The tuned params are checked against the skill's input_schema, so the spec is read with it.
  const specOf = (skill: TunedSkill): { spec?: AdaptationSpec; errors: string[] } => {
    const parsed = parseAdaptation({ adaptation: skill.adaptation, ...(skill.inputSchema !== undefined ? { input_schema: skill.inputSchema } : {}) });
    if (!parsed) return { errors: [] };
    return parsed.ok ? { spec: parsed.spec, errors: [] } : { errors: parsed.errors };
  };

  const propose = async (skill: ExecutableSkill, spec: AdaptationSpec, runs: readonly RunSummary[], current: Readonly<Record<string, unknown>>): Promise<void> => {
    let proposals;
    if (spec.strategy === 'script') {
      if (skill.kind !== 'script' || !options.runTuningScript || spec.entry === undefined) return;
      const outcome = await options.runTuningScript(skill, spec.entry, scriptInput(spec, runs, current, now()));
      if (!outcome.ok) {
        logger.warn(`The tuning script of ${skill.name} failed: ${outcome.error}`);
        return;
      }
      const parsed = parseScriptProposals(outcome.output);
      if (!parsed.ok) {
        logger.warn(`The tuning script of ${skill.name}: ${parsed.error}`);
        return;
      }
      proposals = parsed.proposals;
    } else {
      proposals = heuristicProposals(spec, runs, current, now());
    }
    if (proposals.length === 0) return;
    const source = spec.strategy === 'script' ? 'script' : 'heuristic';
    const next = await store.update(skill.name, spec, (state) => applyProposals(spec, state, proposals, now(), source).state);
    const last = next.changes.at(-1);
    if (last && last.at === now()) logger.info(`Tuned ${skill.name}: ${last.param} ${JSON.stringify(last.from)} → ${JSON.stringify(last.to)} (${last.reason})`);
  };

  return {
    ready,
    valuesFor(skill) {
      const { spec } = specOf(skill);
      return spec ? effectiveValues(spec, store.get(skill.name, spec)) : undefined;
    },
    afterRun(skill, run) {
      const { spec } = specOf(skill);
      if (!spec) return;
      const params: Record<string, unknown> = {};
      for (const param of spec.params) if (Object.prototype.hasOwnProperty.call(run.arguments, param.name)) params[param.name] = run.arguments[param.name];
      const list = summaries.get(skill.name) ?? [];
      list.push({ at: now(), success: run.success, latencyMs: run.latencyMs, params });
      summaries.set(skill.name, list.slice(-MAX_SUMMARIES));
      scheduleSave();
      void propose(skill, spec, list, effectiveValues(spec, store.get(skill.name, spec))).catch((error: unknown) => logger.warn(`Tuning ${skill.name} failed: ${describeError(error)}`));
    },
    view(skill) {
      const { spec, errors } = specOf(skill);
      if (!spec) return { errors, values: {}, changes: [] };
      const state: TuningState = store.get(skill.name, spec);
      return { spec, errors, values: effectiveValues(spec, state), changes: state.changes };
    },
    async revert(skill, changeId) {
      const { spec, errors } = specOf(skill);
      if (!spec) return { ok: false, error: errors[0] ?? `"${skill.name}" has no adaptation block` };
      let problem: string | undefined;
      await store.update(skill.name, spec, (state) => {
        const reverted = revertChange(state, changeId, now());
        if (!reverted.ok) {
          problem = reverted.error;
          return state;
        }
        return reverted.state;
      });
      return problem === undefined ? { ok: true } : { ok: false, error: problem };
    },
    async flush() {
      clearTimeout(timer);
      await save();
    },
  };
}

function isSummary(value: unknown): value is RunSummary {
  if (!value || typeof value !== 'object') return false;
  const run = value as Partial<RunSummary>;
  return typeof run.at === 'number' && typeof run.success === 'boolean' && typeof run.latencyMs === 'number' && !!run.params && typeof run.params === 'object';
}
