import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { secretKeyFor } from '../../src/host/models/modelSetup';
import { toLmMessages, VscodeLmChatModel } from '../../src/host/models/vscodeLmChatModel';
import { faults, ScriptedModelServer } from '../fakes/scriptedModelServer';

describe('model set-up in a real VS Code', () => {
  let api: SkillwrightApi;
  let server: ScriptedModelServer;
  const config = () => vscode.workspace.getConfiguration('skillwright');

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    server = await ScriptedModelServer.start({ models: ['scripted-small', 'scripted-large'] });
  });

  after(async () => {
    await config().update('model.baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('model.name', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('stores the key in SecretStorage, not in settings, and writes the endpoint settings', async () => {
    const done = await vscode.commands.executeCommand<boolean>('skillwright.configureModel', {
      baseUrl: `${server.baseUrl}/`,
      model: 'scripted-small',
      apiKey: 'sk-test-secret-123',
      skipTest: true,
    });
    assert.equal(done, true);
    assert.equal(config().get('model.baseUrl'), server.baseUrl);
    assert.equal(config().get('model.name'), 'scripted-small');
    assert.equal(await api.models.apiKey(server.baseUrl), 'sk-test-secret-123');
    const inspected = JSON.stringify(config());
    assert.doesNotMatch(inspected, /sk-test-secret-123/);
    assert.match(secretKeyFor(`${server.baseUrl}/`), /^skillwright\.apiKey:http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('tests the connection with the stored key and reports the verdict', async () => {
    server.always({ user: 'Reply with OK' }, { text: 'OK' });
    const result = await api.models.testConnection();
    assert.equal(result.ok, true, result.ok ? '' : `${result.error.kind}: ${result.error.message}`);
    const sent = server.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1);
    assert.equal(sent?.headers.authorization, 'Bearer sk-test-secret-123');
  });

  it('maps a rejected key to advice', async () => {
    server.reset();
    server.always({ user: 'Reply with OK' }, faults.unauthorized());
    const result = await api.models.testConnection();
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error.kind, 'auth');
      assert.match(result.error.advice, /Configure Model/);
    }
  });

  it('removes the stored key when told to', async () => {
    await vscode.commands.executeCommand('skillwright.configureModel', { baseUrl: server.baseUrl, model: 'scripted-small', apiKey: '', skipTest: true });
    const key = await api.models.apiKey(server.baseUrl);
    assert.equal(key, process.env.OPENAI_API_KEY || undefined);
  });

  it('maps the conversation to the Language Model API, tools both ways', () => {
    const mapped = toLmMessages([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'c1', name: 'list_files', arguments: '{"path":"."}' }] },
      { role: 'tool', toolCallId: 'c1', content: '{"success":true}' },
    ]);
    assert.deepEqual(
      mapped.map((m) => m.role),
      [vscode.LanguageModelChatMessageRole.User, vscode.LanguageModelChatMessageRole.User, vscode.LanguageModelChatMessageRole.Assistant, vscode.LanguageModelChatMessageRole.User],
    );
    const call = mapped[2]?.content.find((part) => part instanceof vscode.LanguageModelToolCallPart) as vscode.LanguageModelToolCallPart;
    assert.deepEqual([call.callId, call.name, call.input], ['c1', 'list_files', { path: '.' }]);
    const result = mapped[3]?.content[0] as vscode.LanguageModelToolResultPart;
    assert.equal(result.callId, 'c1');
  });

  it('finds no Language Model API model where none is installed, without failing', async () => {
    const models = await vscode.lm.selectChatModels({});
    const selected = await VscodeLmChatModel.select();
    assert.equal(selected === undefined, models.length === 0);
  });
});
