import type { RunTrace } from '../../core/execution/executionTypes';
import type { TraceModel } from '../../shared/traceProtocol';
import { formatDuration } from '../../shared/traceProtocol';

/**
 * The pure half of the Skill Run Trace panel (no `vscode`, unit-tested in plain Node): what the
 * command accepts, how a run reads in the pick, and the trace as the page receives it.
 */

export interface ShowTraceArgs {
  readonly traceId?: string;
  /** Only runs of this skill, or runs that called it (the Skills tab's "Last runs"). */
  readonly skill?: string;
}

/** `{ traceId }`, `{ skill }` or nothing; anything else is refused with what the command takes. */
export function parseShowTraceArgs(value: unknown): { ok: true; args: ShowTraceArgs } | { ok: false; error: string } {
  if (value === undefined || value === null) return { ok: true, args: {} };
  const usage = 'Pass { traceId: "<id from a skill_run result>" } or { skill: "<skill name>" }, or nothing to pick from the recent runs.';
  if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: `Show Skill Run Trace got ${Array.isArray(value) ? 'a list' : typeof value}. ${usage}` };
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'traceId' && key !== 'skill');
  if (unknown.length > 0) return { ok: false, error: `Show Skill Run Trace does not know ${unknown.map((key) => `"${key.slice(0, 40)}"`).join(', ')}. ${usage}` };
  for (const key of ['traceId', 'skill'] as const) {
    const field = record[key];
    if (field !== undefined && (typeof field !== 'string' || field.trim() === '')) return { ok: false, error: `Show Skill Run Trace: ${key} must be a non-empty string. ${usage}` };
  }
  const traceId = typeof record['traceId'] === 'string' ? record['traceId'].trim() : undefined;
  const skill = typeof record['skill'] === 'string' ? record['skill'].trim() : undefined;
  return { ok: true, args: { ...(traceId !== undefined ? { traceId } : {}), ...(skill !== undefined ? { skill } : {}) } };
}

/** A stored trace, field by field, as the page's schema takes it (nothing more is sent). */
export function traceModelOf(trace: RunTrace): TraceModel {
  return {
    traceId: trace.trace_id,
    skill: trace.skill,
    ...(trace.version !== undefined ? { version: trace.version } : {}),
    kind: trace.kind,
    success: trace.success,
    ...(trace.error !== undefined ? { error: trace.error } : {}),
    started: trace.started,
    durationMs: Math.max(0, trace.durationMs),
    outputBytes: Math.max(0, Math.round(trace.outputBytes)),
    steps: trace.steps.map((step) => ({
      id: step.id,
      ...(step.parent !== undefined ? { parent: step.parent } : {}),
      skill: step.skill,
      ...(step.version !== undefined ? { version: step.version } : {}),
      kind: step.kind,
      status: step.status,
      attempts: step.attempts.map((attempt) => ({
        offsetMs: Math.max(0, attempt.offsetMs),
        durationMs: Math.max(0, attempt.durationMs),
        ...(attempt.error !== undefined ? { error: attempt.error } : {}),
        ...(attempt.kind !== undefined ? { kind: attempt.kind } : {}),
      })),
      offsetMs: Math.max(0, step.offsetMs),
      durationMs: Math.max(0, step.durationMs),
      outputBytes: Math.max(0, Math.round(step.outputBytes)),
      ...(step.tokens ? { tokens: step.tokens } : {}),
      ...(step.error !== undefined ? { error: step.error } : {}),
      ...(step.reason !== undefined ? { reason: step.reason } : {}),
      ...(step.fallbackSkill !== undefined ? { fallbackSkill: step.fallbackSkill } : {}),
    })),
    calledSkills: [...trace.calledSkills],
    ...(trace.drift !== undefined ? { drift: trace.drift } : {}),
    origin: trace.origin,
    ...(trace.tokens ? { tokens: trace.tokens } : {}),
  };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** Local `YYYY-MM-DD HH:MM:SS`: sortable by eye, and the same in every locale. */
export function runTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export interface RunPick {
  readonly label: string;
  readonly description: string;
  readonly detail: string;
  readonly traceId: string;
}

/** One run in the pick: skill and outcome first, then time, duration, steps and where it came from. */
export function runPickItem(trace: RunTrace): RunPick {
  const failed = trace.steps.filter((step) => step.status === 'failed').length;
  const steps = trace.kind === 'workflow' ? `${trace.steps.length} step${trace.steps.length === 1 ? '' : 's'}${failed > 0 ? `, ${failed} failed` : ''} · ` : '';
  return {
    label: `${trace.success ? '$(pass)' : '$(error)'} ${trace.skill}`,
    description: `${trace.success ? 'succeeded' : 'failed'} · ${formatDuration(trace.durationMs)}`,
    detail: `${runTime(trace.started)} · ${steps}${trace.kind} · from ${trace.origin}${trace.error !== undefined ? ` · ${trace.error.slice(0, 120)}` : ''}`,
    traceId: trace.trace_id,
  };
}
