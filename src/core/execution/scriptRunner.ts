import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { AttemptOutcome, ScriptOutcome, ScriptPort } from './executionTypes';

/**
 * Level 0 of a script skill: one run of its entry with the arguments as JSON on stdin and one JSON
 * value expected back on stdout. The script sees a small, fixed environment plus only the variables
 * its skill declares, so keys in the editor's environment do not leak into scripts.
 */

export interface ScriptSkillSpec {
  readonly name: string;
  /** The skill folder. */
  readonly dir: string;
  /** The script, relative to dir, e.g. `scripts/run.py`. */
  readonly entry: string;
  readonly timeoutMs: number;
  /** Environment variables the skill declares it needs, passed on from processEnv. */
  readonly envNames: readonly string[];
}

export interface ScriptRunOptions {
  readonly port: ScriptPort;
  readonly cwd: string;
  readonly processEnv: Readonly<Record<string, string | undefined>>;
  /** The Node binary that runs .js/.mjs/.cjs entries. */
  readonly nodePath: string;
  readonly signal?: AbortSignal;
  /** The first line of a file (for its shebang), undefined when empty or unreadable. */
  readonly readFirstLine: (file: string) => Promise<string | undefined>;
}

/** What a script inherits from the editor: what programs need to start and find things, never a key. */
export const ENV_ALLOWLIST: readonly string[] = [
  'PATH',
  'HOME',
  'USERPROFILE',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TMPDIR',
  'TEMP',
  'TMP',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'SHELL',
  'USER',
  'LOGNAME',
  'TZ',
  'TERM',
];

const MAX_STDOUT_BYTES = 1024 * 1024;
const STDERR_TAIL_BYTES = 4096;
/** Stderr lines quoted in a failure message. */
const STDERR_LINES = 10;
const SNIPPET_CHARS = 200;

/**
 * The allowlisted variables plus the skill's declared ones. A declared name that looks like a
 * secret (`OPENAI_API_KEY`) is passed too: the skill asked for it by name, and the approval card
 * shows its permissions. Nothing else from processEnv reaches the script.
 */
export function scriptEnvironment(processEnv: Readonly<Record<string, string | undefined>>, envNames: readonly string[]): Record<string, string> {
  // Windows spells the same variable Path or PATH; a copied environment keeps whichever it had.
  const caseInsensitive = process.platform === 'win32';
  const keys = Object.keys(processEnv);
  const env: Record<string, string> = {};
  for (const wanted of [...ENV_ALLOWLIST, ...envNames]) {
    if (wanted === '' || wanted.includes('=')) continue;
    const key = caseInsensitive ? keys.find((candidate) => candidate.toUpperCase() === wanted.toUpperCase()) : wanted;
    const value = key === undefined ? undefined : processEnv[key];
    if (key !== undefined && value !== undefined) env[key] = value;
  }
  return env;
}

/** The command that runs entryPath: by extension first, then by its shebang line. */
export function interpreterFor(entryPath: string, firstLine: string | undefined, nodePath: string): { ok: true; command: string[] } | { ok: false; error: string } {
  const extension = path.extname(entryPath).toLowerCase();
  if (extension === '.py') return { ok: true, command: [process.platform === 'win32' ? 'python' : 'python3', entryPath] };
  if (extension === '.js' || extension === '.mjs' || extension === '.cjs') return { ok: true, command: [nodePath, entryPath] };
  if (extension === '.sh') return { ok: true, command: ['bash', entryPath] };
  const how = `add a first line such as "#!/usr/bin/env python3", or name the script .py, .js or .sh`;
  if (firstLine === undefined || !firstLine.startsWith('#!')) {
    return { ok: false, error: `${entryPath} has no known extension and no shebang line, so there is no telling what runs it; ${how}` };
  }
  const words = firstLine.slice(2).trim().split(/\s+/).filter((word) => word !== '');
  let command = words;
  // `#!/usr/bin/env prog` names prog; env's -S only splits the rest, which is done here anyway.
  if (words[0] !== undefined && path.posix.basename(words[0]) === 'env') {
    command = words.slice(1).filter((word, index) => !(index === 0 && word === '-S'));
  }
  if (command.length === 0) return { ok: false, error: `the shebang line of ${entryPath} names no program ("${firstLine.trim()}"); ${how}` };
  return { ok: true, command: [...command, entryPath] };
}

function failure(kind: Extract<AttemptOutcome, { ok: false }>['kind'], error: string): AttemptOutcome {
  return { ok: false, kind, error };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** The entry as a real path inside the skill folder, or why it cannot run. */
async function locateEntry(spec: ScriptSkillSpec): Promise<{ ok: true; file: string } | (AttemptOutcome & { ok: false })> {
  const where = `the skill folder of ${spec.name}`;
  const lexical = path.resolve(spec.dir, spec.entry);
  if (!isInside(path.resolve(spec.dir), lexical)) {
    return { ok: false, kind: 'permission', error: `entry "${spec.entry}" points outside ${where}; put the script inside the folder (e.g. scripts/run.py) and name it relative to it` };
  }
  let realDir: string;
  let realFile: string;
  try {
    realDir = await fs.realpath(spec.dir);
  } catch {
    return { ok: false, kind: 'not_found', error: `the skill folder ${spec.dir} of ${spec.name} does not exist` };
  }
  try {
    realFile = await fs.realpath(lexical);
  } catch {
    return { ok: false, kind: 'not_found', error: `entry "${spec.entry}" does not exist in ${where}; create it or fix entry in SKILL.md` };
  }
  if (!isInside(realDir, realFile)) {
    return { ok: false, kind: 'permission', error: `entry "${spec.entry}" is a link to ${realFile}, outside ${where}; copy the script into the folder instead` };
  }
  const stat = await fs.stat(realFile);
  if (!stat.isFile()) return { ok: false, kind: 'not_found', error: `entry "${spec.entry}" is a folder, not a script; name the script file itself` };
  return { ok: true, file: realFile };
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split(/\r?\n/).slice(-count).join('\n').trim();
}

interface Envelope {
  readonly success: boolean;
  readonly output?: unknown;
  readonly error?: unknown;
}

function asEnvelope(value: unknown): Envelope | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return typeof (value as Record<string, unknown>)['success'] === 'boolean' ? (value as Envelope) : undefined;
}

function envelopeError(envelope: Envelope, entry: string): string {
  const { error } = envelope;
  if (typeof error === 'string' && error.trim() !== '') return error;
  if (error === undefined || error === null || error === '') return `${entry} reported failure without an error message`;
  return JSON.stringify(error);
}

function parseStdout(stdout: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(stdout) };
  } catch {
    return { ok: false };
  }
}

/** Turns what the process did into the attempt's result, saying in words what went wrong. */
function interpret(result: ScriptOutcome, spec: ScriptSkillSpec, command: readonly string[], cwd: string, cwdExists: boolean): AttemptOutcome {
  const entry = spec.entry;
  if (result.spawnError) {
    const program = command[0] ?? '';
    if (result.spawnError.code === 'ENOENT' && !cwdExists) return failure('spawn', `cannot run ${entry}: the working folder ${cwd} does not exist`);
    if (result.spawnError.code === 'ENOENT') return failure('spawn', `${program} is not installed or not on PATH (needed for ${entry}); install it or change entry`);
    return failure('spawn', `could not start ${program} for ${entry}: ${result.spawnError.message}`);
  }
  if (result.aborted) return failure('aborted', 'stopped by the user');
  if (result.timedOut) return failure('timeout', `${entry} timed out after ${seconds(spec.timeoutMs)} (killed with its process group)`);
  if (result.stdoutOverflow) {
    return failure('invalid_output', `${entry} printed more than ${MAX_STDOUT_BYTES / 1024 / 1024} MiB on stdout; stopped (print one JSON value on stdout, logs on stderr)`);
  }
  const stderr = lastLines(result.stderrTail, STDERR_LINES);
  const withStderr = (message: string): string => (stderr === '' ? `${message} (nothing on stderr)` : `${message}: ${stderr}`);
  if (result.signal === 'SIGKILL' || result.exitCode === 137) {
    return failure('exit_code', withStderr(`${entry} was killed by SIGKILL (exit 137) — often out of memory`));
  }
  if (result.signal !== null) return failure('exit_code', withStderr(`${entry} was killed by ${result.signal}`));

  const stdout = result.stdout.trim();
  const parsed = stdout === '' ? ({ ok: true, value: null } as const) : parseStdout(stdout);
  const envelope = parsed.ok ? asEnvelope(parsed.value) : undefined;
  if (result.exitCode !== 0) {
    const code = result.exitCode ?? 'unknown';
    // A script that explains its own failure says it better than its stderr.
    if (envelope && !envelope.success) return failure('exit_code', `${entry} exited with code ${code}: ${envelopeError(envelope, entry)}`);
    return failure('exit_code', withStderr(`${entry} exited with code ${code}`));
  }
  if (!parsed.ok) {
    return failure(
      'invalid_output',
      `${entry} printed something that is not JSON: ${JSON.stringify(stdout.slice(0, SNIPPET_CHARS))} — print one JSON value on stdout, logs on stderr`,
    );
  }
  if (envelope) return envelope.success ? { ok: true, output: envelope.output ?? null } : failure('validation', envelopeError(envelope, entry));
  return { ok: true, output: parsed.value };
}

async function exists(folder: string): Promise<boolean> {
  try {
    return (await fs.stat(folder)).isDirectory();
  } catch {
    return false;
  }
}

/** One attempt of a script skill: find the entry, pick its interpreter, run it, read its JSON. */
export async function runScriptSkill(spec: ScriptSkillSpec, args: unknown, options: ScriptRunOptions): Promise<AttemptOutcome> {
  if (options.signal?.aborted) return failure('aborted', 'stopped by the user');
  const located = await locateEntry(spec);
  if (!located.ok) return located;
  let firstLine: string | undefined;
  try {
    firstLine = await options.readFirstLine(located.file);
  } catch {
    firstLine = undefined;
  }
  const interpreter = interpreterFor(located.file, firstLine, options.nodePath);
  if (!interpreter.ok) return failure('validation', interpreter.error);
  let stdin: string;
  try {
    stdin = JSON.stringify(args === undefined ? {} : args);
  } catch (error) {
    return failure('validation', `the arguments cannot be sent as JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const result = await options.port.run({
    command: interpreter.command,
    cwd: options.cwd,
    stdin,
    env: scriptEnvironment(options.processEnv, spec.envNames),
    timeoutMs: spec.timeoutMs,
    maxStdoutBytes: MAX_STDOUT_BYTES,
    stderrTailBytes: STDERR_TAIL_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const cwdExists = result.spawnError ? await exists(options.cwd) : true;
  return interpret(result, spec, interpreter.command, options.cwd, cwdExists);
}
