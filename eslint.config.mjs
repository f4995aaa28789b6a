// ESLint flat config. Three jobs: the TypeScript rules a strict codebase expects (type-aware),
// the layer table as `no-restricted-imports` (so the editor flags a forbidden import as it is
// typed), and import cycles. test/unit/layering.test.ts stays the authority on layering: it also
// sees `require`, `import('./x').T` types and type-only cycles, which these rules do not.
import * as fs from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const here = import.meta.dirname;
const src = path.join(here, 'src');

// --- The folder table: a copy of `importTable` in test/unit/layering.test.ts (keep in step). ---
// A folder may always import itself, npm packages and Node built-ins. `x/*` means any folder
// below x. A key `x/*` is the row for rooms of x without their own row.
// The folder table, shared with test/unit/layering.test.ts (one definition, two enforcers).
const { helperRoom: HELPER_ROOM, rows: importTable } = JSON.parse(fs.readFileSync(path.join(here, 'test', 'importTable.json'), 'utf8'));

/** Same mapping as the test: core rooms (and skills rooms) are folders; other layers are one folder each. */
function folderOf(dirRelToSrc) {
  const parts = dirRelToSrc === '' ? [] : dirRelToSrc.split('/');
  if (parts.length === 0) return 'extension';
  if (parts[0] === 'shared' && parts[1] === 'system') return HELPER_ROOM;
  if (parts[0] !== 'core') return parts[0];
  return parts.slice(0, parts[1] === 'skills' ? 3 : 2).join('/');
}
const matches = (pattern, folder) => (pattern.endsWith('/*') ? folder.startsWith(pattern.slice(0, -1)) : pattern === folder);
function rowOf(folder) {
  if (folder in importTable && !folder.endsWith('/*')) return importTable[folder];
  const wildcard = Object.keys(importTable)
    .filter((key) => key.endsWith('/*') && matches(key, folder))
    .sort((a, b) => b.length - a.length)[0];
  return wildcard === undefined ? undefined : importTable[wildcard];
}

/** Folders under src (relative, `/`-separated, '' for src itself) that hold TypeScript files. */
function sourceDirs(dir = src) {
  const entries = fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : [];
  const own = entries.some((entry) => entry.isFile() && entry.name.endsWith('.ts')) ? [path.relative(src, dir).split(path.sep).join('/')] : [];
  return [...own, ...entries.filter((entry) => entry.isDirectory()).flatMap((entry) => sourceDirs(path.join(dir, entry.name)))];
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * no-restricted-imports sees the specifier as written, not the file it resolves to, so for each
 * source directory this spells out every way a relative specifier from there can reach a
 * forbidden folder: climb k levels (`../` k times, or `./` for none), then walk down.
 */
function specifierRegex(fromDir, targetPath) {
  const from = fromDir === '' ? [] : fromDir.split('/');
  const target = targetPath.split('/');
  const ways = [];
  for (let climb = 0; climb <= from.length; climb += 1) {
    const base = from.slice(0, from.length - climb);
    if (!base.every((part, i) => target[i] === part) || target.length <= base.length) continue;
    const up = climb === 0 ? '\\./' : `(?:\\.\\./){${climb}}`;
    ways.push(`${up}${escape(target.slice(base.length).join('/'))}`);
  }
  return ways.length === 0 ? undefined : `^(?:${ways.join('|')})(?:/|\\.ts$|\\.js$|$)`;
}

const dirs = sourceDirs();
const knownFolders = [...new Set([...Object.keys(importTable).filter((key) => !key.endsWith('/*')), ...dirs.map(folderOf)])].sort();
// The path under src that a folder name stands for (the entry point is a file, not a folder).
const folderPath = (folder) => (folder === 'extension' ? 'extension' : folder);
const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_'));

/** One no-restricted-imports block per source directory: a file gets exactly one, so none overrides another. */
const layerBlocks = dirs.map((dir) => {
  const folder = folderOf(dir);
  const row = rowOf(folder) ?? [];
  const patterns = knownFolders
    .filter((target) => target !== folder && target !== HELPER_ROOM && !row.some((pattern) => matches(pattern, target)))
    .flatMap((target) => {
      const found = specifierRegex(dir, folderPath(target));
      // Forbidding shared (the protocol) must not forbid shared/system beneath it.
      const regex = target === 'shared' ? found?.replace('(?:/|', '(?:/(?!system/)|') : found;
      const message = `${folder} may not import ${target} (the folder table in test/importTable.json, docs/architecture.md).`;
      return regex === undefined ? [] : [{ regex, caseSensitive: true, message }];
    });
  const paths = [];
  if (folder !== 'host' && folder !== 'extension') {
    paths.push({ name: 'vscode', message: 'Only src/host and src/extension.ts may import vscode; core, providers, cli, shared and webview run without it.' });
  }
  // The webview is a browser bundle, and shared is bundled into it.
  if (folder === 'webview' || folder === 'shared') {
    const message = 'The webview runs in a browser: no Node built-ins (shared is bundled into it too).';
    paths.push(...nodeBuiltins.map((name) => ({ name, message })));
    patterns.push({ regex: '^node:', caseSensitive: true, message });
  }
  return {
    name: `skillwright/layers/${dir === '' ? '(src)' : dir}`,
    files: [dir === '' ? 'src/*.ts' : `src/${dir}/*.ts`],
    rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
  };
});

export default defineConfig(
  {
    name: 'skillwright/ignores',
    ignores: ['out/', 'dist/', 'node_modules/', '.vscode-test/', 'test-results/', 'sample-workspace/', 'coverage/', '**/*.vsix', 'skills-templates/'],
  },
  { name: 'skillwright/linter-options', linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  {
    name: 'skillwright/typescript',
    files: ['**/*.ts'],
    // The syntactic strict and stylistic presets, plus a short list of type-aware rules (below).
    // Measured on this 2-core machine (CPU seconds, cold): no types ~20, this list 53-75, the full
    // strictTypeChecked + stylisticTypeChecked presets 77-100 (docs/decisions.md). The list keeps
    // the type-aware rules that find bugs; the rest of the typed presets cost a third more.
    extends: [tseslint.configs.strict, tseslint.configs.stylistic],
    languageOptions: {
      // The project service picks each file's nearest tsconfig (root, src/webview, bench).
      parserOptions: { projectService: true, tsconfigRootDir: here },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // tsc's noUnusedLocals/noUnusedParameters already fail the build; this adds the editor hint
      // and the same escape hatch (a leading underscore) tsc accepts.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'all', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Type-aware. A promise nobody awaits loses its rejection, and in a test an un-awaited
      // `assert.rejects` is a test that cannot fail; an async callback where VS Code or an emitter
      // expects `void` does the same.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'error',
      // Casts and checks that the types already make redundant hide the ones that matter.
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-unnecessary-condition': 'error',
      // Numbers in messages ("3 files") are fine; objects and undefined in a message are bugs.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-base-to-string': 'error',
    },
  },
  {
    // Rules whose findings predate ESLint here. They stay visible as warnings in every run (the
    // count is in the lint output) and are paid down file by file; new code should not add to
    // them. Layering, cycles, type imports, `any` and the promise rules are errors (docs/decisions.md).
    name: 'skillwright/debt',
    files: ['**/*.ts'],
    rules: Object.fromEntries(
      [
        '@typescript-eslint/no-unnecessary-condition',
        '@typescript-eslint/no-non-null-assertion',
        '@typescript-eslint/require-await',
        '@typescript-eslint/no-unnecessary-type-assertion',
        '@typescript-eslint/no-base-to-string',
        '@typescript-eslint/restrict-template-expressions',
        '@typescript-eslint/prefer-for-of',
        '@typescript-eslint/consistent-type-definitions',
        '@typescript-eslint/consistent-indexed-object-style',
        '@typescript-eslint/array-type',
        '@typescript-eslint/no-invalid-void-type',
        '@typescript-eslint/no-empty-object-type',
        '@typescript-eslint/no-dynamic-delete',
        '@typescript-eslint/no-require-imports',
        'no-useless-assignment',
        'no-misleading-character-class',
        'preserve-caught-error',
        'no-regex-spaces',
        'no-useless-escape',
        'require-yield',
      ].map((rule) => [rule, 'warn']),
    ),
  },
  {
    // Path, file-name and threat checks match control characters on purpose.
    name: 'skillwright/control-characters',
    files: ['**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    name: 'skillwright/javascript',
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    name: 'skillwright/import-cycles',
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // The built-in resolver, taught our extension-less relative imports of .ts files.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'] })],
    },
    rules: {
      // Value cycles only: import-x skips `import type` edges, which the layering test checks.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  ...layerBlocks,
);
