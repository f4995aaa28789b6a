import * as assert from 'node:assert/strict';
import { clipDiff, unifiedDiff } from '../../../src/core/text/unifiedDiff';

const lines = (n: number, edit: (i: number) => string | undefined = () => undefined): string =>
  Array.from({ length: n }, (_, i) => edit(i + 1) ?? `line ${i + 1}`).join('\n') + '\n';

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    assert.deepEqual(unifiedDiff('a\nb\n', 'a\nb\n', 'f'), { text: '', added: 0, removed: 0 });
  });

  it('shows one change with three lines of context', () => {
    const diff = unifiedDiff(lines(10), lines(10, (i) => (i === 5 ? 'five' : undefined)), 'src/f.txt');
    assert.equal(diff.text, ['--- a/src/f.txt', '+++ b/src/f.txt', '@@ -2,7 +2,7 @@', ' line 2', ' line 3', ' line 4', '-line 5', '+five', ' line 6', ' line 7', ' line 8', ''].join('\n'));
    assert.equal(diff.added, 1);
    assert.equal(diff.removed, 1);
  });

  it('splits distant changes into hunks and merges close ones', () => {
    const far = unifiedDiff(lines(30), lines(30, (i) => (i === 3 || i === 25 ? 'X' : undefined)), 'f');
    assert.deepEqual(far.text.split('\n').filter((line) => line.startsWith('@@')), ['@@ -1,6 +1,6 @@', '@@ -22,7 +22,7 @@']);
    const near = unifiedDiff(lines(30), lines(30, (i) => (i === 10 || i === 15 ? 'X' : undefined)), 'f');
    assert.deepEqual(near.text.split('\n').filter((line) => line.startsWith('@@')), ['@@ -7,12 +7,12 @@']);
  });

  it('handles pure insertions, deletions and new files', () => {
    const inserted = unifiedDiff('a\nb\n', 'a\nnew\nb\n', 'f');
    assert.match(inserted.text, /@@ -1,2 \+1,3 @@\n a\n\+new\n b\n$/);
    const deleted = unifiedDiff('a\nold\nb\n', 'a\nb\n', 'f');
    assert.match(deleted.text, /@@ -1,3 \+1,2 @@\n a\n-old\n b\n$/);
    const created = unifiedDiff(undefined, 'x\ny\n', 'new.txt');
    assert.equal(created.text, '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n');
    const emptied = unifiedDiff('x\n', '', 'f');
    assert.equal(emptied.text, '--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-x\n');
  });

  it('finds the common lines inside a changed region', () => {
    const diff = unifiedDiff('a\nb\nc\nd\n', 'a\nx\nc\ny\n', 'f');
    assert.equal(diff.text, '--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b\n+x\n c\n-d\n+y\n');
  });

  it('shows a huge rewrite as removed then added lines instead of building a giant table', () => {
    const diff = unifiedDiff(lines(3000, (i) => `old ${i}`), lines(3000, (i) => `new ${i}`), 'f');
    assert.equal(diff.added, 3000);
    assert.equal(diff.removed, 3000);
  });

  it('clips long diffs at a line boundary with a count', () => {
    const text = unifiedDiff(undefined, lines(100), 'f').text;
    const clipped = clipDiff(text, 200);
    assert.ok(clipped.length < 260);
    assert.match(clipped, /\n\[\.\.\. \d+ more diff lines \.\.\.\]\n$/);
    assert.equal(clipDiff('short\n', 200), 'short\n');
  });
});
