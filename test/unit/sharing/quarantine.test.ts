import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { zipSync } from 'fflate';
import { defaultGitPort, isomorphicGitPort, systemGitPort } from '../../../src/core/sharing/gitPorts';
import { fetchToQuarantine } from '../../../src/core/sharing/quarantine';
import { parseSkillSource } from '../../../src/core/sharing/skillSource';
import type { SkillSource } from '../../../src/core/sharing/skillSource';
import { ZipRefused } from '../../../src/core/sharing/zipArchive';
import { commitFiles, createBareRepo, git, startGitHttpServer } from '../../fakes/gitHttpServer';
import type { GitHttpServer } from '../../fakes/gitHttpServer';
import { fetchPorts, listAll, nodeFs, readTree, skillMd, tempDir, writeTree } from './sharingFixtures';

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

function source(input: string, cwd: string, ref?: string): SkillSource {
  const parsed = parseSkillSource(input, { cwd, ...(ref ? { ref } : {}) });
  if ('error' in parsed) assert.fail(parsed.error);
  return parsed;
}

describe('fetchToQuarantine', () => {
  let root: string;
  let temp: string;
  beforeEach(() => {
    root = tempDir('q');
    temp = path.join(root, 'tmp');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  describe('zip', () => {
    const zipAt = (files: Parameters<typeof zipSync>[0]): string => {
      const file = path.join(root, 'in.zip');
      fs.writeFileSync(file, zipSync(files));
      return file;
    };

    it('unpacks a real zip into a fresh folder under the temp root and removes it on dispose', async () => {
      const file = zipAt({ 'pack/tidy/SKILL.md': enc(skillMd('tidy')), 'pack/tidy/scripts/run.sh': enc('echo hi\n') });
      const q = await fetchToQuarantine(source(file, root), fetchPorts(temp));
      assert.ok(q.dir.startsWith(temp + path.sep));
      assert.deepEqual(readTree(q.root), { 'pack/tidy/SKILL.md': skillMd('tidy'), 'pack/tidy/scripts/run.sh': 'echo hi\n' });
      await q.dispose();
      assert.equal(fs.existsSync(q.dir), false);
    });

    const refused: [string, string, RegExp][] = [
      ['a parent step', '../evil.txt', /steps out/],
      ['a nested parent step', 'ok/../../evil.txt', /steps out/],
      ['backslashes that step out', '..\\..\\evil.txt', /steps out/],
      ['an absolute name', '/tmp/evil.txt', /absolute/],
      ['a drive letter', 'C:/Windows/evil.txt', /drive/],
      ['a very long name part', `${'a'.repeat(300)}/SKILL.md`, /longer than 255 bytes/],
      ['a name part of 255 characters but more bytes', `${'é'.repeat(200)}/SKILL.md`, /longer than 255 bytes/],
      ['a UNC path', '\\\\server\\share\\evil.txt', /absolute/],
      ['a drive-relative name', 'C:evil.txt', /drive/],
      ['a Windows stream', 'tidy/SKILL.md:evil', /stream/],
      ['a Windows device name', 'tidy/CON.txt', /Windows device/],
    ];
    for (const [what, name, message] of refused) {
      it(`refuses the whole archive for ${what} and writes nothing anywhere`, async () => {
        const before = listAll(root);
        const file = zipAt({ 'tidy/SKILL.md': enc(skillMd('tidy')), [name]: enc('pwned') });
        await assert.rejects(fetchToQuarantine(source(file, root), fetchPorts(temp)), (error: Error) => error instanceof ZipRefused && message.test(error.message));
        assert.deepEqual(listAll(root).filter((p) => !p.startsWith('tmp')), [...before, 'in.zip'].sort());
        assert.deepEqual(listAll(temp), []);
        assert.equal(fs.existsSync(path.resolve(root, '..', 'evil.txt')), false);
      });
    }

    it('takes URL-encoded steps as the literal names they are, inside the folder', async () => {
      const file = zipAt({ 'tidy/SKILL.md': enc(skillMd('tidy')), 'tidy/%2e%2e%2f%2e%2e%2fevil.txt': enc('inert'), 'tidy/..%5cevil.txt': enc('inert') });
      const q = await fetchToQuarantine(source(file, root), fetchPorts(temp));
      assert.deepEqual(Object.keys(readTree(q.root)).sort(), ['tidy/%2e%2e%2f%2e%2e%2fevil.txt', 'tidy/..%5cevil.txt', 'tidy/SKILL.md']);
      await q.dispose();
      assert.deepEqual(listAll(root).filter((p) => !p.startsWith('tmp')), ['in.zip']);
    });

    it('refuses symbolic link entries', async () => {
      const file = zipAt({ 'tidy/SKILL.md': enc(skillMd('tidy')), 'tidy/key': [enc('/home/me/.ssh/id_rsa'), { os: 3, attrs: (0o120777 << 16) >>> 0 }] });
      await assert.rejects(fetchToQuarantine(source(file, root), fetchPorts(temp)), /symbolic link/);
      assert.deepEqual(listAll(temp), []);
    });

    it('refuses more than 5,000 entries and more than 50 MB unpacked', async function () {
      this.timeout(60_000);
      const many: Record<string, Uint8Array> = {};
      for (let i = 0; i <= 5000; i++) many[`f/${i}.txt`] = enc('x');
      await assert.rejects(fetchToQuarantine(source(zipAt(many), root), fetchPorts(temp)), /5001 entries; the limit is 5000/);
      const big = zipAt({ 'a.bin': [new Uint8Array(30 * 1024 * 1024), { level: 1 }], 'b.bin': [new Uint8Array(30 * 1024 * 1024), { level: 1 }] });
      assert.ok(fs.statSync(big).size < 2 * 1024 * 1024, 'the archive itself is small');
      await assert.rejects(fetchToQuarantine(source(big, root), fetchPorts(temp)), /more than 50 MB/);
    });

    it('says so when the file is not a zip', async () => {
      const file = path.join(root, 'fake.zip');
      fs.writeFileSync(file, 'not a zip');
      await assert.rejects(fetchToQuarantine(source(file, root), fetchPorts(temp)), /not a zip archive/);
    });
  });

  describe('folder', () => {
    it('copies regular files, skips .git and node_modules, and never follows a link out', async () => {
      const src = path.join(root, 'src');
      writeTree(src, { 'tidy/SKILL.md': skillMd('tidy'), 'tidy/.git/config': 'x', 'tidy/node_modules/m.js': 'y' });
      writeTree(root, { 'secret.txt': 'TOP SECRET' });
      fs.symlinkSync(path.join(root, 'secret.txt'), path.join(src, 'tidy', 'leak.txt'));
      fs.symlinkSync(root, path.join(src, 'tidy', 'up'));
      const q = await fetchToQuarantine(source(src, root), fetchPorts(temp));
      assert.deepEqual(readTree(q.root), { 'tidy/SKILL.md': skillMd('tidy') });
      assert.deepEqual([...q.notes].sort(), ['tidy/leak.txt: a symbolic link, not imported', 'tidy/up: a symbolic link, not imported']);
      await q.dispose();
    });

    it('says when the folder does not exist', async () => {
      await assert.rejects(fetchToQuarantine(source('./nope', root), fetchPorts(temp)), /nope is not a folder/);
    });
  });

  describe('git', () => {
    let server: GitHttpServer;
    let repos: string;
    let first: string;
    let work: string;
    before(async function () {
      this.timeout(30_000);
      repos = tempDir('repos');
      const repo = createBareRepo(repos, 'team', { 'skills/tidy/SKILL.md': skillMd('tidy'), 'README.md': 'team skills\n' });
      first = repo.commit;
      work = repo.work;
      git(work, 'tag', 'v1');
      git(work, 'push', '--quiet', 'origin', 'v1');
      commitFiles(work, { 'skills/tidy/SKILL.md': skillMd('tidy', 'Tidies up, version two.') }, 'v2');
      server = await startGitHttpServer(repos);
    });
    after(async () => {
      await server.close();
      fs.rmSync(repos, { recursive: true, force: true });
    });

    it('clones over smart HTTP with the system git at a branch, a tag and a commit, and records the commit', async function () {
      this.timeout(30_000);
      const url = `${server.url}/team.git`;
      const head = await fetchToQuarantine(source(url, root), fetchPorts(temp));
      assert.match(readTree(head.root)['skills/tidy/SKILL.md'] ?? '', /version two/);
      assert.equal(head.commit, git(work, 'rev-parse', 'HEAD').trim());
      assert.equal(fs.existsSync(path.join(head.root, '.git')), false, '.git is dropped after the clone');
      const tag = await fetchToQuarantine(source(`${url}#v1`, root), fetchPorts(temp));
      assert.equal(tag.commit, first);
      assert.doesNotMatch(readTree(tag.root)['skills/tidy/SKILL.md'] ?? '', /version two/);
      const commit = await fetchToQuarantine(source(url, root, first), fetchPorts(temp));
      assert.equal(commit.commit, first);
      assert.ok(server.requests.some((request) => request.startsWith('/team.git/info/refs?service=git-upload-pack')));
      for (const q of [head, tag, commit]) await q.dispose();
    });

    it('clones file:// URLs and a subpath inside the repository', async function () {
      this.timeout(20_000);
      const url = `${pathToFileURL(path.join(repos, 'team.git')).href}`;
      const q = await fetchToQuarantine({ ...source(url, root), subpath: 'skills' }, fetchPorts(temp));
      assert.deepEqual(Object.keys(readTree(q.root)), ['tidy/SKILL.md']);
      assert.equal(q.base, path.join(q.dir, 'content'));
      await q.dispose();
      await assert.rejects(fetchToQuarantine({ ...source(url, root), subpath: 'nowhere' }, fetchPorts(temp)), /no folder "nowhere"/);
    });

    it('clones over HTTP with isomorphic-git, at a branch and at a commit', async function () {
      this.timeout(30_000);
      const port = isomorphicGitPort();
      const head = await fetchToQuarantine(source(`${server.url}/team.git#main`, root), fetchPorts(temp, port));
      assert.match(readTree(head.root)['skills/tidy/SKILL.md'] ?? '', /version two/);
      const old = await fetchToQuarantine(source(`${server.url}/team.git`, root, first), fetchPorts(temp, port));
      assert.equal(old.commit, first);
      assert.doesNotMatch(readTree(old.root)['skills/tidy/SKILL.md'] ?? '', /version two/);
      await head.dispose();
      await old.dispose();
    });

    it('says isomorphic-git fetches https only when asked for file:// or ssh', async () => {
      const port = isomorphicGitPort();
      await assert.rejects(fetchToQuarantine(source(pathToFileURL(path.join(repos, 'team.git')).href, root), fetchPorts(temp, port)), /needs the git program.*https:\/\/ URLs only/);
      await assert.rejects(port.clone('git@example.com:x/y.git', undefined, path.join(temp, 'x')), /needs the git program/);
    });

    it('names a missing ref and a missing repository', async function () {
      this.timeout(20_000);
      await assert.rejects(fetchToQuarantine(source(`${server.url}/team.git#no-such-branch`, root), fetchPorts(temp)), /no branch, tag or commit "no-such-branch"|not found|could not/);
      await assert.rejects(fetchToQuarantine(source(`${server.url}/missing.git`, root), fetchPorts(temp)), /could not clone/);
      assert.deepEqual(listAll(temp), []);
    });

    it('stops a clone that takes too long and leaves nothing behind', async function () {
      this.timeout(20_000);
      const slow = systemGitPort({ timeoutMs: 1 });
      await assert.rejects(fetchToQuarantine(source(`${server.url}/team.git`, root), fetchPorts(temp, slow)), /took longer than/);
      assert.deepEqual(listAll(temp), []);
    });

    it('kills a clone that is cancelled, and leaves nothing behind', async function () {
      this.timeout(20_000);
      // A server that takes the request and never answers: git waits until it is killed.
      let hits = 0;
      const silent = http.createServer(() => void hits++);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const stop = new AbortController();
        const pending = fetchToQuarantine(source(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/team.git`, root), fetchPorts(temp), stop.signal);
        while (hits === 0) await new Promise((resolve) => setImmediate(resolve));
        stop.abort();
        await assert.rejects(pending, /cancelled/);
        assert.deepEqual(listAll(temp), []);
      } finally {
        silent.closeAllConnections();
        silent.close();
      }
    });

    it('falls back to isomorphic-git when there is no git program, and says it needs one for file://', async function () {
      this.timeout(20_000);
      const port = defaultGitPort({ gitPath: path.join(root, 'no-such-git') });
      const q = await fetchToQuarantine(source(`${server.url}/team.git`, root), fetchPorts(temp, port));
      assert.match(readTree(q.root)['skills/tidy/SKILL.md'] ?? '', /version two/);
      await q.dispose();
      await assert.rejects(fetchToQuarantine(source(pathToFileURL(path.join(repos, 'team.git')).href, root), fetchPorts(temp, port)), /needs the git program/);
    });

    it('removes links that point out of the clone, reports submodules, and never fetches them', async function () {
      this.timeout(30_000);
      const evil = createBareRepo(repos, 'evil', { 'tidy/SKILL.md': skillMd('tidy'), '.gitmodules': '[submodule "secrets"]\n\tpath = tidy/secrets\n\turl = ../../../../home\n[submodule "up"]\n\tpath = ../outside\n\turl = file:///etc\n' });
      fs.symlinkSync('../../../../../etc/passwd', path.join(evil.work, 'tidy', 'passwd'));
      fs.symlinkSync('SKILL.md', path.join(evil.work, 'tidy', 'alias.md'));
      git(evil.work, 'update-index', '--add', '--cacheinfo', `160000,${first},tidy/secrets`);
      commitFiles(evil.work, {}, 'links and a submodule');
      const q = await fetchToQuarantine(source(`${server.url}/evil.git`, root), fetchPorts(temp));
      const tree = readTree(q.root);
      assert.equal(tree['tidy/passwd'], undefined, 'the escaping link is gone');
      assert.equal(tree['tidy/alias.md'], '-> SKILL.md', 'a link inside stays (it is never installed)');
      assert.ok(q.notes.includes('tidy/passwd: a symbolic link pointing outside the repository; removed'));
      assert.ok(q.notes.some((note) => /submodule "secrets".*points outside the repository; refused/.test(note)));
      assert.ok(q.notes.some((note) => /submodule "up".*refused/.test(note)));
      assert.deepEqual(listAll(path.join(q.root, 'tidy', 'secrets')), [], 'the submodule folder stays empty');
      assert.equal(fs.existsSync(path.join(q.dir, 'outside')), false);
      await q.dispose();
      assert.ok(await nodeFs.stat(path.join(repos, 'evil.git')), 'the bare repository is untouched');
    });
  });
});
