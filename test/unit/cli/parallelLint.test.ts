import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MIN_SKILLS_PER_THREAD, lintFiles } from '../../../src/cli/parallelLint';
import { SyncReadFileSystem } from '../../../src/core/base/syncReadFileSystem';
import type { SkillRoot } from '../../../src/core/base/skillRoots';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';

/** The CLI's entry as compiled beside this test: what a worker thread runs. */
const ENTRY = require.resolve('../../../src/cli/main');

let work: string;

/**
 * Enough skills for two threads, sorted into seven groups; every tenth has a name error, and the
 * last shares the name of the second, across the two halves (a rule that needs the whole index).
 */
function writeTree(root: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const name = i === count - 1 ? 'skill-1' : i % 10 === 0 ? `Bad_Name_${i}` : `skill-${i}`;
    const dir = path.join(root, `group-${i % 7}`, name);
    fs.mkdirSync(dir, { recursive: true });
    const description = `Formats report number ${i} as a table. Use when the user asks for report ${i}.`;
    fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\nversion: 1.0.${i}\n---\n\n# Report ${i}\n\nSteps.\n`);
  }
}

describe('skillwright lint in worker threads', function () {
  // Thousands of files and worker threads on a busy two-core machine.
  this.timeout(120_000);

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-cli-lint-'));
    writeTree(path.join(work, 'skills'), 2 * MIN_SKILLS_PER_THREAD + 50);
  });

  after(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('gives the same findings, in the same order, as one thread', async () => {
    const root: SkillRoot = { path: path.join(work, 'skills'), scope: 'project', label: 'skills', writeTarget: false };
    const fileSystem = new SyncReadFileSystem();
    const store = new MemoryTextStore();
    const index = new SkillIndex({ fs: fileSystem, roots: [root], snapshot: store });
    await index.load();
    await index.saveSnapshot();
    const files = index.all().map((record) => record.file);
    const snapshot = (): Promise<string | undefined> => store.read();
    const one = await lintFiles(files, fileSystem, index, { jobs: 1, snapshot, workerEntry: ENTRY });
    const two = await lintFiles(files, fileSystem, index, { jobs: 2, snapshot, workerEntry: ENTRY });
    index.dispose();
    assert.equal(one.workers, 0);
    assert.equal(two.workers, 1);
    assert.equal(two.findings.length, files.length);
    assert.deepEqual(two.findings, one.findings);
    // The tree does have findings, in both halves, including the duplicate name across them.
    const flagged = one.findings.map((found, i) => (found.length > 0 ? i : -1)).filter((i) => i >= 0);
    assert.ok(flagged.some((i) => i < files.length / 2) && flagged.some((i) => i >= files.length / 2));
    const duplicates = two.findings.map((found, i) => (found.some((finding) => finding.code === 'SW801') ? i : -1)).filter((i) => i >= 0);
    assert.equal(duplicates.length, 2);
    assert.ok(duplicates.some((i) => i < files.length / 2) && duplicates.some((i) => i >= files.length / 2), JSON.stringify(duplicates));
  });

  it('prints the same report from the CLI process with --jobs 2 and --jobs 1', () => {
    const cli = (jobs: string): { status: number | null; stdout: string; stderr: string } =>
      spawnSync(process.execPath, [ENTRY, 'lint', 'skills', '--json', '--jobs', jobs], {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, SKILLWRIGHT_CACHE_DIR: path.join(work, 'cache') },
        maxBuffer: 64 * 1024 * 1024,
      });
    const serial = cli('1');
    const parallel = cli('2');
    assert.equal(serial.status, 1, serial.stderr);
    assert.equal(parallel.status, 1, parallel.stderr);
    assert.equal(parallel.stdout, serial.stdout);
    const report = JSON.parse(parallel.stdout) as { summary: { skills: number; errors: number } };
    assert.equal(report.summary.skills, 2 * MIN_SKILLS_PER_THREAD + 50);
    assert.ok(report.summary.errors > 0);
    assert.match(cli('0').stderr, /--jobs takes a whole number from 1/);
  });
});
