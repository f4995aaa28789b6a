// Type-checks the three TypeScript projects once, side by side, and emits the root project (src and
// test) into out/ for the mocha runners. `node scripts/compile.mjs` checks all three; `root` only the
// root project (enough for the unit, integration and e2e runners when run alone).
//
// Why not `tsc -b` with project references: bench/tsconfig.json extends the root project and
// compiles the same src/ files (with the DOM library) into the same out/ folder, which two
// referenced projects may not do; src/webview is noEmit. So: one emitting, incremental check of
// the root project plus incremental noEmit checks of the other two. The .tsbuildinfo files live in
// out/, so `rm -rf out` starts from scratch.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const info = (name) => path.join('out', '.tsbuildinfo', `${name}.tsbuildinfo`);

/** Every project: what it checks and the tsc arguments that do it. */
export const PROJECTS = {
  root: ['-p', 'tsconfig.json', '--outDir', 'out', '--incremental', '--tsBuildInfoFile', info('root')],
  webview: ['-p', 'src/webview/tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', info('webview')],
  bench: ['-p', 'bench/tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', info('bench')],
};

/** Runs tsc for one project; resolves with its output and exit code (output is kept until the end so parallel runs do not interleave). */
function runTsc(name) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, ...PROJECTS[name]], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ name, code: code ?? 1, output, seconds: (Date.now() - started) / 1000 }));
  });
}

/** Compiles the given projects in parallel; returns true when all passed. Prints one line per project. */
export async function compile(names = Object.keys(PROJECTS)) {
  const results = await Promise.all(names.map(runTsc));
  for (const result of results) {
    const verdict = result.code === 0 ? 'ok' : `failed (exit ${result.code})`;
    console.log(`tsc ${result.name}: ${verdict} in ${result.seconds.toFixed(1)} s`);
    if (result.output.trim()) process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
  }
  return results.every((result) => result.code === 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !(name in PROJECTS));
  if (unknown.length > 0) {
    console.error(`compile.mjs: unknown project ${unknown.join(', ')}; known: ${Object.keys(PROJECTS).join(', ')}`);
    process.exit(2);
  }
  process.exitCode = (await compile(asked.length > 0 ? asked : undefined)) ? 0 : 1;
}
