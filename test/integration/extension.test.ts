import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { until } from '../harness/until';
import { publishFigure } from './index';

const EXTENSION_ID = 'skillwright.skillwright';

describe('Skillwright in a real VS Code', () => {
  let api: SkillwrightApi;
  let manifest: { contributes: { commands: { command: string }[] } };

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed in this host`);
    manifest = extension.packageJSON as typeof manifest;
    api = await extension.activate();
  });

  it('activates and reports its activation time', () => {
    assert.equal(typeof api.activationMs, 'number');
    assert.ok(api.activationMs > 0 && api.activationMs < 10_000, `activationMs ${api.activationMs}`);
    publishFigure('activationMs', api.activationMs);
  });

  it('registers every command of its manifest', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = manifest.contributes.commands.map((c) => c.command).filter((id) => !registered.has(id));
    assert.deepEqual(missing, []);
  });

  it('reads the model settings and follows changes to them', async () => {
    const before = await api.status.collect();
    assert.equal(before.model.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(before.model.model, 'scripted-model');
    assert.equal(before.model.configured, true);
    const config = vscode.workspace.getConfiguration('skillwright');
    await config.update('model.name', 'other-model', vscode.ConfigurationTarget.Global);
    try {
      const after = await until('the new model name', async () => {
        const status = await api.status.collect();
        return status.model.model === 'other-model' && status;
      });
      assert.match(after.model.advice, /other-model/);
    } finally {
      await config.update('model.name', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('sees every workspace folder and which skill folders exist', async () => {
    const status = await api.status.collect();
    assert.deepEqual(status.workspaceFolders.map((f) => f.name), ['sample', 'second']);
    const byLabel = new Map(status.skillRoots.map((root) => [root.label, root]));
    assert.equal(byLabel.get('sample/.agents/skills')?.exists, true);
    assert.equal(byLabel.get('sample/.github/skills')?.exists, false);
    assert.equal(byLabel.get('second/.agents/skills')?.exists, false);
    assert.ok(byLabel.has('~/.agents/skills'));
    assert.equal(status.trusted, true);
  });

  it('opens the panel, which completes the ready handshake under a strict CSP', async () => {
    await vscode.commands.executeCommand('skillwright.openPanel');
    await until('the panel to say ready', () => api.panel.isReady);
    const html = api.panel.html ?? '';
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1] ?? '';
    assert.ok(nonce.length >= 22, `nonce "${nonce}" is too short`);
    assert.ok(html.includes(`<script nonce="${nonce}"`), 'the script carries the CSP nonce');
  });

  it('drops malformed messages from the webview and keeps working', async () => {
    const dropped = api.panel.droppedMessageCount;
    for (const raw of [null, 'panel/ready', { type: 'chat/evil' }, { type: 7 }, [1, 2]]) {
      api.panel.receive(raw);
    }
    assert.equal(api.panel.droppedMessageCount, dropped + 5);
    api.panel.receive({ type: 'status/refresh' });
    assert.equal(api.panel.droppedMessageCount, dropped + 5);
    assert.ok(api.panel.isReady);
  });

  it('shakes hands again after the webview reloads', async () => {
    const before = api.panel.readyHandshakes;
    await vscode.commands.executeCommand('workbench.action.webview.reloadWebviewAction');
    await until('a new handshake after reload', () => api.panel.readyHandshakes > before);
  });

  it('comes back when the panel is closed and opened again', async () => {
    const before = api.panel.readyHandshakes;
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await vscode.commands.executeCommand('skillwright.openPanel');
    await until('a new handshake after reopening', () => api.panel.readyHandshakes > before && api.panel.isReady);
  });

  it('runs Show Logs and Open Settings without errors', async () => {
    await vscode.commands.executeCommand('skillwright.showLogs');
    await vscode.commands.executeCommand('skillwright.openSettings');
  });
});
