import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { prepareImport } from '../../../src/core/sharing/importReview';
import { installSkill, restoreFromLock } from '../../../src/core/sharing/skillInstaller';
import { parseSkillSource } from '../../../src/core/sharing/skillSource';
import { checkForUpdates } from '../../../src/core/sharing/skillUpdates';
import { computeSkillFolderHash, LOCK_FILE, lockedSkillDir, readLock, verifyLock } from '../../../src/core/sharing/skillsLock';
import { commitFiles, createBareRepo, startGitHttpServer } from '../../fakes/gitHttpServer';
import type { GitHttpServer } from '../../fakes/gitHttpServer';
import { DANGEROUS_BODY, fetchPorts, listAll, memoryLogger, nodeFs, readTree, skillMd, tempDir, writeTree } from './sharingFixtures';

describe('restoreFromLock', () => {
  let root: string;
  let project: string;
  let temp: string;
  let server: GitHttpServer;
  let work: string;
  let url: string;

  beforeEach(async function () {
    this.timeout(30_000);
    root = tempDir('restore');
    project = path.join(root, 'project');
    temp = path.join(root, 'tmp');
    fs.mkdirSync(project);
    const repos = path.join(root, 'repos');
    fs.mkdirSync(repos);
    work = createBareRepo(repos, 'team', { 'skills/pdf/SKILL.md': skillMd('pdf'), 'skills/docx/SKILL.md': skillMd('docx'), 'skills/docx/notes.md': 'notes\n' }).work;
    server = await startGitHttpServer(repos);
    url = `${server.url}/team.git`;
    const source = parseSkillSource(`${url}#main`, { cwd: project });
    if ('error' in source) assert.fail(source.error);
    const targetRoot = path.join(project, '.agents', 'skills');
    const prepared = await prepareImport(source, fetchPorts(temp), { targetRoot, existingDirOf: () => Promise.resolve(undefined) });
    for (const review of prepared.reviews) await installSkill(nodeFs, review, { source, lockRoot: project });
    await prepared.quarantine.dispose();
  });
  afterEach(async () => {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const statuses = async (frozen: boolean) => (await restoreFromLock(nodeFs, project, fetchPorts(temp), { frozen })).map((r) => `${r.name}:${r.status}`);

  it('restores every missing locked skill from its source at its ref, and the hashes verify', async function () {
    this.timeout(20_000);
    const before = readTree(path.join(project, '.agents'));
    fs.rmSync(path.join(project, '.agents'), { recursive: true });
    const logger = memoryLogger();
    const results = await restoreFromLock(nodeFs, project, fetchPorts(temp), { frozen: true, logger });
    assert.deepEqual(results.map((r) => `${r.name}:${r.status}`), ['docx:restored', 'pdf:restored']);
    assert.deepEqual(readTree(path.join(project, '.agents')), before);
    assert.deepEqual((await verifyLock(nodeFs, project, (await readLock(nodeFs, project)).lock)).map((s) => s.status), ['ok', 'ok']);
    assert.equal(logger.lines.filter((line) => line.startsWith('info Restored')).length, 2);
    assert.deepEqual(await statuses(true), ['docx:ok', 'pdf:ok'], 'a second run has nothing to do');
    assert.deepEqual(listAll(temp), [], 'quarantines are removed');
  });

  it('--frozen changes nothing when a locked skill was edited here, and says which', async function () {
    this.timeout(20_000);
    fs.rmSync(lockedSkillDir(project, 'pdf'), { recursive: true });
    fs.appendFileSync(path.join(lockedSkillDir(project, 'docx'), 'notes.md'), 'edited\n');
    const results = await restoreFromLock(nodeFs, project, fetchPorts(temp), { frozen: true });
    assert.deepEqual(results.map((r) => `${r.name}:${r.status}`), ['docx:changed', 'pdf:missing']);
    assert.match(results[1]?.message ?? '', /--frozen installs nothing/);
    assert.equal(fs.existsSync(lockedSkillDir(project, 'pdf')), false);
    assert.deepEqual(await statuses(false), ['docx:changed', 'pdf:restored'], 'without --frozen the missing one comes back and the edit stays');
    assert.match(readTree(lockedSkillDir(project, 'docx'))['notes.md'] ?? '', /edited/);
  });

  it('refuses a source whose files no longer hash to the lock, installing nothing under --frozen', async function () {
    this.timeout(20_000);
    commitFiles(work, { 'skills/pdf/SKILL.md': skillMd('pdf', 'Changed upstream.') }, 'change pdf');
    fs.rmSync(path.join(project, '.agents'), { recursive: true });
    const frozen = await restoreFromLock(nodeFs, project, fetchPorts(temp), { frozen: true });
    assert.deepEqual(frozen.map((r) => `${r.name}:${r.status}`), ['docx:missing', 'pdf:mismatch']);
    assert.match(frozen[1]?.message ?? '', /the lock says .*skillwright update pdf --check/);
    assert.equal(fs.existsSync(path.join(project, '.agents')), false);
    assert.deepEqual(await statuses(false), ['docx:restored', 'pdf:mismatch']);
  });

  it('refuses a locked skill the scanner calls dangerous unless the lock records an override', async function () {
    this.timeout(20_000);
    writeTree(project, { 'vendor/sync/SKILL.md': skillMd('sync', 'Sync.', DANGEROUS_BODY) });
    const hash = await computeSkillFolderHash(nodeFs, path.join(project, 'vendor', 'sync'));
    const lock = JSON.parse(fs.readFileSync(path.join(project, LOCK_FILE), 'utf8')) as { skills: Record<string, unknown> };
    lock.skills.sync = { source: './vendor', sourceType: 'local', computedHash: hash };
    fs.writeFileSync(path.join(project, LOCK_FILE), JSON.stringify(lock));
    assert.deepEqual(await statuses(false), ['docx:ok', 'pdf:ok', 'sync:refused']);
    lock.skills.sync = { source: './vendor', sourceType: 'local', computedHash: hash, skillwright: { verdict: 'dangerous', override: { verdict: 'dangerous', by: 'review' } } };
    fs.writeFileSync(path.join(project, LOCK_FILE), JSON.stringify(lock));
    assert.deepEqual(await statuses(false), ['docx:ok', 'pdf:ok', 'sync:restored']);
  });

  it('never reads or writes through a committed link that leads out of the project', async function () {
    this.timeout(30_000);
    const outside = path.join(root, 'outside');
    writeTree(outside, { 'SKILL.md': skillMd('pdf', 'SECRET-TOKEN in here.') });
    const outsideBefore = readTree(outside);
    const statusOf = async () => (await verifyLock(nodeFs, project, (await readLock(nodeFs, project)).lock)).map((s) => `${s.name}:${s.status}`);
    // A link that stays inside the project is read as the folder it points to.
    fs.renameSync(lockedSkillDir(project, 'pdf'), path.join(project, 'pdf-here'));
    fs.symlinkSync(path.join(project, 'pdf-here'), lockedSkillDir(project, 'pdf'));
    assert.deepEqual(await statusOf(), ['docx:ok', 'pdf:ok']);
    fs.unlinkSync(lockedSkillDir(project, 'pdf'));
    fs.symlinkSync(outside, lockedSkillDir(project, 'pdf'));
    assert.deepEqual(await statusOf(), ['docx:ok', 'pdf:invalid']);
    for (const frozen of [true, false]) {
      const results = await restoreFromLock(nodeFs, project, fetchPorts(temp), { frozen });
      assert.deepEqual(results.map((r) => `${r.name}:${r.status}`), ['docx:ok', 'pdf:error']);
      assert.match(results[1]?.message ?? '', /\.agents\/skills\/pdf leads out of the project; replace the link/);
    }
    const updates = await checkForUpdates(nodeFs, project, fetchPorts(temp));
    assert.deepEqual(updates.map((u) => `${u.name}:${u.status}`), ['docx:up_to_date', 'pdf:error']);
    assert.ok(updates.every((u) => !(u.diff ?? '').includes('SECRET')), 'nothing of the outside folder is shown');

    // The whole .agents folder as a link out: nothing is written where it points.
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.rmSync(path.join(project, '.agents'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(project, '.agents'));
    assert.deepEqual(await statuses(false), ['docx:error', 'pdf:error']);
    assert.deepEqual(listAll(elsewhere), []);
    assert.deepEqual(readTree(outside), outsideBefore);
    assert.deepEqual(listAll(temp), []);
  });

  it('never reads or writes outside the project for hostile lock entries', async function () {
    this.timeout(20_000);
    const outside = path.join(root, 'outside');
    writeTree(outside, { 'SKILL.md': skillMd('outside'), 'evil/SKILL.md': skillMd('evil') });
    const hashOutside = await computeSkillFolderHash(nodeFs, outside);
    const hostile = {
      version: 1,
      skills: {
        '../../x': { source: './vendor', sourceType: 'local', computedHash: hashOutside },
        '/etc/cron.d/x': { source: './vendor', sourceType: 'local', computedHash: hashOutside },
        'C:evil': { source: './vendor', sourceType: 'local', computedHash: hashOutside },
        [`${'n'.repeat(300)}`]: { source: './vendor', sourceType: 'local', computedHash: hashOutside },
        abs: { source: outside, sourceType: 'local', computedHash: hashOutside },
        up: { source: '../outside', sourceType: 'local', computedHash: hashOutside },
        linked: { source: './vendor-link', sourceType: 'local', computedHash: hashOutside },
        zipped: { source: './vendor-link/pack.zip', sourceType: 'zip', skillPath: 'SKILL.md', computedHash: hashOutside },
        slip: { source: url, sourceUrl: url, sourceType: 'git', skillPath: '../../../outside/SKILL.md', computedHash: hashOutside },
        rooted: { source: url, sourceUrl: url, sourceType: 'git', skillPath: '/etc/SKILL.md', computedHash: hashOutside },
      },
    };
    fs.writeFileSync(path.join(project, LOCK_FILE), JSON.stringify(hostile));
    fs.symlinkSync(outside, path.join(project, 'vendor-link'));
    const before = listAll(root).filter((p) => !p.startsWith('tmp'));
    const results = await restoreFromLock(nodeFs, project, fetchPorts(temp), { frozen: false });
    const byName = new Map(results.map((r) => [r.name, r]));
    assert.equal(results.filter((r) => r.name === LOCK_FILE && r.status === 'error').length, 4, 'four unsafe names are dropped with a problem each');
    assert.match(byName.get('abs')?.message ?? '', /absolute path/);
    assert.match(byName.get('up')?.message ?? '', /outside the project/);
    assert.match(byName.get('linked')?.message ?? '', /outside the project;.*link that leads out/);
    assert.match(byName.get('zipped')?.message ?? '', /outside the project;.*link that leads out/);
    // Installed here, so an update check would fetch the source and diff against it.
    writeTree(project, { '.agents/skills/linked/SKILL.md': skillMd('linked'), '.agents/skills/zipped/SKILL.md': skillMd('zipped') });
    const updates = await checkForUpdates(nodeFs, project, fetchPorts(temp), { names: ['linked', 'zipped'] });
    fs.rmSync(path.join(project, '.agents', 'skills', 'linked'), { recursive: true });
    fs.rmSync(path.join(project, '.agents', 'skills', 'zipped'), { recursive: true });
    assert.deepEqual(updates.map((u) => `${u.name}:${u.status}`), ['linked:error', 'zipped:error']);
    assert.ok(updates.every((u) => /link that leads out/.test(u.message ?? '') && u.diff === undefined && u.upstreamFiles === undefined), 'nothing was read from where the link points');
    assert.match(byName.get('slip')?.message ?? '', /steps out of the source/);
    assert.match(byName.get('rooted')?.message ?? '', /is absolute/);
    assert.ok(results.every((r) => r.status !== 'restored'));
    assert.deepEqual(listAll(root).filter((p) => !p.startsWith('tmp')), before);
    assert.deepEqual(listAll(temp), []);
  });
});
