import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ModelErrorKind } from '../core/llm/chatTypes';
import { ModelError } from '../core/llm/chatTypes';
import { describeError } from '../core/base/logger';
import { clipEnd } from '../core/text/clip';
import { isContextLengthMessage, windowFromContextError } from '../core/llm/contextWindows';

/** What a failed call was talking to, so messages can name it. */
export interface ModelErrorContext {
  readonly baseUrl: string;
  readonly model: string;
  /** Never shown: removed from every message, in case a server echoes it back. */
  readonly apiKey?: string;
  /** The request timeout, for the timeout message. */
  readonly timeoutMs?: number;
  /** The failure came after part of the reply had been streamed. */
  readonly midStream?: boolean;
}

const CONFIGURE = 'Skillwright: Configure Model';
const MAX_SERVER_MESSAGE = 300;

/**
 * Turns whatever the `openai` client (or fetch underneath it) threw into a ModelError whose message
 * says what happened and whose advice says what to do. Never throws; never includes the API key.
 */
export function toModelError(error: unknown, context: ModelErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  const url = displayUrl(context.baseUrl);
  const make = (kind: ModelErrorKind, message: string, advice: string, status?: number): ModelError =>
    new ModelError(kind, redactSecrets(message, context.apiKey), redactSecrets(advice, context.apiKey), status);

  if (error instanceof APIUserAbortError || isAbortError(error)) {
    return abortedError();
  }
  if (error instanceof APIConnectionTimeoutError) {
    return timeoutError(context);
  }
  if (error instanceof APIConnectionError) {
    return connectionError(error, context, make);
  }
  if (error instanceof APIError) {
    return httpError(error, context, make);
  }
  if (isNetworkFailure(error)) {
    return connectionError(error, context, make);
  }
  if (error instanceof SyntaxError) {
    return make(
      'server',
      `The server at ${url} sent a reply that is not valid JSON (${error.message}).`,
      'Check that the base URL points at an OpenAI-compatible API (it usually ends in /v1).',
    );
  }
  return make(
    'unknown',
    `The request to ${url} failed: ${truncate(describeError(error))}`,
    'Try again; if it repeats, open Skillwright: Show Logs and report what it says.',
  );
}

/** The ModelError for a request the caller cancelled (Stop). */
export function abortedError(): ModelError {
  return new ModelError('aborted', 'The request was stopped.', 'The reply so far was kept; send a message to go on.');
}

/** No answer (or no further streamed data) within the timeout. */
export function timeoutError(context: ModelErrorContext): ModelError {
  const url = displayUrl(context.baseUrl);
  const limit = context.timeoutMs === undefined ? '' : ` within ${formatSeconds(context.timeoutMs)}`;
  const message = context.midStream
    ? `The reply from ${url} stalled: no data arrived${limit}.`
    : `No answer from ${url}${limit}.`;
  return new ModelError(
    'timeout',
    message,
    'Try again; the provider may be overloaded, or a local server may still be loading the model.',
  );
}

/** A base URL that is not an http(s) URL, caught before any request is made. */
export function checkBaseUrl(baseUrl: string): ModelError | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return new ModelError(
      'connection',
      `The base URL "${baseUrl}" is not a URL.`,
      `Run ${CONFIGURE} and enter a URL such as http://localhost:11434/v1.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return new ModelError(
      'connection',
      `The base URL must start with http:// or https://, not ${url.protocol}//.`,
      `Run ${CONFIGURE} and enter a URL such as https://api.openai.com/v1.`,
    );
  }
  return undefined;
}

/** Origin and path of a base URL, without credentials or query, for messages and logs. */
export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl.trim());
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.trim();
  }
}

/** Removes the key itself and anything that looks like a bearer token or an OpenAI-style key. */
export function redactSecrets(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]')
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, 'sk-[redacted]');
}

type Make = (kind: ModelErrorKind, message: string, advice: string, status?: number) => ModelError;

function httpError(error: APIError, context: ModelErrorContext, make: Make): ModelError {
  const url = displayUrl(context.baseUrl);
  const status = error.status;
  const said = serverMessage(error);
  const detail = said ? `: ${said}` : '.';
  const code = typeof error.code === 'string' ? error.code : '';

  // Servers word it differently (and a few answer 500 or mid-stream): what they say decides, not the status.
  if (isContextLengthMessage(said, code) && (status === undefined || status === 400 || status === 413 || status === 422 || status >= 500)) {
    const stated = windowFromContextError(said);
    return make(
      'context_length',
      `The conversation is longer than ${context.model ? `"${context.model}"` : 'the model'} can take${stated ? ` (its window is ${stated.toLocaleString('en-US')} tokens)` : ''}${detail}`,
      'Skillwright compacts the conversation and retries once; if this persists, lower skillwright.context.window, run Compact Conversation, or pick a model with a larger context.',
      status,
    );
  }
  if (status === undefined) {
    // An `error` object inside an otherwise healthy stream (some gateways report failures this way).
    return make('server', `The server at ${url} reported an error mid-reply${detail}`, 'Try again; if it repeats, try another model.');
  }
  if (status === 401 || status === 403) {
    if (!context.apiKey) {
      return make('auth', `The server at ${url} wants an API key and none is set (${status})${detail}`, `Set the API key: run ${CONFIGURE} (or set OPENAI_API_KEY).`, status);
    }
    const what = status === 401 ? 'rejected the API key' : `refused access to ${context.model}`;
    return make('auth', `The server at ${url} ${what} (${status})${detail}`, `Check the API key: run ${CONFIGURE}.`, status);
  }
  if (status === 404) {
    if (code === 'model_not_found' || mentionsModel(said, context.model)) {
      return make('not_found', `The model "${context.model}" was not found at ${url}${detail}`, `Check the model name: run ${CONFIGURE} to pick one the server lists.`, status);
    }
    return make('not_found', `Nothing answered at ${url} for model "${context.model}" (404)${detail}`, 'Is the model name right, and does the base URL end in /v1?', status);
  }
  if (status === 429) {
    if (code === 'insufficient_quota') {
      return make('rate_limit', `The account at ${url} is out of quota (429)${detail}`, 'Check the plan and billing for this API key.', status);
    }
    return make('rate_limit', `Rate limited by ${url} (429), even after retrying${detail}`, 'Wait a minute and try again, or check the rate limits of your plan.', status);
  }
  if (status >= 500) {
    return make('server', `The server at ${url} failed (${status})${detail}`, "Try again shortly; if it persists, check the provider's status page or the local server's log.", status);
  }
  if (status === 400 || status === 413 || status === 422) {
    return make('bad_request', `The server at ${url} rejected the request (${status})${detail}`, badRequestAdvice(said), status);
  }
  return make('unknown', `The server at ${url} answered ${status}${detail}`, 'Check the base URL and the model name, then try again.', status);
}

function badRequestAdvice(said: string): string {
  if (/does not support tools|tools? (are|is) not supported|tool calling/i.test(said)) {
    return 'This model cannot call tools: pick one that supports tool calling.';
  }
  return 'Check that this model supports the request (tools, settings); the server said why above.';
}

function connectionError(error: unknown, context: ModelErrorContext, make: Make): ModelError {
  const url = displayUrl(context.baseUrl);
  const code = errorCode(error);
  if (context.midStream) {
    return make(
      'connection',
      `The connection to ${url} dropped in the middle of the reply${code ? ` (${code})` : ''}.`,
      'The partial reply was kept; try again, and check the server or any proxy in between if it keeps happening.',
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return make('connection', `The host of ${url} could not be found (${code}).`, `Check the host name in the base URL (run ${CONFIGURE}) and your network connection.`);
  }
  if (code !== undefined && /CERT|SSL|TLS|SIGNATURE/i.test(code)) {
    return make('connection', `The TLS certificate of ${url} was not accepted (${code}).`, 'Check the certificate, or your proxy settings if a corporate proxy sits in between.');
  }
  const reason = code ? ` (${code})` : '';
  return make('connection', `Could not connect to ${url}${reason}.`, `Is the server running at ${url}? If not, start it or fix the base URL with ${CONFIGURE}.`);
}

/** Node's fetch reports a dropped body as TypeError('terminated') and a failed connect as 'fetch failed'. */
function isNetworkFailure(error: unknown): boolean {
  if (error instanceof TypeError && /^(terminated|fetch failed)$/i.test(error.message)) return true;
  const code = errorCode(error);
  return code !== undefined && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code);
}

/** The first `code` found on the error, its causes, or (for several addresses) its inner errors. */
function errorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 6 || typeof error !== 'object' || error === null) return undefined;
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string' && record.code !== '' && !(error instanceof APIError)) return record.code;
  const fromCause = errorCode(record.cause, depth + 1);
  if (fromCause) return fromCause;
  if (Array.isArray(record.errors)) {
    for (const inner of record.errors) {
      const found = errorCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** The server's own words: the `error.message` of an OpenAI-style body, else the client's message. */
function serverMessage(error: APIError): string {
  const body: unknown = error.error;
  let text = '';
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') {
    text = (body as { message: string }).message;
  } else if (typeof body === 'string') {
    text = body;
  } else if (body !== undefined && body !== null) {
    text = JSON.stringify(body);
  } else {
    // The client's fallback is "<status> status code (no body)"; that adds nothing to our message.
    text = /status code \(no body\)$/.test(error.message) ? '' : error.message.replace(/^\d{3}\s+/, '');
  }
  return truncate(text.replace(/\s+/g, ' ').trim());
}

function mentionsModel(said: string, model: string): boolean {
  return model !== '' && said.toLowerCase().includes(model.toLowerCase()) && /model/i.test(said);
}

const truncate = (text: string): string => clipEnd(text, MAX_SERVER_MESSAGE);

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
