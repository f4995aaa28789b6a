import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AttemptOutcome } from '../../../src/core/execution/executionTypes';
import type { HttpSkillSpec } from '../../../src/core/execution/httpRunner';
import { defaultSleep, runHttpSkill } from '../../../src/core/execution/httpRunner';
import { NodeHttpPort } from '../../../src/core/execution/nodeHttpPort';

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

interface Received {
  readonly method: string;
  readonly url: string;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** A real HTTP server on 127.0.0.1 that answers each request with the next handler (the last one repeats). */
class SkillServer {
  readonly received: Received[] = [];
  private handlers: Handler[] = [];
  private readonly server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      this.received.push({ method: request.method ?? '', url: request.url ?? '', contentType: request.headers['content-type'], body });
      const handler = this.handlers.length > 1 ? this.handlers.shift() : this.handlers[0];
      // A client that stops reading (the size limit) makes writes fail; that is the point.
      response.on('error', () => undefined);
      handler?.(request, response, body);
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reply(...handlers: Handler[]): void {
    this.handlers = handlers;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(value));
  };
}

function text(status: number, body: string, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(status, headers);
    response.end(body);
  };
}

function redirect(status: number, location: string): Handler {
  return (_request, response) => {
    response.writeHead(status, { location });
    response.end();
  };
}

/** The injected clock: records each wait asked for and returns at once. */
function recordingSleep(): { readonly waits: number[]; readonly sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => (waits.push(ms), Promise.resolve()) };
}

function failureOf(outcome: AttemptOutcome): Extract<AttemptOutcome, { ok: false }> {
  if (outcome.ok) assert.fail(`expected a failure, got output ${JSON.stringify(outcome.output)}`);
  return outcome;
}

describe('HTTP skills', () => {
  let server: SkillServer;
  let spec: HttpSkillSpec;
  const port = new NodeHttpPort();
  beforeEach(async () => {
    server = new SkillServer();
    await server.start();
    spec = { name: 'weather', version: '1.2.0', endpoint: `${server.origin}/skills/`, timeoutMs: 5000, maxRetries: 2, retryBackoffSeconds: 1 };
  });
  afterEach(() => server.stop());

  it('posts the manifest id, trace id and arguments to <endpoint>/v1/invoke and returns the output', async () => {
    server.reply(json(200, { success: true, output: { temp: 21 }, error: null }));
    const clock = recordingSleep();
    const { outcome, attempts } = await runHttpSkill(spec, { city: 'Lyon' }, 'trace-1', { port, sleep: clock.sleep });
    assert.deepEqual(outcome, { ok: true, output: { temp: 21 } });
    assert.deepEqual(
      attempts.map((attempt) => [attempt.offsetMs, 'error' in attempt]),
      [[0, false]],
    );
    assert.deepEqual(server.received, [
      {
        method: 'POST',
        url: '/skills/v1/invoke',
        contentType: 'application/json',
        body: JSON.stringify({ manifest_id: 'weather@1.2.0', trace_id: 'trace-1', arguments: { city: 'Lyon' } }),
      },
    ]);
  });

  it('names version 0.0.0 when the skill has none', async () => {
    server.reply(json(200, { success: true, output: null, error: null }));
    const { outcome } = await runHttpSkill({ ...spec, version: undefined }, {}, 't', { port, sleep: recordingSleep().sleep });
    assert.deepEqual(outcome, { ok: true, output: null });
    assert.equal((JSON.parse(server.received[0]?.body ?? '{}') as { manifest_id: string }).manifest_id, 'weather@0.0.0');
  });

  it('returns the endpoint’s own error for a 200 with success false, without retrying', async () => {
    server.reply(json(200, { success: false, output: null, error: 'unknown city "Atlantis"' }));
    const { outcome, attempts } = await runHttpSkill(spec, { city: 'Atlantis' }, 't', { port, sleep: recordingSleep().sleep });
    assert.deepEqual(outcome, { ok: false, kind: 'validation', error: 'unknown city "Atlantis"' });
    assert.equal(attempts.length, 1);
  });

  it('retries a 500 after the backoff and returns the next success', async () => {
    server.reply(text(500, 'database is restarting'), json(200, { success: true, output: 'ok', error: null }));
    const clock = recordingSleep();
    let now = 1000;
    const { outcome, attempts } = await runHttpSkill(spec, {}, 't', { port, sleep: clock.sleep, now: () => (now += 10) });
    assert.deepEqual(outcome, { ok: true, output: 'ok' });
    assert.deepEqual(clock.waits, [1000]);
    // The clock moves 10 ms per reading: each attempt reads it at its start and its end.
    assert.deepEqual(attempts, [
      { offsetMs: 0, durationMs: 10, kind: 'http_status', error: `POST ${server.origin}/skills/v1/invoke replied 500: "database is restarting"` },
      { offsetMs: 20, durationMs: 10 },
    ]);
  });

  it('doubles the wait on each retry, up to 30 s, and gives up after maxRetries', async () => {
    server.reply(text(502, 'bad gateway'));
    const clock = recordingSleep();
    const { outcome, attempts } = await runHttpSkill({ ...spec, maxRetries: 3, retryBackoffSeconds: 10 }, {}, 't', { port, sleep: clock.sleep });
    assert.deepEqual(clock.waits, [10_000, 20_000, 30_000]);
    assert.equal(attempts.length, 4);
    const failure = failureOf(outcome);
    assert.equal(failure.kind, 'http_status');
    assert.match(failure.error, /replied 502: "bad gateway" \(gave up after 4 attempts\)$/);
  });

  it('waits as long as a 429’s Retry-After says', async () => {
    server.reply(json(429, { error: 'slow down' }, { 'retry-after': '1' }), json(200, { success: true, output: 1, error: null }));
    const clock = recordingSleep();
    const { outcome, attempts } = await runHttpSkill({ ...spec, retryBackoffSeconds: 5 }, {}, 't', { port, sleep: clock.sleep });
    assert.deepEqual(outcome, { ok: true, output: 1 });
    assert.deepEqual(clock.waits, [1000]);
    assert.equal(attempts[0]?.kind, 'http_status');
  });

  it('reads a Retry-After date on a 503, capped at 60 s', async () => {
    const later = new Date(Date.now() + 3600_000).toUTCString();
    server.reply(text(503, 'maintenance', { 'retry-after': later }));
    const clock = recordingSleep();
    const { outcome } = await runHttpSkill({ ...spec, maxRetries: 1 }, {}, 't', { port, sleep: clock.sleep });
    assert.deepEqual(clock.waits, [60_000]);
    assert.equal(failureOf(outcome).retryAfterMs, 60_000);
  });

  it('does not retry a 404 and quotes the status and the body', async () => {
    server.reply(text(404, `no such skill here ${'.'.repeat(300)}`));
    const clock = recordingSleep();
    const { outcome, attempts } = await runHttpSkill(spec, {}, 't', { port, sleep: clock.sleep });
    const failure = failureOf(outcome);
    assert.equal(failure.kind, 'not_found');
    assert.equal(failure.error, `POST ${server.origin}/skills/v1/invoke replied 404: ${JSON.stringify(`no such skill here ${'.'.repeat(181)}`)}`);
    assert.equal(attempts.length, 1);
    assert.deepEqual(clock.waits, []);
    assert.equal(server.received.length, 1);
  });

  it('times out an endpoint that never replies', async () => {
    server.reply(() => undefined);
    const { outcome, attempts } = await runHttpSkill({ ...spec, timeoutMs: 300, maxRetries: 1 }, {}, 't', { port, sleep: recordingSleep().sleep });
    const failure = failureOf(outcome);
    assert.equal(failure.kind, 'timeout');
    assert.match(failure.error, /did not reply within 0\.3 s \(gave up after 2 attempts\)$/);
    assert.deepEqual(
      attempts.map((attempt) => attempt.kind),
      ['timeout', 'timeout'],
    );
    assert.equal(server.received.length, 2);
  });

  it('retries a connection the server resets', async () => {
    server.reply((request) => request.socket.destroy(), json(200, { success: true, output: 'second time', error: null }));
    const { outcome, attempts } = await runHttpSkill(spec, {}, 't', { port, sleep: recordingSleep().sleep });
    assert.deepEqual(outcome, { ok: true, output: 'second time' });
    const [reset] = attempts;
    assert.equal(reset?.kind, 'network');
    assert.match(reset.error ?? '', /failed on the network: (?!fetch failed)\S/);
  });

  it('reports a refused connection with its reason', async () => {
    const closed = server.origin;
    await server.stop();
    const { outcome } = await runHttpSkill({ ...spec, endpoint: closed, maxRetries: 0 }, {}, 't', { port, sleep: recordingSleep().sleep });
    const failure = failureOf(outcome);
    assert.equal(failure.kind, 'network');
    assert.match(failure.error, /ECONNREFUSED/);
    server = new SkillServer();
    await server.start();
  });

  it('refuses a redirect to file:', async () => {
    server.reply(redirect(302, 'file:///etc/passwd'));
    const { outcome, attempts } = await runHttpSkill(spec, {}, 't', { port, sleep: recordingSleep().sleep });
    const failure = failureOf(outcome);
    assert.equal(failure.kind, 'permission');
    assert.match(failure.error, /redirected to file:\/\/\/etc\/passwd, which was refused: only http: and https: redirects are followed, not file:$/);
    assert.equal(attempts.length, 1);
  });

  it('follows a relative redirect and posts the body again', async () => {
    server.reply(redirect(307, '/moved/v1/invoke'), json(200, { success: true, output: 'moved', error: null }));
    const { outcome } = await runHttpSkill(spec, { a: 1 }, 't', { port, sleep: recordingSleep().sleep });
    assert.deepEqual(outcome, { ok: true, output: 'moved' });
    assert.deepEqual(
      server.received.map((request) => [request.method, request.url, request.body === server.received[0]?.body]),
      [
        ['POST', '/skills/v1/invoke', true],
        ['POST', '/moved/v1/invoke', true],
      ],
    );
  });

  it('stops after 3 redirects', async () => {
    server.reply(redirect(307, '/skills/v1/invoke'));
    const { outcome } = await runHttpSkill(spec, {}, 't', { port, sleep: recordingSleep().sleep });
    const failure = failureOf(outcome);
    assert.equal(failure.kind, 'http_status');
    assert.match(failure.error, /redirected too often \(more than 3 redirects/);
    assert.equal(server.received.length, 4);
  });

  it('cuts off a 2 MB reply at the 1 MiB limit', async () => {
    server.reply((_request, response) => {
      // Chunked, with no Content-Length, so only reading the stream can find the size out.
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const more = (): void => {
        while (sent < 2 * 1024 * 1024) {
          sent += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', more);
            return;
          }
        }
        response.end();
      };
      more();
    });
    const { outcome, attempts } = await runHttpSkill(spec, {}, 't', { port, sleep: recordingSleep().sleep });
    const failure = failureOf(outcome);
    assert.equal(failure.kind, 'invalid_output');
    assert.match(failure.error, /replied 200 with more than 1 MiB; replies are limited to 1 MiB$/);
    assert.equal(attempts.length, 1);
  });

  it('reports a reply that is not JSON', async () => {
    server.reply(text(200, '<html>Welcome to nginx!</html>'));
    const failure = failureOf((await runHttpSkill(spec, {}, 't', { port, sleep: recordingSleep().sleep })).outcome);
    assert.equal(failure.kind, 'invalid_output');
    assert.match(failure.error, /replied 200 with something that is not JSON: "<html>Welcome to nginx!<\/html>" — the endpoint must reply \{"success", "output", "error"\}$/);
  });

  it('reports JSON that is not an envelope', async () => {
    server.reply(json(200, { temp: 21 }));
    const failure = failureOf((await runHttpSkill(spec, {}, 't', { port, sleep: recordingSleep().sleep })).outcome);
    assert.equal(failure.kind, 'invalid_output');
    assert.match(failure.error, /not a \{"success", "output", "error"\} object: "\{\\"temp\\":21\}"$/);
  });

  it('refuses an endpoint that is not http(s) without calling anything', async () => {
    const { outcome, attempts } = await runHttpSkill({ ...spec, endpoint: 'ftp://example.com/skills' }, {}, 't', { port, sleep: recordingSleep().sleep });
    assert.deepEqual(outcome, { ok: false, kind: 'validation', error: 'endpoint "ftp://example.com/skills" uses ftp:; only http: and https: endpoints can be called' });
    assert.deepEqual(attempts, []);
    const notUrl = failureOf((await runHttpSkill({ ...spec, endpoint: 'skills.example.com' }, {}, 't', { port, sleep: recordingSleep().sleep })).outcome);
    assert.match(notUrl.error, /is not a URL; write it in full/);
  });

  it('stops when the run is aborted mid-request, and during a backoff', async () => {
    const controller = new AbortController();
    server.reply(() => controller.abort());
    const { outcome } = await runHttpSkill(spec, {}, 't', { port, sleep: defaultSleep, signal: controller.signal });
    assert.deepEqual(outcome, { ok: false, kind: 'aborted', error: 'stopped by the user' });

    const second = new AbortController();
    server.reply(text(500, 'down'));
    const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
      second.abort();
      return defaultSleep(ms, signal);
    };
    const run = await runHttpSkill({ ...spec, retryBackoffSeconds: 3600 }, {}, 't', { port, sleep, signal: second.signal });
    assert.deepEqual(run.outcome, { ok: false, kind: 'aborted', error: 'stopped by the user' });
    assert.equal(run.attempts.length, 1);
  });
});
