import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TriggerTestResult } from '../../src/core/agent/triggerTest';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { until } from '../harness/until';
import { ScriptedModelServer } from '../fakes/scriptedModelServer';

const SKILL = 'write-changelog-entry';

describe('Test Triggering in a real VS Code (scripted model, real openai client)', () => {
  let api: SkillwrightApi;
  let server: ScriptedModelServer;
  let original: { baseUrl?: string; model?: string } = {};
  const config = () => vscode.workspace.getConfiguration('skillwright');

  before(async () => {
    original = { baseUrl: config().inspect<string>('model.baseUrl')?.globalValue, model: config().inspect<string>('model.name')?.globalValue };
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    server = await ScriptedModelServer.start({ models: ['scripted-trigger'] });
    await vscode.commands.executeCommand('skillwright.configureModel', { baseUrl: server.baseUrl, model: 'scripted-trigger', apiKey: '', skipTest: true });
  });

  after(async () => {
    api.preview.close();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await config().update('model.baseUrl', original.baseUrl, vscode.ConfigurationTarget.Global);
    await config().update('model.name', original.model, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('sends each query n times, keeps k/n with the skill, and shows it in the Skills tab and the preview; nothing else is written', async () => {
    const record = api.skills.skillIndex.get(SKILL);
    assert.ok(record, 'the sample workspace has the changelog skill');
    server.on({ user: 'add a line to the changelog' }, { toolCalls: [{ name: 'skill_view', arguments: { name: SKILL } }] }, { text: 'Which version?' });
    server.on({ user: 'note this fix for the release' }, { toolCalls: [{ name: 'run_command', arguments: { command: 'git log -1' } }] }, { toolCalls: [{ name: 'skill_view', arguments: { name: SKILL } }] });
    server.on({ toolResult: { content: 'this is a trigger test; nothing runs' } }, { text: 'I could not run git.' });
    const sessionsBefore = (await api.sessions.log.list()).length;

    const result = await vscode.commands.executeCommand<TriggerTestResult | undefined>('skillwright.testTriggering', {
      name: SKILL,
      queries: ['add a line to the changelog', 'note this fix for the release'],
      examples: false,
      runs: 2,
    });

    assert.ok(result, 'the command returns the result');
    assert.deepEqual([result.runs, result.loaded, result.error], [4, 2, undefined]);
    assert.deepEqual(server.pendingScript(), []);
    for (const body of server.chatRequests) assert.match(JSON.stringify(body.messages[0]?.content), new RegExp(SKILL), 'the catalog of a real session');
    assert.equal((await api.sessions.log.list()).length, sessionsBefore, 'no session file');

    const kept = api.skills.usage.get(SKILL).triggerTest;
    assert.deepEqual([kept?.runs, kept?.loaded, kept?.model], [4, 2, result.model]);
    const row = await until('the Skills tab row with the test', () => api.skillsBrowser.list().skills.find((s) => s.name === SKILL && /trigger test 2\/4/.test(s.health?.line ?? '')));
    assert.ok(row);

    await vscode.commands.executeCommand('skillwright.openSkillPreview', vscode.Uri.file(record.file));
    const preview = await until('the preview with the Triggering part', () => {
      const shown = api.preview.current;
      return shown?.file === record.file && shown.triggering?.line !== undefined ? shown : undefined;
    });
    assert.match(preview.triggering?.line ?? '', /^Triggering: 2\/4 runs loaded it, just now$/);
    assert.equal(preview.triggering?.outdated, false);
    assert.deepEqual(preview.triggering?.queries.map((q) => `${q.loaded}/${q.runs}`), ['1/2', '1/2']);
    assert.equal(path.basename(record.file), 'SKILL.md');
  });

  it('says what is wrong for a skill that is not indexed, without asking the model', async () => {
    const requests = server.chatRequests.length;
    const result = await vscode.commands.executeCommand('skillwright.testTriggering', { name: 'no-such-skill', queries: ['anything'], runs: 1 });
    assert.equal(result, undefined);
    assert.equal(server.chatRequests.length, requests);
  });
});
