import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LIMITS } from '../../../src/core/tools/workspaceToolContext';
import type { TestWorkspace } from './toolTestWorkspace';
import { makeTestWorkspace } from './toolTestWorkspace';

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('read_file', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace();
  });
  afterEach(() => ws.cleanup());

  it('returns the whole file with its line count', async () => {
    ws.write('src/a.ts', 'const a = 1;\r\nconst b = 2;\r\n');
    const result = await ws.ok('read_file', { path: 'src/a.ts' });
    assert.equal(result['content'], 'const a = 1;\nconst b = 2;');
    assert.equal(result['total_lines'], 2);
    assert.equal(result['start_line'], 1);
    assert.equal(result['end_line'], 2);
    assert.equal(result['truncated'], undefined);
  });

  it('returns an inclusive 1-based line range, and accepts numbers sent as strings', async () => {
    ws.write('f.txt', numbered(10));
    const result = await ws.ok('read_file', { path: 'f.txt', start_line: 3, end_line: '5' });
    assert.equal(result['content'], 'line 3\nline 4\nline 5');
    assert.equal(result['end_line'], 5);
    assert.equal(result['total_lines'], 10);
    const tail = await ws.ok('read_file', { path: 'f.txt', start_line: 9, end_line: 50 });
    assert.equal(tail['content'], 'line 9\nline 10');
  });

  it('refuses ranges that make no sense', async () => {
    ws.write('f.txt', numbered(10));
    assert.match(await ws.refused('read_file', { path: 'f.txt', start_line: 11 }), /start_line 11 is past the end of "f\.txt", which has 10 lines/);
    assert.match(await ws.refused('read_file', { path: 'f.txt', start_line: 5, end_line: 2 }), /end_line 2 is before start_line 5/);
    assert.match(await ws.refused('read_file', { path: 'f.txt', start_line: 0 }), /"start_line" must be at least 1/);
    assert.match(await ws.refused('read_file', { path: 'f.txt', start_line: 1.5 }), /must be a whole number/);
  });

  it(`stops at ${LIMITS.readLines} lines and says how to read the rest`, async () => {
    ws.write('big.txt', numbered(LIMITS.readLines + 500));
    const first = await ws.ok('read_file', { path: 'big.txt' });
    assert.equal(first['end_line'], LIMITS.readLines);
    assert.equal(first['truncated'], true);
    assert.equal(first['next'], `read_file(path="big.txt", start_line=${LIMITS.readLines + 1})`);
    assert.match(String(first['note']), /continue with next/);
    const rest = await ws.ok('read_file', { path: 'big.txt', start_line: LIMITS.readLines + 1 });
    assert.equal(rest['end_line'], LIMITS.readLines + 500);
    assert.equal(rest['truncated'], undefined);
  });

  it('stops at the character cap, and cuts a single giant line', async () => {
    const wide = 'x'.repeat(1000);
    ws.write('wide.txt', Array.from({ length: 400 }, () => wide).join('\n'));
    const result = await ws.ok('read_file', { path: 'wide.txt' });
    assert.ok(String(result['content']).length <= LIMITS.readChars);
    assert.equal(result['truncated'], true);
    assert.ok((result['end_line'] as number) < 400);

    ws.write('minified.js', 'y'.repeat(LIMITS.readChars + 10) + '\nsecond line\n');
    const minified = await ws.ok('read_file', { path: 'minified.js' });
    assert.equal(String(minified['content']).length, LIMITS.readChars);
    assert.equal(minified['end_line'], 1);
    assert.match(String(minified['note']), /line 1 is 262,154 characters long; only its first 262,144 are shown/);
    assert.equal(minified['next'], 'read_file(path="minified.js", start_line=2)');
  });

  it(`refuses files over ${LIMITS.readFileBytes} bytes without reading them, pointing to other tools`, async () => {
    const file = ws.write('huge.log', '');
    fs.truncateSync(file, LIMITS.readFileBytes + 1);
    assert.match(await ws.refused('read_file', { path: 'huge.log' }), /is 33,554,433 bytes, too large for read_file.*search_text.*head, tail or sed -n/);
  });

  it('describes binary files instead of returning their bytes', async () => {
    ws.write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    const result = await ws.ok('read_file', { path: 'logo.png' });
    assert.equal(result['binary'], true);
    assert.equal(result['size'], 7);
    assert.equal(result['content'], undefined);
    assert.match(String(result['note']), /PNG image \(7 bytes\)/);
  });

  it('reads UTF-16 and marks undecodable UTF-8', async () => {
    ws.write('utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\n', 'utf16le')]));
    const utf16 = await ws.ok('read_file', { path: 'utf16.txt' });
    assert.equal(utf16['content'], 'héllo');
    assert.match(String(utf16['note']), /UTF-16LE/);
    ws.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const latin1 = await ws.ok('read_file', { path: 'latin1.txt' });
    assert.equal(latin1['content'], 'caf\uFFFD');
    assert.match(String(latin1['note']), /not valid UTF-8/);
  });

  it('says an empty file is empty', async () => {
    ws.write('empty.txt', '');
    const result = await ws.ok('read_file', { path: 'empty.txt' });
    assert.equal(result['content'], '');
    assert.equal(result['total_lines'], 0);
  });

  it('refuses folders, missing files (with similar names) and paths outside', async () => {
    ws.write('src/config.json', '{}');
    assert.match(await ws.refused('read_file', { path: 'src' }), /is a folder; use list_files\(path="src"\)/);
    assert.match(await ws.refused('read_file', { path: 'src/confg.json' }), /"src\/confg\.json" does not exist; similar names there: "src\/config\.json"/);
    assert.match(await ws.refused('read_file', { path: '../outside/x' }), /outside the workspace/);
    fs.writeFileSync(path.join(ws.outside, 'secret.txt'), 'top secret');
    fs.symlinkSync(path.join(ws.outside, 'secret.txt'), path.join(ws.root, 'innocent.txt'));
    assert.match(await ws.refused('read_file', { path: 'innocent.txt' }), /through a symbolic link/);
    assert.match(await ws.refused('read_file', {}), /read_file needs "path"/);
    assert.match(await ws.refused('read_file', { path: 'a', lines: 3 }), /has no argument "lines"/);
  });
});

describe('list_files', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace({ tools: { excludeGlobs: ['**/.DS_Store', 'tmp'] } });
    ws.write('.gitignore', 'dist/\n*.log\n!important.log\n');
    ws.write('README.md', '');
    ws.write('app.log', '');
    ws.write('important.log', '');
    ws.write('.DS_Store', '');
    ws.write('tmp/scratch.txt', '');
    ws.write('dist/bundle.js', '');
    ws.write('.git/HEAD', 'ref: refs/heads/main\n');
    ws.write('src/index.ts', '');
    ws.write('src/.gitignore', 'gen/\n');
    ws.write('src/gen/out.ts', '');
    ws.write('src/lib/deep/file.ts', '');
  });
  afterEach(() => ws.cleanup());

  it('lists two levels by default, leaving out ignored, excluded and .git entries', async () => {
    const result = await ws.ok('list_files', {});
    assert.deepEqual(result['entries'], ['.gitignore', 'README.md', 'important.log', 'src/', 'src/.gitignore', 'src/index.ts', 'src/lib/']);
    assert.equal(result['path'], '.');
    assert.equal(result['truncated'], undefined);
  });

  it('goes deeper when asked, and lists a subfolder', async () => {
    const deep = await ws.ok('list_files', { path: 'src', depth: 5 });
    assert.deepEqual(deep['entries'], ['src/.gitignore', 'src/index.ts', 'src/lib/', 'src/lib/deep/', 'src/lib/deep/file.ts']);
    const shallow = await ws.ok('list_files', { depth: 1 });
    assert.deepEqual(shallow['entries'], ['.gitignore', 'README.md', 'important.log', 'src/']);
  });

  it('marks symbolic links and does not follow them', async () => {
    fs.symlinkSync(path.join(ws.root, 'src'), path.join(ws.root, 'src-link'));
    const result = await ws.ok('list_files', { depth: 3 });
    assert.ok((result['entries'] as string[]).includes('src-link@'));
    assert.ok(!(result['entries'] as string[]).some((entry) => entry.startsWith('src-link/')));
  });

  it(`caps the listing at ${LIMITS.listEntries} entries with a note`, async () => {
    for (let i = 0; i < LIMITS.listEntries + 20; i++) ws.write(`many/f${String(i).padStart(4, '0')}.txt`, '');
    const result = await ws.ok('list_files', { path: 'many' });
    assert.equal((result['entries'] as string[]).length, LIMITS.listEntries);
    assert.equal(result['truncated'], true);
    assert.match(String(result['note']), /only the first 500 entries/);
  });

  it('refuses files and missing folders', async () => {
    assert.match(await ws.refused('list_files', { path: 'README.md' }), /is a file, not a folder/);
    assert.match(await ws.refused('list_files', { path: 'nope' }), /does not exist/);
    assert.match(await ws.refused('list_files', { depth: 11 }), /"depth" must be at most 10/);
  });

  it('lists every folder of a multi-root workspace under its name', async () => {
    const multi = makeTestWorkspace({ folders: ['web', 'api'] });
    try {
      multi.write('index.html', '');
      multi.write(path.join(multi.tmp, 'api', 'server.py'), '');
      const result = await multi.ok('list_files', {});
      assert.deepEqual(result['entries'], ['api/server.py', 'web/index.html']);
      assert.equal(result['path'], 'the workspace');
    } finally {
      multi.cleanup();
    }
  });
});

describe('find_files', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace({ tools: { searchExcludeGlobs: ['**/node_modules'] } });
    ws.write('.gitignore', 'build/\n');
    ws.write('src/a.ts', '');
    ws.write('src/a.test.ts', '');
    ws.write('src/ui/App.TSX', '');
    ws.write('src/ui/b.ts', '');
    ws.write('build/a.ts', '');
    ws.write('node_modules/pkg/index.ts', '');
    ws.write('README.md', '');
  });
  afterEach(() => ws.cleanup());

  it('matches names at any depth when the glob has no slash, ignoring case', async () => {
    const result = await ws.ok('find_files', { glob: '*.ts' });
    assert.deepEqual(result['files'], ['src/a.test.ts', 'src/a.ts', 'src/ui/b.ts']);
    const tsx = await ws.ok('find_files', { glob: '*.tsx' });
    assert.deepEqual(tsx['files'], ['src/ui/App.TSX']);
  });

  it('matches paths below the given folder when the glob has a slash', async () => {
    assert.deepEqual((await ws.ok('find_files', { glob: 'ui/*', path: 'src' }))['files'], ['src/ui/App.TSX', 'src/ui/b.ts']);
    assert.deepEqual((await ws.ok('find_files', { glob: 'src/**/*.{ts,md}' }))['files'], ['src/a.test.ts', 'src/a.ts', 'src/ui/b.ts']);
  });

  it('says how globs work when nothing matches', async () => {
    const result = await ws.ok('find_files', { glob: '*.rs' });
    assert.deepEqual(result['files'], []);
    assert.match(String(result['note']), /without "\/" matches file names at any depth/);
  });

  it('refuses empty globs and globs that climb out', async () => {
    assert.match(await ws.refused('find_files', { glob: '' }), /glob is empty/);
    assert.match(await ws.refused('find_files', { glob: '../**/*' }), /contains "\.\."/);
  });
});
