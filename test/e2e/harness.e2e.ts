import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchBrowser } from '../harness/browser';
import { startCodeServer } from '../harness/codeServer';
import { repoRoot } from '../repoRoot';

interface RunnerResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the compiled integration runner with extra environment, its results in a folder of its own
 * (the real integration run may be going on beside it); resolves when it exits (killed after `timeoutMs`).
 */
function runIntegrationRunner(env: Record<string, string>, timeoutMs: number): Promise<RunnerResult> {
  const runner = path.join(repoRoot(), 'out', 'test', 'runIntegration.js');
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-runner-'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner], {
      env: { ...process.env, ...env, SKILLWRIGHT_RESULTS_DIR: results },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      fs.rmSync(results, { recursive: true, force: true });
      resolve({ status, stdout, stderr });
    });
  });
}

/** The harness must fail loudly rather than report success without having run the tests. */
describe('test harness failure modes', () => {
  // The two runner checks each start their own code-server and Chromium and mostly wait; they run
  // side by side from the start of this suite, and each test checks its own run.
  let silentHost: Promise<RunnerResult>;
  let noTests: Promise<RunnerResult>;

  before(() => {
    silentHost = runIntegrationRunner({ SKILLWRIGHT_INTEGRATION_TIMEOUT_MS: '1' }, 90_000);
    noTests = runIntegrationRunner({ SKILLWRIGHT_TEST_GREP: 'no test has this title' }, 120_000);
  });

  after(async () => {
    // Whatever a failed test left, both runs end before the next suite.
    await Promise.all([silentHost, noTests]);
  });

  it('says so when Chromium is missing', async () => {
    await assert.rejects(launchBrowser({ executablePath: '/nonexistent/chromium' }), /Chromium not found at \/nonexistent\/chromium.*apt-get install -y chromium/);
  });

  it('says so when Chromium cannot start', async () => {
    await assert.rejects(launchBrowser({ executablePath: '/bin/false' }), /Chromium could not start \(\/bin\/false\)/);
  });

  it('says so when code-server exits before serving', async () => {
    await assert.rejects(startCodeServer({ extraArgs: ['--no-such-flag'] }), /code-server exited before serving/);
  });

  it('fails the integration run when the extension host reports nothing in time', async () => {
    const result = await silentHost;
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /reported no results within 1 ms/);
  });

  it('fails the integration run when no test ran', async () => {
    const result = await noTests;
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /integration: 0 passed, 0 failed/);
  });
});
