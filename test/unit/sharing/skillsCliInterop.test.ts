/**
 * The ecosystem's `skills` command line tool as a real peer (a dev dependency, run offline with
 * local folders): locks it writes verify here, our hash equals its hash, and locks we write restore there.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { prepareImport } from '../../../src/core/sharing/importReview';
import { installSkill } from '../../../src/core/sharing/skillInstaller';
import { parseSkillSource } from '../../../src/core/sharing/skillSource';
import { computeSkillFolderHash, LOCK_FILE, lockedSkillDir, parseLock, readLock, serializeLock, verifyLock } from '../../../src/core/sharing/skillsLock';
import { fetchPorts, nodeFs, readTree, skillMd, tempDir, writeTree } from './sharingFixtures';

const skillsBin = path.join(path.dirname(require.resolve('skills/package.json')), 'bin', 'cli.mjs');

/** Runs `skills` in `cwd` with a private HOME, no telemetry and no prompts. */
function skills(cwd: string, home: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [skillsBin, ...args],
      { cwd, timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: home, USERPROFILE: home, DISABLE_TELEMETRY: '1', DO_NOT_TRACK: '1', CI: '1', NO_COLOR: '1' } },
      (error, stdout, stderr) => (error ? reject(new Error(`skills ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

describe('interop with the skills CLI', function () {
  this.timeout(60_000);
  let root: string;
  let home: string;
  let project: string;
  let vendor: string;
  beforeEach(() => {
    root = tempDir('interop');
    home = path.join(root, 'home');
    project = path.join(root, 'project');
    vendor = path.join(root, 'vendor');
    fs.mkdirSync(home);
    fs.mkdirSync(project);
    // Names whose order differs between localeCompare and a code-point sort, nested folders, and
    // node_modules, which both tools leave out of the hash.
    writeTree(vendor, {
      'tidy/SKILL.md': skillMd('tidy'),
      'tidy/B-notes.md': 'upper\n',
      'tidy/a_notes.md': 'lower\n',
      'tidy/Zeta/é.txt': 'accent\n',
      'tidy/scripts/run.py': 'print("tidy")\n',
      'tidy/node_modules/dep/index.js': 'module.exports = 1;\n',
      'lint/SKILL.md': skillMd('lint'),
    });
    fs.mkdirSync(path.join(project, '.git'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a lock the skills CLI writes for local folders verifies here, with the hash we compute for the same folders', async () => {
    await skills(project, home, 'add', vendor, '-y', '--agent', 'codex');
    const read = await readLock(nodeFs, project);
    assert.deepEqual(read.problems, []);
    assert.deepEqual(Object.keys(read.lock.skills), ['lint', 'tidy']);
    for (const name of ['lint', 'tidy']) {
      assert.equal(read.lock.skills[name]?.computedHash, await computeSkillFolderHash(nodeFs, path.join(vendor, name)), `${name}: the CLI's hash of the source is ours`);
    }
    const statuses = await verifyLock(nodeFs, project, read.lock);
    assert.deepEqual(statuses.map((s) => `${s.name}:${s.status}`), ['lint:ok', 'tidy:ok']);
    assert.equal(serializeLock(read.lock), fs.readFileSync(path.join(project, LOCK_FILE), 'utf8'), 'both tools write the same bytes for the same lock');

    fs.appendFileSync(path.join(lockedSkillDir(project, 'tidy'), 'a_notes.md'), 'edited\n');
    assert.deepEqual((await verifyLock(nodeFs, project, read.lock)).map((s) => `${s.name}:${s.status}`), ['lint:ok', 'tidy:changed']);
  });

  it('our install of the same folder records the hash the CLI records, and the CLI keeps our entry and its skillwright object when it adds another', async () => {
    // Both hashes leave links out. (The CLI's copy turns this link into a file, so its own copy
    // then no longer matches its lock; ours leaves it out and does.)
    fs.symlinkSync('SKILL.md', path.join(vendor, 'tidy', 'alias.md'));
    const source = parseSkillSource('../vendor', { cwd: project });
    if ('error' in source) assert.fail(source.error);
    const prepared = await prepareImport(source, fetchPorts(path.join(root, 'tmp')), { targetRoot: path.join(project, '.agents', 'skills'), existingDirOf: () => Promise.resolve(undefined), skill: 'tidy' });
    const ours = await installSkill(nodeFs, prepared.reviews[0] ?? assert.fail(), { source, lockRoot: project });
    await prepared.quarantine.dispose();

    const theirs = path.join(root, 'theirs');
    fs.mkdirSync(path.join(theirs, '.git'), { recursive: true });
    await skills(theirs, home, 'add', vendor, '-y', '--agent', 'codex', '--skill', 'tidy');
    const theirLock = parseLock(fs.readFileSync(path.join(theirs, LOCK_FILE), 'utf8')).lock;
    assert.equal(ours.lockEntry?.computedHash, theirLock.skills.tidy?.computedHash);
    assert.deepEqual(readTree(lockedSkillDir(project, 'tidy')), Object.fromEntries(Object.entries(readTree(lockedSkillDir(theirs, 'tidy'))).filter(([file]) => !file.startsWith('node_modules/') && file !== 'alias.md')));

    await skills(project, home, 'add', vendor, '-y', '--agent', 'codex', '--skill', 'lint');
    const after = await readLock(nodeFs, project);
    assert.deepEqual(after.lock.skills.tidy, ours.lockEntry, 'our entry, skillwright object included, is left as it was');
    assert.deepEqual((await verifyLock(nodeFs, project, after.lock)).map((s) => `${s.name}:${s.status}`), ['lint:ok', 'tidy:ok']);
  });

  it('a lock we write restores with the CLI into .agents/skills, and the hash still verifies', async () => {
    fs.renameSync(vendor, path.join(project, 'vendor'));
    const local = parseSkillSource('./vendor', { cwd: project });
    if ('error' in local) assert.fail(local.error);
    const prepared = await prepareImport(local, fetchPorts(path.join(root, 'tmp')), { targetRoot: path.join(project, '.agents', 'skills'), existingDirOf: () => Promise.resolve(undefined) });
    for (const review of prepared.reviews) await installSkill(nodeFs, review, { source: local, lockRoot: project });
    await prepared.quarantine.dispose();
    const written = (await readLock(nodeFs, project)).lock;
    fs.rmSync(path.join(project, '.agents'), { recursive: true });

    await skills(project, home, 'experimental_install', '-y');
    const restored = await readLock(nodeFs, project);
    assert.deepEqual(Object.keys(restored.lock.skills), ['lint', 'tidy']);
    for (const name of ['lint', 'tidy']) assert.equal(restored.lock.skills[name]?.computedHash, written.skills[name]?.computedHash);
    assert.deepEqual((await verifyLock(nodeFs, project, written)).map((s) => `${s.name}:${s.status}`), ['lint:ok', 'tidy:ok']);
  });
});
