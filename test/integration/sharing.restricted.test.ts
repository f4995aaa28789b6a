import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';

/** Runs only in the Restricted Mode pass (test/runIntegration.ts): the folder is not trusted. */
describe('sharing: import in Restricted Mode', () => {
  let project: string;
  let source: string;

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    const api = await extension.activate();
    await api.skills.ready;
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    project = folder.uri.fsPath;
    source = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-sharing-restricted-'));
    fs.mkdirSync(path.join(source, 'held-back'));
    fs.writeFileSync(path.join(source, 'held-back', 'SKILL.md'), '---\nname: held-back\ndescription: Must not be imported. Use when testing Restricted Mode.\n---\n\n# Held back\n');
  });

  after(() => fs.rmSync(source, { recursive: true, force: true }));

  it('refuses Import Skills…, Restore Skills from Lock and Check for Skill Updates, writing nothing', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const imported = await vscode.commands.executeCommand('skillwright.importSkills', { source, scope: 'project', confirm: true, open: false });
    assert.equal(imported, undefined, 'import ended before fetching anything');
    assert.equal(fs.existsSync(path.join(project, '.agents', 'skills', 'held-back')), false);
    assert.equal(fs.existsSync(path.join(project, 'skills-lock.json')), false, 'no lock was written');
    assert.equal(await vscode.commands.executeCommand('skillwright.restoreSkillsFromLock', {}), undefined);
    assert.equal(await vscode.commands.executeCommand('skillwright.checkSkillUpdates', { choices: {} }), undefined);
  });
});
