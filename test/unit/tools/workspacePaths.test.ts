import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkspacePaths } from '../../../src/core/tools/workspacePaths';
import { nodeFs } from './toolTestWorkspace';

describe('WorkspacePaths', () => {
  let tmp: string;
  let app: string;
  let lib: string;
  let outside: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-paths-')));
    app = path.join(tmp, 'app');
    lib = path.join(tmp, 'lib');
    outside = path.join(tmp, 'outside');
    for (const dir of [app, lib, outside]) fs.mkdirSync(dir);
    fs.mkdirSync(path.join(app, 'src'));
    fs.writeFileSync(path.join(app, 'src', 'a.ts'), 'a');
    fs.writeFileSync(path.join(lib, 'index.ts'), 'l');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 's');
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const single = (): WorkspacePaths => new WorkspacePaths(nodeFs, [{ name: 'app', fsPath: app }]);
  const multi = (): WorkspacePaths => new WorkspacePaths(nodeFs, [{ name: 'app', fsPath: app }, { name: 'lib', fsPath: lib }]);

  async function resolved(paths: WorkspacePaths, input: string) {
    const result = await paths.resolve(input);
    assert.ok(result.ok, result.ok ? '' : result.error);
    return result.value;
  }

  async function refusal(paths: WorkspacePaths, input: string): Promise<string> {
    const result = await paths.resolve(input);
    assert.ok(!result.ok, `${JSON.stringify(input)} should be refused`);
    return result.error;
  }

  it('resolves relative paths, ./ and inner .. that stay inside', async () => {
    for (const input of ['src/a.ts', './src/a.ts', 'src/../src/a.ts', 'src//a.ts']) {
      const value = await resolved(single(), input);
      assert.equal(value.absolute, path.join(app, 'src', 'a.ts'), input);
      assert.equal(value.relative, 'src/a.ts');
      assert.equal(value.display, 'src/a.ts');
      assert.equal(value.type, 'file');
    }
    const root = await resolved(single(), '.');
    assert.equal(root.relative, '');
    assert.equal(root.display, '.');
    assert.equal(root.type, 'directory');
  });

  it('refuses .. that leaves the workspace, naming the folder', async () => {
    assert.match(await refusal(single(), '../outside/secret.txt'), /leads outside the workspace.*"app"/);
    assert.match(await refusal(single(), 'src/../../lib/index.ts'), /outside the workspace/);
  });

  it('accepts absolute paths inside the workspace and refuses those outside', async () => {
    assert.equal((await resolved(single(), path.join(app, 'src', 'a.ts'))).display, 'src/a.ts');
    assert.match(await refusal(single(), path.join(outside, 'secret.txt')), /is outside the workspace/);
    assert.match(await refusal(single(), '/etc/passwd'), /is outside the workspace/);
  });

  it('refuses home paths, NUL and control characters', async () => {
    assert.match(await refusal(single(), '~/.ssh/id_rsa'), /home folder, outside the workspace/);
    assert.match(await refusal(single(), 'src/a.ts\u0000.png'), /NUL or control character/);
    assert.match(await refusal(single(), 'src/\na.ts'), /control character/);
  });

  it('refuses symbolic links that lead out, for files, folders and paths below linked folders', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(app, 'link.txt'));
    fs.symlinkSync(outside, path.join(app, 'linkdir'));
    assert.match(await refusal(single(), 'link.txt'), /outside the workspace through a symbolic link/);
    assert.match(await refusal(single(), 'linkdir'), /through a symbolic link/);
    assert.match(await refusal(single(), 'linkdir/secret.txt'), /through a symbolic link/);
    assert.match(await refusal(single(), 'linkdir/new/file.txt'), /through a symbolic link/, 'a write below a linked folder');
  });

  it('follows symbolic links that stay inside, reporting where they really lead', async () => {
    fs.symlinkSync(path.join(app, 'src', 'a.ts'), path.join(app, 'alias.ts'));
    const value = await resolved(single(), 'alias.ts');
    assert.equal(value.real, path.join(app, 'src', 'a.ts'));
    assert.equal(value.absolute, path.join(app, 'alias.ts'));
    assert.equal(value.type, 'file');
  });

  it('refuses broken links and files used as folders', async () => {
    fs.symlinkSync(path.join(app, 'missing'), path.join(app, 'broken'));
    assert.match(await refusal(single(), 'broken'), /target does not exist/);
    assert.match(await refusal(single(), 'src/a.ts/x.ts'), /"src\/a\.ts" is a file, not a folder/);
  });

  it('resolves paths that do not exist yet, for writes', async () => {
    const value = await resolved(single(), 'new/dir/file.md');
    assert.equal(value.type, undefined);
    assert.equal(value.real, path.join(app, 'new', 'dir', 'file.md'));
  });

  it('names files in a multi-root workspace by folder name, defaulting to the first folder', async () => {
    const paths = multi();
    const inLib = await resolved(paths, 'lib/index.ts');
    assert.equal(inLib.folder.name, 'lib');
    assert.equal(inLib.display, 'lib/index.ts');
    const inApp = await resolved(paths, 'src/a.ts');
    assert.equal(inApp.folder.name, 'app');
    assert.equal(inApp.display, 'app/src/a.ts');
    assert.equal((await resolved(paths, path.join(lib, 'index.ts'))).display, 'lib/index.ts');
    assert.equal((await resolved(paths, 'app/../lib/index.ts')).display, 'lib/index.ts', '.. may move between folders');
    assert.match(await refusal(paths, 'app/../outside/secret.txt'), /"app", "lib"/);
  });

  it('gives every folder as the scope of a search without a path', async () => {
    const scope = await multi().scope(undefined);
    assert.ok(scope.ok);
    assert.deepEqual(scope.value.map((target) => target.display), ['app', 'lib']);
    const one = await single().scope('');
    assert.ok(one.ok);
    assert.deepEqual(one.value.map((target) => target.display), ['.']);
  });

  it('says so when no folder is open', async () => {
    const result = await new WorkspacePaths(nodeFs, []).resolve('a.ts');
    assert.ok(!result.ok);
    assert.match(result.error, /no workspace folder is open/);
  });
});
