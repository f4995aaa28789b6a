import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findImportableSkills, MAX_DISCOVERY_DEPTH, safeSkillName } from '../../../src/core/sharing/skillDiscovery';
import { nodeFs, skillMd, tempDir, writeTree } from './sharingFixtures';

describe('findImportableSkills', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('disc');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('takes a SKILL.md at the root as the one skill, with its folders as support files', async () => {
    writeTree(root, { 'SKILL.md': skillMd('solo'), 'skills/inner/SKILL.md': skillMd('inner') });
    const found = await findImportableSkills(nodeFs, root);
    assert.deepEqual(found.map((c) => [c.name, c.skillPath, c.dir]), [['solo', 'SKILL.md', root]]);
  });

  it("finds skills in skills/, the agents' folders and nested folders, skillPath relative to the base", async () => {
    writeTree(root, {
      'skills/pdf/SKILL.md': skillMd('pdf', 'Reads PDF files.'),
      'skills/.curated/csv/SKILL.md': skillMd('csv'),
      '.agents/skills/deploy/SKILL.md': skillMd('deploy'),
      '.claude/skills/review/SKILL.md': skillMd('review'),
      '.github/skills/triage/SKILL.md': skillMd('triage'),
      '.cursor/skills/format/SKILL.md': skillMd('format'),
      'packages/web/tools/bundle/SKILL.md': skillMd('bundle'),
      '.hidden/skills/secret/SKILL.md': skillMd('secret'),
      'node_modules/pkg/skills/dep/SKILL.md': skillMd('dep'),
    });
    const found = await findImportableSkills(nodeFs, path.join(root), path.dirname(root));
    const byName = new Map(found.map((c) => [c.name, c]));
    assert.deepEqual([...byName.keys()].sort(), ['bundle', 'csv', 'deploy', 'format', 'pdf', 'review', 'triage']);
    assert.equal(byName.get('pdf')?.description, 'Reads PDF files.');
    assert.equal(byName.get('bundle')?.skillPath, `${path.basename(root)}/packages/web/tools/bundle/SKILL.md`);
  });

  it('keeps the first of two skills with one name and makes unsafe declared names safe', async () => {
    writeTree(root, {
      'skills/a/SKILL.md': skillMd('dup', 'first'),
      'more/deep/b/SKILL.md': skillMd('dup', 'second'),
      'skills/weird/SKILL.md': skillMd('../../Evil Name'),
      'skills/Long/SKILL.md': skillMd('x'.repeat(500)),
    });
    const found = await findImportableSkills(nodeFs, root);
    assert.equal(found.filter((c) => c.name === 'dup').length, 1);
    assert.equal(found.find((c) => c.name === 'dup')?.description, 'first');
    const weird = found.find((c) => c.declaredName === '../../Evil Name');
    assert.equal(weird?.name, 'evil-name');
    assert.ok(found.every((c) => c.name.length <= 64 && !c.name.includes('/')));
    assert.equal(safeSkillName('...', '///'), 'unnamed-skill');
  });

  it('stops at the depth limit and does not follow links, so a loop ends', async () => {
    let deep = 'x';
    for (let i = 0; i < MAX_DISCOVERY_DEPTH + 2; i++) deep += '/x';
    writeTree(root, { [`${deep}/SKILL.md`]: skillMd('too-deep'), 'real/ok/SKILL.md': skillMd('ok') });
    fs.symlinkSync(root, path.join(root, 'real', 'loop'));
    const outside = tempDir('outside');
    writeTree(outside, { 'stolen/SKILL.md': skillMd('stolen') });
    fs.symlinkSync(outside, path.join(root, 'real', 'out'));
    const found = await findImportableSkills(nodeFs, root);
    assert.deepEqual(found.map((c) => c.name), ['ok']);
    fs.rmSync(outside, { recursive: true, force: true });
  });
});
