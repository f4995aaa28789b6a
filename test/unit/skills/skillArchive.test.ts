import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SkillRoot } from '../../../src/core/base/skillRoots';
import { ARCHIVE_FOLDER, archiveSkill, listArchived, restoreSkill } from '../../../src/core/skills/index/skillArchive';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';

function skillText(name: string): string {
  return `---\nname: ${name}\ndescription: Helps with ${name}. Use when asked about ${name}.\nversion: 1.2.0\n---\n\n# Steps\n`;
}

describe('skill archive', () => {
  const nodeFs = new NodeFileSystem();
  let temp: string;
  let root: SkillRoot;
  let other: SkillRoot;

  function write(base: string, relative: string, text: string): string {
    const file = path.join(base, ...relative.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }

  beforeEach(() => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-archive-'));
    root = { path: path.join(temp, 'app', '.agents', 'skills'), scope: 'project', label: '.agents/skills', writeTarget: true };
    other = { path: path.join(temp, 'home', '.agents', 'skills'), scope: 'user', label: '~/.agents/skills', writeTarget: true };
    write(root.path, 'ops/deploy/SKILL.md', skillText('deploy'));
    write(root.path, 'ops/deploy/references/notes.md', 'notes');
    write(root.path, 'lint/SKILL.md', skillText('lint'));
  });

  afterEach(() => fs.rmSync(temp, { recursive: true, force: true }));

  it('moves a skill folder into the root\'s archive with its category and files, lists it, and restores it', async () => {
    const dir = path.join(root.path, 'ops', 'deploy');
    const archived = await archiveSkill(nodeFs, root, dir);
    assert.ok(archived.ok, archived.ok ? '' : archived.error);
    const target = path.join(root.path, ARCHIVE_FOLDER, 'ops', 'deploy');
    assert.equal(archived.to, target);
    assert.equal(fs.existsSync(dir), false);
    assert.equal(fs.readFileSync(path.join(target, 'references', 'notes.md'), 'utf8'), 'notes');

    const listed = await listArchived(nodeFs, [root, other]);
    assert.deepEqual(
      listed.map((skill) => ({ name: skill.name, dir: skill.dir, category: skill.category, restoreTo: skill.restoreTo, root: skill.root.label })),
      [{ name: 'deploy', dir: target, category: 'ops', restoreTo: dir, root: '.agents/skills' }],
    );
    assert.match(listed[0]?.description ?? '', /Helps with deploy/);
    assert.equal(listed[0]?.version, '1.2.0');

    const restored = await restoreSkill(nodeFs, [other, root], target);
    assert.ok(restored.ok, restored.ok ? '' : restored.error);
    assert.equal(restored.to, dir);
    assert.equal(fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8'), skillText('deploy'));
    assert.deepEqual(await listArchived(nodeFs, [root]), []);
  });

  it('keeps archived skills out of the index, and a restored one comes back', async () => {
    const index = new SkillIndex({ fs: nodeFs, roots: [root], platform: 'linux' });
    try {
      await index.load();
      assert.deepEqual(index.all().map((r) => r.name).sort(), ['deploy', 'lint']);
      const archived = await archiveSkill(nodeFs, root, path.join(root.path, 'lint'));
      assert.ok(archived.ok);
      await index.invalidate(archived.from);
      assert.deepEqual(index.all().map((r) => r.name), ['deploy']);
      await index.rescan();
      assert.deepEqual(index.all().map((r) => r.name), ['deploy'], 'a full scan skips .archive too');
      const restored = await restoreSkill(nodeFs, [root], archived.to);
      assert.ok(restored.ok);
      await index.invalidate(restored.to);
      assert.deepEqual(index.all().map((r) => r.name).sort(), ['deploy', 'lint']);
    } finally {
      index.dispose();
    }
  });

  it('never overwrites: not an archived copy of the same path, not a skill put back in the meantime', async () => {
    const dir = path.join(root.path, 'lint');
    write(root.path, `${ARCHIVE_FOLDER}/lint/SKILL.md`, skillText('lint-older'));
    const refused = await archiveSkill(nodeFs, root, dir);
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.match(refused.error, /already exists.*nothing was overwritten/);
    assert.equal(fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8'), skillText('lint'), 'the skill stays where it was');
    assert.equal(fs.readFileSync(path.join(root.path, ARCHIVE_FOLDER, 'lint', 'SKILL.md'), 'utf8'), skillText('lint-older'));

    const back = await restoreSkill(nodeFs, [root], path.join(root.path, ARCHIVE_FOLDER, 'lint'));
    assert.equal(back.ok, false);
    if (!back.ok) assert.match(back.error, /already exists/);
    assert.equal(fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8'), skillText('lint'));
    assert.equal(fs.existsSync(path.join(root.path, ARCHIVE_FOLDER, 'lint', 'SKILL.md')), true, 'nothing deleted either');
  });

  it('refuses paths outside a root\'s archive, with traversal, relative or not a skill', async () => {
    const outside = write(temp, 'elsewhere/x/SKILL.md', skillText('x'));
    const archivedDir = path.join(root.path, ARCHIVE_FOLDER, 'ops', 'deploy');
    const cases: [string, RegExp][] = [
      [path.dirname(outside), /not inside the \.archive folder/],
      [`${root.path}${path.sep}${ARCHIVE_FOLDER}${path.sep}..${path.sep}lint`, /absolute path of a folder/],
      [`${root.path}/${ARCHIVE_FOLDER}/ops/../../lint`, /absolute path of a folder/],
      ['.agents/skills/.archive/lint', /absolute path of a folder/],
      ['', /absolute path of a folder/],
      [path.join(root.path, ARCHIVE_FOLDER), /not inside the \.archive folder/],
      [path.join(root.path, 'lint'), /not inside the \.archive folder/],
      [archivedDir, /holds no SKILL\.md/],
    ];
    for (const [input, reason] of cases) {
      const result = await restoreSkill(nodeFs, [root, other], input);
      assert.equal(result.ok, false, input);
      if (!result.ok) assert.match(result.error, reason, input);
    }
    assert.equal(fs.existsSync(path.join(root.path, 'lint', 'SKILL.md')), true);
    assert.equal(fs.existsSync(outside), true);

    const archiveCases: [string, RegExp][] = [
      [root.path, /not a skill folder inside/],
      [path.dirname(outside), /not a skill folder inside/],
      [path.join(root.path, '..', '..', 'elsewhere', 'x'), /not a skill folder inside/],
      [path.join(root.path, 'ops'), /not a folder with a SKILL\.md/],
      [path.join(root.path, 'missing'), /not a folder with a SKILL\.md/],
    ];
    for (const [input, reason] of archiveCases) {
      const result = await archiveSkill(nodeFs, root, input);
      assert.equal(result.ok, false, input);
      if (!result.ok) assert.match(result.error, reason, input);
    }
    write(root.path, `${ARCHIVE_FOLDER}/gone/SKILL.md`, skillText('gone'));
    const again = await archiveSkill(nodeFs, root, path.join(root.path, ARCHIVE_FOLDER, 'gone'));
    assert.equal(again.ok, false);
    if (!again.ok) assert.match(again.error, /archived already/);
  });
});
