import { createHash } from 'node:crypto';
import type { RunTrace, TokenCount, TraceAttempt, TraceStep } from './executionTypes';

/**
 * Run traces as OTLP/JSON (the body of an OTLP/HTTP trace export), named after the OpenTelemetry
 * GenAI conventions, so a team can load skill runs into the tracing tool it already uses. A run is
 * one trace: the root span is the skill (`invoke_workflow` for a workflow, `execute_tool`
 * otherwise) and each workflow step is a child span under its step or nested workflow.
 * Ids are derived from the trace id, so exporting the same runs twice gives the same spans.
 */

export type OtlpValue =
  | { readonly stringValue: string }
  | { readonly intValue: string }
  | { readonly doubleValue: number }
  | { readonly boolValue: boolean }
  | { readonly arrayValue: { readonly values: readonly OtlpValue[] } };

export interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}

export interface OtlpEvent {
  readonly timeUnixNano: string;
  readonly name: string;
  readonly attributes: readonly OtlpAttribute[];
}

export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** 1: SPAN_KIND_INTERNAL. */
  readonly kind: 1;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: readonly OtlpAttribute[];
  readonly events: readonly OtlpEvent[];
  /** 0 unset (a skipped step), 1 OK, 2 ERROR. */
  readonly status: { readonly code: 0 | 1 | 2; readonly message?: string };
}

export interface OtlpTraceExport {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly OtlpAttribute[] };
    readonly scopeSpans: readonly { readonly scope: { readonly name: string; readonly version: string }; readonly spans: readonly OtlpSpan[] }[];
  }[];
}

/**
 * Our own span attributes and the instrumentation scope live under the product's name, as
 * OpenTelemetry asks of vendor attributes. They are span keys, not VS Code ids.
 */
const OWN = 'skillwright';
export const OTLP_SCOPE = `${OWN}.execution`;

const hex = (text: string, bytes: number): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, bytes * 2);

/** The 16-byte OTLP trace id (32 lowercase hex digits) of a run. */
export function otlpTraceId(traceId: string): string {
  return hex(`trace\u0000${traceId}`, 16);
}

/** The 8-byte span id (16 hex digits) of a run's root span, or of one of its steps. */
export function otlpSpanId(traceId: string, stepId?: string): string {
  return hex(`span\u0000${traceId}\u0000${stepId ?? ''}`, 8);
}

const str = (key: string, value: string): OtlpAttribute => ({ key, value: { stringValue: value } });
const int = (key: string, value: number): OtlpAttribute => ({ key, value: { intValue: String(Math.round(value)) } });

/** Epoch milliseconds plus an offset as nanoseconds in decimal, exact past 2^53. */
function nanos(epochMs: number, offsetMs = 0): string {
  return (BigInt(Math.round(epochMs)) * 1_000_000n + BigInt(Math.round(offsetMs * 1_000_000))).toString();
}

function usage(tokens: TokenCount | undefined): OtlpAttribute[] {
  return tokens ? [int('gen_ai.usage.input_tokens', tokens.input), int('gen_ai.usage.output_tokens', tokens.output)] : [];
}

/** An `exception` event for each failed attempt (a retried step keeps the failures before its success). */
function attemptEvents(startMs: number, attempts: readonly TraceAttempt[]): OtlpEvent[] {
  return attempts
    .filter((attempt) => attempt.error !== undefined)
    .map((attempt) => ({
      timeUnixNano: nanos(startMs, attempt.offsetMs + attempt.durationMs),
      name: 'exception',
      attributes: [str('exception.message', attempt.error ?? ''), ...(attempt.kind ? [str('exception.type', attempt.kind)] : [])],
    }));
}

const lastErrorKind = (attempts: readonly TraceAttempt[]): string | undefined => [...attempts].reverse().find((attempt) => attempt.kind !== undefined)?.kind;

function stepSpan(trace: RunTrace, startMs: number, step: TraceStep, parentSpanId: string): OtlpSpan {
  const operation = step.kind === 'workflow' ? 'invoke_workflow' : 'execute_tool';
  const failed = step.status === 'failed';
  return {
    traceId: otlpTraceId(trace.trace_id),
    spanId: otlpSpanId(trace.trace_id, step.id),
    parentSpanId,
    name: `${operation} ${step.skill}`,
    kind: 1,
    startTimeUnixNano: nanos(startMs, step.offsetMs),
    endTimeUnixNano: nanos(startMs, step.offsetMs + step.durationMs),
    attributes: [
      str('gen_ai.operation.name', operation),
      str('gen_ai.tool.name', step.skill),
      str('gen_ai.tool.call.id', `${trace.trace_id}/${step.id}`),
      ...(step.kind === 'workflow' ? [str('gen_ai.workflow.name', step.skill)] : []),
      ...usage(step.tokens),
      ...(failed ? [str('error.type', lastErrorKind(step.attempts) ?? '_OTHER')] : []),
      str(`${OWN}.step.id`, step.id),
      str(`${OWN}.step.status`, step.status),
      str(`${OWN}.skill.kind`, step.kind),
      ...(step.version !== undefined ? [str(`${OWN}.skill.version`, step.version)] : []),
      int(`${OWN}.step.attempts`, step.attempts.length),
      int(`${OWN}.output_bytes`, step.outputBytes),
      ...(step.reason !== undefined ? [str(`${OWN}.step.skip_reason`, step.reason)] : []),
      ...(step.fallbackSkill !== undefined ? [str(`${OWN}.step.fallback_skill`, step.fallbackSkill)] : []),
    ],
    events: attemptEvents(startMs, step.attempts),
    status: failed ? { code: 2, message: step.error ?? 'the step failed' } : step.status === 'skipped' ? { code: 0 } : { code: 1 },
  };
}

/** The spans of one run: its root, then one span per workflow step. */
export function traceSpans(trace: RunTrace): OtlpSpan[] {
  const startMs = Date.parse(trace.started);
  const workflow = trace.kind === 'workflow';
  const operation = workflow ? 'invoke_workflow' : 'execute_tool';
  // A level-0 run is one step (`main`), which the root span already is.
  const main = workflow ? undefined : trace.steps.find((step) => step.id === 'main');
  const attempts = main?.attempts ?? [];
  const rootId = otlpSpanId(trace.trace_id);
  const root: OtlpSpan = {
    traceId: otlpTraceId(trace.trace_id),
    spanId: rootId,
    name: `${operation} ${trace.skill}`,
    kind: 1,
    startTimeUnixNano: nanos(startMs),
    endTimeUnixNano: nanos(startMs, trace.durationMs),
    attributes: [
      str('gen_ai.operation.name', operation),
      str('gen_ai.tool.name', trace.skill),
      str('gen_ai.tool.call.id', trace.trace_id),
      ...(workflow ? [str('gen_ai.workflow.name', trace.skill)] : []),
      ...(trace.sessionId !== undefined ? [str('gen_ai.conversation.id', trace.sessionId)] : []),
      ...usage(trace.tokens ?? main?.tokens),
      ...(trace.success ? [] : [str('error.type', lastErrorKind(attempts) ?? lastErrorKind(trace.steps.flatMap((step) => step.attempts)) ?? '_OTHER')]),
      str(`${OWN}.skill.kind`, trace.kind),
      ...(trace.version !== undefined ? [str(`${OWN}.skill.version`, trace.version)] : []),
      str(`${OWN}.origin`, trace.origin),
      int(`${OWN}.output_bytes`, trace.outputBytes),
      ...(trace.drift !== undefined ? [str(`${OWN}.drift`, trace.drift)] : []),
      ...(trace.calledSkills.length > 0 ? [{ key: `${OWN}.called_skills`, value: { arrayValue: { values: trace.calledSkills.map((name) => ({ stringValue: name })) } } }] : []),
    ],
    events: attemptEvents(startMs, attempts),
    status: trace.success ? { code: 1 } : { code: 2, message: trace.error ?? 'the run failed' },
  };
  if (!workflow) return [root];
  const ids = new Set(trace.steps.map((step) => step.id));
  // A fallback that is itself a workflow nests its steps under `<step>.fallback`, which is no step of its own.
  const parentOf = (step: TraceStep): string => {
    if (step.parent === undefined) return rootId;
    const parent = ids.has(step.parent) ? step.parent : step.parent.replace(/\.fallback$/, '');
    return ids.has(parent) ? otlpSpanId(trace.trace_id, parent) : rootId;
  };
  return [root, ...trace.steps.map((step) => stepSpan(trace, startMs, step, parentOf(step)))];
}

/** The whole export: one resource (Skillwright) and one scope holding every run's spans. */
export function tracesToOtlp(traces: readonly RunTrace[], options: { readonly version: string }): OtlpTraceExport {
  return {
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'skillwright'), str('service.version', options.version)] },
        scopeSpans: [{ scope: { name: OTLP_SCOPE, version: options.version }, spans: traces.flatMap(traceSpans) }],
      },
    ],
  };
}
