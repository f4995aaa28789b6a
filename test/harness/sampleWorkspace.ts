import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../repoRoot';

/** A fresh copy of the sample workspace (scripts/makeSampleWorkspace.mjs) in a temp folder. */
export function makeSampleWorkspace(name = 'sample'): string {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-ws-'));
  const dest = path.join(base, name);
  execFileSync(process.execPath, [path.join(repoRoot(), 'scripts', 'makeSampleWorkspace.mjs'), dest, '--force'], { stdio: 'pipe' });
  return dest;
}

/** A multi-root workspace file holding the sample workspace and an empty second folder. */
export function makeMultiRootWorkspace(): { file: string; folders: string[] } {
  const sample = makeSampleWorkspace('sample');
  const second = path.join(path.dirname(sample), 'second');
  fs.mkdirSync(second);
  const file = path.join(path.dirname(sample), 'skillwright-test.code-workspace');
  fs.writeFileSync(file, JSON.stringify({ folders: [{ path: sample }, { path: second }] }, null, 2));
  return { file, folders: [sample, second] };
}

export function removeWorkspace(folder: string): void {
  fs.rmSync(path.dirname(folder), { recursive: true, force: true });
}
