import type { TraceModel, TraceStepModel, TraceStepStatus } from '../../shared/traceProtocol';
import { formatDuration, STEP_STATE_TEXT, TRACE_STEP_STATUSES } from '../../shared/traceProtocol';

/**
 * The trace panel's layout, as numbers and words only (no DOM), so it is unit-tested in plain
 * Node: where each step's bar starts and how wide it is on the run's time axis, how deep it is
 * nested, and what its row says to a screen reader.
 */

/** A bar this narrow (percent of the axis) is still visible and hoverable: a skipped step takes no time. */
export const MIN_BAR_PCT = 0.6;
const MAX_TICKS = 6;
/** Deeper nesting than this is drawn at this depth: the name column must keep some room. */
export const MAX_INDENT_DEPTH = 8;

export interface TimelineBar {
  /** Percent of the axis from its left edge. */
  readonly leftPct: number;
  readonly widthPct: number;
}

export interface TimelineAttempt extends TimelineBar {
  /** 1-based. */
  readonly number: number;
  readonly offsetMs: number;
  readonly durationMs: number;
  readonly error?: string;
  readonly kind?: string;
  readonly text: string;
}

export interface TimelineRow extends TimelineBar {
  readonly id: string;
  /** The last part of the id (`inner` of `outer/inner`): the parent row says the rest. */
  readonly label: string;
  readonly skill: string;
  readonly depth: number;
  readonly status: TraceStepStatus;
  readonly statusLabel: string;
  readonly glyph: string;
  readonly offsetMs: number;
  readonly durationMs: number;
  readonly attempts: readonly TimelineAttempt[];
  /** Lines shown when the row is expanded besides the attempts (error, reason, fallback, output, tokens). */
  readonly details: readonly string[];
  /** What the row's button says to a screen reader. */
  readonly ariaLabel: string;
}

export interface TimelineTick {
  readonly ms: number;
  readonly leftPct: number;
  readonly label: string;
}

export interface TimelineLayout {
  readonly totalMs: number;
  readonly rows: readonly TimelineRow[];
  readonly ticks: readonly TimelineTick[];
  /** Steps per status, in the order of TRACE_STEP_STATUSES, without the zero ones. */
  readonly counts: readonly { readonly status: TraceStepStatus; readonly count: number }[];
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** A bar for [offset, offset + duration] on an axis of totalMs, at least MIN_BAR_PCT wide and never past the end. */
export function barOf(offsetMs: number, durationMs: number, totalMs: number): TimelineBar {
  const total = totalMs > 0 ? totalMs : 1;
  const width = Math.min(100, Math.max(MIN_BAR_PCT, (Math.max(0, durationMs) / total) * 100));
  const left = Math.min(Math.max(0, (Math.max(0, offsetMs) / total) * 100), 100 - width);
  return { leftPct: round(left), widthPct: round(width) };
}

/** Round values for the axis (1, 2 or 5 times a power of ten), at most MAX_TICKS of them, 0 first. */
export function axisTicks(totalMs: number, maxTicks = MAX_TICKS): TimelineTick[] {
  const total = totalMs > 0 ? totalMs : 1;
  const rough = total / Math.max(1, maxTicks - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((f) => f * power).find((candidate) => total / candidate <= maxTicks - 1) ?? 10 * power;
  const ticks: TimelineTick[] = [];
  for (let value = 0; value <= total + 1e-9 && ticks.length < maxTicks; value += step) {
    const ms = round(value);
    ticks.push({ ms, leftPct: round((ms / total) * 100), label: formatDuration(ms) });
  }
  return ticks;
}

/** The parent's id of a step, when that parent is in the trace. */
function parentOf(step: TraceStepModel, ids: ReadonlySet<string>): string | undefined {
  return step.parent !== undefined && step.parent !== step.id && ids.has(step.parent) ? step.parent : undefined;
}

/**
 * The steps in reading order: each workflow step followed by the steps of its nested workflow,
 * siblings by start time (the trace lists nested steps before the step that ran them).
 */
export function orderSteps(steps: readonly TraceStepModel[]): { step: TraceStepModel; depth: number }[] {
  const ids = new Set(steps.map((step) => step.id));
  const children = new Map<string | undefined, { step: TraceStepModel; index: number }[]>();
  steps.forEach((step, index) => {
    const key = parentOf(step, ids);
    const list = children.get(key) ?? [];
    list.push({ step, index });
    children.set(key, list);
  });
  for (const list of children.values()) list.sort((a, b) => a.step.offsetMs - b.step.offsetMs || a.index - b.index);
  const out: { step: TraceStepModel; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (parent: string | undefined, depth: number): void => {
    for (const { step } of children.get(parent) ?? []) {
      // A trace whose parents loop (hand-edited, corrupt) still shows each step once.
      if (seen.has(step.id)) continue;
      seen.add(step.id);
      out.push({ step, depth });
      visit(step.id, depth + 1);
    }
  };
  visit(undefined, 0);
  // Steps caught in a parent loop never hang below a root: show them at the top level.
  for (const step of steps) {
    if (!seen.has(step.id)) {
      seen.add(step.id);
      out.push({ step, depth: 0 });
    }
  }
  return out;
}

function attemptText(number: number, attempt: { durationMs: number; error?: string; kind?: string }): string {
  const outcome = attempt.error !== undefined ? `failed${attempt.kind ? ` (${attempt.kind})` : ''}: ${attempt.error}` : 'succeeded';
  return `Attempt ${number}: ${formatDuration(attempt.durationMs)}, ${outcome}`;
}

function detailsOf(step: TraceStepModel): string[] {
  const lines: string[] = [];
  if (step.error !== undefined) lines.push(`${step.status === 'fallback' ? 'First error' : 'Error'}: ${step.error}`);
  if (step.reason !== undefined) lines.push(`Skipped because ${step.reason}`);
  if (step.fallbackSkill !== undefined) lines.push(`Ran ${step.fallbackSkill} instead`);
  lines.push(`Skill: ${step.skill}${step.version !== undefined ? ` ${step.version}` : ''} (${step.kind})`);
  if (step.outputBytes > 0) lines.push(`Output: ${step.outputBytes.toLocaleString('en-US')} bytes`);
  if (step.tokens) lines.push(`Tokens: ${step.tokens.input.toLocaleString('en-US')} in, ${step.tokens.output.toLocaleString('en-US')} out`);
  return lines;
}

/** Lays a trace out on its time axis. */
export function layoutTimeline(trace: TraceModel): TimelineLayout {
  const end = trace.steps.reduce((max, step) => Math.max(max, step.offsetMs + step.durationMs, ...step.attempts.map((a) => a.offsetMs + a.durationMs)), 0);
  const totalMs = Math.max(trace.durationMs, end, 1);
  const rows = orderSteps(trace.steps).map(({ step, depth }): TimelineRow => {
    const text = STEP_STATE_TEXT[step.status];
    const label = step.id.slice(step.id.lastIndexOf('/') + 1) || step.id;
    const attempts = step.attempts.map((attempt, i) => ({
      ...barOf(attempt.offsetMs, attempt.durationMs, totalMs),
      number: i + 1,
      offsetMs: attempt.offsetMs,
      durationMs: attempt.durationMs,
      ...(attempt.error !== undefined ? { error: attempt.error } : {}),
      ...(attempt.kind !== undefined ? { kind: attempt.kind } : {}),
      text: attemptText(i + 1, attempt),
    }));
    const tries = attempts.length === 1 ? '1 attempt' : `${attempts.length} attempts`;
    const nested = depth > 0 ? `, inside ${step.parent ?? ''}` : '';
    return {
      ...barOf(step.offsetMs, step.durationMs, totalMs),
      id: step.id,
      label,
      skill: step.skill,
      depth: Math.min(depth, MAX_INDENT_DEPTH),
      status: step.status,
      statusLabel: text.label,
      glyph: text.glyph,
      offsetMs: step.offsetMs,
      durationMs: step.durationMs,
      attempts,
      details: detailsOf(step),
      ariaLabel: `Step ${label}${label !== step.skill ? `, skill ${step.skill}` : ''}${nested}: ${text.label}, started at ${formatDuration(step.offsetMs)}, took ${formatDuration(step.durationMs)}, ${tries}`,
    };
  });
  const counts = TRACE_STEP_STATUSES.map((status) => ({ status, count: trace.steps.filter((step) => step.status === status).length })).filter((c) => c.count > 0);
  return { totalMs, rows, ticks: axisTicks(totalMs), counts };
}

/** `2 succeeded, 1 failed`: the run's steps in one line. */
export function countsText(counts: TimelineLayout['counts']): string {
  if (counts.length === 0) return 'no steps';
  return counts.map((c) => `${c.count} ${STEP_STATE_TEXT[c.status].label.toLowerCase()}`).join(', ');
}
