import type { AttemptOutcome, ErrorKind, HttpOutcome, HttpPort, Sleep, TraceAttempt } from './executionTypes';

/**
 * Level 0 of an HTTP skill: POST the arguments to `<endpoint>/v1/invoke` and read back the
 * `{success, output, error}` envelope. Only failures a second try can fix are retried here
 * (timeouts, 429, 5xx, dropped connections), with exponential backoff or the server's Retry-After.
 */

export interface HttpSkillSpec {
  readonly name: string;
  readonly version?: string;
  readonly endpoint: string;
  readonly timeoutMs: number;
  /** Extra attempts after the first, for retryable failures only. */
  readonly maxRetries: number;
  /** The first wait; each further wait doubles. */
  readonly retryBackoffSeconds: number;
}

export interface HttpRunOptions {
  readonly port: HttpPort;
  readonly sleep: Sleep;
  readonly signal?: AbortSignal;
  readonly now?: () => number;
}

const MAX_REPLY_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;
const MAX_BACKOFF_MS = 30_000;
const MAX_RETRY_AFTER_MS = 60_000;
const SNIPPET_CHARS = 200;

/**
 * Waits ms milliseconds with a real timer. On abort it resolves early rather than rejecting: the
 * caller checks `signal.aborted` afterwards, so a Stop during a backoff never surfaces as an error.
 */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });

type Failure = Extract<AttemptOutcome, { ok: false }>;

interface Classified {
  readonly outcome: AttemptOutcome;
  readonly retryable: boolean;
}

function fail(kind: ErrorKind, error: string, retryable = false, retryAfterMs?: number): Classified {
  const outcome: Failure = { ok: false, kind, error, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  return { outcome, retryable };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

function snippet(text: string): string {
  return JSON.stringify(text.trim().slice(0, SNIPPET_CHARS));
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date; undefined when unreadable. */
function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  return Number.isFinite(ms) ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms)) : undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function envelopeOutcome(body: string, target: string, status: number): Classified {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return fail('invalid_output', `${target} replied ${status} with something that is not JSON: ${snippet(body)} — the endpoint must reply {"success", "output", "error"}`);
  }
  const envelope = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  if (envelope === undefined || typeof envelope['success'] !== 'boolean') {
    return fail('invalid_output', `${target} replied with JSON that is not a {"success", "output", "error"} object: ${snippet(body)}`);
  }
  if (envelope['success']) return { outcome: { ok: true, output: envelope['output'] ?? null }, retryable: false };
  const error = envelope['error'];
  const text = typeof error === 'string' && error.trim() !== '' ? error : error === undefined || error === null ? `${target} reported failure without an error message` : JSON.stringify(error);
  return fail('validation', text);
}

/** Status codes a person can act on get their own kind, so a workflow does not retry them blindly. */
function statusKind(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'permission';
  if (status === 404 || status === 410) return 'not_found';
  if (status >= 400 && status < 500) return 'validation';
  return 'http_status';
}

function classify(reply: HttpOutcome, target: string, timeoutMs: number, now: number): Classified {
  switch (reply.kind) {
    case 'aborted':
      return fail('aborted', 'stopped by the user');
    case 'timeout':
      return fail('timeout', `${target} did not reply within ${seconds(timeoutMs)}`, true);
    case 'network':
      return fail('network', `${target} failed on the network: ${reply.message}`, true);
    case 'too_large':
      return fail('invalid_output', `${target} replied ${reply.status} with more than ${reply.limit / 1024 / 1024} MiB; replies are limited to 1 MiB`);
    case 'bad_redirect':
      return isHttpUrl(reply.location)
        ? fail('http_status', `${target} redirected too often (${reply.reason}, last to ${reply.location}); call the final address directly`)
        : fail('permission', `${target} redirected to ${reply.location}, which was refused: ${reply.reason}`);
    case 'reply': {
      if (reply.status >= 200 && reply.status < 300) return envelopeOutcome(reply.body, target, reply.status);
      const message = `${target} replied ${reply.status}: ${snippet(reply.body)}`;
      if (reply.status === 429 || reply.status >= 500) {
        const wait = reply.status === 429 || reply.status === 503 ? retryAfterMs(reply.retryAfter, now) : undefined;
        return fail('http_status', message, true, wait);
      }
      return fail(statusKind(reply.status), message);
    }
  }
}

function invokeUrl(endpoint: string): { ok: true; url: string } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { ok: false, error: `endpoint "${endpoint}" is not a URL; write it in full, e.g. https://skills.example.com/api` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, error: `endpoint "${endpoint}" uses ${url.protocol}; only http: and https: endpoints can be called` };
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/invoke`;
  return { ok: true, url: url.href };
}

/** Runs an HTTP skill, retrying what is worth retrying; every attempt is returned for the trace. */
export async function runHttpSkill(
  spec: HttpSkillSpec,
  args: unknown,
  traceId: string,
  options: HttpRunOptions,
): Promise<{ readonly outcome: AttemptOutcome; readonly attempts: readonly TraceAttempt[] }> {
  const now = options.now ?? Date.now;
  const target = invokeUrl(spec.endpoint);
  if (!target.ok) return { outcome: { ok: false, kind: 'validation', error: target.error }, attempts: [] };
  let body: string;
  try {
    body = JSON.stringify({ manifest_id: `${spec.name}@${spec.version ?? '0.0.0'}`, trace_id: traceId, arguments: args === undefined ? {} : args });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { outcome: { ok: false, kind: 'validation', error: `the arguments cannot be sent as JSON: ${reason}` }, attempts: [] };
  }
  const label = `POST ${target.url}`;
  const attempts: TraceAttempt[] = [];
  let first: number | undefined;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) return { outcome: { ok: false, kind: 'aborted', error: 'stopped by the user' }, attempts };
    const started = now();
    first ??= started;
    const reply = await options.port.post({
      url: target.url,
      body,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      timeoutMs: spec.timeoutMs,
      maxBytes: MAX_REPLY_BYTES,
      maxRedirects: MAX_REDIRECTS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const ended = now();
    const { outcome, retryable } = classify(reply, label, spec.timeoutMs, ended);
    attempts.push({ offsetMs: started - first, durationMs: ended - started, ...(outcome.ok ? {} : { error: outcome.error, kind: outcome.kind }) });
    if (outcome.ok || !retryable || attempt >= spec.maxRetries) {
      const final = !outcome.ok && attempts.length > 1 ? { ...outcome, error: `${outcome.error} (gave up after ${attempts.length} attempts)` } : outcome;
      return { outcome: final, attempts };
    }
    const backoff = Math.min(MAX_BACKOFF_MS, spec.retryBackoffSeconds * 1000 * 2 ** attempt);
    await options.sleep(outcome.retryAfterMs ?? backoff, options.signal);
  }
}
