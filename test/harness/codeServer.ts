import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../repoRoot';
import { until } from './until';

export interface CodeServerOptions {
  /** Folder or .code-workspace to open; none opens an empty window. */
  readonly workspace?: string;
  /** Written to the user's settings.json before start. */
  readonly userSettings?: Record<string, unknown>;
  /** Leave workspace trust on (Restricted Mode tests). */
  readonly trust?: boolean;
  /** .vsix files to install before start. */
  readonly installExtensions?: readonly string[];
  /** Extra environment for code-server and its extension host. */
  readonly env?: Record<string, string>;
  readonly startTimeoutMs?: number;
  /** Extra command-line arguments for code-server. */
  readonly extraArgs?: readonly string[];
}

export interface CodeServer {
  /** The server's process id, also the process group of everything it starts. */
  readonly pid: number | undefined;
  readonly port: number;
  readonly origin: string;
  readonly userDataDir: string;
  /** The HOME of code-server and its extension hosts (user skills, USER.md): empty at start. */
  readonly home: string;
  /** Everything code-server printed so far (for failure messages). */
  output(): string;
  /** URL of the workbench, optionally with a folder and a test payload. */
  workbenchUrl(query?: { folder?: string; workspace?: string; payload?: [string, string][] }): string;
  /** Absolute path as a vscode-remote URI on this server (for extensionDevelopmentPath etc.). */
  remoteUri(absPath: string): string;
  /** Process ids of the extension hosts this server runs (one per window that connected). */
  extensionHostPids(): number[];
  /**
   * Ends every extension host of this server and waits until they are gone. A closed window's host
   * stays alive for hours (waiting for a reconnection); a harness that opens the next window on the
   * same server ends it first, so nothing of the last window writes into the next one's state.
   */
  stopExtensionHosts(): Promise<void>;
  stop(): Promise<void>;
}

/** Settings every test window starts with: no welcome page, tips, experiments or update checks. */
export const BASE_USER_SETTINGS: Readonly<Record<string, unknown>> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
};

/** Writes the user's settings.json (the base settings plus `settings`); read by each window as it loads. */
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown> = {}): void {
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...BASE_USER_SETTINGS, ...settings }, null, 2));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes of one process group whose command line contains `marker` (ps is on every Linux and macOS). */
function groupProcesses(pgid: number, marker: string): number[] {
  const listing = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' });
  const pids: number[] = [];
  for (const line of listing.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (match && Number(match[2]) === pgid && (match[3] ?? '').includes(marker)) pids.push(Number(match[1]));
  }
  return pids;
}

async function endProcesses(pids: readonly number[], what: string): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // already gone
      }
    }
  };
  signal('SIGTERM');
  const gone = () => pids.every((pid) => !isAlive(pid));
  try {
    await until(`${what} to exit`, gone, 5_000);
  } catch {
    signal('SIGKILL');
    await until(`${what} to exit after SIGKILL`, gone, 5_000);
  }
}

let installedEntry: string | undefined;

/** Installs code-server once into the user's cache (idempotent) and returns its entry script. */
export function ensureCodeServer(): string {
  // The install script only checks the cache once it is filled; once per process is enough.
  if (installedEntry && fs.existsSync(installedEntry)) return installedEntry;
  const script = path.join(repoRoot(), 'scripts', 'installCodeServer.sh');
  let stdout: string;
  try {
    stdout = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 20 * 60_000 });
  } catch (error) {
    throw new Error(`Installing code-server failed (scripts/installCodeServer.sh): ${(error as Error).message}`, { cause: error });
  }
  const entry = stdout.trim().split('\n').pop() ?? '';
  if (!entry || !fs.existsSync(entry)) {
    throw new Error(`scripts/installCodeServer.sh did not print a code-server entry (got "${entry}")`);
  }
  installedEntry = entry;
  return entry;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function get(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
    request.setTimeout(2_000, () => {
      request.destroy();
      resolve(0);
    });
  });
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const entry = ensureCodeServer();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-cs-'));
  const userDataDir = path.join(base, 'user-data');
  const extensionsDir = path.join(base, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  writeUserSettings(userDataDir, options.userSettings);

  const common = ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir];
  for (const vsix of options.installExtensions ?? []) {
    execFileSync(process.execPath, [entry, ...common, '--install-extension', vsix], {
      stdio: 'pipe',
      timeout: 120_000,
      env: { ...process.env, XDG_CONFIG_HOME: path.join(base, 'xdg', 'config'), XDG_DATA_HOME: path.join(base, 'xdg', 'data') },
    });
  }

  const port = await freePort();
  const args = [
    entry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    ...common,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    ...(options.trust ? [] : ['--disable-workspace-trust']),
    ...(options.extraArgs ?? []),
    ...(options.workspace ? [options.workspace] : []),
  ];
  let output = '';
  // code-server writes config, logs and a device id under the XDG folders of $HOME; keep a test's
  // run to its own temp folder (the entry was resolved above, before this changes the cache root).
  const xdg = {
    XDG_CONFIG_HOME: path.join(base, 'xdg', 'config'),
    XDG_DATA_HOME: path.join(base, 'xdg', 'data'),
    XDG_CACHE_HOME: path.join(base, 'xdg', 'cache'),
    // User skill folders and USER.md live under the home folder: tests get an empty one of their own.
    HOME: path.join(base, 'home'),
  };
  fs.mkdirSync(xdg.HOME, { recursive: true });
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...xdg, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      if (!(await waitForExit(child, 5_000))) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        await waitForExit(child, 5_000);
      }
    }
    fs.rmSync(base, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`code-server exited before serving (code ${child.exitCode}, signal ${child.signalCode}):\n${output}`);
    }
    if ((await get(`${origin}/healthz`)) === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on ${origin} within ${options.startTimeoutMs ?? 60_000} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const remoteUri = (absPath: string) => `vscode-remote://127.0.0.1:${port}${absPath.split(path.sep).join('/')}`;
  // code-server runs detached, so its pid is the process group of everything it starts.
  const extensionHostPids = () => (child.pid && child.exitCode === null ? groupProcesses(child.pid, '--type=extensionHost') : []);
  return {
    pid: child.pid,
    port,
    origin,
    userDataDir,
    home: options.env?.HOME ?? xdg.HOME,
    extensionHostPids,
    stopExtensionHosts: () => endProcesses(extensionHostPids(), `the extension hosts of ${origin}`),
    output: () => output,
    remoteUri,
    workbenchUrl(query = {}) {
      const params = new URLSearchParams();
      if (query.folder) params.set('folder', query.folder);
      if (query.workspace) params.set('workspace', query.workspace);
      if (query.payload) params.set('payload', JSON.stringify(query.payload));
      const search = params.toString();
      return `${origin}/${search ? `?${search}` : ''}`;
    },
    stop,
  };
}
