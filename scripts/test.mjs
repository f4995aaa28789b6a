// The test command. `node scripts/test.mjs` (npm test) lints, type-checks the three projects and
// builds the bundles once, side by side, then runs the suites on what was built: the unit and then
// the integration suite in one lane, the e2e suite in two more (two mocha processes, each with its
// own Chromium and code-servers). `node scripts/test.mjs unit|integration|e2e` (npm run test:unit,
// …) runs one suite, preparing only what it needs. SKILLWRIGHT_SERIAL=1 (and CI=true) runs one thing at a time.
//
// Why lanes: a suite spends much of its time waiting (a window loading, a watcher's debounce, a
// poll); alone, the e2e suite keeps about one of two cores busy. Each suite has its own processes,
// ports and temporary folders, so they do not meet.
//
// One production build serves both suites in the full run: the integration suite loads dist/ from
// this folder, the e2e suite installs the .vsix packed from the same dist/ (what users get). A suite
// run alone keeps its old build: development bundles (with source maps) for integration, the
// packaged .vsix for e2e.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from './compile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
const mocha = path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
// CI (CI=true, set by .ci/run) runs one thing at a time: on its two cores the side-by-side lanes
// starve the timing-sensitive workbench tests, and a green run matters more there than minutes.
// SKILLWRIGHT_SERIAL=0 keeps the lanes in CI; =1 asks for one at a time anywhere.
const serial = process.env.SKILLWRIGHT_SERIAL === '1' || (process.env.CI === 'true' && process.env.SKILLWRIGHT_SERIAL !== '0');
const timings = [];

/**
 * The e2e files that hold the Restricted Mode suites (they need a second code-server) go to the
 * first shard, with History to even the two out; every other file, new ones too, to the second.
 */
const E2E_FIRST_SHARD = ['panel', 'memory', 'skills', 'history'];

/** CPU seconds of the child processes that ended so far (Linux: cutime + cstime of /proc/self/stat), or undefined elsewhere. */
function childCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Runs a command. `quiet` keeps its output and prints it once it ends (short steps run side by
 * side); `prefix` streams it with the prefix on every line (long suites run side by side).
 */
function run(command, args, { quiet = false, prefix = '' } = {}) {
  return new Promise((resolve) => {
    const piped = quiet || prefix !== '';
    const child = spawn(command, args, { cwd: root, stdio: piped ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    let output = '';
    const partial = { stdout: '', stderr: '' };
    const onData = (stream, target) => (chunk) => {
      if (quiet) {
        output += chunk;
        return;
      }
      const lines = (partial[stream] + chunk).split('\n');
      partial[stream] = lines.pop() ?? '';
      for (const line of lines) target.write(`${prefix} ${line}\n`);
    };
    child.stdout?.on('data', onData('stdout', process.stdout));
    child.stderr?.on('data', onData('stderr', process.stderr));
    const finish = (ok) => {
      if (partial.stdout) process.stdout.write(`${prefix} ${partial.stdout}\n`);
      if (partial.stderr) process.stderr.write(`${prefix} ${partial.stderr}\n`);
      resolve({ ok, output });
    };
    child.on('error', (error) => {
      output += `${error.message}\n`;
      finish(false);
    });
    child.on('close', (code) => finish(code === 0));
  });
}

/** Times a step (wall time; CPU too when `cpu`, for steps nothing else runs beside); resolves with whether it passed. */
async function step(name, action, { cpu = false } = {}) {
  const started = Date.now();
  const cpuBefore = cpu ? childCpuSeconds() : undefined;
  const ok = await action();
  const cpuAfter = cpu ? childCpuSeconds() : undefined;
  const cpuText = cpuBefore !== undefined && cpuAfter !== undefined ? `, CPU ${(cpuAfter - cpuBefore).toFixed(1)} s` : '';
  timings.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s${cpuText}${ok ? '' : ' (FAILED)'}`);
  return ok;
}

async function quietly(name, command, args) {
  const result = await run(command, args, { quiet: true });
  process.stdout.write(`\n> ${name}\n${result.output}`);
  return result.ok;
}

/** Mocha configs for the e2e shards, written to out/: test/e2e/.mocharc.json with the shard's files as its spec. */
function e2eShardConfigs() {
  const base = JSON.parse(readFileSync(path.join(root, 'test', 'e2e', '.mocharc.json'), 'utf8'));
  const dir = path.join('out', 'test', 'e2e');
  const files = readdirSync(path.join(root, dir)).filter((name) => name.endsWith('.e2e.js')).sort();
  const first = files.filter((name) => E2E_FIRST_SHARD.includes(name.slice(0, -'.e2e.js'.length)));
  const shards = [first, files.filter((name) => !first.includes(name))].filter((shard) => shard.length > 0);
  return shards.map((shard, i) => {
    const config = path.join(root, dir, `.mocharc.shard-${i + 1}.json`);
    writeFileSync(config, `${JSON.stringify({ ...base, spec: shard.map((name) => path.join(dir, name)) }, null, 2)}\n`);
    return config;
  });
}

const npm = process.env.npm_execpath ? [node, [process.env.npm_execpath]] : ['npm', []];
const steps = {
  lint: () => step('lint', () => quietly('npm run lint --if-present', npm[0], [...npm[1], 'run', 'lint', '--if-present'])),
  typecheck: () => step('typecheck (3 projects)', () => compile()),
  compileRoot: () => step('compile (root project)', () => compile(['root'])),
  buildDev: () => step('build (development)', () => quietly('node scripts/build.mjs', node, ['scripts/build.mjs'])),
  packageVsix: () => step('build (production) + package', () => quietly('node scripts/package.mjs', node, ['scripts/package.mjs'])),
  unit: (prefix = '') => step('unit', async () => (await run(node, [mocha, '--config', 'test/unit/.mocharc.json'], { prefix })).ok),
  integration: (prefix = '') => step('integration', async () => (await run(node, ['out/test/runIntegration.js'], { prefix })).ok),
  e2e: () => {
    if (serial) return step('e2e', async () => (await run(node, [mocha, '--config', 'test/e2e/.mocharc.json'])).ok);
    const configs = e2eShardConfigs();
    return phase(
      ...configs.map((config, i) => () => {
        const name = `e2e ${i + 1}/${configs.length}`;
        return step(name, async () => (await run(node, [mocha, '--config', path.relative(root, config)], { prefix: `[${name}]` })).ok);
      }),
    );
  },
};

/** Runs actions side by side (one after another with SKILLWRIGHT_SERIAL=1); passes if every one passed, and runs them all either way. */
async function phase(...actions) {
  if (serial) {
    const results = [];
    for (const action of actions) results.push(await action());
    return results.every(Boolean);
  }
  const results = await Promise.all(actions.map((action) => action()));
  return results.every(Boolean);
}

/** One action after another, stopping at the first that fails. */
const lane =
  (...actions) =>
  async () => {
    for (const action of actions) if (!(await action())) return false;
    return true;
  };

const together = (name, ...actions) => () => step(name, () => phase(...actions), { cpu: true });
const plans = {
  all: [
    together('prepare', steps.lint, steps.typecheck, steps.packageVsix),
    together('suites', lane(() => steps.unit(serial ? '' : '[unit]'), () => steps.integration(serial ? '' : '[integration]')), steps.e2e),
  ],
  unit: [steps.compileRoot, together('suites', () => steps.unit())],
  integration: [together('prepare', steps.compileRoot, steps.buildDev), together('suites', () => steps.integration())],
  e2e: [together('prepare', steps.compileRoot, steps.packageVsix), together('suites', steps.e2e)],
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
const totalCpu = childCpuSeconds();
const cpuText = totalCpu === undefined ? '' : `, CPU ${totalCpu.toFixed(1)} s`;
console.log(`\ntest ${which}: ${ok ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s${cpuText} (${timings.join('; ')})`);
process.exitCode = ok ? 0 : 1;
