import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';

const EXTENSION_ID = 'skillwright.skillwright';
const TOOLS = ['skillwright_skills_list', 'skillwright_skill_view', 'skillwright_session_search', 'skillwright_memory_read'];

/**
 * code-server has no chat view: what can be checked is that the tools are registered with
 * VS Code's language-model API and answer through vscode.lm.invokeTool, and that the participant
 * is contributed and created. Its turns are covered in test/unit/vscodeChat/.
 */
describe('Skillwright in VS Code chat', () => {
  let api: SkillwrightApi;

  const invoke = async (name: string, input: object): Promise<Record<string, unknown>> => {
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
    const texts = result.content.filter((part): part is vscode.LanguageModelTextPart => part instanceof vscode.LanguageModelTextPart);
    assert.equal(texts.length, 1);
    return JSON.parse(texts[0]?.value ?? '') as Record<string, unknown>;
  };

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
  });

  it('registers the four tools with vscode.lm, with their schemas and tags', () => {
    assert.deepEqual(api.vscodeChat.tools, TOOLS);
    for (const name of TOOLS) {
      const info = vscode.lm.tools.find((tool) => tool.name === name);
      assert.ok(info, `${name} is not in vscode.lm.tools`);
      assert.ok(info.tags.includes('skillwright'));
      assert.equal((info.inputSchema as { type?: string } | undefined)?.type, 'object');
    }
  });

  it('invokeTool lists and reads a sample skill, searches sessions and reads memory, as JSON the model can read', async () => {
    const list = await invoke('skillwright_skills_list', {});
    assert.equal(list['success'], true);
    const first = api.skills.skillIndex.active()[0];
    assert.ok(first, 'the sample workspace has skills');
    assert.ok(JSON.stringify(list).includes(`"name":"${first.name}"`));
    const view = await invoke('skillwright_skill_view', { name: first.name });
    assert.equal(view['success'], true);
    assert.match(String(view['content']), /^---/);
    const search = await invoke('skillwright_session_search', { query: 'deploy' });
    assert.equal(search['success'], true);
    assert.ok(Array.isArray(search['sessions']));
    const memory = await invoke('skillwright_memory_read', {});
    assert.equal(memory['success'], true);
    assert.ok(memory['user'] && memory['memory']);
    const bad = await invoke('skillwright_skill_view', { name: 'no-such-skill-anywhere' });
    assert.equal(bad['success'], false);
  });

  it('contributes and creates the @skillwright participant', () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes: { chatParticipants: { id: string; name: string; commands: { name: string }[] }[] } };
    const [participant] = manifest.contributes.chatParticipants;
    assert.equal(participant?.name, 'skillwright');
    assert.deepEqual(participant?.commands.map((c) => c.name), ['skills', 'save', 'search']);
    assert.equal(api.vscodeChat.participant?.id, participant?.id);
    assert.ok(api.vscodeChat.participant?.followupProvider);
  });
});
