import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LIMITS } from '../../../src/core/tools/workspaceToolContext';
import type { TestWorkspace } from './toolTestWorkspace';
import { makeTestWorkspace } from './toolTestWorkspace';

describe('edit_file', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace();
  });
  afterEach(() => ws.cleanup());

  it('replaces a unique match, writes it, and returns a diff', async () => {
    ws.write('src/a.ts', 'export function add(a, b) {\n  return a + b;\n}\n');
    const result = await ws.ok('edit_file', { path: 'src/a.ts', old_string: 'return a + b;', new_string: 'return a + b + 0;' });
    assert.equal(ws.read('src/a.ts'), 'export function add(a, b) {\n  return a + b + 0;\n}\n');
    assert.equal(result['replacements'], 1);
    assert.deepEqual(result['lines'], [2]);
    assert.equal(result['added'], 1);
    assert.equal(result['removed'], 1);
    assert.match(String(result['diff']), /^--- a\/src\/a\.ts\n\+\+\+ b\/src\/a\.ts\n@@ -1,3 \+1,3 @@\n export function add\(a, b\) \{\n-  return a \+ b;\n\+  return a \+ b \+ 0;\n \}\n$/);
  });

  it('refuses an ambiguous match unless replace_all is set', async () => {
    ws.write('a.txt', 'foo\nbar\nfoo\n');
    assert.match(await ws.refused('edit_file', { path: 'a.txt', old_string: 'foo', new_string: 'baz' }), /matches 2 places \(lines 1, 3\).*replace_all/);
    assert.equal(ws.read('a.txt'), 'foo\nbar\nfoo\n');
    const result = await ws.ok('edit_file', { path: 'a.txt', old_string: 'foo', new_string: 'baz', replace_all: true });
    assert.equal(result['replacements'], 2);
    assert.equal(ws.read('a.txt'), 'baz\nbar\nbaz\n');
  });

  it('tolerates indentation drift and says so', async () => {
    ws.write('a.py', 'def f():\n    if x:\n        return 1\n');
    const result = await ws.ok('edit_file', { path: 'a.py', old_string: 'if x:\n    return 1', new_string: 'if x:\n    return 2' });
    assert.equal(ws.read('a.py'), 'def f():\n    if x:\n        return 2\n');
    assert.match(String(result['note']), /ignoring indentation/);
  });

  it('names the closest lines when nothing matches', async () => {
    ws.write('a.txt', 'const value = compute();\n');
    assert.match(await ws.refused('edit_file', { path: 'a.txt', old_string: 'const valeu = compute();', new_string: 'x' }), /not found.*line 1: "const value = compute\(\);"/);
  });

  it('keeps CRLF line endings and a UTF-8 byte order mark', async () => {
    ws.write('win.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\ntwo\r\n')]));
    await ws.ok('edit_file', { path: 'win.txt', old_string: 'two', new_string: 'three' });
    assert.deepEqual(fs.readFileSync(path.join(ws.root, 'win.txt')), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\nthree\r\n')]));
  });

  it(`refuses files over ${LIMITS.editFileBytes} bytes`, async () => {
    const file = ws.write('huge.txt', '');
    fs.truncateSync(file, LIMITS.editFileBytes + 1);
    assert.match(await ws.refused('edit_file', { path: 'huge.txt', old_string: 'a', new_string: 'b' }), /edit_file edits files up to 8,388,608 bytes/);
  });

  it('refuses binary, non-UTF-8, missing files, folders and paths outside', async () => {
    ws.write('img.png', Buffer.from([0x89, 0x00, 0x50]));
    assert.match(await ws.refused('edit_file', { path: 'img.png', old_string: 'P', new_string: 'Q' }), /binary file; edit_file only edits text/);
    ws.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    assert.match(await ws.refused('edit_file', { path: 'latin1.txt', old_string: 'caf', new_string: 'tea' }), /not valid UTF-8/);
    assert.match(await ws.refused('edit_file', { path: 'new.txt', old_string: 'a', new_string: 'b' }), /does not exist; create it with write_file/);
    ws.write('dir/x.txt', '');
    assert.match(await ws.refused('edit_file', { path: 'dir', old_string: 'a', new_string: 'b' }), /is not a file/);
    fs.writeFileSync(path.join(ws.outside, 'target.txt'), 'secret');
    assert.match(await ws.refused('edit_file', { path: '../outside/target.txt', old_string: 'secret', new_string: 'x' }), /outside the workspace/);
    fs.symlinkSync(path.join(ws.outside, 'target.txt'), path.join(ws.root, 'link.txt'));
    assert.match(await ws.refused('edit_file', { path: 'link.txt', old_string: 'secret', new_string: 'x' }), /through a symbolic link/);
    assert.equal(fs.readFileSync(path.join(ws.outside, 'target.txt'), 'utf8'), 'secret');
    assert.match(await ws.refused('edit_file', { path: 'a', old_string: 'x' }), /needs "new_string"/);
  });
});

describe('write_file', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace();
  });
  afterEach(() => ws.cleanup());

  it('creates a file and its folders', async () => {
    const result = await ws.ok('write_file', { path: 'docs/new/notes.md', content: '# Notes\n\nHello\n' });
    assert.equal(ws.read('docs/new/notes.md'), '# Notes\n\nHello\n');
    assert.equal(result['created'], true);
    assert.equal(result['bytes'], 15);
    assert.match(String(result['diff']), /^--- \/dev\/null\n\+\+\+ b\/docs\/new\/notes\.md\n@@ -0,0 \+1,3 @@\n\+# Notes/);
  });

  it('overwrites a file atomically, leaving no temp file behind', async () => {
    ws.write('a.txt', 'old\n');
    const result = await ws.ok('write_file', { path: 'a.txt', content: 'new\n' });
    assert.equal(result['created'], false);
    assert.equal(ws.read('a.txt'), 'new\n');
    assert.deepEqual(fs.readdirSync(ws.root), ['a.txt']);
  });

  it('says when nothing changes', async () => {
    ws.write('a.txt', 'same\n');
    const result = await ws.ok('write_file', { path: 'a.txt', content: 'same\n' });
    assert.equal(result['changed'], false);
  });

  it('writes through a link that stays inside, keeping the link', async () => {
    ws.write('real.txt', 'v1\n');
    fs.symlinkSync(path.join(ws.root, 'real.txt'), path.join(ws.root, 'alias.txt'));
    await ws.ok('write_file', { path: 'alias.txt', content: 'v2\n' });
    assert.ok(fs.lstatSync(path.join(ws.root, 'alias.txt')).isSymbolicLink());
    assert.equal(ws.read('real.txt'), 'v2\n');
  });

  it(`refuses content over ${LIMITS.writeBytes} bytes, folders and escapes`, async () => {
    assert.match(await ws.refused('write_file', { path: 'big.txt', content: 'x'.repeat(LIMITS.writeBytes + 1) }), /at most 1,048,576 bytes/);
    assert.ok(!fs.existsSync(path.join(ws.root, 'big.txt')));
    ws.write('dir/x', '');
    assert.match(await ws.refused('write_file', { path: 'dir', content: 'x' }), /is a folder/);
    assert.match(await ws.refused('write_file', { path: '.', content: 'x' }), /names the workspace folder itself/);
    assert.match(await ws.refused('write_file', { path: path.join(ws.outside, 'escape.txt'), content: 'x' }), /outside the workspace/);
    assert.ok(!fs.existsSync(path.join(ws.outside, 'escape.txt')));
    fs.symlinkSync(ws.outside, path.join(ws.root, 'out'));
    assert.match(await ws.refused('write_file', { path: 'out/planted.sh', content: 'x' }), /through a symbolic link/);
    assert.ok(!fs.existsSync(path.join(ws.outside, 'planted.sh')));
  });
});

describe('edit and write previews for approval', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace();
  });
  afterEach(() => ws.cleanup());

  it('shows a summary and both texts without writing anything', async () => {
    ws.write('a.txt', 'one\ntwo\n');
    const preview = await ws.tools.preview('edit_file', { path: 'a.txt', old_string: 'two', new_string: 'deux' });
    assert.ok(preview?.ok);
    assert.equal(preview.summary, 'Edit a.txt: 1 replacement, +1 −1 lines');
    assert.equal(preview.diff?.before, 'one\ntwo\n');
    assert.equal(preview.diff?.after, 'one\ndeux\n');
    assert.match(preview.diff?.unified ?? '', /-two\n\+deux/);
    assert.equal(ws.read('a.txt'), 'one\ntwo\n');

    const created = await ws.tools.preview('write_file', { path: 'b/c.txt', content: 'x\ny\n' });
    assert.ok(created?.ok);
    assert.equal(created.summary, 'Create b/c.txt (2 lines)');
    assert.equal(created.diff?.before, undefined);
    assert.ok(!fs.existsSync(path.join(ws.root, 'b')));
  });

  it('reports calls that will fail, so nobody is asked, and needs no preview for reads', async () => {
    ws.write('a.txt', 'one\n');
    const preview = await ws.tools.preview('edit_file', { path: 'a.txt', old_string: 'zzz', new_string: 'y' });
    assert.ok(preview && !preview.ok);
    assert.match(preview.error, /not found/);
    assert.equal(await ws.tools.preview('read_file', { path: 'a.txt' }), undefined);
  });

  it('refuses to apply an edit if the file changed while the user was deciding', async () => {
    ws.write('a.txt', 'one\ntwo\n');
    const args = { path: 'a.txt', old_string: 'one', new_string: 'uno' };
    await ws.tools.preview('edit_file', args);
    ws.write('a.txt', 'one\ntwo\nthree (added by the user)\n');
    assert.match(await ws.refused('edit_file', args), /changed while the edit waited for approval/);
    assert.equal(ws.read('a.txt'), 'one\ntwo\nthree (added by the user)\n');
    // Without a fresh preview the next call applies to the current text.
    await ws.ok('edit_file', args);
    assert.equal(ws.read('a.txt'), 'uno\ntwo\nthree (added by the user)\n');
  });

  it('refuses to overwrite a file created while a new-file write waited', async () => {
    const args = { path: 'new.txt', content: 'mine\n' };
    await ws.tools.preview('write_file', args);
    ws.write('new.txt', 'theirs\n');
    assert.match(await ws.refused('write_file', args), /changed while the write waited/);
    assert.equal(ws.read('new.txt'), 'theirs\n');
  });
});
