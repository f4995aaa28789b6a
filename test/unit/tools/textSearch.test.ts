import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileUserGlob } from '../../../src/core/tools/globPattern';
import { IgnoreRules } from '../../../src/core/tools/ignoreRules';
import { JsTextSearch } from '../../../src/core/tools/jsTextSearch';
import { NodeProcessPort } from '../../../src/core/tools/processPort';
import { RipgrepSearch } from '../../../src/core/tools/ripgrepSearch';
import type { TextSearchOutcome, TextSearchPort, TextSearchQuery } from '../../../src/core/tools/textSearch';
import { findRipgrep, SEARCH_TREE, writeTree } from './searchFixtures';
import { nodeFs } from './toolTestWorkspace';

describe('text search: ripgrep and JavaScript agree', () => {
  let root: string;
  let rg: RipgrepSearch;
  let js: JsTextSearch;

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-search-')));
    writeTree(root, SEARCH_TREE);
    fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'link.txt'));
    rg = new RipgrepSearch(findRipgrep(), new NodeProcessPort());
    js = new JsTextSearch(nodeFs);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  function query(overrides: Partial<TextSearchQuery> & { excludes?: readonly string[]; glob?: string } = {}): TextSearchQuery {
    const { excludes, glob, ...rest } = overrides;
    return {
      pattern: 'needle',
      regex: false,
      caseSensitive: false,
      rules: new IgnoreRules(nodeFs, root, excludes ?? []),
      start: '',
      startIsFile: false,
      maxResults: 1000,
      ...(glob ? { include: compileUserGlob(glob, { caseInsensitive: true }), includeGlob: glob } : {}),
      ...rest,
    };
  }

  async function both(make: () => TextSearchQuery): Promise<Extract<TextSearchOutcome, { ok: true }>> {
    const [fromRg, fromJs] = [await rg.search(make()), await js.search(make())];
    assert.ok(fromRg.ok, fromRg.ok ? '' : fromRg.error);
    assert.ok(fromJs.ok, fromJs.ok ? '' : fromJs.error);
    assert.equal(fromRg.engine, 'ripgrep');
    assert.equal(fromJs.engine, 'javascript');
    assert.deepEqual(fromJs.matches, fromRg.matches);
    assert.equal(fromJs.truncated, fromRg.truncated);
    return fromRg;
  }

  const where = (outcome: { matches: readonly { path: string; line: number }[] }): string[] => outcome.matches.map((m) => `${m.path}:${m.line}`);

  it('finds the same lines in the same order, skipping ignored, binary, huge and linked files', async () => {
    const outcome = await both(() => query());
    assert.deepEqual(where(outcome), [
      '.hidden/config:1',
      'B.txt:1',
      'README.md:2',
      'a:1',
      'a-b.txt:1',
      'a.txt:1',
      'docs/guide.md:1',
      'fixtures/sample.txt:1',
      'keep.log:1',
      'src/bom.ts:1',
      'src/deep/util.ts:1',
      'src/latin1.txt:1',
      'src/main.ts:1',
      'src/main.ts:3',
      'src/unicode.ts:1',
      'src/utf16.txt:1',
      'src/wide.min.js:1',
      'sub/b.txt:1',
    ]);
  });

  it('reports the same columns and previews, cutting long lines around the match', async () => {
    const outcome = await both(() => query());
    const byPath = new Map(outcome.matches.map((m) => [m.path, m]));
    assert.equal(byPath.get('src/unicode.ts')?.column, 29);
    assert.equal(byPath.get('src/bom.ts')?.column, 1);
    assert.equal(byPath.get('src/latin1.txt')?.text, 'caf\uFFFD needle');
    assert.equal(byPath.get('src/deep/util.ts')?.text, 'export const needle = 1;');
    const wide = byPath.get('src/wide.min.js');
    assert.equal(wide?.column, 402);
    assert.ok(wide && wide.text.startsWith('…') && wide.text.endsWith('…') && wide.text.includes('needle'));
  });

  it('agrees on case sensitivity, regular expressions and literal regex syntax', async () => {
    assert.deepEqual(where(await both(() => query({ pattern: 'Needle', caseSensitive: true }))), ['B.txt:1']);
    assert.deepEqual(where(await both(() => query({ pattern: 'ne+dle\\d', regex: true }))), ['src/main.ts:3']);
    assert.deepEqual(where(await both(() => query({ pattern: 'a.b(c)' }))), ['src/main.ts:2']);
    assert.deepEqual(where(await both(() => query({ pattern: '^export const \\w+ = 2;$', regex: true }))), ['src/deep/util.ts:2']);
  });

  it('agrees on include globs, with and without a slash', async () => {
    assert.deepEqual(where(await both(() => query({ glob: '*.md' }))), ['README.md:2', 'docs/guide.md:1']);
    assert.deepEqual(where(await both(() => query({ glob: 'src/**/*.ts' }))), ['src/bom.ts:1', 'src/deep/util.ts:1', 'src/main.ts:1', 'src/main.ts:3', 'src/unicode.ts:1']);
  });

  it('agrees on the host exclude globs', async () => {
    const outcome = await both(() => query({ excludes: ['**/fixtures', 'docs', '**/*.min.js'] }));
    assert.ok(!where(outcome).some((hit) => hit.startsWith('fixtures/') || hit.startsWith('docs/') || hit.includes('.min.js')));
    assert.ok(where(outcome).includes('README.md:2'));
  });

  it('applies the .gitignore rules of folders above a searched subfolder', async () => {
    fs.writeFileSync(path.join(root, 'src', 'notes.log'), 'needle in a log under src\n');
    try {
      const outcome = await both(() => query({ start: 'src' }));
      assert.ok(!where(outcome).includes('src/notes.log:1'), 'the root .gitignore ignores *.log');
      assert.ok(!where(outcome).some((hit) => hit.startsWith('src/generated/')));
      assert.equal(where(outcome)[0], 'src/bom.ts:1');
    } finally {
      fs.rmSync(path.join(root, 'src', 'notes.log'));
    }
  });

  it('searches a file given explicitly, even an ignored one', async () => {
    assert.deepEqual(where(await both(() => query({ start: 'app.log', startIsFile: true }))), ['app.log:1']);
  });

  it('stops at max results and says there are more', async () => {
    const outcome = await both(() => query({ maxResults: 3 }));
    assert.equal(outcome.matches.length, 3);
    assert.equal(outcome.truncated, true);
    const exact = await both(() => query({ pattern: 'Needle', caseSensitive: true, maxResults: 1 }));
    assert.equal(exact.truncated, false, 'exactly max results is not truncated');
  });

  it('both refuse an invalid regular expression with advice', async () => {
    for (const engine of [rg, js] as TextSearchPort[]) {
      const outcome = await engine.search(query({ pattern: 'foo(', regex: true }));
      assert.ok(!outcome.ok);
      assert.match(outcome.error, /invalid regular expression "foo\("/);
      assert.match(outcome.error, /set regex to false/);
    }
  });

  it('falls back to JavaScript for look-around, and when the binary is missing', async () => {
    const withFallback = new RipgrepSearch(findRipgrep(), new NodeProcessPort(), js);
    const lookaround = await withFallback.search(query({ pattern: '(?<=const )needle', regex: true }));
    assert.ok(lookaround.ok);
    assert.equal(lookaround.engine, 'javascript');
    assert.match(lookaround.note ?? '', /ripgrep does not support this regular expression/);
    assert.deepEqual(where(lookaround), ['src/deep/util.ts:1']);

    const missing = new RipgrepSearch(path.join(root, 'no-such-rg'), new NodeProcessPort(), js);
    const fallback = await missing.search(query({ pattern: 'Needle', caseSensitive: true }));
    assert.ok(fallback.ok);
    assert.equal(fallback.engine, 'javascript');
    const noFallback = await new RipgrepSearch(path.join(root, 'no-such-rg'), new NodeProcessPort()).search(query());
    assert.ok(!noFallback.ok);
    assert.match(noFallback.error, /ripgrep could not be started/);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    for (const engine of [rg, js] as TextSearchPort[]) {
      const outcome = await engine.search(query({ signal: controller.signal }));
      assert.ok(!outcome.ok);
      assert.match(outcome.error, /stopped/);
    }
  });
});
