/**
 * The host↔webview protocol of the Skill Run Trace panel, and the words both sides use for a
 * run's steps. Like protocol.ts: every message is a zod schema, both sides validate what they
 * receive, and a malformed message is reported and dropped. No `vscode` and no DOM types here.
 */
import * as z from 'zod/mini';
import type { ParseResult } from './system/parseMessage';
import { parseMessage } from './system/parseMessage';

const str = z.string();
const ms = z.number().check(z.nonnegative());
const count = z.int().check(z.nonnegative());
const name = z.string().check(z.minLength(1), z.maxLength(400));

export const TRACE_STEP_STATUSES = ['success', 'retried_success', 'failed', 'skipped', 'fallback'] as const;
export type TraceStepStatus = (typeof TRACE_STEP_STATUSES)[number];
/** A step of a run still going (chat cards) or ended the way the trace says. */
export type StepState = 'running' | TraceStepStatus;

const tokens = z.object({ input: count, output: count });

const attempt = z.object({
  /** Milliseconds since the run started. */
  offsetMs: ms,
  durationMs: ms,
  error: z.optional(str),
  kind: z.optional(str),
});

const traceStep = z.object({
  id: str,
  parent: z.optional(str),
  skill: str,
  version: z.optional(str),
  kind: z.enum(['instructions', 'script', 'http', 'workflow', 'unknown']),
  status: z.enum(TRACE_STEP_STATUSES),
  attempts: z.array(attempt).check(z.maxLength(1_000)),
  offsetMs: ms,
  durationMs: ms,
  outputBytes: count,
  tokens: z.optional(tokens),
  error: z.optional(str),
  reason: z.optional(str),
  fallbackSkill: z.optional(str),
});
export type TraceStepModel = z.infer<typeof traceStep>;

/** One run as the panel shows it: the stored trace, field by field. */
const traceModel = z.object({
  traceId: name,
  skill: str,
  version: z.optional(str),
  kind: z.enum(['instructions', 'script', 'http', 'workflow']),
  success: z.boolean(),
  error: z.optional(str),
  /** ISO time the run started. */
  started: str,
  durationMs: ms,
  outputBytes: count,
  steps: z.array(traceStep).check(z.maxLength(20_000)),
  calledSkills: z.array(str),
  drift: z.optional(str),
  origin: z.enum(['chat', 'palette', 'cli', 'test']),
  tokens: z.optional(tokens),
});
export type TraceModel = z.infer<typeof traceModel>;

const traceToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('trace/ready') }),
  /** "Other runs of this skill…": a pick of its recent runs. */
  z.object({ type: z.literal('trace/pickRun'), skill: name }),
  z.object({ type: z.literal('trace/openSkill'), skill: name }),
]);
export type TraceToHost = z.infer<typeof traceToHost>;

const hostToTrace = z.discriminatedUnion('type', [
  z.object({ type: z.literal('trace/show'), trace: traceModel }),
  z.object({ type: z.literal('trace/error'), message: str }),
]);
export type HostToTrace = z.infer<typeof hostToTrace>;


export const parseTraceMessage = (raw: unknown): ParseResult<TraceToHost> => parseMessage(traceToHost, raw);
export const parseHostTraceMessage = (raw: unknown): ParseResult<HostToTrace> => parseMessage(hostToTrace, raw);

// ---------------------------------------------------------------- words for steps

/**
 * How a step's state reads, in words and as a glyph: the colour of a bar or card is never the only
 * sign of how it went.
 */
export const STEP_STATE_TEXT: Readonly<Record<StepState, { readonly label: string; readonly glyph: string }>> = {
  running: { label: 'Running', glyph: '◌' },
  success: { label: 'Succeeded', glyph: '✓' },
  retried_success: { label: 'Succeeded after retrying', glyph: '↻' },
  failed: { label: 'Failed', glyph: '✕' },
  skipped: { label: 'Skipped', glyph: '⤼' },
  fallback: { label: 'Fallback used', glyph: '⇢' },
};

/** `850 ms`, `1.2 s`, `2 min 5 s`: precise for short steps, readable for long ones. */
export function formatDuration(milliseconds: number): string {
  const value = Number.isFinite(milliseconds) ? Math.max(0, milliseconds) : 0;
  if (value < 1_000) return `${Math.round(value)} ms`;
  if (value < 10_000) return `${(Math.floor(value / 100) / 10).toFixed(1)} s`;
  if (value < 60_000) return `${Math.floor(value / 1_000)} s`;
  const minutes = Math.floor(value / 60_000);
  const seconds = Math.floor((value % 60_000) / 1_000);
  return seconds > 0 ? `${minutes} min ${seconds} s` : `${minutes} min`;
}
