import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export interface IntegrationReport {
  passes: number;
  failures: number;
  pending: number;
  readonly tests: { title: string; state: 'passed' | 'failed' | 'pending'; durationMs?: number; error?: string }[];
  /** Figures tests publish for the run's summary, e.g. activation time. */
  readonly figures: Record<string, number>;
}

/** Figures a test wants printed by the runner (kept on the global so every test file shares it). */
export function publishFigure(name: string, value: number): void {
  const store = globalThis as { __skillwrightFigures?: Record<string, number> };
  store.__skillwrightFigures ??= {};
  store.__skillwrightFigures[name] = value;
}

/**
 * Entry called by VS Code's extension host (`extensionTestsPath`), under @vscode/test-electron and
 * in code-server alike. Results go to a JSON file because code-server's extension host output is
 * not ours to read; the runner waits for that file and fails if it never appears.
 */
export async function run(): Promise<void> {
  const resultFile = process.env.SKILLWRIGHT_TEST_RESULTS;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000 });
  const files = fs
    .readdirSync(__dirname)
    // The Restricted Mode pass runs only the `*.restricted.test.js` files, the trusted pass the rest.
    .filter((name) => name.endsWith('.test.js') && name.endsWith('.restricted.test.js') === (process.env.SKILLWRIGHT_TEST_PASS === 'restricted'))
    .sort();
  const grep = process.env.SKILLWRIGHT_TEST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of files) mocha.addFile(path.join(__dirname, file));

  const report: IntegrationReport = { passes: 0, failures: 0, pending: 0, tests: [], figures: {} };
  const write = () => {
    const figures = (globalThis as { __skillwrightFigures?: Record<string, number> }).__skillwrightFigures ?? {};
    const final = { ...report, figures };
    if (resultFile) {
      fs.mkdirSync(path.dirname(resultFile), { recursive: true });
      fs.writeFileSync(`${resultFile}.tmp`, JSON.stringify(final, null, 2));
      fs.renameSync(`${resultFile}.tmp`, resultFile);
    }
  };

  await new Promise<void>((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        write();
        if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
        else resolve();
      });
      runner.on('pass', (test) => {
        report.passes += 1;
        report.tests.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 });
      });
      runner.on('fail', (test, error: Error) => {
        report.failures += 1;
        report.tests.push({ title: test.fullTitle(), state: 'failed', error: `${error.message}\n${error.stack ?? ''}` });
      });
      // The runner's deadline counts from the last finished test, so a long suite on a busy
      // machine is not mistaken for a stuck one.
      runner.on('test end', () => {
        if (resultFile) {
          fs.mkdirSync(path.dirname(resultFile), { recursive: true });
          fs.writeFileSync(`${resultFile}.progress`, String(report.passes + report.failures + report.pending));
        }
      });
      runner.on('pending', (test) => {
        report.pending += 1;
        report.tests.push({ title: test.fullTitle(), state: 'pending' });
      });
    } catch (error) {
      report.failures += 1;
      report.tests.push({ title: 'loading the integration suite', state: 'failed', error: String(error) });
      write();
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
