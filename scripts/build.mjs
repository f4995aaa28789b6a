// Builds the bundles (extension, panel webview, preview webview, trace webview, tokenizer tables, CLI) with esbuild and copies sql.js's wasm beside
// the extension. `--production` minifies and drops source maps; `--watch` rebuilds on change.
import { build, context } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const dist = path.join(root, 'dist');

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  legalComments: production ? 'none' : 'inline',
  logLevel: 'warning',
  absWorkingDir: root,
};

const configs = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    // The SKILL.md preview is its own webview panel with its own bundle: the sidebar's code stays out of it.
    ...common,
    entryPoints: ['src/webview/preview/main.ts'],
    outfile: 'dist/preview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    // The Skill Run Trace panel: a run's timeline, its own small bundle like the preview's.
    ...common,
    entryPoints: ['src/webview/trace/main.ts'],
    outfile: 'dist/trace.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
  {
    // gpt-tokenizer's BPE tables (megabytes) in files of their own, loaded on the first token count
    // (src/core/llm/tokenCounter.ts), so neither the extension's activation nor the CLI's start parses them.
    ...common,
    sourcemap: false,
    entryPoints: {
      'tokenizer/o200k_base': 'node_modules/gpt-tokenizer/cjs/encoding/o200k_base.js',
      'tokenizer/cl100k_base': 'node_modules/gpt-tokenizer/cjs/encoding/cl100k_base.js',
    },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // isomorphic-git, the fallback when there is no git program: a file of its own, loaded on the
    // first clone without git (src/core/sharing/gitPorts.ts), shared by the extension and the CLI.
    ...common,
    sourcemap: false,
    entryPoints: { isomorphicGit: 'src/core/sharing/isomorphicGitEntry.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // The CLI itself; dist/cli.js (below) runs it with V8's code cache (src/cli/cliLoader.ts).
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cliMain.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    sourcemap: false,
    entryPoints: ['src/cli/cliLoader.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
];

async function copyWasm() {
  const require = createRequire(import.meta.url);
  const wasm = require.resolve('sql.js/dist/sql-wasm.wasm');
  await copyFile(wasm, path.join(dist, 'sql-wasm.wasm'));
}

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
if (watch) {
  const contexts = await Promise.all(configs.map((config) => context(config)));
  await Promise.all(contexts.map((ctx) => ctx.watch()));
  await copyWasm();
  console.log('esbuild: watching for changes');
} else {
  await Promise.all(configs.map((config) => build(config)));
  await copyWasm();
  console.log(`Built dist/ (${production ? 'production' : 'development'})`);
}
