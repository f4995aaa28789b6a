import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { until } from '../harness/until';
import { publishFigure } from './index';

const EXTENSION_ID = 'skillwright.skillwright';

describe('Skillwright in a real VS Code', () => {
  let api: SkillwrightApi;

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not installed in this host`);
    api = await extension.activate();
  });

  it('activates and reports its activation time', () => {
    assert.equal(typeof api.activationMs, 'number');
    assert.ok(api.activationMs > 0 && api.activationMs < 10_000, `activationMs ${api.activationMs}`);
    publishFigure('activationMs', api.activationMs);
  });

  it('shows a failing command\'s error with a Show Logs button that opens the log with the error', async () => {
    await hideLog();
    await vscode.commands.executeCommand('notifications.clearAll');
    // A scripted answer that cannot be used: the command fails before asking anything.
    const result = await vscode.commands.executeCommand('skillwright.newSkillFromTemplate', { template: 'no-such-template' });
    assert.equal(result, undefined, 'the failure is reported, not thrown at the caller (VS Code would show it twice)');
    // Clicks the newest notification's first button; it is ours: the others were cleared above.
    const logged = await until('the error in the log the notification\'s button opened', async () => {
      await vscode.commands.executeCommand('notification.acceptPrimaryAction');
      return logText().includes('Command skillwright.newSkillFromTemplate failed: There is no template "no-such-template"') && logText();
    });
    assert.match(logged, /use one of instructions, script, workflow/);
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

  it('drops malformed messages from the webview and keeps working', () => {
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
    await until('the panel to be hidden', () => !api.panel.isVisible);
    await vscode.commands.executeCommand('skillwright.openPanel');
    await until('a new handshake after reopening', () => api.panel.readyHandshakes > before && api.panel.isReady);
  });

  it('Show Logs shows the Skillwright log, which says how activation went', async () => {
    await hideLog();
    await vscode.commands.executeCommand('skillwright.showLogs');
    const text = await until('the Skillwright log on screen', () => logText());
    assert.match(text, /Skillwright \S+ activated in [\d.]+ ms \(VS Code /);
  });

  it('Open Settings opens the Settings editor', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('skillwright.openSettings');
    await until('the Settings editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

/** Closes the panel area; the Output view's documents go with it, so the log is seen only when shown again. */
async function hideLog(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closePanel');
  await until('the Skillwright log off screen', () => logText() === '');
}

/**
 * The text of the Skillwright log as the Output view shows it: VS Code gives extensions the
 * documents of the output channels it displays, so this is empty until the log is on screen.
 */
function logText(): string {
  const documents = vscode.workspace.textDocuments.filter((document) => document.uri.scheme === 'output' && decodeURIComponent(document.uri.toString()).includes('Skillwright'));
  return documents.map((document) => document.getText()).find((text) => text.includes('Skillwright') && text.includes('activated in')) ?? '';
}
