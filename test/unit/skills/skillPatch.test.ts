import * as assert from 'node:assert/strict';
import { applyPatch, closestLines } from '../../../src/core/text/patchMatcher';

function patched(text: string, oldString: string, newString: string, replaceAll = false): string {
  const outcome = applyPatch(text, oldString, newString, { replaceAll });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  return outcome.text;
}

describe('applyPatch', () => {
  it('replaces an exact, unique match and reports where', () => {
    const outcome = applyPatch('# T\n\nRun `make`.\n', 'Run `make`.', 'Run `make test`.');
    assert.ok(outcome.ok);
    assert.equal(outcome.text, '# T\n\nRun `make test`.\n');
    assert.equal(outcome.strategy, 'exact');
    assert.deepEqual(outcome.lines, [3]);
  });

  it('refuses an ambiguous match with the line numbers, and replaces all when asked', () => {
    const text = 'use foo\nother\nuse foo\n';
    const outcome = applyPatch(text, 'use foo', 'use bar');
    assert.ok(!outcome.ok);
    assert.equal(outcome.reason, 'ambiguous');
    assert.match(outcome.error, /matches 2 places \(lines 1, 3\)/);
    assert.match(outcome.error, /replace_all/);
    const all = applyPatch(text, 'use foo', 'use bar', { replaceAll: true });
    assert.ok(all.ok);
    assert.equal(all.text, 'use bar\nother\nuse bar\n');
    assert.equal(all.replacements, 2);
  });

  it('matches lines whose indentation drifted and keeps the file indentation', () => {
    const text = '- steps:\n    1. build\n    2. test\n- done\n';
    const outcome = applyPatch(text, '1. build\n2. test', '1. build\n2. lint\n3. test');
    assert.ok(outcome.ok);
    assert.equal(outcome.strategy, 'line-trimmed');
    assert.equal(outcome.text, '- steps:\n    1. build\n    2. lint\n    3. test\n- done\n');
  });

  it('keeps nested indentation relative to the file when the model wrote it shallower', () => {
    const text = '```yaml\n    jobs:\n      build:\n        runs-on: ubuntu\n```\n';
    const result = patched(text, 'jobs:\n  build:\n    runs-on: ubuntu', 'jobs:\n  build:\n    runs-on: ubuntu-latest\n    timeout: 10');
    assert.equal(result, '```yaml\n    jobs:\n      build:\n        runs-on: ubuntu-latest\n        timeout: 10\n```\n');
  });

  it('keeps each line at its own depth when the model flattened a nested block', () => {
    const text = '- build\n    - run make\n    - run lint\n- test\n';
    const edited = patched(text, '- build\n- run make\n- run lint', '- build it\n- run make all\n- run lint');
    assert.equal(edited, '- build it\n    - run make all\n    - run lint\n- test\n');
    const grown = patched(text, '- build\n- run make\n- run lint', '- build\n- run make\n- run lint\n- run audit');
    assert.equal(grown, '- build\n    - run make\n    - run lint\n- run audit\n- test\n');
  });

  it('tolerates trailing whitespace and blank lines around old_string', () => {
    const text = 'alpha   \nbeta\t\ngamma\n';
    assert.equal(patched(text, '\nalpha\nbeta\n\n', 'ALPHA\nBETA'), 'ALPHA\nBETA\ngamma\n');
  });

  it('matches inside a line when only the amount of whitespace differs', () => {
    const outcome = applyPatch('Call  the   API with a token.\n', 'the API  with', 'the REST API with');
    assert.ok(outcome.ok);
    assert.equal(outcome.strategy, 'whitespace-collapsed');
    assert.equal(outcome.text, 'Call  the REST API with a token.\n');
  });

  it('matches text whose line wrapping differs', () => {
    const text = 'Use this skill when the user asks\nfor a release note.\n';
    assert.equal(patched(text, 'when the user asks for a release', 'when someone asks for a release'), 'Use this skill when someone asks for a release note.\n');
  });

  it('refuses an ambiguous fuzzy match too', () => {
    const outcome = applyPatch('  step one\nx\n\tstep one\n', 'step one ', 'step 1');
    assert.ok(!outcome.ok);
    assert.equal(outcome.reason, 'ambiguous');
    assert.match(outcome.error, /lines 1, 3/);
  });

  it('refuses a missing match with the closest lines as a hint', () => {
    const text = '# Deploy\n\nRun kubectl apply -f deploy.yaml\nThen check the rollout.\n';
    const outcome = applyPatch(text, 'Run kubectl apply -f deployment.yaml', 'x');
    assert.ok(!outcome.ok);
    assert.equal(outcome.reason, 'no-match');
    assert.match(outcome.error, /not found/);
    assert.match(outcome.error, /line 3: "Run kubectl apply -f deploy.yaml"/);
  });

  it('says so when nothing resembles old_string', () => {
    const outcome = applyPatch('# Title\n', 'zzqqxx', 'y');
    assert.ok(!outcome.ok);
    assert.match(outcome.error, /No similar line/);
  });

  it('refuses empty, whitespace-only and no-op patches', () => {
    const empty = applyPatch('abc', '', 'x');
    assert.ok(!empty.ok && /old_string is empty/.test(empty.error));
    const same = applyPatch('abc', 'abc', 'abc');
    assert.ok(!same.ok && /identical/.test(same.error));
    const blank = applyPatch('abc', '  \n ', 'x');
    assert.ok(!blank.ok && /only whitespace/.test(blank.error));
  });

  it('keeps CRLF line endings of a CRLF file when the model sends LF', () => {
    const text = '# T\r\n\r\nline one\r\nline two\r\n';
    assert.equal(patched(text, 'line one\nline two', 'line 1\nline 2'), '# T\r\n\r\nline 1\r\nline 2\r\n');
  });

  it('deletes whole lines without leaving an empty line behind', () => {
    assert.equal(patched('a\n  remove me\nb\n', 'remove me \n', ''), 'a\nb\n');
    assert.equal(patched('a\nb\n    last', ' last \n', ''), 'a\nb');
  });

  it('treats replacement text literally ($ patterns are not special)', () => {
    assert.equal(patched('price: X', 'X', '$& $1 $$'), 'price: $& $1 $$');
  });
});

describe('closestLines', () => {
  it('ranks the most similar lines first and ignores unrelated ones', () => {
    const near = closestLines('apple pie\nbanana bread\napple pies are good\n', 'apple pie!');
    assert.deepEqual(near.map((c) => c.line), [1, 3]);
  });
});
