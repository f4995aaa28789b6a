import * as assert from 'node:assert/strict';
import { fuseHits } from '../../../src/core/skills/search/embeddingRanker';
import { RRF_K, fuseRanks } from '../../../src/core/skills/search/rankFusion';
import { skillRecord } from './skillRecordFixture';

describe('fuseRanks (reciprocal rank fusion)', () => {
  it('sums 1 / (k + rank) over the lists an item is in', () => {
    const fused = fuseRanks([
      ['a', 'b', 'c'],
      ['c', 'a', 'd'],
    ]);
    assert.deepEqual(
      fused.map((item) => item.key),
      ['a', 'c', 'b', 'd'],
    );
    const score = Object.fromEntries(fused.map((item) => [item.key, item.score]));
    assert.equal(score['a'], 1 / 61 + 1 / 62);
    assert.equal(score['c'], 1 / 63 + 1 / 61);
    assert.equal(score['b'], 1 / 62);
    assert.equal(score['d'], 1 / 63);
    assert.deepEqual(fused[0]?.ranks, [1, 2]);
    assert.deepEqual(fused[3]?.ranks, [undefined, 3]);
    assert.equal(RRF_K, 60);
  });

  it('puts an item high in both lists above one that tops only one', () => {
    // second and second beat first and absent: 2 / 62 > 1 / 61
    const fused = fuseRanks([
      ['words-only', 'both'],
      ['meaning-only', 'both'],
    ]);
    assert.equal(fused[0]?.key, 'both');
  });

  it('breaks ties by the best rank, then by the earlier list, then by key', () => {
    assert.deepEqual(
      fuseRanks([['x'], ['y']]).map((item) => item.key),
      ['x', 'y'],
    );
    assert.deepEqual(
      fuseRanks([['b'], ['a']]).map((item) => item.key),
      ['b', 'a'],
    );
    assert.deepEqual(
      fuseRanks([['q', 'p'], []]).map((item) => item.key),
      ['q', 'p'],
    );
  });

  it('counts a key repeated within one list at its first place only', () => {
    const [only] = fuseRanks([['a', 'a', 'a']]);
    assert.equal(only?.score, 1 / 61);
  });

  it('honours k and top, and refuses a k that is not a number ≥ 0', () => {
    const fused = fuseRanks([['a', 'b', 'c']], { k: 0, top: 2 });
    assert.deepEqual(
      fused.map((item) => [item.key, item.score]),
      [
        ['a', 1],
        ['b', 0.5],
      ],
    );
    assert.throws(() => fuseRanks([['a']], { k: -1 }), /k must be a finite number ≥ 0/);
    assert.throws(() => fuseRanks([['a']], { k: Number.NaN }), /k must be a finite number ≥ 0/);
  });

  it('keeps a single list in its order (lexical only is unchanged by fusion)', () => {
    const keys = Array.from({ length: 50 }, (_, i) => `skill-${String(i).padStart(2, '0')}`).reverse();
    assert.deepEqual(
      fuseRanks([keys]).map((item) => item.key),
      keys,
    );
  });
});

describe('fuseHits', () => {
  const deploy = skillRecord('deploy', 'Deploy a site');
  const images = skillRecord('image-resize', 'Resize photos');
  const notes = skillRecord('notes', 'Take notes');

  it('returns the lexical order when there is no semantic list', () => {
    const hits = fuseHits([deploy, images], undefined, 3);
    assert.deepEqual(
      hits.map((hit) => [hit.record.name, hit.lexicalRank, hit.semanticRank]),
      [
        ['deploy', 1, undefined],
        ['image-resize', 2, undefined],
      ],
    );
  });

  it('adds skills found by meaning only, with their cosine and ranks', () => {
    const hits = fuseHits([deploy], [{ record: images, score: 0.8 }, { record: deploy, score: 0.5 }, { record: notes, score: 0.1 }], 2);
    assert.deepEqual(
      hits.map((hit) => [hit.record.name, hit.lexicalRank, hit.semanticRank, hit.cosine]),
      [
        ['deploy', 1, 2, 0.5],
        ['image-resize', undefined, 1, 0.8],
      ],
    );
  });
});
