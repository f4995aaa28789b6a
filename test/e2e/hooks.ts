import { closePool, launches } from '../harness/pool';

/**
 * Mocha's global teardown (loaded with `require` in test/e2e/.mocharc.json): the suites share one
 * Chromium and one code-server per trust setting (test/harness/pool.ts), started on first use;
 * this stops them once every suite ran, passed or not.
 */
export async function mochaGlobalTeardown(): Promise<void> {
  await closePool();
  console.log(`e2e: the suites shared ${launches.codeServer} code-server(s) and ${launches.chromium} Chromium`);
}
