import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CappedOutput, NodeProcessPort } from '../../../src/core/tools/processPort';
import { LIMITS } from '../../../src/core/tools/workspaceToolContext';
import type { TestWorkspace } from './toolTestWorkspace';
import { makeTestWorkspace } from './toolTestWorkspace';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (polling, no timing assertion) until `condition` holds, failing with `what` after a while. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`gave up waiting: ${what}`);
}

/** Alive and not a zombie waiting to be reaped (Linux /proc; elsewhere, signal 0). */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
}

describe('run_command', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace({ tools: { process: new NodeProcessPort({ killGraceMs: 500 }) } });
  });
  afterEach(() => ws.cleanup());

  it('runs in the workspace folder and returns the exit code and the combined output', async () => {
    ws.write('hello.txt', 'hi\n');
    const result = await ws.ok('run_command', { command: 'pwd; cat hello.txt; echo oops >&2' });
    assert.equal(result['exit_code'], 0);
    assert.equal(result['output'], `${ws.root}\nhi\noops\n`);
    assert.equal(result['cwd'], '.');
    assert.equal(result['note'], undefined);
  });

  it('runs in a subfolder given as cwd', async () => {
    ws.write('pkg/marker', '');
    const result = await ws.ok('run_command', { command: 'ls', cwd: 'pkg' });
    assert.equal(result['output'], 'marker\n');
    assert.equal(result['cwd'], 'pkg');
  });

  it('reports a non-zero exit as a result, not a failure', async () => {
    const result = await ws.ok('run_command', { command: 'echo failing; exit 3' });
    assert.equal(result['exit_code'], 3);
    assert.equal(result['output'], 'failing\n');
    assert.match(String(result['note']), /exited with code 3/);
  });

  it('closes stdin, so a command waiting for input ends', async () => {
    const result = await ws.ok('run_command', { command: 'read line; echo "got:$line"' });
    assert.equal(result['output'], 'got:\n');
  });

  it('kills the command and its children at the timeout', async () => {
    const pidFile = path.join(ws.root, 'child.pid');
    const result = await ws.ok('run_command', { command: `sleep 30 & echo $! > child.pid; wait`, timeout_seconds: 1 });
    assert.equal(result['timed_out'], true);
    assert.equal(result['exit_code'], null);
    assert.match(String(result['note']), /killed after the 1 s timeout/);
    const child = Number(fs.readFileSync(pidFile, 'utf8'));
    await eventually(() => !running(child), `the background sleep ${child} to be killed`);
  });

  it('kills the process group when the turn is stopped', async () => {
    const pidFile = path.join(ws.root, 'child.pid');
    const controller = new AbortController();
    const pending = ws.run('run_command', { command: `sleep 30 & echo $! > child.pid; wait` }, controller.signal);
    await eventually(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 'the command to start');
    const child = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(running(child));
    controller.abort();
    const result = await pending;
    assert.equal(result.success, false);
    assert.match((result as { error: string }).error, /stopped by the user; the command and the processes it started were killed/);
    await eventually(() => !running(child), `the background sleep ${child} to be killed`);
  });

  it(`keeps the start and the end of output over ${LIMITS.commandOutputBytes} bytes`, async () => {
    const result = await ws.ok('run_command', { command: 'echo FIRST; seq 1 100000; echo LAST' });
    const output = String(result['output']);
    assert.ok(output.startsWith('FIRST\n1\n2\n'));
    assert.ok(output.endsWith('99999\n100000\nLAST\n'));
    assert.match(output, /\n\[\.\.\. [\d,]+ bytes of output omitted \.\.\.\]\n/);
    assert.ok(Buffer.byteLength(output) < LIMITS.commandOutputBytes + 200);
    assert.match(String(result['note']), /output was 588,906 bytes; the middle [\d,]+ were left out/);
  });

  it('refuses a cwd outside the workspace, a missing cwd, and empty commands', async () => {
    assert.match(await ws.refused('run_command', { command: 'ls', cwd: '..' }), /cwd: .*outside the workspace/);
    assert.match(await ws.refused('run_command', { command: 'ls', cwd: '/' }), /cwd: .*outside the workspace/);
    fs.symlinkSync(ws.outside, path.join(ws.root, 'out'));
    assert.match(await ws.refused('run_command', { command: 'ls', cwd: 'out' }), /through a symbolic link/);
    assert.match(await ws.refused('run_command', { command: 'ls', cwd: 'nope' }), /cwd "nope" does not exist/);
    assert.match(await ws.refused('run_command', { command: '  ' }), /command is empty/);
    assert.match(await ws.refused('run_command', { command: 'ls', timeout_seconds: 601 }), /"timeout_seconds" must be at most 600/);
  });

  it('says so when the host cannot run processes', async () => {
    const bare = makeTestWorkspace();
    try {
      assert.match(await bare.refused('run_command', { command: 'ls' }), /not available here/);
    } finally {
      bare.cleanup();
    }
  });
});

describe('CappedOutput', () => {
  it('keeps everything under the cap', () => {
    const output = new CappedOutput(100);
    output.push(Buffer.from('hello '));
    output.push(Buffer.from('world'));
    assert.equal(output.text(), 'hello world');
    assert.equal(output.omitted, 0);
  });

  it('keeps a quarter from the start and the rest from the end, never splitting a character', () => {
    const output = new CappedOutput(40);
    output.push(Buffer.from('0123456789'));
    output.push(Buffer.from('é'.repeat(50)));
    output.push(Buffer.from('ABCDEFGHIJ'));
    const text = output.text();
    assert.ok(text.startsWith('0123456789\n[... '));
    assert.ok(text.endsWith('ABCDEFGHIJ'));
    assert.ok(!text.includes('\uFFFD'), 'no broken characters at the cut');
    assert.equal(output.total, 120);
    assert.equal(output.omitted, 80);
  });

  it('keeps a character that straddles the head limit when nothing is cut', () => {
    const output = new CappedOutput(40);
    const bytes = Buffer.from('abcdefghié');
    output.push(bytes.subarray(0, 9));
    output.push(bytes.subarray(9));
    assert.equal(output.text(), 'abcdefghié');
  });

  it('strips colour escapes', () => {
    const output = new CappedOutput(100);
    output.push(Buffer.from('\u001b[31mred\u001b[0m plain'));
    assert.equal(output.text(), 'red plain');
  });
});
