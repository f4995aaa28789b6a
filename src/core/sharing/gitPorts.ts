/**
 * How a git source is fetched: the system `git` when there is one (every transport, the user's
 * credential helpers and SSH keys, never a prompt), else isomorphic-git, which speaks HTTPS only.
 */
import { spawn } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as IsomorphicGit from './isomorphicGitEntry';
import type { GitPort } from './quarantine';

export const DEFAULT_GIT_TIMEOUT_MS = 120_000;

export class GitError extends Error {}

interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment every git call gets: no terminal or GUI prompt, no program-running transports. */
export function quietGitEnv(base: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  env.GIT_TERMINAL_PROMPT = '0';
  env.GCM_INTERACTIVE = 'never';
  env.GIT_ASKPASS = env.GIT_ASKPASS ?? '';
  env.SSH_ASKPASS = '';
  env.GIT_SSH_COMMAND = env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes';
  env.GIT_ALLOW_PROTOCOL = 'file:http:https:ssh';
  return env;
}

function run(git: string, args: readonly string[], options: { cwd?: string; timeoutMs: number; signal?: AbortSignal }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new GitError('git was cancelled'));
      return;
    }
    const child = spawn(git, args, { cwd: options.cwd, env: quietGitEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    let stdout = '';
    let stderr = '';
    let ended: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64_000) stderr += chunk.toString('utf8');
    });
    const kill = (why: string): void => {
      ended = why;
      // git runs helpers (git-remote-https, ssh) as children: end the whole group.
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => kill(`git ${args[0] ?? ''} took longer than ${Math.round(options.timeoutMs / 1000)} s and was stopped`), options.timeoutMs);
    const onAbort = (): void => kill('git was cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new GitError(`could not run git: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (ended) reject(new GitError(ended));
      else resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

function lastLines(text: string): string {
  return text.trim().split('\n').filter((line) => !line.startsWith('hint:')).slice(-3).join(' ').slice(0, 500);
}

/** A ref that can only be a commit: a git clone's --branch takes branches and tags, not these. */
const COMMIT_LIKE = /^[0-9a-f]{7,64}$/i;

/** The system git. `gitPath` defaults to `git` on the PATH. */
export function systemGitPort(options: { readonly gitPath?: string; readonly timeoutMs?: number } = {}): GitPort & { readonly name: string } {
  const git = options.gitPath ?? 'git';
  const timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  let known: Promise<boolean> | undefined;
  const checked = async (args: readonly string[], cwd: string | undefined, signal?: AbortSignal): Promise<string> => {
    const result = await run(git, args, { cwd, timeoutMs, signal });
    if (result.code !== 0) throw new GitError(lastLines(result.stderr) || `git ${args[0] ?? ''} failed with exit code ${result.code}`);
    return result.stdout;
  };
  // Checked-out files must not run anything: no hooks, no filters the repository asks for.
  const safe = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'submodule.recurse=false', '-c', 'protocol.file.allow=user'];
  return {
    name: 'git',
    available: () => (known ??= run(git, ['--version'], { timeoutMs: 10_000 }).then((r) => r.code === 0, () => false)),
    async clone(url, ref, into, signal) {
      if (url.startsWith('-')) throw new GitError(`"${url}" is not a git URL`);
      if (ref?.startsWith('-')) throw new GitError(`"${ref}" is not a branch, tag or commit name`);
      await nodeFs.promises.mkdir(path.dirname(into), { recursive: true });
      if (ref === undefined || !COMMIT_LIKE.test(ref)) {
        const byName = await run(git, [...safe, 'clone', '--quiet', '--depth', '1', '--no-tags', ...(ref ? ['--branch', ref] : []), '--', url, into], { timeoutMs, signal });
        if (byName.code === 0) return { commit: (await checked(['rev-parse', 'HEAD'], into, signal)).trim() };
        if (ref === undefined || !/not found|could not find/i.test(byName.stderr)) throw new GitError(`could not clone ${url}: ${lastLines(byName.stderr)}`);
        await nodeFs.promises.rm(into, { recursive: true, force: true });
      }
      // A commit (or a name --branch does not take): fetch just it, or everything when the server
      // does not serve single commits.
      await nodeFs.promises.mkdir(into, { recursive: true });
      await checked(['init', '--quiet'], into, signal);
      await checked(['remote', 'add', '--', 'origin', url], into, signal);
      const one = await run(git, [...safe, 'fetch', '--quiet', '--depth', '1', '--', 'origin', ref], { cwd: into, timeoutMs, signal });
      if (one.code === 0) {
        await checked([...safe, 'checkout', '--quiet', '--detach', 'FETCH_HEAD'], into, signal);
      } else if (!COMMIT_LIKE.test(ref)) {
        throw new GitError(`${url} has no branch, tag or commit "${ref}"`);
      } else {
        await checked([...safe, 'fetch', '--quiet', '--tags', '--', 'origin'], into, signal).catch((error: Error) => {
          throw new GitError(`could not fetch ${url}: ${error.message}`);
        });
        await checked([...safe, 'checkout', '--quiet', '--detach', ref], into, signal).catch(() => {
          throw new GitError(`${url} has no branch, tag or commit "${ref}"`);
        });
      }
      return { commit: (await checked(['rev-parse', 'HEAD'], into, signal)).trim() };
    },
  };
}

/**
 * The git client module: beside the bundle as isomorphicGit.js, or beside this file when run from
 * the compiled sources. `createRequire` keeps esbuild from pulling it into the bundle that imports this.
 */
function loadIsomorphicGit(): typeof IsomorphicGit {
  const load = createRequire(__filename);
  const candidates = [path.join(__dirname, 'isomorphicGit.js'), path.join(__dirname, 'isomorphicGitEntry.js')];
  for (const candidate of candidates) {
    if (nodeFs.existsSync(candidate)) return load(candidate) as typeof IsomorphicGit;
  }
  throw new GitError(`the git client is missing (looked for ${candidates.join(' and ')}); reinstall Skillwright, or install git`);
}

/** isomorphic-git over Node's fs and http: HTTPS (and plain HTTP) only. */
export function isomorphicGitPort(): GitPort & { readonly name: string } {
  return {
    name: 'isomorphic-git',
    available: () => Promise.resolve(true),
    async clone(url, ref, into, signal) {
      if (!/^https?:\/\//i.test(url)) {
        throw new GitError(`${url} needs the git program: without it Skillwright fetches https:// URLs only (install git, or use the repository's https URL)`);
      }
      const { git, http } = loadIsomorphicGit();
      if (signal?.aborted) throw new GitError('git was cancelled');
      const common = { fs: nodeFs, http, dir: into, url, onAuth: () => ({ cancel: true }) };
      await nodeFs.promises.mkdir(into, { recursive: true });
      try {
        if (ref === undefined || !COMMIT_LIKE.test(ref)) {
          await git.clone({ ...common, ...(ref ? { ref } : {}), singleBranch: true, depth: 1, noTags: true });
        } else {
          await git.clone({ ...common, noCheckout: true });
          const oid = await git.expandOid({ fs: nodeFs, dir: into, oid: ref });
          await git.checkout({ fs: nodeFs, dir: into, ref: oid, force: true });
        }
      } catch (error) {
        throw new GitError(`could not clone ${url}${ref ? ` at ${ref}` : ''}: ${(error as Error).message}`);
      }
      if (signal?.aborted) throw new GitError('git was cancelled');
      return { commit: await git.resolveRef({ fs: nodeFs, dir: into, ref: 'HEAD' }) };
    },
  };
}

/** The system git when it runs, else isomorphic-git (checked once, on first use). */
export function defaultGitPort(options: { readonly gitPath?: string; readonly timeoutMs?: number } = {}): GitPort & { readonly name: string } {
  const system = systemGitPort(options);
  const fallback = isomorphicGitPort();
  return {
    name: 'auto',
    available: () => Promise.resolve(true),
    async clone(url, ref, into, signal) {
      return ((await system.available()) ? system : fallback).clone(url, ref, into, signal);
    },
  };
}
