import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { SaveAsSkillResult } from '../../src/host/saveAsSkill/saveAsSkillArgs';

const HOW_TO = '# Reset the local database\n\n```sh\n$ docker compose down -v\n$ docker compose up -d db\n$ npm run migrate\n```\n';

/** Runs only in the Restricted Mode pass (test/runIntegration.ts): the folder is not trusted. */
describe('Save as a skill in Restricted Mode', () => {
  let api: SkillwrightApi;
  let projectRoot: string;
  const saved: string[] = [];

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    projectRoot = path.join(folder.uri.fsPath, '.agents', 'skills');
  });

  after(async () => {
    for (const dir of saved) fs.rmSync(dir, { recursive: true, force: true });
    await api.skills.invalidate(saved);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('offers no project folder: a project save is refused with the reason, nothing is written, the user folder works', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    assert.deepEqual(
      api.skills.skillIndex.roots.filter((root) => root.writeTarget).map((root) => root.scope),
      ['user'],
      'only the user folder can be written to',
    );
    const before = fs.existsSync(projectRoot) ? fs.readdirSync(projectRoot, { recursive: true }).length : 0;
    const refused = await vscode.commands.executeCommand<SaveAsSkillResult>('skillwright.saveSelectionAsSkill', { selection: HOW_TO, useModel: false, scope: 'project', category: '', confirm: true });
    assert.equal(refused?.outcome, 'refused');
    assert.match(refused.message, /this folder is not trusted \(Restricted Mode\), so Skillwright does not write project skills in it; trust the folder first, or save the skill for the user/);
    assert.match(refused.draftText ?? '', /docker compose down -v/, 'the draft is kept');
    const after = fs.existsSync(projectRoot) ? fs.readdirSync(projectRoot, { recursive: true }).length : 0;
    assert.equal(after, before, 'nothing was written in the untrusted folder');

    const user = await vscode.commands.executeCommand<SaveAsSkillResult>('skillwright.saveSelectionAsSkill', { selection: HOW_TO, useModel: false, scope: 'user', category: '', confirm: true });
    assert.equal(user?.outcome, 'saved', user?.message);
    saved.push(path.dirname(user.file ?? ''));
    assert.ok(user.file?.startsWith(path.join(os.homedir(), '.agents', 'skills')));
    assert.ok(api.skills.skillIndex.get(user.name ?? ''), 'the index has it at once');
  });
});
