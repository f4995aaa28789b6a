import * as assert from 'node:assert/strict';
import { HISTORY_SEARCH_SESSIONS, searchHistory } from '../../../src/core/sessions/historySearch';
import type { SessionIndex } from '../../../src/core/sessions/sessionIndex';
import { SessionFixture } from '../sessions/sessionFixture';

const markedWords = (snippet: { text: string; marks: [number, number][] }): string[] => snippet.marks.map(([start, end]) => snippet.text.slice(start, end));

describe('searchHistory (the History tab search)', function () {
  this.timeout(30_000);
  let fixture: SessionFixture;
  let index: SessionIndex;

  before(async () => {
    fixture = new SessionFixture();
    await fixture.session('s-deploy', [
      ['Deploy the API to staging', 'Deployed with helm.'],
      ['The pods crash with OOMKilled after the rollout', 'Raised the Memory Limit of the worker to 512Mi.'],
      ['Thanks, looks good now', 'Great.'],
    ], { workspace: '/projects/api' });
    await fixture.session('s-docs', [['Write a README for the CLI', 'Done: README.md explains install and the memory flag.']]);
    await fixture.session('s-cafe', [['Rename the Café module', 'Renamed café.ts to cafe-service.ts']]);
    index = fixture.newIndex();
    // These cases are about a loaded index; searches during the first catch-up are partial (sessionIndex.test.ts).
    await index.ready();
  });
  after(() => fixture.cleanup());

  it('finds a session by a phrase from its middle, best first, with the hit marked', async () => {
    const results = await searchHistory(index, 'memory limit worker');
    assert.equal(results.error, undefined);
    assert.equal(results.query, 'memory limit worker');
    assert.equal(results.sessions[0]?.id, 's-deploy');
    assert.equal(results.sessions[0]?.startedAt.slice(0, 4), '2025');
    const hit = results.sessions[0]?.hits[0];
    assert.equal(hit?.messageId, 'm4');
    assert.equal(hit?.role, 'assistant');
    assert.deepEqual(markedWords(hit!.snippet), ['Memory Limit', 'worker']);
    assert.ok(results.tookMs >= 0 && results.tookMs < 5_000);
  });

  it('marks accent- and case-insensitive matches as the index found them', async () => {
    const results = await searchHistory(index, 'CAFE');
    assert.deepEqual(results.sessions.map((session) => session.id), ['s-cafe']);
    const words = (results.sessions[0] ?? assert.fail('no session found')).hits.flatMap((hit) => markedWords(hit.snippet));
    assert.ok(words.includes('Café'), words.join(','));
    assert.ok(words.every((word) => /^caf[eé]$/i.test(word)), words.join(','));
  });

  it('answers awkward queries without raising', async () => {
    const awkward = [
      '"memory limit"',
      '"unbalanced quote',
      'auth-service',
      'a:b OOMKilled:',
      'NOT AND OR NEAR/2 worker',
      '* ^ ( ) - + ~',
      'memory* ^limit',
      '🎉 deploy 👍',
      'x'.repeat(1_000),
      `${'memory '.repeat(140)}worker`,
      "'; DROP TABLE sessions; --",
      '\u0000\u0007 control',
    ];
    for (const query of awkward) {
      const results = await searchHistory(index, query);
      assert.equal(results.query, query);
      assert.ok(Array.isArray(results.sessions), query);
      for (const session of results.sessions) {
        for (const hit of session.hits) {
          for (const [start, end] of hit.snippet.marks) assert.ok(start < end && end <= hit.snippet.text.length, query);
        }
      }
    }
    assert.deepEqual((await searchHistory(index, '"memory limit"')).sessions.map((s) => s.id), ['s-deploy']);
    assert.deepEqual((await searchHistory(index, '🎉 deploy 👍')).sessions.map((s) => s.id), ['s-deploy']);
  });

  it('explains a query with nothing to search for instead of returning silence', async () => {
    for (const query of ['---', '"" : *', '🎉👍']) {
      const results = await searchHistory(index, query);
      assert.deepEqual(results.sessions, []);
      assert.match(results.error ?? '', /no letters or digits/, query);
    }
    assert.match((await searchHistory(index, '   ')).error ?? '', /Type a word/);
  });

  it('returns no sessions and no error for words that appear nowhere', async () => {
    const results = await searchHistory(index, 'kubernetes zebra');
    assert.deepEqual(results.sessions, []);
    assert.equal(results.error, undefined);
  });

  it('reports an index that cannot open as an error, never a throw', async () => {
    const broken = { searchSessions: () => Promise.reject(new Error('the session index could not be opened: disk on fire')) };
    const results = await searchHistory(broken, 'memory');
    assert.deepEqual(results.sessions, []);
    assert.match(results.error ?? '', /Searching failed: the session index could not be opened: disk on fire/);
  });

  it('caps the sessions shown', async () => {
    const many = new SessionFixture();
    try {
      for (let i = 0; i < HISTORY_SEARCH_SESSIONS + 5; i++) await many.session(`s${i}`, [[`question ${i} about flakiness`, 'an answer']]);
      const loaded = many.newIndex();
      await loaded.ready();
      const results = await searchHistory(loaded, 'flakiness');
      assert.equal(results.sessions.length, HISTORY_SEARCH_SESSIONS);
    } finally {
      many.cleanup();
    }
  });
});
