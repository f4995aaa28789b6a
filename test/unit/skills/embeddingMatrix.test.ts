import * as assert from 'node:assert/strict';
import { SKETCH_CANDIDATES, VectorMatrix, normalize } from '../../../src/core/skills/search/embeddingMatrix';
import { mulberry32 } from '../seededRandom';

function unit(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  assert.ok(normalize(vector));
  return vector;
}

/** Clustered vectors, like embeddings of related skills: a centre per topic plus noise. */
function clustered(count: number, dimensions: number, topics: number, random: () => number): Float32Array[] {
  const gauss = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: topics }, () => Array.from({ length: dimensions }, gauss));
  return Array.from({ length: count }, (_, i) => {
    const centre = centres[i % topics] as number[];
    return unit(centre.map((x) => x + 1.2 * gauss()));
  });
}

describe('VectorMatrix', () => {
  it('ranks rows by cosine similarity, best first, ties by key', () => {
    const matrix = new VectorMatrix(3);
    matrix.set('x', unit([1, 0, 0]));
    matrix.set('y', unit([0, 1, 0]));
    matrix.set('xy', unit([1, 1, 0]));
    matrix.set('also-x', unit([2, 0, 0]));
    const hits = matrix.nearest(unit([1, 0.1, 0]), { top: 3 });
    assert.deepEqual(
      hits.map((hit) => hit.key),
      ['also-x', 'x', 'xy'],
    );
    assert.ok(Math.abs((hits[0]?.score ?? 0) - 1 / Math.sqrt(1.01)) < 1e-6);
  });

  it('replaces, removes (moving the last row into the gap) and refuses other dimension counts', () => {
    const matrix = new VectorMatrix(2);
    matrix.set('a', unit([1, 0]));
    matrix.set('b', unit([0, 1]));
    matrix.set('c', unit([-1, 0]));
    matrix.delete('a');
    matrix.delete('unknown');
    assert.equal(matrix.size, 2);
    assert.deepEqual(
      matrix.nearest(unit([-1, 0.01]), { top: 5 }).map((hit) => hit.key),
      ['c', 'b'],
    );
    matrix.set('b', unit([-1, 0.02]));
    assert.equal(matrix.size, 2);
    assert.equal(matrix.nearest(unit([-1, 0.02]), { top: 1 })[0]?.key, 'b');
    assert.throws(() => matrix.set('d', unit([1, 2, 3])), /Expected 2 dimensions, got 3/);
    assert.throws(() => matrix.nearest(unit([1, 2, 3])), /3 dimensions, the skills 2/);
  });

  it('normalize refuses vectors without a length or with a number that is not finite', () => {
    assert.equal(normalize(new Float32Array([0, 0])), false);
    assert.equal(normalize(new Float32Array([1, Number.NaN])), false);
    assert.equal(normalize(new Float32Array([Number.POSITIVE_INFINITY, 1])), false);
  });

  it('the two-stage scan of a large matrix finds the exact nearest rows', () => {
    const random = mulberry32(7);
    const dimensions = 96;
    const vectors = clustered(3_000, dimensions, 60, random);
    const matrix = new VectorMatrix(dimensions);
    vectors.forEach((vector, i) => matrix.set(`s${i}`, vector));
    let agreeing = 0;
    let total = 0;
    for (let q = 0; q < 40; q++) {
      const query = vectors[(q * 71) % vectors.length] as Float32Array;
      const exact = matrix.nearest(query, { top: 10, exactLimit: Number.POSITIVE_INFINITY });
      const staged = matrix.nearest(query, { top: 10, exactLimit: 0 });
      // What the staged scan returns is scored exactly; it may only miss rows, never misorder them.
      for (let i = 1; i < staged.length; i++) assert.ok((staged[i - 1]?.score ?? 0) >= (staged[i]?.score ?? 0));
      assert.equal(staged[0]?.key, exact[0]?.key, 'the query vector itself comes first');
      const want = new Set(exact.map((hit) => hit.key));
      agreeing += staged.filter((hit) => want.has(hit.key)).length;
      total += exact.length;
    }
    assert.ok(SKETCH_CANDIDATES >= 10);
    assert.ok(agreeing / total >= 0.95, `the staged scan found ${agreeing} of ${total} exact top-10 rows`);
  });
});
