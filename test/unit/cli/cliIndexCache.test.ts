import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliCacheDir, snapshotFile } from '../../../src/cli/indexCache';
import type { CliRun } from './cliRun';
import { runCliCaptured } from './cliRun';
import { SyncReadFileSystem } from '../../../src/core/base/syncReadFileSystem';
import type { SkillRoot } from '../../../src/core/base/skillRoots';
import { decodeIndexSnapshot, encodeIndexSnapshot } from '../../../src/core/skills/index/indexSnapshot';


interface Listed {
  skills: { name: string; description: string; path: string }[];
}

let work: string;
let home: string;
let cache: string;

async function run(args: string[]): Promise<CliRun> {
  return runCliCaptured(args, { cwd: work, homeDir: home, env: { XDG_CACHE_HOME: cache }, fs: new SyncReadFileSystem() });
}

async function list(...extra: string[]): Promise<Listed> {
  const result = await run(['list', 'skills', '--json', ...extra]);
  assert.equal(result.code, 0, result.err);
  return JSON.parse(result.out) as Listed;
}

function writeSkill(rel: string, description: string): string {
  const dir = path.join(work, 'skills', ...rel.split('/'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'SKILL.md');
  fs.writeFileSync(file, `---\nname: ${path.basename(dir)}\ndescription: ${description}\n---\n\n# Title\n\nSteps.\n`);
  return file;
}

function skillsRoot(): SkillRoot {
  return { path: path.join(work, 'skills'), scope: 'project', label: 'skills', writeTarget: false };
}

/** The one snapshot file of the `skills` folder. */
function snapshotPath(): string {
  return snapshotFile(path.join(cache, 'skillwright'), [skillsRoot()]);
}

/** Rewrites every description in the snapshot, keeping each entry's (mtime, size). */
function tamperWithSnapshot(description: string): void {
  const entries = decodeIndexSnapshot(fs.readFileSync(snapshotPath(), 'utf8'));
  const tampered = entries.map((entry) => ({ ...entry, header: { ...entry.header, description } }));
  fs.writeFileSync(snapshotPath(), encodeIndexSnapshot(tampered));
}

describe('skillwright CLI: the index snapshot in the cache folder', () => {
  beforeEach(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-cli-cache-'));
    home = path.join(work, 'home');
    cache = path.join(work, 'cache');
    writeSkill('ops/deploy-app', 'Deploys the app to Kubernetes. Use when the user asks to deploy.');
    writeSkill('docs/write-notes', 'Writes release notes. Use when preparing a release.');
  });

  afterEach(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('finds the cache folder the way each platform keeps caches', () => {
    assert.equal(cliCacheDir('/h', 'linux', {}), path.join('/h', '.cache', 'skillwright'));
    assert.equal(cliCacheDir('/h', 'linux', { XDG_CACHE_HOME: '/xdg' }), path.join('/xdg', 'skillwright'));
    // A relative XDG_CACHE_HOME is invalid by the XDG rules and ignored.
    assert.equal(cliCacheDir('/h', 'linux', { XDG_CACHE_HOME: 'rel' }), path.join('/h', '.cache', 'skillwright'));
    assert.equal(cliCacheDir('/h', 'darwin', {}), path.join('/h', 'Library', 'Caches', 'skillwright'));
    assert.equal(cliCacheDir('/h', 'win32', { LOCALAPPDATA: 'C:\\L' }), path.join('C:\\L', 'skillwright', 'Cache'));
    assert.equal(cliCacheDir('/h', 'darwin', { SKILLWRIGHT_CACHE_DIR: '/mine', XDG_CACHE_HOME: '/xdg' }), '/mine');
  });

  it('keys the snapshot by the skill folders and their order', () => {
    const a: SkillRoot = { path: '/p/a', scope: 'project', label: 'a', writeTarget: false };
    const b: SkillRoot = { path: '/p/b', scope: 'user', label: 'b', writeTarget: false };
    assert.equal(snapshotFile('/c', [a, b]), snapshotFile('/c', [{ ...a, label: 'other label' }, b]));
    assert.notEqual(snapshotFile('/c', [a, b]), snapshotFile('/c', [b, a]));
    assert.notEqual(snapshotFile('/c', [a]), snapshotFile('/c', [a, b]));
    assert.equal(path.dirname(snapshotFile('/c', [a])), path.join('/c', 'index'));
  });

  it('writes a snapshot on the first run and serves the next run from it', async () => {
    const first = await list();
    assert.equal(first.skills.length, 2);
    assert.equal(decodeIndexSnapshot(fs.readFileSync(snapshotPath(), 'utf8')).length, 2);
    // Entries whose (mtime, size) still match the disk are taken from the snapshot as they are.
    tamperWithSnapshot('from the snapshot');
    const second = await list();
    assert.deepEqual(second.skills.map((s) => s.description), ['from the snapshot', 'from the snapshot']);
    assert.deepEqual(second.skills.map((s) => s.path), first.skills.map((s) => s.path));
  });

  it('re-reads a SKILL.md whose size or mtime changed, and takes in added and removed skills', async () => {
    await list();
    tamperWithSnapshot('stale');
    const resized = writeSkill('ops/deploy-app', 'Deploys the app with Helm now. Use when the user asks to deploy.');
    // Same size, other mtime: the second key of the check.
    const notes = path.join(work, 'skills', 'docs', 'write-notes', 'SKILL.md');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(notes, later, later);
    writeSkill('data/clean-csv', 'Cleans CSV files. Use when a CSV has broken rows.');
    const after = await list();
    const byName = new Map(after.skills.map((s) => [s.name, s.description]));
    assert.equal(byName.get('deploy-app'), 'Deploys the app with Helm now. Use when the user asks to deploy.');
    assert.equal(byName.get('write-notes'), 'Writes release notes. Use when preparing a release.');
    assert.equal(byName.get('clean-csv'), 'Cleans CSV files. Use when a CSV has broken rows.');
    // The snapshot was brought up to date, so the next run reads nothing stale either.
    const saved = decodeIndexSnapshot(fs.readFileSync(snapshotPath(), 'utf8'));
    assert.equal(saved.length, 3);
    assert.ok(saved.every((entry) => entry.header.description !== 'stale'));

    fs.rmSync(path.dirname(resized), { recursive: true });
    assert.deepEqual((await list()).skills.map((s) => s.name).sort(), ['clean-csv', 'write-notes']);
    assert.equal(decodeIndexSnapshot(fs.readFileSync(snapshotPath(), 'utf8')).length, 2);
  });

  it('rebuilds a corrupt snapshot', async () => {
    const expected = await list();
    for (const garbage of ['{"format":"skillwright-skill-index","version":3,"roots":["x"],"skills":[[7]]}', '{ not json', '']) {
      fs.writeFileSync(snapshotPath(), garbage);
      const result = await run(['list', 'skills', '--json']);
      assert.equal(result.code, 0, result.err);
      assert.equal(result.err, '');
      assert.deepEqual(JSON.parse(result.out), expected);
      assert.equal(decodeIndexSnapshot(fs.readFileSync(snapshotPath(), 'utf8')).length, 2);
    }
  });

  it('--no-cache neither reads nor writes the snapshot; an unwritable cache is no failure', async () => {
    await list('--no-cache');
    assert.equal(fs.existsSync(snapshotPath()), false);
    await list();
    tamperWithSnapshot('from the snapshot');
    assert.ok((await list('--no-cache')).skills.every((s) => s.description !== 'from the snapshot'));

    // The cache folder is a file: nothing can be written under it.
    fs.rmSync(cache, { recursive: true });
    fs.writeFileSync(cache, 'not a folder');
    const result = await run(['catalog', 'skills']);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /deploy-app/);
  });

  it('lint and catalog use the snapshot too, with the same results as without it', async () => {
    writeSkill('ops/Bad_Name', 'x');
    const plain = await run(['lint', 'skills', '--json', '--no-cache']);
    const first = await run(['lint', 'skills', '--json']);
    const served = await run(['lint', 'skills', '--json']);
    assert.equal(plain.code, 1);
    assert.deepEqual(JSON.parse(first.out), JSON.parse(plain.out));
    assert.deepEqual(JSON.parse(served.out), JSON.parse(plain.out));
    assert.deepEqual(JSON.parse((await run(['catalog', 'skills', '--json'])).out), JSON.parse((await run(['catalog', 'skills', '--json', '--no-cache'])).out));
  });

  it('loads the agent, the executor and the session store only for the commands that use them', () => {
    const script = `
      const { runCli } = require(${JSON.stringify(require.resolve('../../../src/cli/runCli'))});
      const { SyncReadFileSystem } = require(${JSON.stringify(require.resolve('../../../src/core/base/syncReadFileSystem'))});
      const env = { stdout: () => {}, stderr: (t) => process.stderr.write(t), cwd: process.argv[1], homeDir: process.argv[1],
        fs: new SyncReadFileSystem(), env: { XDG_CACHE_HOME: process.argv[2] } };
      (async () => {
        const loaded = (name) => Object.keys(require.cache).some((file) => file.split(require('path').sep).join('/').includes(name));
        const heavy = ['/node_modules/openai/', '/node_modules/sql.js/', '/node_modules/zod/', '/node_modules/ajv/', '/src/cli/runCommand.js'];
        const report = {};
        for (const args of [['--help'], ['list', 'skills'], ['catalog', 'skills'], ['lint', 'skills'], ['traces', 'list']]) {
          await runCli(args, '0.0.0', env);
          report[args.join(' ')] = heavy.filter(loaded);
        }
        process.stdout.write(JSON.stringify(report));
      })();`;
    const child = spawnSync(process.execPath, ['-e', script, work, cache], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const report = JSON.parse(child.stdout) as Record<string, string[]>;
    assert.deepEqual(report['--help'], []);
    assert.deepEqual(report['list skills'], []);
    assert.deepEqual(report['catalog skills'], []);
    assert.deepEqual(report['lint skills'], []);
    // The check can fail: traces does load the executor's modules (ajv among them).
    assert.ok((report['traces list'] ?? []).length > 0, JSON.stringify(report));
  });
});
