import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AttemptOutcome } from '../../../src/core/execution/executionTypes';
import { killAllScripts, NodeScriptPort } from '../../../src/core/execution/nodeScriptPort';
import type { ScriptRunOptions, ScriptSkillSpec } from '../../../src/core/execution/scriptRunner';
import { ENV_ALLOWLIST, interpreterFor, runScriptSkill, scriptEnvironment } from '../../../src/core/execution/scriptRunner';
import { repoRoot } from '../../repoRoot';

const skillDir = path.join(repoRoot(), 'test', 'fixtures', 'execution');

async function readFirstLine(file: string): Promise<string | undefined> {
  const text = await fs.promises.readFile(file, 'utf8');
  return text === '' ? undefined : text.split('\n')[0];
}

function spec(entry: string, overrides: Partial<ScriptSkillSpec> = {}): ScriptSkillSpec {
  return { name: 'fixture-skill', dir: skillDir, entry, timeoutMs: 10_000, envNames: [], ...overrides };
}

function options(overrides: Partial<ScriptRunOptions> = {}): ScriptRunOptions {
  return { port: new NodeScriptPort(), cwd: skillDir, processEnv: process.env, nodePath: process.execPath, readFirstLine, ...overrides };
}

function failureOf(outcome: AttemptOutcome): Extract<AttemptOutcome, { ok: false }> {
  if (outcome.ok) assert.fail(`expected a failure, got output ${JSON.stringify(outcome.output)}`);
  return outcome;
}

function outputOf(outcome: AttemptOutcome): unknown {
  if (!outcome.ok) assert.fail(`expected output, got ${outcome.kind}: ${outcome.error}`);
  return outcome.output;
}

/** Alive and not a zombie waiting for a parent to reap it (Linux /proc; elsewhere, signal 0). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
}

/** Polls until `condition` holds (no timing assertion), failing with `what` after a while. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`gave up waiting: ${what}`);
}

function pidIn(file: string): number | undefined {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  return text === '' ? undefined : Number(text);
}

describe('script skills', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-script-'));
  });
  afterEach(() => {
    killAllScripts();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('output', () => {
    it('passes the arguments as JSON on stdin and returns the output of the envelope', async () => {
      const args = { path: 'src', depth: 2, tags: ['a', 'ü'] };
      const outcome = await runScriptSkill(spec('scripts/echoArgs.mjs'), args, options());
      assert.deepEqual(outputOf(outcome), { received: args });
    });

    it('returns any other JSON value as the output itself', async () => {
      assert.deepEqual(outputOf(await runScriptSkill(spec('scripts/plainValue.mjs'), {}, options())), [1, 'two', { three: 3 }]);
    });

    it('returns null for a script that prints nothing and exits 0', async () => {
      assert.equal(outputOf(await runScriptSkill(spec('scripts/printsNothing.mjs'), {}, options())), null);
    });

    it('reports an envelope with success false and exit 0 as the script’s own error (validation)', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/reportsFailure.mjs'), { exitCode: 0 }, options()));
      assert.equal(failure.kind, 'validation');
      assert.equal(failure.error, 'the repository has no tags yet');
    });

    it('reports an envelope failure with a non-zero exit as exit_code with the script’s error', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/reportsFailure.mjs'), { exitCode: 2 }, options()));
      assert.equal(failure.kind, 'exit_code');
      assert.equal(failure.error, 'scripts/reportsFailure.mjs exited with code 2: the repository has no tags yet');
    });

    it('explains stdout that is not JSON, quoting its start', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/notJson.mjs'), {}, options()));
      assert.equal(failure.kind, 'invalid_output');
      assert.equal(
        failure.error,
        'scripts/notJson.mjs printed something that is not JSON: "Counting files in the project...\\nfound 12 files" — print one JSON value on stdout, logs on stderr',
      );
    });

    it('stops a script that floods stdout, saying it printed more than 1 MiB', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/floodsStdout.mjs'), {}, options()));
      assert.equal(failure.kind, 'invalid_output');
      assert.match(failure.error, /^scripts\/floodsStdout\.mjs printed more than 1 MiB on stdout; stopped/);
    });

    it('keeps at most the limit of stdout when it overflows', async () => {
      const result = await new NodeScriptPort().run({
        command: [process.execPath, path.join(skillDir, 'scripts', 'floodsStdout.mjs')],
        cwd: skillDir,
        stdin: '',
        env: scriptEnvironment(process.env, []),
        timeoutMs: 10_000,
        maxStdoutBytes: 100_000,
        stderrTailBytes: 100,
      });
      assert.equal(result.stdoutOverflow, true);
      assert.equal(result.stdout.length, 100_000);
      assert.equal(result.timedOut, false);
    });
  });

  describe('failures', () => {
    it('reports a non-zero exit with the last lines of stderr', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/failsWithStderr.mjs'), {}, options()));
      assert.equal(failure.kind, 'exit_code');
      assert.match(failure.error, /^scripts\/failsWithStderr\.mjs exited with code 3: trace line 22\n/);
      assert.match(failure.error, /trace line 30\nError: config\.yaml not found$/);
      assert.doesNotMatch(failure.error, /trace line 21\n/);
    });

    it('says a script killed by SIGKILL was probably out of memory', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/killsItself.mjs'), {}, options()));
      assert.equal(failure.kind, 'exit_code');
      assert.equal(failure.error, 'scripts/killsItself.mjs was killed by SIGKILL (exit 137) — often out of memory: allocating a large buffer');
    });

    it('reads exit 137 from a shell script the same way', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/exit137.sh'), {}, options()));
      assert.equal(failure.error, 'scripts/exit137.sh was killed by SIGKILL (exit 137) — often out of memory: worker killed');
    });

    it('times out a script that never exits', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/neverExits.mjs', { timeoutMs: 500 }), {}, options()));
      assert.equal(failure.kind, 'timeout');
      assert.equal(failure.error, 'scripts/neverExits.mjs timed out after 0.5 s (killed with its process group)');
    });

    it('names an interpreter that is not installed', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/missingInterpreter'), {}, options()));
      assert.equal(failure.kind, 'spawn');
      assert.equal(failure.error, 'skillwright-no-such-interpreter is not installed or not on PATH (needed for scripts/missingInterpreter); install it or change entry');
    });

    it('says how to fix an entry with no extension and no shebang', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/noShebang'), {}, options()));
      assert.equal(failure.kind, 'validation');
      assert.match(failure.error, /has no known extension and no shebang line.*add a first line such as "#!\/usr\/bin\/env python3", or name the script \.py, \.js or \.sh$/);
    });

    it('reports a missing entry as not_found', async () => {
      const failure = failureOf(await runScriptSkill(spec('scripts/nope.py'), {}, options()));
      assert.equal(failure.kind, 'not_found');
      assert.match(failure.error, /^entry "scripts\/nope\.py" does not exist in the skill folder of fixture-skill; create it or fix entry in SKILL\.md$/);
    });
  });

  describe('stdin', () => {
    it('runs a script that never reads stdin', async () => {
      assert.equal(outputOf(await runScriptSkill(spec('scripts/ignoresStdin.mjs'), { some: 'input' }, options())), 'worked without input');
    });

    it('survives a script that exits before reading a large input (EPIPE)', async () => {
      const big = { text: 'y'.repeat(4 * 1024 * 1024) };
      assert.equal(outputOf(await runScriptSkill(spec('scripts/exitsAtOnce.mjs'), big, options())), 'early');
    });
  });

  describe('process groups', () => {
    it('kills the script and the child it started when the run is stopped', async () => {
      const pidFile = path.join(tmp, 'sleeper.pid');
      const controller = new AbortController();
      const pending = runScriptSkill(spec('scripts/forksSleeper.mjs'), { pidFile }, options({ signal: controller.signal }));
      await eventually(() => pidIn(pidFile) !== undefined, 'the script to start its child');
      const sleeper = pidIn(pidFile) as number;
      assert.equal(running(sleeper), true, 'the child runs before the stop');
      controller.abort();
      const failure = failureOf(await pending);
      assert.equal(failure.kind, 'aborted');
      assert.equal(failure.error, 'stopped by the user');
      await eventually(() => !running(sleeper), `the child ${sleeper} to be killed with the group`);
    });

    it('does not wait for a child that keeps stdout open after the script exits, and kills it', async () => {
      const pidFile = path.join(tmp, 'sleeper.pid');
      const outcome = await runScriptSkill(spec('scripts/forksSleeper.mjs'), { pidFile, thenExit: true }, options());
      const sleeper = pidIn(pidFile) as number;
      assert.deepEqual(outputOf(outcome), { sleeper });
      await eventually(() => !running(sleeper), `the leftover child ${sleeper} to be killed`);
    });

    it('killAllScripts ends every running script and its children', async () => {
      const pidFile = path.join(tmp, 'sleeper.pid');
      const pending = runScriptSkill(spec('scripts/forksSleeper.mjs'), { pidFile }, options());
      await eventually(() => pidIn(pidFile) !== undefined, 'the script to start its child');
      const sleeper = pidIn(pidFile) as number;
      killAllScripts();
      assert.equal(failureOf(await pending).kind, 'aborted');
      await eventually(() => !running(sleeper), `the child ${sleeper} to be killed`);
    });

    it('does not start a script when the run is already stopped', async () => {
      const pidFile = path.join(tmp, 'sleeper.pid');
      const controller = new AbortController();
      controller.abort();
      const failure = failureOf(await runScriptSkill(spec('scripts/forksSleeper.mjs'), { pidFile }, options({ signal: controller.signal })));
      assert.equal(failure.kind, 'aborted');
      assert.equal(fs.existsSync(pidFile), false);
    });
  });

  describe('the skill folder', () => {
    it('refuses an entry that climbs out of the folder', async () => {
      const failure = failureOf(await runScriptSkill(spec('../formats/generate.mjs'), {}, options()));
      assert.equal(failure.kind, 'permission');
      assert.match(failure.error, /^entry "\.\.\/formats\/generate\.mjs" points outside the skill folder of fixture-skill; put the script inside the folder/);
    });

    it('refuses an entry that is a link to a file outside the folder', async () => {
      const dir = path.join(tmp, 'skill');
      fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
      fs.symlinkSync(path.join(skillDir, 'scripts', 'echoArgs.mjs'), path.join(dir, 'scripts', 'run.mjs'));
      const failure = failureOf(await runScriptSkill(spec('scripts/run.mjs', { dir }), {}, options({ cwd: dir })));
      assert.equal(failure.kind, 'permission');
      assert.match(failure.error, /^entry "scripts\/run\.mjs" is a link to .*echoArgs\.mjs, outside the skill folder of fixture-skill; copy the script into the folder instead$/);
    });

    it('runs an entry that is a link to a file inside the folder', async () => {
      const dir = path.join(tmp, 'skill');
      fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
      fs.copyFileSync(path.join(skillDir, 'scripts', 'plainValue.mjs'), path.join(dir, 'scripts', 'real.mjs'));
      fs.symlinkSync('real.mjs', path.join(dir, 'scripts', 'run.mjs'));
      assert.deepEqual(outputOf(await runScriptSkill(spec('scripts/run.mjs', { dir }), {}, options({ cwd: dir }))), [1, 'two', { three: 3 }]);
    });
  });

  describe('environment', () => {
    const processEnv = { ...process.env, OPENAI_API_KEY: 'sk-not-for-scripts', SKILL_TOKEN: 'declared-by-the-skill', AWS_SECRET_ACCESS_KEY: 'nope' };

    it('gives the script the allowlist and the declared names only', async () => {
      const output = outputOf(await runScriptSkill(spec('scripts/showsEnv.mjs', { envNames: ['SKILL_TOKEN'] }), {}, options({ processEnv }))) as {
        names: string[];
        openai: string | null;
        token: string | null;
      };
      assert.equal(output.openai, null);
      assert.equal(output.token, 'declared-by-the-skill');
      assert.ok(output.names.includes('PATH'), 'PATH is passed');
      const allowed = new Set([...ENV_ALLOWLIST, 'SKILL_TOKEN']);
      assert.deepEqual(
        output.names.filter((name) => !allowed.has(name)),
        [],
      );
    });

    it('passes a declared name even when it looks like a secret, and nothing undeclared', () => {
      const env = scriptEnvironment({ PATH: '/bin', OPENAI_API_KEY: 'sk-1', GITHUB_TOKEN: 'gh', LANG: undefined }, ['OPENAI_API_KEY']);
      assert.deepEqual(env, { PATH: '/bin', OPENAI_API_KEY: 'sk-1' });
    });

    it('keeps keys out of the allowlist itself', () => {
      assert.deepEqual(
        ENV_ALLOWLIST.filter((name) => /KEY|TOKEN|SECRET|PASSWORD/i.test(name)),
        [],
      );
    });
  });

  describe('interpreters', () => {
    it('picks the interpreter by extension', () => {
      assert.deepEqual(interpreterFor('/s/run.py', undefined, '/node'), { ok: true, command: [process.platform === 'win32' ? 'python' : 'python3', '/s/run.py'] });
      for (const file of ['/s/a.js', '/s/a.mjs', '/s/a.cjs']) assert.deepEqual(interpreterFor(file, '#!/usr/bin/env deno', '/node'), { ok: true, command: ['/node', file] });
      assert.deepEqual(interpreterFor('/s/a.sh', undefined, '/node'), { ok: true, command: ['bash', '/s/a.sh'] });
    });

    it('reads the shebang of a file without a known extension', () => {
      assert.deepEqual(interpreterFor('/s/run', '#!/usr/bin/env python3', '/node'), { ok: true, command: ['python3', '/s/run'] });
      assert.deepEqual(interpreterFor('/s/run', '#!/bin/bash -e', '/node'), { ok: true, command: ['/bin/bash', '-e', '/s/run'] });
      assert.deepEqual(interpreterFor('/s/run.rb', '#!/usr/bin/env -S ruby -w\r', '/node'), { ok: true, command: ['ruby', '-w', '/s/run.rb'] });
    });

    it('says how to fix a file without extension or shebang', () => {
      const result = interpreterFor('/s/run', 'echo hi', '/node');
      assert.match(result.ok ? 'ok' : result.error, /^\/s\/run has no known extension and no shebang line/);
      const empty = interpreterFor('/s/run', '#!', '/node');
      assert.match(empty.ok ? '' : empty.error, /names no program/);
    });

    it('runs a Python script with python3 (which must be installed for this test)', async () => {
      // A missing python3 fails here with the runner's own message: "python3 is not installed or not on PATH ...".
      const outcome = await runScriptSkill(spec('scripts/wordCount.py'), { text: 'one two three' }, options());
      assert.deepEqual(outputOf(outcome), { words: 3 });
    });
  });
});
