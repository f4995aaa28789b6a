import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/runCli';
import { repoRoot } from '../../repoRoot';

function run(args: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = runCli(args, '1.2.3', { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

describe('skillwright CLI', () => {
  it('prints the version', () => {
    assert.deepEqual(run(['--version']), { code: 0, out: '1.2.3\n', err: '' });
    assert.equal(run(['-v']).out, '1.2.3\n');
  });

  it('prints help with the options', () => {
    const result = run(['--help']);
    assert.equal(result.code, 0);
    assert.match(result.out, /^Usage: skillwright/);
    assert.match(result.out, /--version/);
  });

  it('fails with advice on unknown commands and options, and on no arguments', () => {
    const unknown = run(['lint']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "lint".*skillwright --help/);
    assert.match(run(['--frobnicate']).err, /unknown option "--frobnicate"/);
    const none = run([]);
    assert.equal(none.code, 2);
    assert.match(none.out, /Usage/);
  });

  it('runs as the built bin with the package version', function () {
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
});
