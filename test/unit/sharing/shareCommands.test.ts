import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOCK_FILE, lockedSkillDir } from '../../../src/core/sharing/skillsLock';
import { commitFiles, createBareRepo, git, startGitHttpServer } from '../../fakes/gitHttpServer';
import type { GitHttpServer } from '../../fakes/gitHttpServer';
import { runCliCaptured } from '../cli/cliRun';
import { DANGEROUS_BODY, listAll, readTree, skillMd, tempDir, writeTree } from './sharingFixtures';

describe('skillwright add, install and update', function () {
  this.timeout(30_000);
  let root: string;
  let project: string;
  let home: string;
  let temp: string;
  beforeEach(() => {
    root = tempDir('cli');
    project = path.join(root, 'project');
    home = path.join(root, 'home');
    temp = path.join(root, 'tmp');
    for (const dir of [project, home, temp]) fs.mkdirSync(dir);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const cli = (...args: string[]) => runCliCaptured(args, { cwd: project, homeDir: home, env: { SKILLWRIGHT_TEMP_DIR: temp } });
  const lock = (): { skills: Record<string, Record<string, unknown>> } => JSON.parse(fs.readFileSync(path.join(project, LOCK_FILE), 'utf8')) as { skills: Record<string, Record<string, unknown>> };

  it('add prints the review and installs nothing without --yes; with --yes it installs and locks', async () => {
    writeTree(project, { 'vendor/tidy/SKILL.md': skillMd('tidy', 'Tidies things.'), 'vendor/tidy/scripts/run.py': 'print(1)\n' });
    const review = await cli('add', './vendor');
    assert.equal(review.code, 1);
    assert.match(review.out, /^Review of \.\/vendor:\n\ntidy — Tidies things\.\n {2}from tidy\/SKILL\.md, to .*tidy\n {2}verdict: safe/m);
    assert.match(review.out, /scripts\/run\.py/);
    assert.match(review.out, /Nothing was installed\. Re-run with --yes to install\./);
    assert.equal(fs.existsSync(path.join(project, '.agents')), false);
    assert.equal(fs.existsSync(path.join(project, LOCK_FILE)), false);

    const done = await cli('add', './vendor', '--yes');
    assert.equal(done.code, 0, done.err);
    assert.match(done.out, /installed tidy → \.agents\/skills\/tidy \(skills-lock\.json updated\)/);
    assert.deepEqual(Object.keys(lock().skills), ['tidy']);
    assert.deepEqual(listAll(temp), [], 'the quarantine is gone');

    const json = await cli('add', './vendor', '--yes', '--json');
    const parsed = JSON.parse(json.out) as { skills: { name: string; verdict: string; installed: boolean; existing?: { sameContent: boolean } }[] };
    assert.deepEqual(parsed.skills.map((s) => [s.name, s.verdict, s.installed, s.existing?.sameContent]), [['tidy', 'safe', true, true]]);
  });

  it('a dangerous verdict needs --yes --allow-dangerous, which the lock and the log record', async () => {
    writeTree(project, { 'bad/sync/SKILL.md': skillMd('sync', 'Sync.', DANGEROUS_BODY) });
    const held = await cli('add', './bad', '--yes');
    assert.equal(held.code, 1);
    assert.match(held.out, /verdict: dangerous/);
    assert.match(held.out, /CRITICAL/);
    assert.match(held.out, /not installed: sync: the scanner found it dangerous: re-run with --yes --allow-dangerous/);
    assert.equal(fs.existsSync(lockedSkillDir(project, 'sync')), false);
    const forced = await cli('add', './bad', '--yes', '--allow-dangerous');
    assert.equal(forced.code, 0);
    assert.deepEqual(lock().skills.sync?.skillwright, { verdict: 'dangerous', scannerVersion: (lock().skills.sync?.skillwright as { scannerVersion: string }).scannerVersion, reviewed: true, override: { verdict: 'dangerous', by: '--yes' } });
    assert.match(forced.err, /warning: Installed sync .*dangerous/);
  });

  it('a different skill of the same name is kept unless --replace or --as NAME', async () => {
    writeTree(project, { '.agents/skills/tidy/SKILL.md': skillMd('tidy', 'Mine.'), 'theirs/tidy/SKILL.md': skillMd('tidy', 'Theirs.') });
    const held = await cli('add', './theirs', '--yes');
    assert.equal(held.code, 1);
    assert.match(held.out, /-description: Mine\.\n {4}\+description: Theirs\./);
    assert.match(held.out, /kept; re-run with --replace to take theirs, or --as NAME/);
    assert.match(readTree(lockedSkillDir(project, 'tidy'))['SKILL.md'] ?? '', /Mine/);
    assert.equal((await cli('add', './theirs', '--yes', '--as', 'their-tidy')).code, 0);
    assert.match(readTree(lockedSkillDir(project, 'their-tidy'))['SKILL.md'] ?? '', /name: their-tidy\ndescription: Theirs\./);
    assert.equal((await cli('add', './theirs', '--yes', '--replace')).code, 0);
    assert.match(readTree(lockedSkillDir(project, 'tidy'))['SKILL.md'] ?? '', /Theirs/);
    assert.deepEqual(Object.keys(lock().skills), ['their-tidy', 'tidy']);
  });

  it('--user installs into ~/.agents/skills without a lock; bad input exits 2 with what is accepted', async () => {
    writeTree(project, { 'vendor/tidy/SKILL.md': skillMd('tidy') });
    assert.equal((await cli('add', './vendor', '--user', '--yes')).code, 0);
    assert.ok(fs.existsSync(path.join(home, '.agents', 'skills', 'tidy', 'SKILL.md')));
    assert.equal(fs.existsSync(path.join(project, LOCK_FILE)), false);
    const none = await cli('add');
    assert.equal(none.code, 2);
    assert.match(none.err, /add takes one source: a folder/);
    const bad = await cli('add', 'tidy');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /For a folder here write \.\/tidy/);
    assert.equal((await cli('add', './vendor', '--project', '--user')).code, 2);
    const missing = await cli('add', './nowhere', '--yes');
    assert.equal(missing.code, 3);
    assert.match(missing.err, /nowhere is not a folder/);
  });

  describe('with a git server', () => {
    let server: GitHttpServer;
    let work: string;
    let url: string;
    beforeEach(async () => {
      const repos = path.join(root, 'repos');
      fs.mkdirSync(repos);
      work = createBareRepo(repos, 'team', { 'skills/pdf/SKILL.md': skillMd('pdf', 'Reads PDFs.'), 'skills/csv/SKILL.md': skillMd('csv', 'Reads CSV.') }).work;
      git(work, 'tag', 'v1');
      git(work, 'push', '--quiet', 'origin', 'v1');
      server = await startGitHttpServer(repos);
      url = `${server.url}/team.git`;
    });
    afterEach(() => server.close());

    it('add --ref records the ref; install --frozen restores a fresh checkout and fails on an edit without changing anything', async () => {
      const added = await cli('add', url, '--ref', 'v1', '--yes', '--skill', 'pdf');
      assert.equal(added.code, 0, added.err);
      assert.match(added.out, /at v1 \(commit [0-9a-f]{12}\)/);
      assert.deepEqual(lock().skills.pdf && { ref: lock().skills.pdf?.ref, skillPath: lock().skills.pdf?.skillPath, sourceType: lock().skills.pdf?.sourceType }, { ref: 'v1', skillPath: 'skills/pdf/SKILL.md', sourceType: 'git' });
      assert.equal(lock().skills.csv, undefined);

      const before = readTree(path.join(project, '.agents'));
      fs.rmSync(path.join(project, '.agents'), { recursive: true });
      const restored = await cli('install', '--frozen');
      assert.equal(restored.code, 0, restored.out + restored.err);
      assert.match(restored.out, /restored pdf {2}\.agents\/skills\/pdf/);
      assert.deepEqual(readTree(path.join(project, '.agents')), before);

      fs.appendFileSync(path.join(lockedSkillDir(project, 'pdf'), 'SKILL.md'), 'edited\n');
      const lockBefore = fs.readFileSync(path.join(project, LOCK_FILE), 'utf8');
      const frozen = await cli('install', '--frozen', '--json');
      assert.equal(frozen.code, 1);
      const report = JSON.parse(frozen.out) as { ok: boolean; skills: { name: string; status: string }[] };
      assert.equal(report.ok, false);
      assert.deepEqual(report.skills.map((s) => [s.name, s.status]), [['pdf', 'changed']]);
      assert.match(readTree(lockedSkillDir(project, 'pdf'))['SKILL.md'] ?? '', /edited/);
      assert.equal(fs.readFileSync(path.join(project, LOCK_FILE), 'utf8'), lockBefore);
      assert.equal((await cli('install')).code, 0, 'without --frozen a local edit is reported, not a failure');
    });

    it('update --check lists changes; update --yes takes them where nothing was edited and reports conflicts', async () => {
      assert.equal((await cli('add', url, '--yes')).code, 0);
      assert.equal((await cli('update', '--check')).code, 0);
      commitFiles(work, { 'skills/pdf/SKILL.md': skillMd('pdf', 'Reads PDFs, faster.'), 'skills/csv/SKILL.md': skillMd('csv', 'Reads CSV, better.') }, 'both');
      fs.writeFileSync(path.join(lockedSkillDir(project, 'csv'), 'SKILL.md'), skillMd('csv', 'My own CSV.'));

      const check = await cli('update', '--check');
      assert.equal(check.code, 1);
      assert.match(check.out, /^both_changed {5}csv/m);
      assert.match(check.out, /^update_available pdf \(verdict safe\)/m);
      assert.match(check.out, /-description: Reads PDFs\.\n {4}\+description: Reads PDFs, faster\./);

      const asked = await cli('update');
      assert.match(asked.out, /Nothing was changed\. Re-run with --yes to take 1 update/);
      assert.match(readTree(lockedSkillDir(project, 'pdf'))['SKILL.md'] ?? '', /description: Reads PDFs\.\n/);

      const applied = await cli('update', '--yes', '--json');
      assert.equal(applied.code, 1, 'the conflict is still there');
      const checks = (JSON.parse(applied.out) as { checks: { name: string; status: string; applied?: string }[] }).checks;
      assert.deepEqual(checks.map((c) => [c.name, c.status, c.applied]), [['csv', 'both_changed', undefined], ['pdf', 'update_available', 'updated']]);
      assert.match(readTree(lockedSkillDir(project, 'pdf'))['SKILL.md'] ?? '', /faster/);
      assert.match(readTree(lockedSkillDir(project, 'csv'))['SKILL.md'] ?? '', /My own CSV/, 'the local edit is never replaced');
      assert.match((await cli('update', 'pdf', '--check')).out, /^up_to_date {7}pdf/m);
    });
  });
});
