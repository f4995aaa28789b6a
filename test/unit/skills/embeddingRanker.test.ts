import * as assert from 'node:assert/strict';
import { EmbeddingIndex } from '../../../src/core/skills/search/embeddingIndex';
import { browserSearch } from '../../../src/core/skills/search/browserSearch';
import { hybridBrowserSearch, hybridSuggest } from '../../../src/core/skills/search/embeddingRanker';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import { findSkillOverlaps, skillOverlapOffer } from '../../../src/core/skills/draft/skillOverlap';
import { OpenAiEmbeddingClient } from '../../../src/providers/embeddingClient';
import { EmbeddingFaultServer, vectorsAnswer } from './embeddingFaultServer';
import { skillRecord } from './skillRecordFixture';

/**
 * An endpoint that knows what words mean: made-up words of one topic share a direction, which is
 * what lets a message find a skill it shares no word with.
 */
const TOPICS: readonly RegExp[] = [/zorblax|quuxify|frobnicate/i, /deploy|release|ship/i, /invoice|billing/i, /note|journal/i];
function topicVector(text: string): number[] {
  const vector = TOPICS.map((topic) => (topic.test(text) ? 1 : 0));
  return vector.some((x) => x > 0) ? [...vector, 0.05] : [0, 0, 0, 0, 1];
}

const records = [
  skillRecord('zorblax-files', 'Zorblax the files of a folder'),
  skillRecord('deploy-site', 'Deploy the site to production'),
  skillRecord('release-notes', 'Write release notes for a version'),
  skillRecord('billing-report', 'Make the monthly invoice report'),
  skillRecord('daily-journal', 'Keep a daily note'),
];

describe('hybrid suggestions', () => {
  let server: EmbeddingFaultServer;
  let index: EmbeddingIndex;
  const search = new SkillSearch(records);

  beforeEach(async () => {
    server = await EmbeddingFaultServer.start(vectorsAnswer((text) => topicVector(text)));
    index = new EmbeddingIndex({ embedder: new OpenAiEmbeddingClient({ baseUrl: server.baseUrl, model: 'm', maxRetries: 0 }), model: 'm', queryDeadlineMs: 500 });
    index.update(records);
    await index.idle();
  });

  afterEach(async () => {
    index.dispose();
    await server.close();
  });

  it('finds a skill the message shares no word with', async () => {
    const message = 'quuxify everything, thanks';
    assert.deepEqual(search.suggest(message), [], 'words alone find nothing');
    const hits = await hybridSuggest(search, index, message);
    assert.equal(hits[0]?.record.name, 'zorblax-files');
    assert.equal(hits[0]?.semanticRank, 1);
    assert.equal(hits[0]?.lexicalRank, undefined);
  });

  it('puts the skill both rankings agree on first', async () => {
    // By words "release notes" leads; by meaning both release skills are alike (deploy first by name).
    const lexical = search.suggest('ship the release notes', { top: 3 }).map((hit) => hit.record.name);
    assert.equal(lexical[0], 'release-notes');
    const hits = await hybridSuggest(search, index, 'ship the release notes');
    assert.equal(hits[0]?.record.name, 'release-notes');
    assert.ok(hits.length <= 3);
    assert.ok(hits.some((hit) => hit.record.name === 'deploy-site'));
  });

  it('gives exactly the lexical suggestions when the endpoint hangs, within the deadline', async () => {
    server.answer = () => 'hang';
    const message = 'write the release notes';
    const started = Date.now();
    const hits = await hybridSuggest(search, index, message, { deadlineMs: 150 });
    assert.ok(Date.now() - started < 1_500, `the turn waited ${Date.now() - started} ms`);
    assert.deepEqual(
      hits.map((hit) => hit.record.file),
      search.suggest(message).map((hit) => hit.record.file),
    );
    assert.ok(hits.length > 0);
  });

  it('gives the lexical suggestions without embeddings, and applies the filter to both rankings', async () => {
    const lexicalOnly = await hybridSuggest(search, undefined, 'deploy the site');
    assert.deepEqual(
      lexicalOnly.map((hit) => hit.record.name),
      search.suggest('deploy the site').map((hit) => hit.record.name),
    );
    const filtered = await hybridSuggest(search, index, 'quuxify and deploy', { filter: (record) => record.name !== 'zorblax-files' });
    assert.ok(!filtered.some((hit) => hit.record.name === 'zorblax-files'));
    assert.ok(filtered.some((hit) => hit.record.name === 'deploy-site'));
  });

  it('adds the nearest skills to a Skills tab search, and answers undefined when it cannot', async () => {
    const lexical = browserSearch('frobnicate the release', search, records);
    assert.ok(!lexical.includes(records[0]?.file as string) && lexical.length > 0, 'by words only the release skill');
    const files = await hybridBrowserSearch('frobnicate the release', lexical, index);
    assert.ok(files?.includes(records[0]?.file as string), 'the nearest skill joins');
    assert.ok(lexical.every((file) => files?.includes(file)), 'every lexical hit stays');
    server.answer = () => ({ status: 404, body: '{}' });
    assert.equal(await hybridBrowserSearch('something else', ['x'], index), undefined);
  });

  it('makes the nearest skills candidates of the Save-as-Skill overlap check, scored as before', async () => {
    const draft = { name: 'quuxify-folder', description: 'Quuxify every file in a folder, then zorblax the rest' };
    const plain = findSkillOverlaps(draft, records, { search, threshold: 0 });
    const offered = await skillOverlapOffer(`---\nname: ${draft.name}\ndescription: ${draft.description}\n---\n# Steps\n`, {
      records,
      search,
      threshold: 0,
      semantic: index,
      readText: async () => '---\nname: zorblax-files\ndescription: Zorblax the files of a folder\n---\n',
    });
    const withMeaning = findSkillOverlaps(draft, records, { search, threshold: 0, extraCandidates: records });
    assert.ok(plain.length < Math.min(3, withMeaning.length), 'the nearest skills add candidates the words missed');
    assert.deepEqual(
      offered.overlaps.map((overlap) => [overlap.record.name, overlap.score]),
      withMeaning.slice(0, 3).map((overlap) => [overlap.record.name, overlap.score]),
    );
    for (const overlap of plain) {
      const same = withMeaning.find((other) => other.record.file === overlap.record.file);
      assert.equal(same?.score, overlap.score, 'a lexical candidate keeps its score');
    }
  });
});
