import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { relocateSkill } from '../../../src/core/sharing/relocateSkill';
import { computeSkillFolderHash, readLock, verifyLock, withEntry, writeLock } from '../../../src/core/sharing/skillsLock';

const nodeFs = new NodeFileSystem();

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

const SKILL = { 'SKILL.md': '---\nname: tidy-notes\ndescription: Tidies notes. Use when notes are messy.\n---\n\n# Tidy\n', 'scripts/run.py': 'print(1)\n', '.hidden/config': 'x=1\n' };

describe('relocateSkill: Copy and Move to .agents/skills', () => {
  let base: string;
  let project: string;
  let claude: string;
  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-relocate-'));
    project = path.join(base, 'project');
    claude = path.join(project, '.claude', 'skills');
    fs.mkdirSync(project, { recursive: true });
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('copies every file (hidden ones too, not .git or node_modules) and leaves the original as it was', async () => {
    const from = path.join(claude, 'tidy-notes');
    write(from, { ...SKILL, '.git/HEAD': 'ref', 'node_modules/m/index.js': 'x' });
    const result = await relocateSkill(nodeFs, from, project, { move: false });
    assert.equal(result.dir, path.join(project, '.agents', 'skills', 'tidy-notes'));
    assert.deepEqual(tree(result.dir), ['.hidden/config', 'SKILL.md', 'scripts/run.py']);
    assert.deepEqual(result.skipped, []);
    assert.ok(fs.existsSync(path.join(from, 'SKILL.md')), 'a copy keeps the original');
    assert.equal(await computeSkillFolderHash(nodeFs, result.dir), await computeSkillFolderHash(nodeFs, from));
  });

  it('moves a folder, removing the original, and carries the lock entry from another project over', async () => {
    const other = path.join(base, 'other');
    const from = path.join(other, '.claude', 'skills', 'tidy-notes');
    write(from, SKILL);
    const entry = { source: 'acme/notes', sourceType: 'github', computedHash: await computeSkillFolderHash(nodeFs, from), ref: 'v1' };
    await writeLock(nodeFs, other, withEntry({ version: 1, skills: {} }, 'tidy-notes', entry));
    await writeLock(nodeFs, project, withEntry({ version: 1, skills: {} }, 'kept', { source: 'x/y', sourceType: 'github', computedHash: 'abc' }));

    const result = await relocateSkill(nodeFs, from, project, { move: true, lockFrom: other });
    assert.equal(fs.existsSync(from), false, 'the original is gone');
    assert.deepEqual(result.lockEntry, entry);
    const lock = (await readLock(nodeFs, project)).lock;
    assert.deepEqual(Object.keys(lock.skills), ['kept', 'tidy-notes']);
    assert.deepEqual(lock.skills['tidy-notes'], entry);
    assert.deepEqual((await readLock(nodeFs, other)).lock.skills, {}, 'a moved skill leaves the old lock');
    const statuses = await verifyLock(nodeFs, project, { version: 1, skills: { 'tidy-notes': entry } });
    assert.equal(statuses[0]?.status, 'ok', 'the carried entry verifies against the moved folder');
  });

  it('keeps the entry of the project’s own lock and renames it with the folder', async () => {
    const from = path.join(claude, 'tidy-notes');
    write(from, SKILL);
    const entry = { source: 'acme/notes', sourceType: 'github', computedHash: await computeSkillFolderHash(nodeFs, from) };
    await writeLock(nodeFs, project, withEntry({ version: 1, skills: {} }, 'tidy-notes', entry));
    await relocateSkill(nodeFs, from, project, { move: false, lockFrom: project });
    assert.deepEqual(Object.keys((await readLock(nodeFs, project)).lock.skills), ['tidy-notes']);
    const from2 = path.join(claude, 'tidy-notes');
    const renamed = await relocateSkill(nodeFs, from2, project, { move: true, lockFrom: project, name: 'tidy-notes-2' });
    assert.equal(renamed.dir, path.join(project, '.agents', 'skills', 'tidy-notes-2'));
    assert.deepEqual(Object.keys((await readLock(nodeFs, project)).lock.skills), ['tidy-notes-2']);
  });

  it('never writes over an existing folder and says what to do', async () => {
    const from = path.join(claude, 'tidy-notes');
    write(from, SKILL);
    write(path.join(project, '.agents', 'skills', 'tidy-notes'), { 'SKILL.md': 'mine' });
    await assert.rejects(relocateSkill(nodeFs, from, project, { move: true }), /\.agents\/skills\/tidy-notes already exists; rename or remove it first/);
    assert.equal(fs.readFileSync(path.join(project, '.agents', 'skills', 'tidy-notes', 'SKILL.md'), 'utf8'), 'mine');
    assert.ok(fs.existsSync(path.join(from, 'scripts', 'run.py')), 'nothing was moved');
  });

  it('does not follow links that lead out of the skill, nor carry them along on a move', async () => {
    const from = path.join(claude, 'tidy-notes');
    write(from, SKILL);
    write(base, { 'secret.txt': 'do not copy' });
    fs.symlinkSync(path.join(base, 'secret.txt'), path.join(from, 'leak.txt'));
    fs.symlinkSync(path.join(from, 'scripts', 'run.py'), path.join(from, 'alias.py'));
    fs.symlinkSync(base, path.join(from, 'up'));
    const result = await relocateSkill(nodeFs, from, project, { move: true });
    assert.deepEqual([...result.skipped].sort(), ['leak.txt', 'up']);
    assert.deepEqual(tree(result.dir), ['.hidden/config', 'SKILL.md', 'alias.py', 'scripts/run.py']);
    assert.equal(fs.lstatSync(path.join(result.dir, 'alias.py')).isSymbolicLink(), false, 'a link inside becomes a file');
    assert.match(result.kept ?? '', /leaves out leak\.txt, up/);
    assert.ok(fs.lstatSync(path.join(from, 'leak.txt')).isSymbolicLink(), 'the original, with what the copy left behind, is kept');
    assert.equal(fs.readFileSync(path.join(base, 'secret.txt'), 'utf8'), 'do not copy');
  });

  it('keeps the original of a move that had to copy and would lose .git, and leaves its lock entry in place', async () => {
    const other = path.join(base, 'other');
    const from = path.join(other, '.claude', 'skills', 'tidy-notes');
    write(from, { ...SKILL, '.git/HEAD': 'ref: refs/heads/main\n', 'node_modules/m/index.js': 'x' });
    fs.symlinkSync(path.join(from, 'SKILL.md'), path.join(from, 'alias.md'));
    const entry = { source: 'acme/notes', sourceType: 'github', computedHash: await computeSkillFolderHash(nodeFs, from) };
    await writeLock(nodeFs, other, withEntry({ version: 1, skills: {} }, 'tidy-notes', entry));
    const result = await relocateSkill(nodeFs, from, project, { move: true, lockFrom: other });
    assert.deepEqual(result.skipped, []);
    assert.match(result.kept ?? '', /leaves out \.git, node_modules/);
    assert.equal(fs.readFileSync(path.join(from, '.git', 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
    assert.ok(fs.existsSync(path.join(result.dir, 'SKILL.md')));
    assert.ok((await readLock(nodeFs, other)).lock.skills['tidy-notes'], 'the kept original keeps its entry');
  });

  it('refuses to write through a .agents or .agents/skills link that leads out of the project', async () => {
    const from = path.join(claude, 'tidy-notes');
    write(from, SKILL);
    const outside = path.join(base, 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(project, '.agents'), 'dir');
    await assert.rejects(relocateSkill(nodeFs, from, project, { move: false }), /\.agents is a symbolic link/);
    fs.unlinkSync(path.join(project, '.agents'));
    fs.mkdirSync(path.join(project, '.agents'));
    fs.symlinkSync(outside, path.join(project, '.agents', 'skills'), 'dir');
    await assert.rejects(relocateSkill(nodeFs, from, project, { move: true }), /skills is a symbolic link/);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing was written outside');
    assert.ok(fs.existsSync(path.join(from, 'SKILL.md')));
  });

  it('moves a linked skill by copying what the link points to and removing only the link', async () => {
    const real = path.join(base, 'elsewhere', 'tidy-notes');
    write(real, SKILL);
    fs.mkdirSync(claude, { recursive: true });
    const from = path.join(claude, 'tidy-notes');
    fs.symlinkSync(real, from, 'dir');
    const result = await relocateSkill(nodeFs, from, project, { move: true });
    assert.equal(fs.existsSync(from), false, 'the link is gone');
    assert.ok(fs.existsSync(path.join(real, 'SKILL.md')), 'what it pointed to is untouched');
    assert.deepEqual(tree(result.dir), ['.hidden/config', 'SKILL.md', 'scripts/run.py']);
  });

  it('refuses a folder without SKILL.md, one already in .agents/skills, and a bad name', async () => {
    write(path.join(claude, 'empty'), { 'notes.md': 'x' });
    await assert.rejects(relocateSkill(nodeFs, path.join(claude, 'empty'), project, { move: false }), /is not a skill folder \(no SKILL\.md in it\)/);
    const own = path.join(project, '.agents', 'skills', 'own');
    write(own, SKILL);
    fs.mkdirSync(claude, { recursive: true });
    fs.symlinkSync(own, path.join(claude, 'own'), 'dir');
    await assert.rejects(relocateSkill(nodeFs, path.join(claude, 'own'), project, { move: true }), /already is in the project's \.agents\/skills \(it links to/);
    write(path.join(claude, 'tidy-notes'), SKILL);
    await assert.rejects(relocateSkill(nodeFs, path.join(claude, 'tidy-notes'), project, { move: false, name: 'Bad Name' }), /use lowercase letters, digits and single hyphens/);
  });
});
