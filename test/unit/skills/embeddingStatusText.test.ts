import * as assert from 'node:assert/strict';
import { embeddingStatusText } from '../../../src/core/skills/search/embeddingStatusText';

describe('the status page line on skill retrieval', () => {
  it('says whether meaning takes part, how far indexing got, and why not', () => {
    assert.equal(embeddingStatusText({ state: 'ready', model: 'nomic-embed-text', skills: 1_200, embedded: 1_200 }), 'Words and meaning (nomic-embed-text): 1,200 of 1,200 skills embedded.');
    assert.equal(embeddingStatusText({ state: 'indexing', model: 'nomic-embed-text', skills: 612, embedded: 128 }), 'Words only for now: embedding skills (nomic-embed-text), 128 of 612 done.');
    assert.equal(
      embeddingStatusText({ state: 'unavailable', model: 'm', reason: 'the endpoint answered 404', skills: 3, embedded: 0 }),
      'Words only: the embeddings endpoint failed (m): the endpoint answered 404. It is tried again later.',
    );
    assert.equal(embeddingStatusText({ state: 'off', reason: 'skillwright.retrieval.embeddings is off', skills: 3, embedded: 0 }), 'Words only: skillwright.retrieval.embeddings is off');
    assert.equal(embeddingStatusText({ state: 'off', skills: 0, embedded: 0 }), 'Words only.');
  });
});
