// The test command. `node scripts/test.mjs` (npm test) lints, type-checks the three projects and
// builds the bundles once, side by side, then runs the unit, integration and e2e suites on what was
// built. `node scripts/test.mjs unit|integration|e2e` (npm run test:unit, …) runs one suite,
// preparing only what it needs. Each step's wall time is printed at the end.
//
// One production build serves both suites in the full run: the integration suite loads dist/ from
// this folder, the e2e suite installs the .vsix packed from the same dist/ (what users get). A suite
// run alone keeps its old build: development bundles (with source maps) for integration, the
// packaged .vsix for e2e.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from './compile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
const timings = [];

/** Runs a command; with `quiet`, keeps its output and prints it once it ends (for steps run side by side). */
function run(command, args, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      output += `${error.message}\n`;
      resolve({ ok: false, output });
    });
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/** Times a step; resolves with whether it passed. */
async function step(name, action) {
  const started = Date.now();
  const ok = await action();
  const seconds = (Date.now() - started) / 1000;
  timings.push(`${name} ${seconds.toFixed(1)} s${ok ? '' : ' (failed)'}`);
  return ok;
}

async function quietly(name, command, args) {
  const result = await run(command, args, { quiet: true });
  process.stdout.write(`\n> ${name}\n${result.output}`);
  return result.ok;
}

const npm = process.env.npm_execpath ? [node, [process.env.npm_execpath]] : ['npm', []];
const steps = {
  // Runs once the lint script exists (another change adds it); until then it does nothing.
  lint: () => step('lint', () => quietly('npm run lint --if-present', npm[0], [...npm[1], 'run', 'lint', '--if-present'])),
  typecheck: () => step('typecheck (3 projects)', () => compile()),
  compileRoot: () => step('compile (root project)', () => compile(['root'])),
  buildDev: () => step('build (development)', () => quietly('node scripts/build.mjs', node, ['scripts/build.mjs'])),
  packageVsix: () => step('build (production) + package', () => quietly('node scripts/package.mjs', node, ['scripts/package.mjs'])),
  unit: () => step('unit', async () => (await run(node, [mochaBin(), '--config', 'test/unit/.mocharc.json'])).ok),
  integration: () => step('integration', async () => (await run(node, ['out/test/runIntegration.js'])).ok),
  e2e: () => step('e2e', async () => (await run(node, [mochaBin(), '--config', 'test/e2e/.mocharc.json'])).ok),
};

function mochaBin() {
  return path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
}

/** All of a phase's steps run side by side; the phase fails if one did. */
async function phase(...actions) {
  const results = await Promise.all(actions.map((action) => action()));
  return results.every(Boolean);
}

/** What each command prepares, then the suites it runs one after another (stopping at the first failure, as `&&` did). */
const prepare = (...actions) => () => step('prepare', () => phase(...actions));
const plans = {
  all: [prepare(steps.lint, steps.typecheck, steps.packageVsix), steps.unit, steps.integration, steps.e2e],
  unit: [steps.compileRoot, steps.unit],
  integration: [prepare(steps.compileRoot, steps.buildDev), steps.integration],
  e2e: [prepare(steps.compileRoot, steps.packageVsix), steps.e2e],
};

const which = process.argv[2] ?? 'all';
const plan = plans[which];
if (!plan) {
  console.error(`scripts/test.mjs: unknown part "${which}"; known: ${Object.keys(plans).join(', ')}`);
  process.exit(2);
}
const started = Date.now();
let ok = true;
for (const next of plan) {
  if (!(await next())) {
    ok = false;
    break;
  }
}
console.log(`\ntest ${which}: ${ok ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s (${timings.join('; ')})`);
process.exitCode = ok ? 0 : 1;
