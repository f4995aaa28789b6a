import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
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

/** One module reference in a file: its specifier and whether it only brings in types. */
export interface ImportRef {
  readonly spec: string;
  readonly typeOnly: boolean;
}

/**
 * Every module a file imports, re-exports, requires or names in a type (`import('./x').T`).
 * Parsed with the TypeScript compiler rather than regular expressions, so an import-like line
 * inside a string or a comment (skill templates, docs in JSDoc) is not an edge, and a type-only
 * edge is still one: the cycle check counts it, because it ties the two files together for
 * anyone reading or moving them even though it vanishes from the emitted JavaScript.
 */
export function importRefsOf(text: string, fileName = 'file.ts'): ImportRef[] {
  const found: ImportRef[] = [];
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      // `import { type A, type B }` is as type-only as `import type { A, B }`.
      const allNamedAreTypes =
        clause !== undefined &&
        clause.name === undefined &&
        bindings !== undefined &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly);
      found.push({ spec: node.moduleSpecifier.text, typeOnly: clause?.phaseModifier === ts.SyntaxKind.TypeKeyword || allNamedAreTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      if (ts.isStringLiteral(expression)) found.push({ spec: expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
      const [first] = node.arguments;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      const isDynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      if ((isRequire || isDynamicImport) && first !== undefined && ts.isStringLiteral(first)) {
        found.push({ spec: first.text, typeOnly: false });
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Module specifiers a file imports, re-exports or requires (type-only ones included). */
export function importsOf(text: string): string[] {
  return importRefsOf(text).map((ref) => ref.spec);
}

type Layer = 'core' | 'providers' | 'shared' | 'host' | 'webview' | 'cli' | 'entry';

function layerOf(file: string): Layer {
  const rel = path.relative(src, file).split(path.sep);
  if (rel.length === 1) return 'entry';
  return rel[0] as Layer;
}

/** Which layers each layer may import from (relative imports resolved to their folder). */
const allowed: Record<Layer, readonly Layer[]> = {
  // core may use the pure helpers of src/shared/system (the folder table below keeps it off the protocol).
  core: ['core', 'shared'],
  shared: ['shared'],
  providers: ['providers', 'core'],
  cli: ['cli', 'core', 'providers'],
  webview: ['webview', 'shared'],
  host: ['host', 'core', 'providers', 'shared'],
  entry: ['host'],
};

// ---------------------------------------------------------------------------------------------
// The per-folder table. A "folder" is the unit the architecture talks about: each room of
// src/core (and each room of src/core/skills), and each other top-level layer as a whole (its
// subfolders are one layer's internal organisation, free to import one another).

/** The folder a file belongs to, from its path relative to src with `/` separators. */
export function folderOf(relToSrc: string): string {
  const parts = relToSrc.split('/');
  parts.pop();
  const [top] = parts;
  if (top === undefined) return 'extension';
  // src/shared/system is the helper room every layer may import; the rest of src/shared is the protocol.
  if (top === 'shared' && parts[1] === 'system') return 'shared/system';
  if (top !== 'core') return top;
  // core/<room>, or core/skills/<room>; files lying loose in core/ or core/skills/ get the bare
  // folder name, which has no row, so they are reported instead of silently allowed.
  const depth = parts[1] === 'skills' ? 3 : 2;
  return parts.slice(0, depth).join('/');
}

/**
 * Where each folder may import from, besides itself, npm packages and Node built-ins.
 * A pattern ending in `/*` means any folder below that prefix (`core/*`: every core room).
 * A row key ending in `/*` is the fallback for rooms without their own row.
 */
export type ImportTable = Readonly<Record<string, readonly string[]>>;

/** The table itself lives in test/importTable.json, which ESLint reads too. */
const tableFile = JSON.parse(fs.readFileSync(path.join(root, 'test', 'importTable.json'), 'utf8')) as { helperRoom: string; rows: Record<string, string[]> };
export const importTable: ImportTable = tableFile.rows;
const skillsBase = importTable['core/skills/*'];

/** Pure helpers shared by core, host and webview, so none of them keeps a copy. */
export const HELPER_ROOM = tableFile.helperRoom;

function matches(pattern: string, folder: string): boolean {
  return pattern.endsWith('/*') ? folder.startsWith(pattern.slice(0, -1)) : pattern === folder;
}

/** A folder's row: its own, else the most specific wildcard row that covers it. */
export function rowOf(table: ImportTable, folder: string): readonly string[] | undefined {
  const own = table[folder];
  if (own !== undefined && !folder.endsWith('/*')) return own;
  const wildcard = Object.keys(table)
    .filter((key) => key.endsWith('/*') && matches(key, folder))
    .sort((a, b) => b.length - a.length)[0];
  return wildcard === undefined ? undefined : table[wildcard];
}

/** One relative import between two source files, by paths relative to the repository root. */
export interface FileEdge {
  readonly from: string;
  readonly to: string;
  readonly spec: string;
  readonly typeOnly: boolean;
}

/** The edges the table forbids, as readable lines; a folder without a row forbids everything. */
export function tableViolations(edges: readonly FileEdge[], table: ImportTable, folderOfFile: (file: string) => string): string[] {
  const violations: string[] = [];
  for (const edge of edges) {
    const from = folderOfFile(edge.from);
    const to = folderOfFile(edge.to);
    // The helper room is a leaf every layer may import (its own row keeps it importing nothing).
    if (from === to || to === HELPER_ROOM) continue;
    const row = rowOf(table, from);
    if (row === undefined) {
      violations.push(`${edge.from} -> ${edge.spec}: folder ${from} has no row in the table`);
    } else if (!row.some((pattern) => matches(pattern, to))) {
      violations.push(`${edge.from} -> ${edge.spec}: ${from} may not import ${to}${edge.typeOnly ? ' (type-only)' : ''}`);
    }
  }
  return violations;
}

/**
 * The cycles of a directed graph, one per strongly connected component (Tarjan), each given as
 * a shortest closed path through the component's first node so the report names real files in
 * order. A component is usually one small cycle; a larger knot shows one of its loops, and
 * breaking it reveals the next.
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, { index: number; low: number }>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const loops: string[][] = [];
  const strongConnect = (node: string): { index: number; low: number } => {
    const mine = { index: state.size, low: state.size };
    state.set(node, mine);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next);
      if (seen === undefined) mine.low = Math.min(mine.low, strongConnect(next).low);
      else if (onStack.has(next)) mine.low = Math.min(mine.low, seen.index);
    }
    if (mine.low === mine.index) {
      const members = stack.splice(stack.lastIndexOf(node));
      for (const member of members) onStack.delete(member);
      if (members.length > 1 || (graph.get(node) ?? []).includes(node)) {
        const first = members.reduce((a, b) => (b < a ? b : a), node);
        loops.push(shortestLoop(graph, first, new Set(members)));
      }
    }
    return mine;
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) strongConnect(node);
  return loops.sort((a, b) => a.join('\n').localeCompare(b.join('\n')));
}

/** Breadth-first from `start` back to itself inside one component: the loop to report. */
function shortestLoop(graph: ReadonlyMap<string, readonly string[]>, start: string, within: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  // for-of visits the nodes pushed while it runs: the queue of a breadth-first search.
  for (const node of queue) {
    for (const next of graph.get(node) ?? []) {
      if (!within.has(next)) continue;
      if (next === start) {
        const loop = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) loop.splice(1, 0, at);
        return [...loop, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start]; // unreachable for a real component; keeps the type total
}

/** The folder graph the table describes, over the given folders (wildcards expanded, self-edges dropped). */
export function tableGraph(table: ImportTable, folders: readonly string[]): Map<string, string[]> {
  const nodes = [...new Set([...Object.keys(table).filter((key) => !key.endsWith('/*')), ...folders])].sort();
  const graph = new Map<string, string[]>();
  for (const node of nodes) {
    const row = rowOf(table, node) ?? [];
    graph.set(
      node,
      nodes.filter((other) => other !== node && row.some((pattern) => matches(pattern, other))),
    );
  }
  return graph;
}

/** Resolves a relative specifier the way tsc's node resolution does for our sources. */
function resolveRelative(fromFile: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), spec);
  const candidates = [base, `${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

const files = listTs(src);

// Parsing is the slow part (a few seconds for the tree on a busy machine): parse each file once.
const refsCache = new Map<string, readonly ImportRef[]>();
function refsOfFile(file: string): readonly ImportRef[] {
  let refs = refsCache.get(file);
  if (refs === undefined) {
    refs = importRefsOf(fs.readFileSync(file, 'utf8'), file);
    refsCache.set(file, refs);
  }
  return refs;
}
const specsOfFile = (file: string): string[] => refsOfFile(file).map((ref) => ref.spec);
const relToRoot = (file: string): string => path.relative(root, file).split(path.sep).join('/');
const folderOfRootRel = (file: string): string => folderOf(file.replace(/^src\//, ''));

/** Every relative import between files under src, plus the ones that leave src or resolve nowhere. */
let edgesCache: { edges: FileEdge[]; outside: string[] } | undefined;
function sourceEdges(): { edges: FileEdge[]; outside: string[] } {
  if (edgesCache !== undefined) return edgesCache;
  const edges: FileEdge[] = [];
  const outside: string[] = [];
  for (const file of files) {
    for (const ref of refsOfFile(file)) {
      if (!ref.spec.startsWith('.')) continue;
      const target = resolveRelative(file, ref.spec);
      const from = relToRoot(file);
      if (target === undefined) {
        outside.push(`${from} -> ${ref.spec}: resolves to no file`);
      } else if (!target.startsWith(src + path.sep)) {
        // The CLI prints its version from the manifest; nothing else leaves src.
        if (!(folderOfRootRel(from) === 'cli' && relToRoot(target) === 'package.json')) outside.push(`${from} -> ${ref.spec}: outside src`);
      } else if (target.endsWith('.ts')) {
        edges.push({ from, to: relToRoot(target), spec: ref.spec, typeOnly: ref.typeOnly });
      }
    }
  }
  edgesCache = { edges, outside };
  return edgesCache;
}

function fileGraph(edges: readonly FileEdge[]): Map<string, string[]> {
  const graph = new Map<string, string[]>(files.map((file) => [relToRoot(file), []]));
  for (const edge of edges) graph.get(edge.from)?.push(edge.to);
  return graph;
}

/** A cycle as one line, marking the edges that only carry types (the usual fix: move the type to a leaf). */
function describeCycle(cycle: readonly string[], edges: readonly FileEdge[]): string {
  const [first = '', ...rest] = cycle;
  let line = first;
  let from = first;
  for (const to of rest) {
    const typeOnly = edges.filter((edge) => edge.from === from && edge.to === to).every((edge) => edge.typeOnly);
    line += typeOnly ? ` -(type)-> ${to}` : ` -> ${to}`;
    from = to;
  }
  return line;
}

describe('layering', () => {
  // Parse the tree up front: on a loaded 2-core machine it can take seconds, which belongs to no one test.
  before(function () {
    this.timeout(120_000);
    for (const file of files) refsOfFile(file);
  });

  it('finds the source tree', () => {
    assert.ok(files.length >= 10, `only ${files.length} files under src`);
    for (const layer of ['core', 'providers', 'shared', 'host', 'webview', 'cli']) {
      assert.ok(fs.existsSync(path.join(src, layer)), `src/${layer} is missing`);
    }
  });

  it('imports vscode only in src/host and src/extension.ts', () => {
    const offenders = files.filter((file) => {
      const layer = layerOf(file);
      return layer !== 'host' && layer !== 'entry' && specsOfFile(file).includes('vscode');
    });
    assert.deepEqual(offenders.map((f) => path.relative(root, f)), []);
  });

  it('keeps each layer to its allowed dependencies', () => {
    const violations: string[] = [];
    for (const file of files) {
      const layer = layerOf(file);
      for (const spec of specsOfFile(file)) {
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

  it('keeps every relative import between folders to the per-folder table', () => {
    const { edges, outside } = sourceEdges();
    assert.ok(edges.length > files.length / 2, `only ${edges.length} relative imports found: the parser is broken`);
    const violations = [...outside, ...tableViolations(edges, importTable, folderOfRootRel)];
    if (violations.length > 0) assert.fail(`${violations.length} imports break the folder table:\n  ${violations.join('\n  ')}`);
  });

  it('has no import cycle between files (type-only imports included)', () => {
    const { edges } = sourceEdges();
    const cycles = findCycles(fileGraph(edges)).map((cycle) => describeCycle(cycle, edges));
    if (cycles.length > 0) assert.fail(`${cycles.length} import cycles:\n  ${cycles.join('\n  ')}`);
  });

  it('describes an acyclic folder graph, and every folder in the tree has a row', () => {
    const folders = [...new Set(files.map((file) => folderOfRootRel(relToRoot(file))))].sort();
    const withoutRow = folders.filter((folder) => rowOf(importTable, folder) === undefined);
    assert.deepEqual(withoutRow, [], 'folders under src that the table does not cover');
    const cycles = findCycles(tableGraph(importTable, folders)).map((cycle) => cycle.join(' -> '));
    assert.deepEqual(cycles, [], 'the folder table itself has a cycle');
    // Every row names folders that can exist: a typo would otherwise allow nothing, silently.
    const known = [...new Set([...Object.keys(importTable), ...folders])];
    const dangling = Object.entries(importTable).flatMap(([key, row]) =>
      row.filter((pattern) => !known.some((folder) => matches(pattern, folder))).map((pattern) => `${key} -> ${pattern}`),
    );
    assert.deepEqual(dangling, [], 'table rows that name no folder');
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
      .filter((file) => specsOfFile(file).some((spec) => spec.startsWith('node:') || spec === 'fs' || spec === 'path'))
      .map((file) => path.relative(root, file));
    assert.deepEqual(offenders, []);
  });

  it('detects the import forms the rules rely on', () => {
    const sample = `import * as vscode from 'vscode';\nimport type { X } from "../host/x";\nexport { y } from './y';\nconst z = require('vscode');\nimport './side';`;
    assert.deepEqual(importsOf(sample).sort(), ['../host/x', './side', './y', 'vscode', 'vscode']);
    const more = [
      `import { type A, type B } from './onlyTypes';`,
      `import { type C, d } from './mixed';`,
      `export type { E } from './reexportedType';`,
      `import f = require('./equals');`,
      `let g: import('./inlineType').G;`,
      `const h = import('./lazy');`,
      `// import { no } from './comment';`,
      `const text = "import { no } from './string'";`,
    ].join('\n');
    assert.deepEqual(importRefsOf(more), [
      { spec: './onlyTypes', typeOnly: true },
      { spec: './mixed', typeOnly: false },
      { spec: './reexportedType', typeOnly: true },
      { spec: './equals', typeOnly: false },
      { spec: './inlineType', typeOnly: true },
      { spec: './lazy', typeOnly: false },
    ]);
  });

  it('maps files to the folders of the table', () => {
    assert.equal(folderOf('extension.ts'), 'extension');
    assert.equal(folderOf('core/base/logger.ts'), 'core/base');
    assert.equal(folderOf('core/tools/deep/x.ts'), 'core/tools');
    assert.equal(folderOf('core/skills/lint/rules/x.ts'), 'core/skills/lint');
    assert.equal(folderOf('core/loose.ts'), 'core');
    assert.equal(folderOf('core/skills/loose.ts'), 'core/skills');
    assert.equal(folderOf('host/chat/chatController.ts'), 'host');
    assert.equal(folderOf('webview/preview/main.ts'), 'webview');
    assert.deepEqual(rowOf(importTable, 'core/skills/newRoom'), skillsBase, 'a new skills room falls back to the skills row');
    assert.equal(rowOf(importTable, 'core'), undefined, 'a loose core file has no row');
  });

  // The checks above pass vacuously if they cannot see a problem: prove they can, on synthetic graphs.
  it('self-test: the cycle check finds cycles, type-only ones included, and passes a DAG', () => {
    const graph = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['g']],
      ['g', []],
    ]);
    assert.deepEqual(findCycles(graph), [
      ['a', 'b', 'c', 'a'],
      ['e', 'e'],
    ]);
    assert.deepEqual(findCycles(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), []);
    const typeEdge: FileEdge = { from: 'x.ts', to: 'y.ts', spec: './y', typeOnly: true };
    const valueEdge: FileEdge = { from: 'y.ts', to: 'x.ts', spec: './x', typeOnly: false };
    const edges = [typeEdge, valueEdge];
    const loop = findCycles(new Map([['x.ts', ['y.ts']], ['y.ts', ['x.ts']]]));
    assert.deepEqual(loop.map((cycle) => describeCycle(cycle, edges)), ['x.ts -(type)-> y.ts -> x.ts']);
  });

  it('self-test: the table check reports a forbidden edge, a missing row, and allows itself and wildcards', () => {
    const table: ImportTable = { low: [], high: ['low'], 'top/*': ['low', 'high'], all: ['top/*'] };
    const folderOfFile = (file: string): string => file.slice(0, file.lastIndexOf('/'));
    const edge = (from: string, to: string, typeOnly = false): FileEdge => ({ from, to, spec: to, typeOnly });
    assert.deepEqual(
      tableViolations(
        [
          edge('high/a.ts', 'low/b.ts'),
          edge('low/b.ts', 'low/c.ts'),
          edge('low/b.ts', 'high/a.ts', true),
          edge('top/x/a.ts', 'high/a.ts'),
          edge('all/a.ts', 'top/y/a.ts'),
          edge('nowhere/a.ts', 'low/b.ts'),
        ],
        table,
        folderOfFile,
      ),
      ['low/b.ts -> high/a.ts: low may not import high (type-only)', 'nowhere/a.ts -> low/b.ts: folder nowhere has no row in the table'],
    );
    assert.deepEqual(findCycles(tableGraph(table, ['top/x'])), []);
    const cyclic: ImportTable = { ...table, low: ['all'] };
    assert.deepEqual(findCycles(tableGraph(cyclic, ['top/x'])), [['all', 'top/x', 'low', 'all']]);
  });

  it('self-test: the real table forbids what the architecture forbids', () => {
    const forbidden: [string, string][] = [
      ['src/core/base/a.ts', 'src/core/text/b.ts'],
      ['src/core/skills/model/a.ts', 'src/core/skills/lint/b.ts'],
      ['src/core/skills/lint/a.ts', 'src/core/agent/b.ts'],
      ['src/core/tools/a.ts', 'src/core/skills/model/b.ts'],
      ['src/core/agent/a.ts', 'src/host/b.ts'],
      ['src/providers/a.ts', 'src/core/skills/model/b.ts'],
      ['src/webview/a.ts', 'src/core/base/b.ts'],
      ['src/shared/a.ts', 'src/webview/b.ts'],
      ['src/extension.ts', 'src/core/base/b.ts'],
    ];
    for (const [from, to] of forbidden) {
      const found = tableViolations([{ from, to, spec: to, typeOnly: false }], importTable, folderOfRootRel);
      assert.equal(found.length, 1, `${from} -> ${to} should be forbidden`);
    }
    const fine = tableViolations(
      [
        { from: 'src/core/agent/a.ts', to: 'src/core/skills/draft/b.ts', spec: '', typeOnly: false },
        { from: 'src/core/skills/draft/a.ts', to: 'src/core/sessions/b.ts', spec: '', typeOnly: false },
        { from: 'src/host/chat/a.ts', to: 'src/host/panel/b.ts', spec: '', typeOnly: false },
        { from: 'src/cli/a.ts', to: 'src/providers/b.ts', spec: '', typeOnly: false },
      ],
      importTable,
      folderOfRootRel,
    );
    assert.deepEqual(fine, []);
  });
});
