import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SkillsLock } from '../../../src/core/sharing/skillsLock';
import { computeSkillFolderHash, parseLock, readLock, serializeLock, verifyLock, withEntry, writeLock } from '../../../src/core/sharing/skillsLock';

const nodeFs = new NodeFileSystem();

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

describe('skills-lock.json', () => {
  let project: string;
  beforeEach(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-lock-'));
  });
  afterEach(() => fs.rmSync(project, { recursive: true, force: true }));

  it('hashes a folder as path then bytes of each regular file, in localeCompare order, skipping .git, node_modules and symlinks', async () => {
    const dir = path.join(project, '.agents', 'skills', 'tidy');
    write(dir, { 'SKILL.md': '---\nname: tidy\n---\n', 'scripts/b.py': 'print(1)\n', 'B.txt': 'upper', 'a.txt': 'lower', '.git/HEAD': 'x', 'node_modules/m/i.js': 'y' });
    fs.symlinkSync(path.join(dir, 'a.txt'), path.join(dir, 'link.txt'));
    const expected = createHash('sha256');
    // localeCompare puts "a.txt" before "B.txt" (a code-point sort would not).
    for (const rel of ['a.txt', 'B.txt', 'scripts/b.py', 'SKILL.md']) {
      expected.update(rel);
      expected.update(fs.readFileSync(path.join(dir, rel)));
    }
    assert.equal(await computeSkillFolderHash(nodeFs, dir), expected.digest('hex'));
  });

  it('writes sorted keys without timestamps, keeps fields another tool wrote, and reads back what it wrote', async () => {
    let lock: SkillsLock = { version: 1, skills: {} };
    lock = withEntry(lock, 'zeta', { source: 'acme/skills', sourceType: 'github', computedHash: 'b'.repeat(64), pluginName: 'theirs' });
    lock = withEntry(lock, 'alpha', { source: './vendor/alpha', sourceType: 'local', computedHash: 'a'.repeat(64), skillwright: { verdict: 'safe', scannerVersion: '2', reviewed: true } });
    await writeLock(nodeFs, project, lock);
    const text = fs.readFileSync(path.join(project, 'skills-lock.json'), 'utf8');
    assert.ok(text.indexOf('"alpha"') < text.indexOf('"zeta"'));
    assert.ok(text.endsWith('}\n'));
    const read = await readLock(nodeFs, project);
    assert.deepEqual(read.problems, []);
    assert.equal(read.lock.skills.zeta?.pluginName, 'theirs');
    assert.equal(serializeLock(read.lock), text);
  });

  it('reads a broken or future lock as empty, with a message that says what to do', () => {
    assert.match(parseLock('{"version": 1, "skills": ').problems[0] ?? '', /not valid JSON.*fix or delete it/);
    assert.match(parseLock('{"version": 9, "skills": {}}').problems[0] ?? '', /version 9.*Update Skillwright/);
    const partial = parseLock('{"version": 1, "skills": {"ok": {"source": "a/b", "sourceType": "github", "computedHash": "x"}, "bad": {"source": 3}}}');
    assert.deepEqual(Object.keys(partial.lock.skills), ['ok']);
    assert.match(partial.problems[0] ?? '', /"bad" needs/);
  });

  it('verifies locked skills: ok, changed locally, missing', async () => {
    const skills = path.join(project, '.agents', 'skills');
    write(path.join(skills, 'same'), { 'SKILL.md': 'same' });
    write(path.join(skills, 'edited'), { 'SKILL.md': 'before' });
    let lock: SkillsLock = { version: 1, skills: {} };
    for (const name of ['same', 'edited']) {
      lock = withEntry(lock, name, { source: 'x', sourceType: 'local', computedHash: await computeSkillFolderHash(nodeFs, path.join(skills, name)) });
    }
    lock = withEntry(lock, 'gone', { source: 'x', sourceType: 'local', computedHash: '0'.repeat(64) });
    fs.writeFileSync(path.join(skills, 'edited', 'SKILL.md'), 'after');
    const statuses = await verifyLock(nodeFs, project, lock);
    assert.deepEqual(statuses.map((s) => [s.name, s.status]), [['edited', 'changed'], ['gone', 'missing'], ['same', 'ok']]);
  });
});
