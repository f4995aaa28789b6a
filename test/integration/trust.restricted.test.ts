import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { ChatItem } from '../../src/shared/protocol';
import { ScriptedModelServer } from '../fakes/scriptedModelServer';
import { until } from '../harness/until';

type Of<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>;

/** Runs only in the Restricted Mode pass (test/runIntegration.ts): the folder is not trusted. */
describe('Restricted Mode in a real VS Code', () => {
  let api: SkillwrightApi;
  let server: ScriptedModelServer;
  let sample: string;
  const items = () => api.chat.items;
  const last = <K extends ChatItem['kind']>(kind: K) => items().filter((i): i is Of<K> => i.kind === kind).at(-1);

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === 'sample');
    assert.ok(folder);
    sample = folder.uri.fsPath;
    server = await ScriptedModelServer.start({ models: ['scripted-restricted'] });
    await vscode.commands.executeCommand('skillwright.configureModel', { baseUrl: server.baseUrl, model: 'scripted-restricted', apiKey: '', skipTest: true });
  });

  after(async () => {
    await vscode.workspace.getConfiguration('skillwright').update('model.baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('skillwright').update('model.name', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('runs untrusted, with project skills held back and project memory unavailable', () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const projectSkills = api.skills.skillIndex.all().filter((record) => record.file.startsWith(sample));
    assert.deepEqual(projectSkills.map((r) => r.name), []);
    assert.match(api.memory.projectUnavailableReason() ?? '', /Restricted Mode/);
  });

  it('keeps instruction files and project skills out of the prompt, and refuses writes and commands without asking', async () => {
    server.on({ user: 'tidy the project' }, {
      toolCalls: [
        { name: 'write_file', arguments: { path: 'sample/TIDY.md', content: 'tidied\n' } },
        { name: 'run_command', arguments: { command: 'touch ran.txt', cwd: 'sample' } },
      ],
    });
    server.on({ request: (body) => body.messages.at(-1)?.role === 'tool' }, { text: 'I could not change anything here.' });
    api.panel.receive({ type: 'chat/send', text: 'tidy the project' });
    const turn = await until('the turn to end', () => last('turn'));
    assert.equal(turn.reason, 'stop');
    assert.equal(items().filter((i) => i.kind === 'approval').length, 0, 'nothing asked: Restricted Mode refuses outright');
    const tools = items().filter((i): i is Of<'tool'> => i.kind === 'tool');
    assert.deepEqual(tools.map((t) => t.state), ['failed', 'failed']);
    assert.match(tools[0]?.result ?? '', /Restricted Mode|trust/i);
    assert.equal(fs.existsSync(path.join(sample, 'TIDY.md')), false);
    assert.equal(fs.existsSync(path.join(sample, 'ran.txt')), false);
    const system = String(server.chatRequests[0]?.messages[0]?.content ?? '');
    const agentsMd = fs.readFileSync(path.join(sample, 'AGENTS.md'), 'utf8');
    const firstLine = agentsMd.split('\n').find((line) => line.trim().length > 20) ?? agentsMd;
    assert.equal(system.includes(firstLine.trim()), false, 'AGENTS.md stays out of the prompt');
    assert.equal(/count-files|prepare-release/.test(system), false, 'project skills stay out of the catalog');
    assert.ok(items().some((i) => i.kind === 'notice' && /Restricted Mode/.test(i.text)), 'the chat says so');
  });
});
