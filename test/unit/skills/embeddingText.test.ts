import * as assert from 'node:assert/strict';
import { MAX_QUERY_CHARS, MAX_SKILL_TEXT_CHARS, clip, contentHash, embeddingKey, embeddingQuery, embeddingText } from '../../../src/core/skills/search/embeddingText';
import { skillRecord } from './skillRecordFixture';

describe('embedding texts', () => {
  it('holds the name, description, use cases, example queries and headings of a skill, nothing else', () => {
    const record = skillRecord('pdf-tools', 'Fill and merge PDF forms.', {
      folderName: 'pdf',
      tags: ['documents'],
      category: 'office',
      useCases: ['merge two PDFs', 'fill a form'],
      exampleQueries: ['combine these PDFs'],
      headings: ['Merging', 'Forms'],
    });
    assert.equal(
      embeddingText(record),
      'pdf-tools (pdf)\nFill and merge PDF forms.\nUse cases: merge two PDFs; fill a form\nExample requests: combine these PDFs\nSections: Merging; Forms',
    );
    assert.equal(embeddingText(skillRecord('bare', '')), 'bare');
  });

  it('keeps texts bounded: a long skill and a 100,000-character message are cut at a space', () => {
    const long = skillRecord('long', 'word '.repeat(5_000));
    assert.ok(embeddingText(long).length <= MAX_SKILL_TEXT_CHARS);
    const query = embeddingQuery(`  ${'lorem ipsum '.repeat(8_334)}`.slice(0, 100_000));
    assert.ok(query.length <= MAX_QUERY_CHARS && query.length > MAX_QUERY_CHARS * 0.8);
    assert.ok(!query.startsWith(' ') && !query.endsWith(' '));
    assert.equal(embeddingQuery(' \n\t '), '');
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(9)}😀😀`;
    const cut = clip(text, 10);
    assert.equal(cut, 'a'.repeat(9));
    assert.equal(clip('short', 10), 'short');
  });

  it('hashes by content: the same text gives the same key, any change another', () => {
    const a = skillRecord('a', 'One thing');
    assert.equal(embeddingKey(a).hash, embeddingKey({ ...a }).hash);
    assert.notEqual(embeddingKey(a).hash, embeddingKey({ ...a, description: 'One thing.' }).hash);
    assert.equal(embeddingKey(a).hash, contentHash(embeddingText(a)));
    assert.match(contentHash('x'), /^[\w-]{22}$/);
  });
});
