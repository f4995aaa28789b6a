import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/runCli';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { repoRoot } from '../../repoRoot';

interface Run {
  code: number;
  out: string;
  err: string;
}

let work: string;
let home: string;

async function run(args: string[], cwd = work): Promise<Run> {
  let out = '';
  let err = '';
  const code = await runCli(args, '1.2.3', {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    cwd,
    homeDir: home,
    fs: new NodeFileSystem(),
    env: {},
  });
  return { code, out, err };
}

function writeSkill(root: string, rel: string, frontmatter: string, body = '# Title\n\nSteps.\n'): void {
  const dir = path.join(root, ...rel.split('/'));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\n\n${body}`);
}

describe('skillwright CLI', () => {
  beforeEach(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-cli-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-cli-home-'));
    const project = path.join(work, '.agents', 'skills');
    writeSkill(project, 'ops/deploy-app', 'name: deploy-app\ndescription: Deploys the app to Kubernetes with kubectl. Use when the user asks to deploy or roll out.');
    writeSkill(project, 'docs/write-notes', 'name: write-notes\ndescription: Writes release notes from merged pull requests. Use when preparing a release.');
    writeSkill(path.join(home, '.agents', 'skills'), 'deploy-app', 'name: deploy-app\ndescription: A personal copy of deploy. Use when deploying.');
  });

  afterEach(() => {
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('prints the version and help', async () => {
    assert.deepEqual(await run(['--version']), { code: 0, out: '1.2.3\n', err: '' });
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: skillwright <command>/);
    for (const command of ['lint', 'list', 'catalog', 'search', 'view']) assert.match(help.out, new RegExp(`\\n  ${command} `));
  });

  it('fails with advice on unknown commands, options and bad values', async () => {
    const unknown = await run(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "frobnicate".*skillwright --help/);
    assert.match((await run(['lint', '--frobnicate'])).err, /unknown option "--frobnicate"/);
    assert.match((await run(['catalog', '--budget', 'lots'])).err, /--budget takes a whole number/);
    assert.match((await run(['search'])).err, /search needs a query/);
    assert.match((await run(['lint', '--root'])).err, /--root needs a value/);
    const missing = await run(['lint', 'no/such/folder']);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /"no\/such\/folder" does not exist/);
    assert.equal((await run([])).code, 2);
  });

  it('lists project and user skills, with the shadowed copy under --all', async () => {
    const listed = JSON.parse((await run(['list', '--json'])).out) as { skills: { name: string; scope: string; path: string; category: string }[] };
    assert.deepEqual(listed.skills.map((s) => `${s.scope}:${s.category}/${s.name}`).sort(), ['project:docs/write-notes', 'project:ops/deploy-app']);
    assert.equal(listed.skills.find((s) => s.name === 'deploy-app')?.path, '.agents/skills/ops/deploy-app');
    const all = JSON.parse((await run(['list', '--all', '--json'])).out) as { skills: { name: string; shadowedBy?: string }[] };
    assert.equal(all.skills.length, 3);
    assert.equal(all.skills.filter((s) => s.shadowedBy).length, 1);
  });

  it('lints with file:line:column findings and exits 1 on errors', async () => {
    const clean = await run(['lint', '.agents/skills']);
    assert.equal(clean.code, 0, clean.out + clean.err);
    writeSkill(path.join(work, '.agents', 'skills'), 'ops/Bad_Name', 'name: Bad_Name\ndescription: x');
    const broken = await run(['lint', '--json', '.agents/skills']);
    assert.equal(broken.code, 1);
    const report = JSON.parse(broken.out) as { findings: { file: string; line: number; column: number; severity: string; code: string; message: string }[]; summary: { errors: number } };
    const nameFinding = report.findings.find((f) => f.file === '.agents/skills/ops/Bad_Name/SKILL.md' && f.line === 2);
    assert.ok(nameFinding, JSON.stringify(report.findings, null, 1));
    assert.equal(nameFinding.severity, 'error');
    assert.match(nameFinding.code, /^SW\d{3}$/);
    assert.ok(report.summary.errors >= 1);
    const text = await run(['lint', '.agents/skills']);
    assert.match(text.out, /^\.agents\/skills\/ops\/Bad_Name\/SKILL\.md:2:\d+: error SW\d{3} /m);
  });

  it('--strict also fails on warnings', async () => {
    writeSkill(path.join(work, 'extra'), 'vague', 'name: vague\ndescription: Formats tables. Use when the user pastes a table.\nversion: banana');
    const relaxed = await run(['lint', 'extra']);
    assert.equal(relaxed.code, 0, relaxed.out);
    assert.match(relaxed.out, /warning/);
    assert.equal((await run(['lint', '--strict', 'extra'])).code, 1);
  });

  it('searches, prints the catalog within its budget, and views a skill', async () => {
    const search = JSON.parse((await run(['search', 'roll out to kubernetes', '--json'])).out) as { results: { name: string; score: number }[] };
    assert.equal(search.results[0]?.name, 'deploy-app');
    assert.ok((search.results[0]?.score ?? 0) > 0);

    const catalog = await run(['catalog', '--json']);
    const result = JSON.parse(catalog.out) as { text: string; tokens: number; budgetTokens: number };
    assert.ok(result.tokens <= result.budgetTokens);
    assert.match(result.text, /deploy-app/);
    assert.match(result.text, /write-notes/);

    const view = await run(['view', 'write-notes']);
    assert.equal(view.code, 0, view.err);
    assert.match(view.out, /Writes release notes/);
    const unknown = await run(['view', 'no-such-skill']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /no-such-skill/);
  });

  it('runs as the built bin with the package version', () => {
    const root = repoRoot();
    const bin = path.join(root, 'dist', 'cli.js');
    if (!fs.existsSync(bin)) {
      execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root });
    }
    const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const result = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `${version}\n`);
    assert.ok(fs.readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node'));
  });

  it('keeps V8’s code cache of the bundle in its cache folder, and starts as well without it or with a broken one', () => {
    const root = repoRoot();
    const bin = path.join(root, 'dist', 'cli.js');
    if (!fs.existsSync(path.join(root, 'dist', 'cliMain.js'))) {
      execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root });
    }
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-code-cache-'));
    try {
      const env = { ...process.env, SKILLWRIGHT_CACHE_DIR: cacheDir };
      const first = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env });
      assert.equal(first.status, 0, first.stderr);
      const files = fs.readdirSync(path.join(cacheDir, 'code'));
      assert.equal(files.length, 1, 'the first start writes the cache');
      const cacheFile = path.join(cacheDir, 'code', files[0] ?? '');
      assert.ok(fs.statSync(cacheFile).size > 10_000);
      const second = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env });
      assert.equal(second.stdout, first.stdout);
      fs.writeFileSync(cacheFile, 'not a code cache');
      const broken = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env });
      assert.equal(broken.status, 0, broken.stderr);
      assert.equal(broken.stdout, first.stdout);
      assert.ok(fs.statSync(cacheFile).size > 10_000, 'a rejected cache is written again');
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('ends quietly when the reader of its output goes away (skillwright list | head)', () => {
    const root = repoRoot();
    const bin = path.join(root, 'dist', 'cli.js');
    const skills = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-epipe-'));
    try {
      for (let i = 0; i < 400; i++) {
        const dir = path.join(skills, `skill-${String(i).padStart(3, '0')}`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: skill-${String(i).padStart(3, '0')}\ndescription: Does thing ${i}. Use when thing ${i} is asked for.\n---\n\n# Skill ${i}\n`);
      }
      const result = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" list --no-cache --root "${skills}" | head -n 1`], { encoding: 'utf8' });
      assert.equal(result.status, 0);
      assert.match(result.stdout, /skill-000/);
      assert.doesNotMatch(result.stderr, /EPIPE|Unhandled/);
    } finally {
      fs.rmSync(skills, { recursive: true, force: true });
    }
  });
});
