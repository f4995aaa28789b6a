import type { HttpOutcome, HttpPort, HttpRequest } from './executionTypes';

/**
 * Calls HTTP skills with Node's own fetch. Redirects are followed here, not by fetch, so that each
 * target is checked (only http: and https:) and counted; the reply is read as a stream so a huge
 * body is cut off at the limit instead of filling memory.
 */

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that belong to the first origin only (fetch drops the same ones on its own redirects). */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

function isHttp(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/** Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, other side closed…) is in the cause. */
function networkMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  let code: string | undefined;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const errno = (current as NodeJS.ErrnoException).code;
    if (typeof errno === 'string') code = errno;
    if (current.message) message = current.message;
    current = current.cause;
  }
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}

type BodyRead = { readonly kind: 'body'; readonly text: string } | { readonly kind: 'too_large' };

async function readCapped(response: Response, maxBytes: number): Promise<BodyRead> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'too_large' };
  }
  if (!response.body) return { kind: 'body', text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { kind: 'too_large' };
    }
    chunks.push(value);
  }
  return { kind: 'body', text: Buffer.concat(chunks).toString('utf8') };
}

export class NodeHttpPort implements HttpPort {
  async post(request: HttpRequest): Promise<HttpOutcome> {
    if (request.signal?.aborted) return { kind: 'aborted' };
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { kind: 'network', message: `"${request.url}" is not a URL` };
    }
    if (!isHttp(url)) return { kind: 'network', message: `only http: and https: URLs can be called, not ${url.protocol}` };

    const timeout = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    let method = 'POST';
    let body: string | undefined = request.body;
    let headers: Record<string, string> = { ...request.headers };
    try {
      for (let redirects = 0; ; redirects++) {
        const response = await fetch(url, { method, body, headers, redirect: 'manual', signal });
        const location = response.headers.get('location');
        if (REDIRECT_STATUSES.has(response.status) && location !== null) {
          await response.body?.cancel().catch(() => undefined);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            return { kind: 'bad_redirect', location, reason: 'the Location header is not a URL' };
          }
          if (!isHttp(next)) return { kind: 'bad_redirect', location: next.href, reason: `only http: and https: redirects are followed, not ${next.protocol}` };
          if (redirects >= request.maxRedirects) {
            return { kind: 'bad_redirect', location: next.href, reason: `more than ${request.maxRedirects} redirects` };
          }
          // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-/i.test(name)));
          }
          if (next.origin !== url.origin) {
            headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !ORIGIN_BOUND_HEADERS.includes(name.toLowerCase())));
          }
          url = next;
          continue;
        }
        const read = await readCapped(response, request.maxBytes);
        if (read.kind === 'too_large') return { kind: 'too_large', status: response.status, limit: request.maxBytes };
        const retryAfter = response.headers.get('retry-after');
        return { kind: 'reply', status: response.status, body: read.text, finalUrl: url.href, ...(retryAfter !== null ? { retryAfter } : {}) };
      }
    } catch (error) {
      if (timeout.aborted) return { kind: 'timeout' };
      if (request.signal?.aborted) return { kind: 'aborted' };
      return { kind: 'network', message: networkMessage(error) };
    }
  }
}
