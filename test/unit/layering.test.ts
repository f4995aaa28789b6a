import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../repoRoot';

const root = repoRoot();
const src = path.join(root, 'src');

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTs(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out.sort();
}

/** Module specifiers a file imports, re-exports or requires. */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\s+from\s+['"]([^'"]+)['"]/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

type Layer = 'core' | 'providers' | 'shared' | 'host' | 'webview' | 'cli' | 'entry';

function layerOf(file: string): Layer {
  const rel = path.relative(src, file).split(path.sep);
  if (rel.length === 1) return 'entry';
  return rel[0] as Layer;
}

/** Which layers each layer may import from (relative imports resolved to their folder). */
const allowed: Record<Layer, readonly Layer[]> = {
  core: ['core'],
  shared: ['shared'],
  providers: ['providers', 'core'],
  cli: ['cli', 'core', 'providers'],
  webview: ['webview', 'shared'],
  host: ['host', 'core', 'providers', 'shared'],
  entry: ['host'],
};

const files = listTs(src);

describe('layering', () => {
  it('finds the source tree', () => {
    assert.ok(files.length >= 10, `only ${files.length} files under src`);
    for (const layer of ['core', 'providers', 'shared', 'host', 'webview', 'cli']) {
      assert.ok(fs.existsSync(path.join(src, layer)), `src/${layer} is missing`);
    }
  });

  it('imports vscode only in src/host and src/extension.ts', () => {
    const offenders = files.filter((file) => {
      const layer = layerOf(file);
      return layer !== 'host' && layer !== 'entry' && importsOf(fs.readFileSync(file, 'utf8')).includes('vscode');
    });
    assert.deepEqual(offenders.map((f) => path.relative(root, f)), []);
  });

  it('keeps each layer to its allowed dependencies', () => {
    const violations: string[] = [];
    for (const file of files) {
      const layer = layerOf(file);
      for (const spec of importsOf(fs.readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (!target.startsWith(src + path.sep)) {
          if (!(layer === 'cli' && path.basename(target) === 'package.json')) {
            violations.push(`${path.relative(root, file)} -> ${spec} (outside src)`);
          }
          continue;
        }
        const targetLayer = layerOf(target.endsWith('.ts') ? target : `${target}.ts`);
        if (!allowed[layer].includes(targetLayer)) {
          violations.push(`${path.relative(root, file)} (${layer}) -> ${spec} (${targetLayer})`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });

  it('keeps DOM types and globals out of core, shared, providers and cli', () => {
    // Globals count when used (`window.x`); the words alone are ordinary English ("another window").
    const dom = /\b(?:document|window|navigator|localStorage)\s*\.|\b(?:HTMLElement|MessageEvent|acquireVsCodeApi)\b|reference\s+lib=["']dom/;
    const offenders = files
      .filter((file) => ['core', 'shared', 'providers', 'cli'].includes(layerOf(file)))
      .filter((file) => dom.test(fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
      .map((file) => path.relative(root, file));
    assert.deepEqual(offenders, []);
    const config = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { lib: string[] };
      exclude: string[];
    };
    assert.ok(!config.compilerOptions.lib.some((lib) => lib.toLowerCase().startsWith('dom')), 'root tsconfig must not load DOM types');
    assert.ok(config.exclude.includes('src/webview/**'), 'the webview must be typechecked by its own tsconfig');
  });

  it('keeps node built-ins out of the webview bundle', () => {
    const offenders = files
      .filter((file) => layerOf(file) === 'webview')
      .filter((file) => importsOf(fs.readFileSync(file, 'utf8')).some((spec) => spec.startsWith('node:') || spec === 'fs' || spec === 'path'))
      .map((file) => path.relative(root, file));
    assert.deepEqual(offenders, []);
  });

  it('detects the import forms the rules rely on', () => {
    const sample = `import * as vscode from 'vscode';\nimport type { X } from "../host/x";\nexport { y } from './y';\nconst z = require('vscode');\nimport './side';`;
    assert.deepEqual(importsOf(sample).sort(), ['../host/x', './side', './y', 'vscode', 'vscode']);
  });
});
