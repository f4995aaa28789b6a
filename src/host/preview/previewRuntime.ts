import type { TuningChange } from '../../core/execution/adaptation';
import type { TunableParam } from '../../core/execution/adaptationSpec';
import type { ExecutableSkill } from '../../core/execution/executableSkill';
import type { RunTrace } from '../../core/execution/executionTypes';
import type { TunedSkill, TuningView } from '../../core/execution/skillTuning';
import type { TraceFilter } from '../../core/execution/traceStore';
import { declaredSkills, healthOf } from '../../core/skills/index/skillHealth';
import type { SkillUsageEntry } from '../../core/skills/index/skillUsage';
import { calledSkills, undeclaredCalls } from '../../core/skills/index/skillUsage';
import { clipLine } from '../../core/text/clip';
import type { SkillRuntimeView } from '../../shared/previewProtocol';

/**
 * The preview's "what running it has shown" part, built from the usage statistics, the trace files
 * and the tuned values. No `vscode` here: the panel hands in the stores, the tests hand in their own.
 */

/** Runs listed in the preview; the trace view has the rest. */
export const LAST_RUNS = 3;
/** Own runs whose called skills are compared with the declared ones (the usage keeps as many). */
const CALL_RUNS = 20;
export const MAX_LISTED_CHANGES = 20;

export interface RuntimeSources {
  readonly skill: Pick<ExecutableSkill, 'name' | 'kind' | 'version' | 'adaptation'>;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly usage: SkillUsageEntry;
  /** Runs of the skill and runs that called it, in any order. */
  readonly traces: readonly RunTrace[];
  readonly tuning?: TuningView;
  readonly now: number;
}

/** Instruction skills without `adaptation` have nothing of this to show. */
export function showsRuntime(skill: Pick<ExecutableSkill, 'kind' | 'adaptation'>): boolean {
  return skill.kind !== 'instructions' || (skill.adaptation !== undefined && skill.adaptation !== null);
}

export function buildPreviewRuntime(sources: RuntimeSources): SkillRuntimeView {
  const { skill, usage, now } = sources;
  const own = sources.traces.filter((trace) => trace.skill === skill.name).sort((a, b) => b.started.localeCompare(a.started));
  const declared = skill.kind === 'workflow' ? declaredSkills(sources.frontmatter) : [];
  const called = [...new Set([...calledSkills(usage), ...own.slice(0, CALL_RUNS).flatMap((trace) => trace.calledSkills)])].filter((name) => name !== skill.name);
  return {
    name: skill.name,
    kind: skill.kind,
    ...(skill.version !== undefined ? { version: skill.version } : {}),
    // Undeclared calls have their own list here, so the line leaves them out.
    health: healthOf(usage, now).line,
    declared,
    called,
    undeclared: undeclaredCalls(declared, called),
    runs: own.slice(0, LAST_RUNS).map((trace) => ({
      traceId: trace.trace_id,
      started: trace.started,
      success: trace.success,
      durationMs: Math.max(0, trace.durationMs),
      origin: trace.origin,
      ...(trace.error !== undefined ? { error: clipLine(trace.error, 200) } : {}),
    })),
    ...(sources.tuning && (sources.tuning.spec || sources.tuning.errors.length > 0) ? { tuning: tuningOf(sources.tuning) } : {}),
  };
}

function tuningOf(view: TuningView): NonNullable<SkillRuntimeView['tuning']> {
  const params = (view.spec?.params ?? []).map((param) => {
    const current = Object.hasOwn(view.values, param.name) ? view.values[param.name] : param.default;
    return { name: param.name, type: param.type, default: json(param.default), bounds: boundsOf(param), current: json(current), tuned: json(current) !== json(param.default) };
  });
  const changes = view.changes.map((change, index) => ({ change, alsoReverts: laterActive(view.changes, index) }));
  const listed = changes.slice(-MAX_LISTED_CHANGES).reverse();
  return {
    params,
    changes: listed.map(({ change, alsoReverts }) => ({
      id: change.id,
      param: change.param,
      from: json(change.from),
      to: json(change.to),
      reason: clipLine(change.reason, 300),
      at: change.at,
      source: change.source,
      ...(change.revertedAt !== undefined ? { revertedAt: change.revertedAt } : {}),
      alsoReverts,
    })),
    hiddenChanges: changes.length - listed.length,
    errors: [...view.errors],
  };
}

/** Reverting a change takes back the later active changes of its parameter (they started from it). */
function laterActive(changes: readonly TuningChange[], index: number): number {
  const change = changes[index];
  if (!change || change.revertedAt !== undefined) return 0;
  return changes.slice(index + 1).filter((later) => later.param === change.param && later.revertedAt === undefined).length;
}

function boundsOf(param: TunableParam): string {
  switch (param.type) {
    case 'boolean':
      return 'true or false';
    case 'string':
      return `one of ${param.enum.join(', ')}`;
    default:
      return `${param.min} to ${param.max}${param.step !== undefined ? `, step ${param.step}` : ''}`;
  }
}

function json(value: unknown): string {
  // JSON.stringify gives undefined for undefined, whatever its declared type says.
  const text = JSON.stringify(value) as string | undefined;
  return clipLine(text ?? String(value), 200);
}

export interface RuntimeStores {
  readonly traces: { list(filter: TraceFilter): Promise<RunTrace[]> };
  readonly tuning: { view(skill: TunedSkill): TuningView };
  readonly usage: { get(name: string): SkillUsageEntry };
  readonly now: () => number;
}

/** Reads what the runtime part needs for one skill; undefined for a skill that has none of it. */
export async function loadPreviewRuntime(stores: RuntimeStores, skill: RuntimeSources['skill'], frontmatter: Readonly<Record<string, unknown>>): Promise<SkillRuntimeView | undefined> {
  if (!showsRuntime(skill)) return undefined;
  const traces = await stores.traces.list({ skill: skill.name, limit: CALL_RUNS * 2 });
  const tuning = skill.adaptation !== undefined && skill.adaptation !== null ? stores.tuning.view(skill) : undefined;
  return buildPreviewRuntime({ skill, frontmatter, usage: stores.usage.get(skill.name), traces, ...(tuning ? { tuning } : {}), now: stores.now() });
}
