import type { RunStepView } from '../../shared/protocol';
import { RUN_STEP_STATES } from '../../shared/protocol';

/** How a skill_run card reads its result: the trace id, and the workflow steps in nested order. */

const MAX_STEP_ERROR_CHARS = 2_000;

export const clipError = (text: string): string => (text.length > MAX_STEP_ERROR_CHARS ? `${text.slice(0, MAX_STEP_ERROR_CHARS)}…` : text);

/** `outer/inner` → `outer`: the steps of a nested workflow carry their parent step's id as a prefix. */
function parentOfId(id: string): string | undefined {
  const at = id.lastIndexOf('/');
  return at > 0 ? id.slice(0, at) : undefined;
}

const isStepState = (value: unknown): value is RunStepView['state'] => typeof value === 'string' && (RUN_STEP_STATES as readonly string[]).includes(value);

/** What a skill_run result says about its run: the trace id and, for a workflow, how each step ended. */
export function readRunResult(result: string): { traceId?: string; steps?: RunStepView[] } {
  let value: unknown;
  try {
    value = JSON.parse(result);
  } catch {
    // A result cut short for the model is no longer JSON; its trace id is usually still in it.
    const match = /"trace_id"\s*:\s*"([^"\\]{1,200})"/.exec(result);
    return match?.[1] ? { traceId: match[1] } : {};
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const record = value as Record<string, unknown>;
  const rawId = record['trace_id'];
  const traceId = typeof rawId === 'string' && rawId !== '' && rawId.length <= 200 ? rawId : undefined;
  const rawSteps = record['steps'];
  const steps = Array.isArray(rawSteps)
    ? rawSteps.flatMap((raw: unknown): RunStepView[] => {
        if (!raw || typeof raw !== 'object') return [];
        const step = raw as Record<string, unknown>;
        const id = step['step'];
        const skill = step['skill'];
        const state = step['status'];
        if (typeof id !== 'string' || id === '' || typeof skill !== 'string' || !isStepState(state)) return [];
        const parent = parentOfId(id);
        const error = step['error'];
        return [{ id, ...(parent !== undefined ? { parent } : {}), skill, state, ...(typeof error === 'string' ? { error: clipError(error) } : {}) }];
      })
    : undefined;
  return { ...(traceId !== undefined ? { traceId } : {}), ...(steps ? { steps } : {}) };
}

/** Each step followed by the steps of its nested workflow, siblings in the order given. */
export function nestedOrder(steps: readonly RunStepView[]): RunStepView[] {
  const ids = new Set(steps.map((step) => step.id));
  const children = new Map<string | undefined, RunStepView[]>();
  for (const step of steps) {
    const key = step.parent !== undefined && ids.has(step.parent) && step.parent !== step.id ? step.parent : undefined;
    children.set(key, [...(children.get(key) ?? []), step]);
  }
  const out: RunStepView[] = [];
  const seen = new Set<string>();
  const visit = (parent: string | undefined): void => {
    for (const step of children.get(parent) ?? []) {
      if (seen.has(step.id)) continue;
      seen.add(step.id);
      out.push(step);
      visit(step.id);
    }
  };
  visit(undefined);
  // Steps whose parents loop never hang below a root; they still show.
  for (const step of steps) if (!seen.has(step.id)) out.push(step);
  return out;
}
