import * as assert from 'node:assert/strict';
import { snippetMarks, tokensOf } from '../../../src/core/sessions/snippetMarks';
import { sharedSqlJs } from '../sessions/sessionFixture';

/** The marked pieces of text, to read assertions as words rather than offsets. */
const marked = (text: string, terms: readonly string[], skip?: readonly string[]): string[] => snippetMarks(text, terms, skip).map(([start, end]) => text.slice(start, end));

describe('snippetMarks', () => {
  it('marks every occurrence of the query tokens, ignoring case', () => {
    const text = 'Raised the memory limit of the worker. Memory is fine now; MEMORY graphs are flat.';
    assert.deepEqual(marked(text, ['memory', 'worker']), ['memory', 'worker', 'Memory', 'MEMORY']);
  });

  it('gives offsets into the snippet itself, after a leading ellipsis', () => {
    const text = '…the pods crash with OOMKilled after the rollout';
    assert.deepEqual(snippetMarks(text, ['oomkilled']), [[21, 30]]);
  });

  it('matches accented text the way the index folds it', () => {
    assert.deepEqual(marked('Le café à Zürich, CAFÉ noir', ['cafe', 'zurich']), ['café', 'Zürich', 'CAFÉ']);
    assert.deepEqual(marked('naïve, İstanbul, łódź', ['naive', 'istanbul', 'łodz']), ['naïve', 'İstanbul', 'łódź']);
  });

  it('marks whole words only: no prefixes, no stemming (the index has none)', () => {
    assert.deepEqual(marked('test tests testing retest', ['test']), ['test']);
    assert.deepEqual(marked('deploying deployed deploy', ['deploy']), ['deploy']);
  });

  it('joins neighbouring marked words into one mark across a space or a hyphen', () => {
    assert.deepEqual(marked('call the auth-service now', ['auth', 'service']), ['auth-service']);
    assert.deepEqual(marked('memory limit of the worker', ['memory', 'limit', 'worker']), ['memory limit', 'worker']);
    assert.deepEqual(marked('proxy_read_timeout 45s', ['proxy', 'read', 'timeout']), ['proxy_read_timeout']);
    assert.deepEqual(marked('memory, limit', ['memory', 'limit']), ['memory', 'limit']);
    assert.deepEqual(marked('the worker. Memory', ['memory', 'worker']), ['worker', 'Memory']);
    assert.deepEqual(marked('memory  limit', ['memory', 'limit']), ['memory', 'limit']);
  });

  it('survives emoji, CJK runs, digits and surrogate pairs with correct UTF-16 offsets', () => {
    const text = '🎉 deploy 👍 v1.2.3 東京タワー done 🎉deploy';
    const marks = snippetMarks(text, ['deploy', '東京タワー', 'v1']);
    assert.deepEqual(marks.map(([s, e]) => text.slice(s, e)), ['deploy', 'v1', '東京タワー', 'deploy']);
    for (const [start, end] of marks) assert.ok(start >= 0 && end <= text.length && start < end);
  });

  it('leaves out words the search ignored as too common, unless nothing else is left', () => {
    const text = 'the worker read the file';
    assert.deepEqual(marked(text, ['the', 'worker'], ['the']), ['worker']);
    assert.deepEqual(marked(text, ['the'], ['the']), ['the', 'the']);
  });

  it('returns nothing for no terms, empty text, or terms that are not words', () => {
    assert.deepEqual(snippetMarks('some text', []), []);
    assert.deepEqual(snippetMarks('', ['text']), []);
    assert.deepEqual(snippetMarks('a "quoted" - : * text', ['"', '-', ':', '*']), []);
  });

  it('never produces HTML: a term that looks like markup marks only the word inside it', () => {
    const text = 'payload <script>alert(1)</script> here';
    assert.deepEqual(marked(text, ['script']), ['script', 'script']);
  });

  it('splits and folds text exactly like the index tokenizer (unicode61, remove_diacritics=2)', async () => {
    const SQL = await sharedSqlJs();
    const db = new SQL.Database();
    try {
      db.run('CREATE VIRTUAL TABLE temp.t USING fts3tokenize(unicode61, "remove_diacritics=2")');
      const statement = db.prepare('SELECT token FROM temp.t WHERE input = ?');
      const samples = [
        'proxy_read_timeout café Ñandú 🎉emoji👍 a:b auth-service ＡＢＣ İstanbul straße 東京タワー x²y ½ v1.2.3 don\'t naïve Ǆ',
        'øre đak łódź æble Ω ǅ ĳ Ångström résumé São-Paulo e\u0301clair',
        'C++ C# node.js foo--bar "quoted" (paren) NEAR/3 a*b ^start',
      ];
      for (const sample of samples) {
        statement.bind([sample]);
        const expected: string[] = [];
        while (statement.step()) expected.push(String(statement.get()[0]));
        statement.reset();
        assert.deepEqual(tokensOf(sample), expected, sample);
      }
      statement.free();
    } finally {
      db.close();
    }
  });
});
