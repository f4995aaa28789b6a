import * as assert from 'node:assert/strict';
import { bm25FromMatchinfo, idfOf, snippetAround, splitQueryWords, termExpression } from '../../../src/core/sessions/sessionQuery';

function matchinfo(values: readonly number[]): Uint8Array {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((value, i) => view.setUint32(i * 4, value, true));
  return new Uint8Array(view.buffer);
}

describe('session query building', () => {
  it('splits words on whitespace and keeps "quoted text" together, whatever else it holds', () => {
    assert.deepEqual(splitQueryWords('login  "time out" -foo a:b').words, ['login', 'time out', '-foo', 'a:b']);
    assert.deepEqual(splitQueryWords('"unbalanced quote').words, ['"unbalanced', 'quote']);
    assert.deepEqual(splitQueryWords('tab\there\u0000nul').words, ['tab', 'here', 'nul']);
    assert.deepEqual(splitQueryWords('""   ').words, []);
    const long = splitQueryWords('a '.repeat(1_500));
    assert.equal(long.truncated, true);
    assert.equal(long.words.length, 1_000);
  });

  it('drops common tokens from a phrase and keeps the rest close with NEAR', () => {
    const common = new Set(['the', 'of']);
    const isCommon = (token: string): boolean => common.has(token);
    assert.deepEqual(termExpression(['login'], isCommon), { expression: '"login"', phrases: 1 });
    assert.deepEqual(termExpression(['read', 'the', 'file'], isCommon), { expression: '"read" NEAR/1 "file"', phrases: 2 });
    assert.deepEqual(termExpression(['cannot', 'read', 'property', 'of', 'the', 'undefined'], isCommon), {
      expression: '"cannot read property" NEAR/2 "undefined"',
      phrases: 2,
    });
    assert.deepEqual(termExpression(['the', 'build', 'of'], isCommon), { expression: '"build"', phrases: 1 });
    assert.equal(termExpression(['of', 'the'], isCommon), undefined);
  });

  it('scores BM25 from a matchinfo blob: more hits and shorter messages rank higher', () => {
    // p=1 c=1 n=100 a=[20] l=[len] y=[hits]
    const idf = [idfOf(100, 5)];
    const score = (length: number, hits: number): number => bm25FromMatchinfo(matchinfo([1, 1, 100, 20, length, hits]), idf, new Float64Array(1));
    assert.ok(score(20, 3) > score(20, 1));
    assert.ok(score(10, 1) > score(40, 1));
    assert.equal(score(20, 0), 0);
    assert.ok(idfOf(100, 1) > idfOf(100, 50) && idfOf(100, 99) > 0);
    // Two phrases, two columns (the second column is never indexed).
    const out = new Float64Array(2);
    const total = bm25FromMatchinfo(matchinfo([2, 2, 100, 20, 0, 20, 0, 1, 0, 0, 0]), [1, 1], out);
    assert.ok(out[0] && out[0] > 0);
    assert.equal(out[1], 0);
    assert.equal(total, out[0]);
  });

  it('cuts a snippet around the first matching word, ignoring case and accents', () => {
    const text = `${'lorem ipsum '.repeat(40)}the Café crashed here ${'dolor sit '.repeat(40)}`;
    const snippet = snippetAround(text, ['cafe'], 80);
    assert.match(snippet, /^….*Café crashed here.*…$/);
    assert.ok(snippet.length <= 84);
    assert.equal(snippetAround('short text', ['x']), 'short text');
    assert.match(snippetAround(text, ['absent'], 60), /^lorem ipsum/);
  });
});
