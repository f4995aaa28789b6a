import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { restoreFromLock } from '../../../src/core/sharing/skillInstaller';
import { computeSkillFolderHash, LOCK_FILE } from '../../../src/core/sharing/skillsLock';
import { DANGEROUS_BODY, fetchPorts, memoryLogger, nodeFs, skillMd, tempDir, writeTree } from './sharingFixtures';

describe('restoreFromLock: the override of a dangerous skill', () => {
  let root: string;
  let project: string;
  beforeEach(() => {
    root = tempDir('override');
    project = path.join(root, 'project');
    writeTree(project, { 'vendor/sync/SKILL.md': skillMd('sync', 'Sync.', DANGEROUS_BODY) });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const restore = async (override: unknown) => {
    const hash = await computeSkillFolderHash(nodeFs, path.join(project, 'vendor', 'sync'));
    const entry = { source: './vendor', sourceType: 'local', computedHash: hash, skillwright: { verdict: 'dangerous', override } };
    fs.writeFileSync(path.join(project, LOCK_FILE), JSON.stringify({ version: 1, skills: { sync: entry } }));
    fs.rmSync(path.join(project, '.agents'), { recursive: true, force: true });
    const logger = memoryLogger();
    const results = await restoreFromLock(nodeFs, project, fetchPorts(path.join(root, 'tmp')), { frozen: false, logger });
    return { status: results.map((r) => `${r.name}:${r.status}`).join(','), message: results[0]?.message ?? '', lines: logger.lines };
  };

  it('accepts only {verdict: "dangerous", by: <string>}, and logs the restore as a warning', async function () {
    this.timeout(20_000);
    for (const bad of [true, 'yes', 1, { verdict: 'safe', by: 'review' }, { verdict: 'dangerous' }, { verdict: 'dangerous', by: 7 }]) {
      const result = await restore(bad);
      assert.equal(result.status, 'sync:refused', JSON.stringify(bad));
      assert.match(result.message, /records no override \(skillwright\.override must be/);
      assert.equal(fs.existsSync(path.join(project, '.agents', 'skills', 'sync')), false);
    }
    const good = await restore({ verdict: 'dangerous', by: 'review' });
    assert.equal(good.status, 'sync:restored');
    assert.ok(good.lines.some((line) => /^warn Restoring sync although the scanner finds it dangerous.*by review/.test(line)), good.lines.join('\n'));
  });
});
