/**
 * A real git server for tests: bare repositories under a folder, served on 127.0.0.1 by git's own
 * smart-HTTP backend (`git http-backend`, run as a CGI program per request from a node:http server).
 * Also helpers that build repositories with the real git.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Requests served, by path and query (for tests that check what was fetched). */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Runs git with a fixed identity and no user or system config, so tests do not depend on the machine. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.invalid',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.invalid',
      GIT_TERMINAL_PROMPT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Creates `<root>/<name>.git` (bare) from files, commits them on `main`, and returns the bare path
 * and the commit. `update` adds further commits the same way.
 */
export function createBareRepo(root: string, name: string, files: Record<string, string>): { bare: string; work: string; commit: string } {
  const bare = path.join(root, `${name}.git`);
  const work = path.join(root, `${name}-work`);
  fs.mkdirSync(work, { recursive: true });
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(work, 'init', '--quiet', '--initial-branch=main');
  git(work, 'remote', 'add', 'origin', bare);
  return { bare, work, commit: commitFiles(work, files, 'initial') };
}

/** Writes files (null deletes), commits and pushes to origin main; returns the commit. */
export function commitFiles(work: string, files: Record<string, string | null>, message: string): string {
  for (const [relative, text] of Object.entries(files)) {
    const file = path.join(work, relative);
    if (text === null) fs.rmSync(file, { force: true });
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
  git(work, 'add', '-A');
  git(work, 'commit', '--quiet', '--allow-empty', '-m', message);
  git(work, 'push', '--quiet', 'origin', 'HEAD:main');
  return git(work, 'rev-parse', 'HEAD').trim();
}

function backendPath(): string {
  const execPath = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim();
  return path.join(execPath, 'git-http-backend');
}

/** Serves every bare repository under `projectRoot` at `<url>/<name>.git`. */
export async function startGitHttpServer(projectRoot: string): Promise<GitHttpServer> {
  const backend = backendPath();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(`${url.pathname}${url.search}`);
    const child = spawn(backend, [], {
      env: {
        PATH: process.env.PATH ?? '',
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        REMOTE_USER: '',
        SERVER_PROTOCOL: 'HTTP/1.1',
        GATEWAY_INTERFACE: 'CGI/1.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf('\r\n\r\n');
      const lf = head.indexOf('\n\n');
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
      if (end < 0) return;
      const gap = end === crlf ? 4 : 2;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const key = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
        else res.setHeader(key, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + gap));
    });
    child.stderr.resume();
    child.on('close', () => res.end());
    child.on('error', () => {
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
