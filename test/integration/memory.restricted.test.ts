import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { HostToWebview } from '../../src/shared/protocol';
import { until } from '../harness/until';

/** Runs only in the Restricted Mode pass (test/runIntegration.ts): the folder is not trusted. */
describe('the Memory tab in Restricted Mode', () => {
  let api: SkillwrightApi;
  let memoryDir: string;
  const posted: HostToWebview[] = [];
  let originalPost: SkillwrightApi['panel']['post'];
  const notices = () => posted.filter((m): m is Extract<HostToWebview, { type: 'panel/notice' }> => m.type === 'panel/notice').map((m) => m.message);

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    memoryDir = path.join(folder.uri.fsPath, '.agents', 'memory');
    originalPost = api.panel.post.bind(api.panel);
    api.panel.post = (message: HostToWebview) => {
      posted.push(message);
      originalPost(message);
    };
  });

  after(() => {
    api.panel.post = originalPost;
  });

  it('shows project memory as unavailable, with the reason, and the user profile as usable', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const [project, user] = (await api.memoryPanel.state()).files;
    assert.equal(project?.available, false);
    assert.equal(project?.reason, 'Project memory is unavailable: the folder is not trusted (Restricted Mode).');
    assert.equal(project?.path, undefined);
    assert.deepEqual(project?.entries, []);
    assert.equal(user?.available, true);
  });

  it('refuses to write project memory and creates nothing in the folder', async () => {
    const since = notices().length;
    api.panel.receive({ type: 'memory/add', target: 'memory', content: 'Build: make' });
    const notice = await until('a notice', () => notices().slice(since).at(-1));
    assert.match(notice, /^Not saved: project memory is unavailable/);
    assert.equal(fs.existsSync(memoryDir), false);

    const before = notices().length;
    api.panel.receive({ type: 'memory/openFile', target: 'memory' });
    assert.match(await until('a notice', () => notices().slice(before).at(-1)), /Project memory is unavailable: the folder is not trusted \(Restricted Mode\)\./);
    assert.equal(fs.existsSync(memoryDir), false);
  });

  it('keeps the agent from writing project memory too', async () => {
    const result = (await api.memory.agentTool().run({ action: 'add', target: 'memory', content: 'Build: make' }, { turnId: 'restricted-memory', signal: new AbortController().signal })) as Record<string, unknown>;
    assert.equal(result['success'], false);
    assert.equal(result['code'], 'unavailable');
    assert.equal((await api.memoryPanel.state()).proposals.length, 0);
    assert.equal(fs.existsSync(memoryDir), false);
  });
});
