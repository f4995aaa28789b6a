import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { zipSync } from 'fflate';
import { prepareImport } from '../../../src/core/sharing/importReview';
import type { PreparedImport } from '../../../src/core/sharing/importReview';
import type { InstallOptions } from '../../../src/core/sharing/skillInstaller';
import { DangerousSkillError, installSkill, SkillCollisionError } from '../../../src/core/sharing/skillInstaller';
import { parseSkillSource } from '../../../src/core/sharing/skillSource';
import { computeSkillFolderHash, lockedSkillDir, readLock, verifyLock } from '../../../src/core/sharing/skillsLock';
import { createBareRepo, startGitHttpServer } from '../../fakes/gitHttpServer';
import { DANGEROUS_BODY, fetchPorts, listAll, memoryLogger, nodeFs, readTree, skillMd, tempDir, writeTree } from './sharingFixtures';

describe('installSkill', () => {
  let root: string;
  let project: string;
  let temp: string;
  beforeEach(() => {
    root = tempDir('inst');
    project = path.join(root, 'project');
    temp = path.join(root, 'tmp');
    fs.mkdirSync(project);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  async function prepare(input: string, options: { skill?: string; ref?: string; targetRoot?: string } = {}): Promise<PreparedImport> {
    const source = parseSkillSource(input, { cwd: project, ...(options.ref ? { ref: options.ref } : {}) });
    if ('error' in source) assert.fail(source.error);
    const targetRoot = options.targetRoot ?? path.join(project, '.agents', 'skills');
    return prepareImport(source, fetchPorts(temp), {
      targetRoot,
      existingDirOf: async (name) => ((await nodeFs.stat(path.join(targetRoot, name, 'SKILL.md'))) ? path.join(targetRoot, name) : undefined),
      ...(options.skill ? { skill: options.skill } : {}),
    });
  }

  async function install(prepared: PreparedImport, index: number, options: Partial<InstallOptions> = {}) {
    const review = prepared.reviews[index];
    assert.ok(review);
    return installSkill(nodeFs, review, { source: prepared.source, lockRoot: project, ...(prepared.quarantine.commit ? { commit: prepared.quarantine.commit } : {}), ...options });
  }

  it('refuses to install files that changed after the review', async () => {
    writeTree(project, { 'vendor/skills/tidy/SKILL.md': skillMd('tidy') });
    const prepared = await prepare('./vendor/skills', { skill: 'tidy' });
    const review = prepared.reviews[0];
    assert.ok(review);
    fs.writeFileSync(path.join(review.candidate.dir, 'SKILL.md'), skillMd('tidy', 'Now different.', DANGEROUS_BODY));
    await assert.rejects(install(prepared, 0), /tidy: the files changed since the review; import again/);
    await prepared.quarantine.dispose();
    assert.equal(fs.existsSync(lockedSkillDir(project, 'tidy')), false);
    assert.equal(fs.existsSync(path.join(project, 'skills-lock.json')), false);
  });

  it('installs from a folder into .agents/skills/<name> and writes the lock entry the other tool writes for a local source', async () => {
    writeTree(project, { 'vendor/skills/tidy/SKILL.md': skillMd('tidy'), 'vendor/skills/tidy/scripts/run.py': 'print("tidy")\n', 'vendor/skills/lint/SKILL.md': skillMd('lint') });
    const prepared = await prepare('./vendor/skills', { skill: 'tidy' });
    assert.deepEqual(prepared.reviews.map((r) => r.candidate.name), ['tidy']);
    const review = prepared.reviews[0];
    assert.equal(review?.scan.verdict, 'safe');
    assert.equal(review?.target, lockedSkillDir(project, 'tidy'));
    assert.equal(review?.existing, undefined);
    const result = await install(prepared, 0);
    await prepared.quarantine.dispose();
    assert.equal(result.installedDir, lockedSkillDir(project, 'tidy'));
    assert.deepEqual(readTree(lockedSkillDir(project, 'tidy')), readTree(path.join(project, 'vendor', 'skills', 'tidy')));
    const lockText = fs.readFileSync(path.join(project, 'skills-lock.json'), 'utf8');
    const hash = await computeSkillFolderHash(nodeFs, path.join(project, 'vendor', 'skills', 'tidy'));
    assert.deepEqual(JSON.parse(lockText), {
      version: 1,
      skills: { tidy: { source: './vendor/skills', sourceType: 'local', computedHash: hash, skillwright: { verdict: 'safe', scannerVersion: review?.scan.scannerVersion, reviewed: true } } },
    });
    assert.deepEqual((await verifyLock(nodeFs, project, (await readLock(nodeFs, project)).lock)).map((s) => s.status), ['ok']);
    assert.deepEqual(listAll(path.join(project, '.agents', 'skills')), ['tidy', 'tidy/SKILL.md', 'tidy/scripts', 'tidy/scripts/run.py'], 'no staging folder is left');
  });

  it('installs from a zip with skillPath and from git over HTTP with source, sourceUrl, ref and skillPath', async function () {
    this.timeout(30_000);
    fs.writeFileSync(path.join(project, 'pack.zip'), zipSync({ 'pack/csv/SKILL.md': new TextEncoder().encode(skillMd('csv')) }));
    const zipped = await prepare('./pack.zip');
    const zipResult = await install(zipped, 0);
    await zipped.quarantine.dispose();
    assert.deepEqual({ ...zipResult.lockEntry, skillwright: undefined }, { source: './pack.zip', sourceType: 'zip', skillPath: 'pack/csv/SKILL.md', computedHash: zipResult.lockEntry?.computedHash, skillwright: undefined });

    const repos = tempDir('repos');
    createBareRepo(repos, 'team', { 'skills/pdf/SKILL.md': skillMd('pdf'), 'skills/docx/SKILL.md': skillMd('docx') });
    const server = await startGitHttpServer(repos);
    try {
      const url = `${server.url}/team.git`;
      const prepared = await prepare(`${url}#main`);
      assert.deepEqual(prepared.reviews.map((r) => r.candidate.name), ['docx', 'pdf']);
      const result = await install(prepared, 1);
      await prepared.quarantine.dispose();
      assert.deepEqual(Object.keys(result.lockEntry ?? {}), ['source', 'sourceUrl', 'ref', 'sourceType', 'skillPath', 'computedHash', 'skillwright'], 'the other tool’s field order');
      assert.equal(result.lockEntry?.source, url);
      assert.equal(result.lockEntry?.sourceUrl, url);
      assert.equal(result.lockEntry?.ref, 'main');
      assert.equal(result.lockEntry?.sourceType, 'git');
      assert.equal(result.lockEntry?.skillPath, 'skills/pdf/SKILL.md');
      assert.equal(result.lockEntry?.computedHash, await computeSkillFolderHash(nodeFs, lockedSkillDir(project, 'pdf')));
      assert.deepEqual(Object.keys((await readLock(nodeFs, project)).lock.skills), ['csv', 'pdf']);
    } finally {
      await server.close();
      fs.rmSync(repos, { recursive: true, force: true });
    }
  });

  it('asks on a collision, then keeps mine, takes theirs, or installs under another name with SKILL.md renamed', async () => {
    writeTree(project, { '.agents/skills/tidy/SKILL.md': skillMd('tidy', 'My own tidy.'), 'theirs/tidy/SKILL.md': skillMd('tidy', 'Their tidy.') });
    let prepared = await prepare('./theirs');
    const review = prepared.reviews[0];
    assert.equal(review?.existing?.dir, lockedSkillDir(project, 'tidy'));
    assert.equal(review?.existing?.sameContent, false);
    assert.match(review?.existing?.diff ?? '', /^-description: My own tidy\.\n\+description: Their tidy\.$/m);
    await assert.rejects(install(prepared, 0), (error: Error) => error instanceof SkillCollisionError && /keep mine, take theirs, or install under another name/.test(error.message));
    const kept = await install(prepared, 0, { collision: 'keep_mine' });
    assert.match(kept.skipped ?? '', /kept the installed tidy/);
    assert.match(readTree(lockedSkillDir(project, 'tidy'))['SKILL.md'] ?? '', /My own tidy/);
    assert.equal(fs.existsSync(path.join(project, 'skills-lock.json')), false);

    const renamed = await install(prepared, 0, { collision: 'rename', newName: 'their-tidy' });
    assert.equal(renamed.installedDir, lockedSkillDir(project, 'their-tidy'));
    assert.match(readTree(lockedSkillDir(project, 'their-tidy'))['SKILL.md'] ?? '', /^---\nname: their-tidy\ndescription: Their tidy\./);
    assert.equal(renamed.lockEntry?.skillwright?.renamedFrom, 'tidy');
    assert.equal(renamed.lockEntry?.computedHash, await computeSkillFolderHash(nodeFs, lockedSkillDir(project, 'their-tidy')));
    await assert.rejects(install(prepared, 0, { collision: 'rename', newName: '../escape' }), /invalid skill name/);
    await assert.rejects(install(prepared, 0, { collision: 'rename', newName: 'their-tidy' }), /already installed/);

    await install(prepared, 0, { collision: 'take_theirs' });
    await prepared.quarantine.dispose();
    assert.match(readTree(lockedSkillDir(project, 'tidy'))['SKILL.md'] ?? '', /Their tidy/);
    prepared = await prepare('./theirs');
    assert.equal(prepared.reviews[0]?.existing?.sameContent, true, 'the same files again are not a collision');
    await install(prepared, 0);
    await prepared.quarantine.dispose();
  });

  it('refuses a dangerous verdict without an override; with one, records it in the lock and the log', async () => {
    writeTree(project, { 'bad/sync/SKILL.md': skillMd('sync', 'Keeps things in sync.', DANGEROUS_BODY) });
    const prepared = await prepare('./bad');
    const review = prepared.reviews[0];
    assert.equal(review?.scan.verdict, 'dangerous');
    await assert.rejects(install(prepared, 0), (error: Error) => error instanceof DangerousSkillError && /Nothing was installed.*--allow-dangerous/.test(error.message));
    assert.equal(fs.existsSync(lockedSkillDir(project, 'sync')), false);
    const logger = memoryLogger();
    const result = await install(prepared, 0, { override: 'yes', logger });
    await prepared.quarantine.dispose();
    assert.deepEqual(result.lockEntry?.skillwright, { verdict: 'dangerous', scannerVersion: review?.scan.scannerVersion, reviewed: true, override: { verdict: 'dangerous', by: '--yes' } });
    assert.ok(logger.lines.some((line) => /^warn Installed sync .*dangerous \(override: --yes/.test(line)));
  });

  it('installs into a user folder without touching a lock, and never through a link', async () => {
    const userRoot = path.join(root, 'home', '.agents', 'skills');
    writeTree(project, { 'src/tidy/SKILL.md': skillMd('tidy') });
    const prepared = await prepare('./src', { targetRoot: userRoot });
    const result = await installSkill(nodeFs, prepared.reviews[0] ?? assert.fail(), { source: prepared.source });
    assert.equal(result.installedDir, path.join(userRoot, 'tidy'));
    assert.equal(result.lockEntry, undefined);
    assert.equal(fs.existsSync(path.join(project, 'skills-lock.json')), false);

    const outside = tempDir('outside');
    fs.mkdirSync(path.join(project, '.agents'), { recursive: true });
    fs.symlinkSync(outside, path.join(project, '.agents', 'skills'));
    await prepared.quarantine.dispose();
    const again = await prepare('./src');
    await assert.rejects(install(again, 0), /is a symbolic link/);
    assert.deepEqual(listAll(outside), []);
    await again.quarantine.dispose();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it("shows each skill the notes about its own files (a link left out), not another skill's", async () => {
    writeTree(project, { 'src/a/SKILL.md': skillMd('a'), 'src/b/SKILL.md': skillMd('b') });
    fs.symlinkSync(path.join(root, 'secret'), path.join(project, 'src', 'a', 'key'));
    const prepared = await prepare('./src');
    assert.deepEqual(prepared.reviews.map((r) => [r.candidate.name, r.notes]), [['a', ['a/key: a symbolic link, not imported']], ['b', undefined]]);
    await prepared.quarantine.dispose();
  });

  it('says when a source has no skills or not the one asked for', async () => {
    writeTree(project, { 'empty/README.md': 'nothing here', 'some/a/SKILL.md': skillMd('a') });
    await assert.rejects(prepare('./empty'), /has no skills/);
    await assert.rejects(prepare('./some', { skill: 'b' }), /no skill named "b"; it has a/);
    assert.deepEqual(listAll(temp), [], 'the quarantine is removed on failure');
  });
});
