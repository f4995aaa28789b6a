import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { launchBrowser } from '../harness/browser';
import { startCodeServer } from '../harness/codeServer';
import { repoRoot } from '../repoRoot';

/** The harness must fail loudly rather than report success without having run the tests. */
describe('test harness failure modes', () => {
  it('says so when Chromium is missing', async () => {
    await assert.rejects(launchBrowser({ executablePath: '/nonexistent/chromium' }), /Chromium not found at \/nonexistent\/chromium.*apt-get install -y chromium/);
  });

  it('says so when Chromium cannot start', async () => {
    await assert.rejects(launchBrowser({ executablePath: '/bin/false' }), /Chromium could not start \(\/bin\/false\)/);
  });

  it('says so when code-server exits before serving', async () => {
    await assert.rejects(startCodeServer({ extraArgs: ['--no-such-flag'] }), /code-server exited before serving/);
  });

  it('fails the integration run when the extension host reports nothing in time', () => {
    const runner = path.join(repoRoot(), 'out', 'test', 'runIntegration.js');
    const result = spawnSync(process.execPath, [runner], {
      encoding: 'utf8',
      env: { ...process.env, SKILLWRIGHT_INTEGRATION_TIMEOUT_MS: '1' },
      timeout: 90_000,
    });
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /reported no results within 1 ms/);
  });

  it('fails the integration run when no test ran', () => {
    const runner = path.join(repoRoot(), 'out', 'test', 'runIntegration.js');
    const result = spawnSync(process.execPath, [runner], {
      encoding: 'utf8',
      env: { ...process.env, SKILLWRIGHT_TEST_GREP: 'no test has this title' },
      timeout: 120_000,
    });
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /integration: 0 passed, 0 failed/);
  });
});
