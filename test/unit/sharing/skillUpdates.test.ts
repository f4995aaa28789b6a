import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { prepareImport } from '../../../src/core/sharing/importReview';
import { DangerousSkillError, installSkill } from '../../../src/core/sharing/skillInstaller';
import { parseSkillSource } from '../../../src/core/sharing/skillSource';
import { computeSkillFolderHash, lockedSkillDir, readLock } from '../../../src/core/sharing/skillsLock';
import type { UpdateCheck } from '../../../src/core/sharing/skillUpdates';
import { applyUpdate, checkForUpdates, mergeFolders } from '../../../src/core/sharing/skillUpdates';
import { MARKER_MINE, MARKER_SPLIT, MARKER_THEIRS, mergeTexts } from '../../../src/core/sharing/textMerge';
import { commitFiles, createBareRepo, startGitHttpServer } from '../../fakes/gitHttpServer';
import type { GitHttpServer } from '../../fakes/gitHttpServer';
import { DANGEROUS_BODY, fetchPorts, listAll, nodeFs, readTree, skillMd, tempDir } from './sharingFixtures';

const BODY = '# pdf\n\n1. Open the file.\n2. Read every page.\n3. Summarise.\n';

describe('skill updates', () => {
  let root: string;
  let project: string;
  let temp: string;
  let server: GitHttpServer;
  let work: string;

  beforeEach(async function () {
    this.timeout(30_000);
    root = tempDir('upd');
    project = path.join(root, 'project');
    temp = path.join(root, 'tmp');
    fs.mkdirSync(project);
    const repos = path.join(root, 'repos');
    fs.mkdirSync(repos);
    work = createBareRepo(repos, 'team', { 'skills/pdf/SKILL.md': skillMd('pdf', 'Reads PDFs.', BODY), 'skills/pdf/ref.md': 'reference\n' }).work;
    server = await startGitHttpServer(repos);
    const source = parseSkillSource(`${server.url}/team.git#main`, { cwd: project });
    if ('error' in source) assert.fail(source.error);
    const prepared = await prepareImport(source, fetchPorts(temp), { targetRoot: path.join(project, '.agents', 'skills'), existingDirOf: () => Promise.resolve(undefined) });
    for (const review of prepared.reviews) await installSkill(nodeFs, review, { source, lockRoot: project });
    await prepared.quarantine.dispose();
  });
  afterEach(async () => {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const check = async (): Promise<UpdateCheck> => {
    const checks = await checkForUpdates(nodeFs, project, fetchPorts(temp));
    assert.equal(checks.length, 1);
    return checks[0] ?? assert.fail();
  };
  const skillFile = (): string => readTree(lockedSkillDir(project, 'pdf'))['SKILL.md'] ?? '';
  const editLocally = (): void => fs.writeFileSync(path.join(lockedSkillDir(project, 'pdf'), 'SKILL.md'), skillMd('pdf', 'Reads PDFs.', BODY.replace('3. Summarise.', '3. Summarise in five bullets.')));

  it('is up to date after an install, then sees an upstream change with its diff, and takes it', async function () {
    this.timeout(20_000);
    assert.equal((await check()).status, 'up_to_date');
    commitFiles(work, { 'skills/pdf/ref.md': 'reference, second edition\n' }, 'ref');
    const update = await check();
    assert.equal(update.status, 'update_available');
    assert.match(update.diff ?? '', /^-reference\n\+reference, second edition$/m);
    assert.equal(update.review?.scan.verdict, 'safe');
    assert.deepEqual(listAll(temp), [], 'the check keeps upstream files in memory, not in a quarantine');
    assert.deepEqual(await applyUpdate(nodeFs, project, update, 'take_theirs'), { conflicted: [] });
    assert.equal(readTree(lockedSkillDir(project, 'pdf'))['ref.md'], 'reference, second edition\n');
    assert.equal((await readLock(nodeFs, project)).lock.skills.pdf?.computedHash, await computeSkillFolderHash(nodeFs, lockedSkillDir(project, 'pdf')));
    assert.equal((await check()).status, 'up_to_date');
  });

  it('reports a local edit as changed locally and never replaces it without being told', async function () {
    this.timeout(20_000);
    editLocally();
    assert.equal((await check()).status, 'changed_locally');
    commitFiles(work, { 'skills/pdf/ref.md': 'reference 2\n' }, 'ref');
    const both = await check();
    assert.equal(both.status, 'both_changed');
    assert.match(both.diff ?? '', /^-3\. Summarise in five bullets\.\n\+3\. Summarise\.$/m);
    await applyUpdate(nodeFs, project, both, 'keep_mine');
    assert.match(skillFile(), /five bullets/);
    assert.equal(readTree(lockedSkillDir(project, 'pdf'))['ref.md'], 'reference\n');
  });

  it('refuses to apply an update over an edit made after the check', async function () {
    this.timeout(20_000);
    commitFiles(work, { 'skills/pdf/ref.md': 'reference 2\n' }, 'ref');
    const update = await check();
    assert.equal(update.status, 'update_available');
    editLocally();
    await assert.rejects(applyUpdate(nodeFs, project, update, 'take_theirs'), /changed since the check; check for updates again/);
    await assert.rejects(applyUpdate(nodeFs, project, update, 'merge'), /changed since the check/);
    assert.match(skillFile(), /five bullets/);
    assert.equal(readTree(lockedSkillDir(project, 'pdf'))['ref.md'], 'reference\n');
    await applyUpdate(nodeFs, project, update, 'keep_mine');
  });

  it('merges with conflict markers where the two sides differ and keeps the rest', async function () {
    this.timeout(20_000);
    editLocally();
    commitFiles(work, { 'skills/pdf/SKILL.md': skillMd('pdf', 'Reads PDFs.', `${BODY}4. Cite page numbers.\n`), 'skills/pdf/extra.md': 'new upstream file\n' }, 'more');
    const both = await check();
    assert.equal(both.status, 'both_changed');
    const { conflicted } = await applyUpdate(nodeFs, project, both, 'merge');
    assert.deepEqual(conflicted, ['SKILL.md']);
    const merged = skillFile();
    assert.ok(merged.startsWith(skillMd('pdf', 'Reads PDFs.', '# pdf\n\n1. Open the file.\n2. Read every page.\n')), 'shared lines stay as they were');
    assert.ok(merged.endsWith(`${MARKER_MINE}\n3. Summarise in five bullets.\n${MARKER_SPLIT}\n3. Summarise.\n4. Cite page numbers.\n${MARKER_THEIRS}\n`));
    assert.equal(readTree(lockedSkillDir(project, 'pdf'))['extra.md'], 'new upstream file\n');
    assert.equal((await check()).status, 'changed_locally', 'the merge records upstream in the lock; the markers are a local edit');
  });

  it('scans updates like imports: a dangerous one needs an override', async function () {
    this.timeout(20_000);
    commitFiles(work, { 'skills/pdf/SKILL.md': skillMd('pdf', 'Reads PDFs.', DANGEROUS_BODY) }, 'evil');
    const update = await check();
    assert.equal(update.review?.scan.verdict, 'dangerous');
    await assert.rejects(applyUpdate(nodeFs, project, update, 'take_theirs'), DangerousSkillError);
    assert.match(skillFile(), /Summarise/);
    await applyUpdate(nodeFs, project, update, 'take_theirs', { override: 'yes' });
    assert.deepEqual((await readLock(nodeFs, project)).lock.skills.pdf?.skillwright?.override, { verdict: 'dangerous', by: '--yes' });
  });

  it('says which names are not locked, which are missing, and which sources cannot be reached', async function () {
    this.timeout(20_000);
    const unknown = await checkForUpdates(nodeFs, project, fetchPorts(temp), { names: ['nope'] });
    assert.deepEqual(unknown.map((c) => [c.name, c.status]), [['nope', 'error']]);
    fs.rmSync(lockedSkillDir(project, 'pdf'), { recursive: true });
    assert.equal((await check()).status, 'missing');
    await server.close();
    fs.mkdirSync(lockedSkillDir(project, 'pdf'), { recursive: true });
    fs.writeFileSync(path.join(lockedSkillDir(project, 'pdf'), 'SKILL.md'), skillMd('pdf'));
    const unreachable = await check();
    assert.equal(unreachable.status, 'error');
    assert.match(unreachable.message ?? '', /could not fetch/);
    server = await startGitHttpServer(path.join(root, 'repos'));
  });
});

describe('mergeTexts and mergeFolders', () => {
  it('keeps equal texts as they are and marks each differing region', () => {
    assert.deepEqual(mergeTexts('a\nb\n', 'a\nb\n'), { text: 'a\nb\n', conflicts: 0 });
    const merged = mergeTexts('a\nmine\nc\nd\n', 'a\ntheirs\nc\nd\ne');
    assert.equal(merged.conflicts, 2);
    assert.equal(merged.text, `a\n${MARKER_MINE}\nmine\n${MARKER_SPLIT}\ntheirs\n${MARKER_THEIRS}\nc\nd\n${MARKER_MINE}\n${MARKER_SPLIT}\ne\n${MARKER_THEIRS}\n`);
  });

  it('keeps files only one side has, and keeps a binary both changed as mine, reporting it', () => {
    const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
    const { files, conflicted } = mergeFolders(
      new Map([['a.md', enc('x\n')], ['mine.md', enc('m\n')], ['img.bin', new Uint8Array([0, 1, 2])]]),
      new Map([['a.md', enc('y\n')], ['theirs.md', enc('t\n')], ['img.bin', new Uint8Array([0, 9, 9])]]),
    );
    assert.deepEqual([...files.keys()], ['a.md', 'img.bin', 'mine.md', 'theirs.md']);
    assert.deepEqual(conflicted, ['a.md', 'img.bin']);
    assert.deepEqual([...(files.get('img.bin') ?? [])], [0, 1, 2]);
  });
});
