import * as assert from 'node:assert/strict';
import { charCount, entryProblem, parseMemoryFile, serializeMemoryFile, serializedSize } from '../../../src/core/memory/memoryFile';

describe('memory file format', () => {
  it('splits entries on lines holding only §', () => {
    assert.deepEqual(parseMemoryFile('Build with make.\n§\nTests: make test\n§\nDeploy on Fridays: never.\n'), [
      'Build with make.',
      'Tests: make test',
      'Deploy on Fridays: never.',
    ]);
  });

  it('tolerates CRLF, spaces around §, blank lines and a BOM', () => {
    const text = '\uFEFF\r\n  first entry  \r\n\r\n \t§  \r\n\r\nsecond\r\nline two\r\n§\r\n';
    assert.deepEqual(parseMemoryFile(text), ['first entry', 'second\nline two']);
  });

  it('drops empty entries and keeps § inside a line', () => {
    assert.deepEqual(parseMemoryFile('§\n§\n\n§\nPrice is 5 § per unit\n§\n   \n§'), ['Price is 5 § per unit']);
    assert.deepEqual(parseMemoryFile(''), []);
    assert.deepEqual(parseMemoryFile('\n\n'), []);
  });

  it('keeps the inner lines of multi-line entries, trimming only trailing spaces and outer blank lines', () => {
    assert.deepEqual(parseMemoryFile('\n\nSteps:   \n  1. build\n\n  2. test\n\n\n§\nx'), ['Steps:\n  1. build\n\n  2. test', 'x']);
  });

  it('writes the canonical form, which reads back to the same entries', () => {
    const entries = ['one', 'two\nlines', 'three'];
    const text = serializeMemoryFile(entries);
    assert.equal(text, 'one\n§\ntwo\nlines\n§\nthree\n');
    assert.deepEqual(parseMemoryFile(text), entries);
    assert.equal(serializeMemoryFile([]), '');
    assert.equal(serializeMemoryFile(['  ', 'kept ']), 'kept\n');
  });

  it('counts characters on the whole serialised file, an emoji as one', () => {
    assert.equal(charCount('a😀b'), 3);
    assert.equal(serializedSize(['ab', 'cd']), 'ab\n§\ncd\n'.length);
    assert.equal(serializedSize(['😀']), 2);
    assert.equal(serializedSize([]), 0);
  });

  it('refuses empty content and content holding a separator line', () => {
    assert.match(entryProblem('   \n ') ?? '', /empty/);
    assert.match(entryProblem('part one\n § \npart two') ?? '', /separates entries/);
    assert.equal(entryProblem('costs 3 § each'), undefined);
  });
});
