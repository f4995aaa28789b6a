import type { RunTrace } from '../core/execution/executionTypes';
import { nodeTraceAppend } from '../core/execution/executorSetup';
import { tracesToOtlp } from '../core/execution/traceExport';
import type { TraceFilter } from '../core/execution/traceStore';
import { TraceStore } from '../core/execution/traceStore';
import { clipLine } from '../core/text/clip';
import type { ParsedArgs } from './cliArgs';
import { intFlag, UsageError } from './cliArgs';
import type { CliEnv } from './cliCommands';
import { cliDataDir, stderrLogger, stringFlag } from './skillRunCommands';

const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * `--since`: a span back from now (`30m`, `12h`, `7d`, `2w`) or an ISO date or time
 * (`2025-01-31`, `2025-01-31T08:00Z`; a date alone is midnight UTC), as epoch milliseconds.
 */
export function parseSince(text: string, now: number): number {
  const trimmed = text.trim();
  const span = /^(\d+)\s*([mhdw])$/i.exec(trimmed);
  if (span) return now - Number(span[1]) * (UNITS[(span[2] ?? '').toLowerCase()] ?? 0);
  if (ISO_DATE.test(trimmed)) {
    const time = Date.parse(trimmed.replace(' ', 'T'));
    if (!Number.isNaN(time)) return time;
  }
  throw new UsageError(`--since "${text}" is neither a span nor a date; write 30m, 12h, 7d or 2w (back from now), or an ISO date such as 2025-01-31 or 2025-01-31T08:00Z`);
}

function filterOf(args: ParsedArgs, limitDefault: number): TraceFilter {
  const since = stringFlag(args, '--since');
  const skill = stringFlag(args, '--skill');
  const session = stringFlag(args, '--session');
  return {
    limit: intFlag(args, '--limit', limitDefault, 1, 1_000_000),
    ...(since !== undefined ? { since: parseSince(since, Date.now()) } : {}),
    ...(skill !== undefined ? { skill } : {}),
    ...(session !== undefined ? { sessionId: session } : {}),
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

function summary(trace: RunTrace): Record<string, unknown> {
  return {
    trace_id: trace.trace_id,
    skill: trace.skill,
    ...(trace.version !== undefined ? { version: trace.version } : {}),
    kind: trace.kind,
    started: trace.started,
    durationMs: trace.durationMs,
    success: trace.success,
    ...(trace.error !== undefined ? { error: trace.error } : {}),
    origin: trace.origin,
    ...(trace.sessionId !== undefined ? { sessionId: trace.sessionId } : {}),
    steps: trace.steps.length,
    ...(trace.drift !== undefined ? { drift: trace.drift } : {}),
  };
}

/** `skillwright traces list` and `skillwright traces export`: the runs recorded in the data dir. */
export async function tracesCommand(args: ParsedArgs, env: CliEnv, version: string): Promise<number> {
  const [action, ...extra] = args.positionals;
  if (action !== 'list' && action !== 'export') {
    throw new UsageError(`traces needs "list" or "export"${action !== undefined ? `, not "${action}"` : ''}, e.g. skillwright traces export --since 7d --format otlp-json > traces.json`);
  }
  if (extra.length > 0) throw new UsageError(`traces ${action} takes no more words, got "${extra.join(' ')}"; filter with --skill NAME and --since 7d`);
  const format = stringFlag(args, '--format');
  if (action === 'list' && format !== undefined) throw new UsageError('--format is for traces export; traces list prints lines, or JSON with --json');
  if (format !== undefined && format !== 'otlp-json' && format !== 'jsonl') throw new UsageError(`--format "${format}" is not known; use otlp-json (OpenTelemetry, the default) or jsonl (the trace records as saved)`);
  const store = new TraceStore({ fs: env.fs, append: nodeTraceAppend, storageDir: cliDataDir(args, env), logger: stderrLogger(env) });
  const traces = await store.list(filterOf(args, action === 'list' ? 50 : 10_000));

  if (action === 'export') {
    const oldestFirst = [...traces].reverse();
    if (format === 'jsonl') env.stdout(oldestFirst.map((trace) => `${JSON.stringify(trace)}\n`).join(''));
    else env.stdout(`${JSON.stringify(tracesToOtlp(oldestFirst, { version }))}\n`);
    env.stderr(`skillwright traces: exported ${traces.length} run(s)\n`);
    return 0;
  }
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify({ traces: traces.map(summary) }, null, 2)}\n`);
    return 0;
  }
  if (traces.length === 0) {
    env.stdout(`no runs recorded${stringFlag(args, '--since') !== undefined ? ' in that time' : ''}${stringFlag(args, '--skill') !== undefined ? ' of that skill' : ''} (in ${cliDataDir(args, env)})\n`);
    return 0;
  }
  const width = Math.min(32, Math.max(...traces.map((trace) => trace.skill.length)));
  for (const trace of traces) {
    const time = trace.started.replace(/\.\d+Z$/, 'Z');
    const status = trace.success ? 'ok    ' : 'FAILED';
    const error = trace.success ? '' : `  ${clipLine(trace.error ?? '', 100)}`;
    env.stdout(`${time}  ${trace.skill.padEnd(width)}  ${status}  ${seconds(trace.durationMs).padStart(8)}  ${trace.trace_id}${error}\n`);
  }
  return 0;
}
