/**
 * Runs test/integration inside a real VS Code extension host and exits non-zero unless every test
 * ran and passed. Hosts: code-server (default; works offline) or @vscode/test-electron
 * (`--host electron`; downloads VS Code, so it needs the internet).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, openWindow } from './harness/browser';
import type { CodeServer } from './harness/codeServer';
import { startCodeServer } from './harness/codeServer';
import { makeMultiRootWorkspace, removeWorkspace } from './harness/sampleWorkspace';
import type { IntegrationReport } from './integration/index';
import { repoRoot } from './repoRoot';

const root = repoRoot();
const suite = path.join(root, 'out', 'test', 'integration', 'index.js');
/** An extra skill folder holding a copy of a sample skill, so shadowing is exercised. */
function makeExtraRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-extra-'));
  const skill = path.join(dir, 'write-changelog-entry');
  fs.mkdirSync(skill);
  fs.writeFileSync(
    path.join(skill, 'SKILL.md'),
    '---\nname: write-changelog-entry\ndescription: A team copy of the changelog skill. Use when writing a changelog.\n---\n\n# Team copy\n',
  );
  return dir;
}

const extraRoot = makeExtraRoot();
const userSettings = {
  'skillwright.model.baseUrl': 'http://127.0.0.1:9/v1',
  'skillwright.model.name': 'scripted-model',
  'skillwright.skills.extraRoots': [extraRoot],
  // The sample skills came with the workspace, so consent would hold them back; the consent suite
  // turns it on for itself (test/integration/consent.test.ts).
  'skillwright.skills.projectConsent': false,
};
const timeoutMs = Number(process.env.SKILLWRIGHT_INTEGRATION_TIMEOUT_MS ?? 300_000);

/** Waits for the report; fails when no test has finished for timeoutMs (the host writes `<file>.progress` after each). */
async function waitForReport(file: string, isAlive: () => string | undefined): Promise<IntegrationReport> {
  let deadline = Date.now() + timeoutMs;
  let progress: string | undefined;
  while (Date.now() < deadline) {
    if (fs.existsSync(file)) {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as IntegrationReport;
    }
    const now = fs.existsSync(`${file}.progress`) ? fs.readFileSync(`${file}.progress`, 'utf8') : undefined;
    if (now !== progress) {
      progress = now;
      deadline = Date.now() + timeoutMs;
    }
    const death = isAlive();
    if (death) throw new Error(death);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`The extension host reported no results within ${timeoutMs} ms${progress === undefined ? '' : ` of its last finished test (${progress} finished)`}`);
}

type Pass = 'trusted' | 'restricted';

/** A pass's server, started before any pass runs (see runInCodeServer). */
function startPassServer(pass: Pass, resultFile: string): Promise<CodeServer> {
  const restricted = pass === 'restricted';
  return startCodeServer({
    userSettings: restricted ? { ...userSettings, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.untrustedFiles': 'open' } : userSettings,
    env: { SKILLWRIGHT_TEST_RESULTS: resultFile, SKILLWRIGHT_TEST_PASS: pass },
    trust: restricted,
  });
}

type Settled<T> = Promise<{ value: T } | { error: unknown }>;

/** A promise's outcome without an unhandled rejection while it waits to be used. */
function settle<T>(promise: Promise<T>): Settled<T> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

async function valueOf<T>(settled: Settled<T>): Promise<T> {
  const outcome = await settled;
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * One pass in code-server, in a window of its own. The `restricted` pass opens the workspace with
 * workspace trust on and the folder untrusted (Restricted Mode) and runs only the
 * `*.restricted.test.ts` files.
 */
async function runPass(server: CodeServer, browser: Browser, resultFile: string, pass: Pass, onRunning: () => void): Promise<IntegrationReport> {
  const workspace = makeMultiRootWorkspace();
  const window = await openWindow(browser);
  try {
    const pageErrors: string[] = [];
    window.page.on('pageerror', (error) => pageErrors.push(error.message));
    const url = server.workbenchUrl({
      workspace: workspace.file,
      payload: [
        ['extensionDevelopmentPath', server.remoteUri(root)],
        ['extensionTestsPath', server.remoteUri(suite)],
      ],
    });
    console.log(`Integration (${pass}): code-server on ${server.origin}, workspace ${path.basename(workspace.file)}`);
    // Only the navigation's start: the report (or the timeout) says how the run went, not the page's load event.
    await window.page.goto(url, { waitUntil: 'commit' });
    // Once the workbench shows, the pass is under way (a pass that fails at once starts nothing more).
    void window.page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs }).then(onRunning, () => undefined);
    return await waitForReport(resultFile, () => (window.page.isClosed() ? 'The workbench page closed before results arrived' : undefined));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- code-server output (tail) ---\n${server.output().slice(-4000)}`, { cause: error });
  } finally {
    await window.close();
    removeWorkspace(workspace.folders[0] as string);
  }
}

/**
 * Runs the passes one after another (side by side they would compete for the CPU and slow the
 * timing-sensitive watcher tests) in windows of one shared Chromium. The next pass's code-server
 * starts while the current pass's tests run, so it is ready when they end.
 */
async function runInCodeServer(passes: readonly { pass: Pass; resultFile: string }[]): Promise<IntegrationReport[]> {
  const browser = settle(launchChromium());
  const servers: Settled<CodeServer>[] = [];
  let finished = false;
  const serverFor = (i: number): Settled<CodeServer> | undefined => {
    const next = passes[i];
    if (next && !servers[i] && !finished) servers[i] = settle(startPassServer(next.pass, next.resultFile));
    return servers[i];
  };
  try {
    const reports: IntegrationReport[] = [];
    for (const [i, { pass, resultFile }] of passes.entries()) {
      const server = await valueOf(serverFor(i) as Settled<CodeServer>);
      // Starting the next pass's server is fire-and-forget: its outcome is awaited when its turn comes.
      reports.push(
        await runPass(server, await valueOf(browser), resultFile, pass, () => {
          void serverFor(i + 1);
        }),
      );
    }
    return reports;
  } finally {
    finished = true;
    await Promise.all(
      servers.map(async (settled) => {
        const outcome = await settled;
        if ('value' in outcome) await outcome.value.stop();
      }),
    );
    const outcome = await browser;
    if ('value' in outcome) await outcome.value.close().catch(() => undefined);
  }
}

async function runInElectron(resultFile: string): Promise<IntegrationReport> {
  const { runTests } = await import('@vscode/test-electron');
  const workspace = makeMultiRootWorkspace();
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-electron-'));
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(userSettings));
  try {
    await runTests({
      version: '1.100.3',
      extensionDevelopmentPath: root,
      extensionTestsPath: suite,
      extensionTestsEnv: { SKILLWRIGHT_TEST_RESULTS: resultFile },
      launchArgs: [workspace.file, '--disable-extensions', '--disable-workspace-trust', `--user-data-dir=${userData}`],
    }).catch(() => undefined); // a failing suite rejects; the report below says why
    if (!fs.existsSync(resultFile)) throw new Error('VS Code exited without reporting integration results');
    return JSON.parse(fs.readFileSync(resultFile, 'utf8')) as IntegrationReport;
  } finally {
    fs.rmSync(userData, { recursive: true, force: true });
    removeWorkspace(workspace.folders[0] as string);
  }
}

async function main(): Promise<void> {
  // `--host` with nothing after it means the default too.
  const host = (process.argv.includes('--host') ? process.argv[process.argv.indexOf('--host') + 1] : undefined) ?? 'code-server';
  if (!fs.existsSync(suite)) throw new Error(`${suite} is missing: run "npm run compile-tests" first`);
  if (!fs.existsSync(path.join(root, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing: run "npm run build" first');
  // Another run at the same time (the e2e suite's checks of this runner) passes a folder of its own.
  const resultFile = path.join(process.env.SKILLWRIGHT_RESULTS_DIR ?? path.join(root, 'test-results'), `integration-${host}.json`);
  fs.rmSync(resultFile, { force: true });
  fs.rmSync(`${resultFile}.progress`, { force: true });
  let report: IntegrationReport;
  if (host === 'electron') {
    report = await runInElectron(resultFile);
  } else {
    const grep = process.env.SKILLWRIGHT_TEST_GREP;
    const restrictedFile = resultFile.replace(/\.json$/, '-restricted.json');
    const passes: { pass: Pass; resultFile: string }[] = [{ pass: 'trusted', resultFile }];
    if (!grep || /restricted/i.test(grep)) passes.push({ pass: 'restricted', resultFile: restrictedFile });
    fs.rmSync(restrictedFile, { force: true });
    fs.rmSync(`${restrictedFile}.progress`, { force: true });
    const [trusted, restricted] = await runInCodeServer(passes);
    report = trusted as IntegrationReport;
    if (restricted) {
      if (restricted.passes === 0) {
        restricted.failures += 1;
        restricted.tests.push({ title: 'the Restricted Mode pass ran no test', state: 'failed', error: 'no *.restricted.test.ts file ran' });
      }
      report = {
        passes: report.passes + restricted.passes,
        failures: report.failures + restricted.failures,
        pending: report.pending + restricted.pending,
        tests: [...report.tests, ...restricted.tests.map((test) => ({ ...test, title: `[Restricted Mode] ${test.title}` }))],
        figures: { ...report.figures, ...restricted.figures },
      };
    }
  }
  finish(report, host);
}

function finish(report: IntegrationReport, host: string): void {
  for (const test of report.tests) {
    const mark = test.state === 'passed' ? '✔' : test.state === 'failed' ? '✘' : '-';
    console.log(`  ${mark} ${test.title}${test.durationMs !== undefined ? ` (${test.durationMs} ms)` : ''}`);
    if (test.error) console.log(`      ${test.error.split('\n').slice(0, 6).join('\n      ')}`);
  }
  for (const [name, value] of Object.entries(report.figures)) console.log(`  figure ${name}: ${value.toFixed(1)}`);
  console.log(`[${host}]`);
  console.log(`integration: ${report.passes} passed, ${report.failures} failed${report.pending ? `, ${report.pending} skipped` : ''}`);
  if (report.failures > 0 || report.passes === 0 || report.pending > 0) {
    process.exitCode = 1;
  }
}

main()
  .finally(() => fs.rmSync(extraRoot, { recursive: true, force: true }))
  .catch((error: unknown) => {
    console.error(`Integration tests could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
