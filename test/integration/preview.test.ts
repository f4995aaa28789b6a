import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { PREVIEW_VIEW_TYPE } from '../../src/host/preview/skillPreviewPanel';
import { parseHostPreviewMessage } from '../../src/shared/previewProtocol';
import { until } from '../harness/until';
import { publishFigure } from './index';

const EXTENSION_ID = 'skillwright.skillwright';

describe('SKILL.md preview in a real VS Code', () => {
  let api: SkillwrightApi;
  let skillsRoot: string;
  const skillFile = (category: string, name: string) => path.join(skillsRoot, category, name, 'SKILL.md');

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === 'sample');
    assert.ok(folder);
    skillsRoot = path.join(folder.uri.fsPath, '.agents', 'skills');
  });

  afterEach(async () => {
    api.preview.close();
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens beside the editor for a SKILL.md URI, with a strict CSP, and its webview says ready', async () => {
    const file = skillFile('ops', 'count-files');
    await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
    const started = Date.now();
    await vscode.commands.executeCommand('skillwright.openSkillPreview', vscode.Uri.file(file));
    const preview = await until('the first preview model', () => api.preview.current?.file === file && api.preview.current);
    await until('the preview webview to finish its handshake', () => api.preview.isReady, 30_000);
    publishFigure('previewOpenMs', Date.now() - started);
    assert.equal(preview.card.name, 'count-files');
    assert.deepEqual(preview.card.permissions, ['process:python3']);
    assert.ok(preview.files.some((entry) => entry.path === 'scripts/run.py' && entry.exists));
    assert.match(preview.catalogLine, /^- count-files: Counts the entries/);
    assert.equal(preview.catalogListed, true);
    assert.ok(parseHostPreviewMessage({ type: 'preview/update', preview }).ok, 'the model passes the protocol check');

    const html = api.preview.html ?? '';
    assert.match(html, /script-src 'nonce-[A-Za-z0-9+/=]{24}'/);
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
    assert.match(html, /preview\.js/);
    // The panel sits beside the editor, and the editor kept the focus.
    const tab = vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label.includes('count-files'));
    assert.ok(tab, 'a webview tab titled after the skill');
    assert.equal(tab.group.viewColumn, vscode.ViewColumn.Two);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file);
  });

  it('follows the editor text as you type, without saving', async () => {
    const file = skillFile('docs', 'write-changelog-entry');
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('skillwright.openSkillPreview');
    await until('the preview of the active SKILL.md', () => api.preview.current?.file === file);

    const line = document.getText().split('\n').findIndex((text) => text.startsWith('description:'));
    const typed = 'description: Typed into the buffer. Use when testing the live preview.';
    const seen = new Promise<number>((resolve) => {
      const started = Date.now();
      const listener = api.preview.onDidUpdate((model) => {
        if (model.card.description === 'Typed into the buffer. Use when testing the live preview.') {
          listener.dispose();
          resolve(Date.now() - started);
        }
      });
    });
    await editor.edit((edit) => edit.replace(document.lineAt(line).range, typed));
    const latency = await Promise.race([seen, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no update after typing')), 10_000))]);
    publishFigure('previewTypingToUpdateMs', latency);
    assert.ok(latency >= 150, `the update waited for a pause in typing (${latency} ms)`);
    assert.equal(api.preview.current?.catalogLine, '- write-changelog-entry: Typed into the buffer. Use when testing the live preview.');
    assert.ok(document.isDirty);
    assert.equal(fs.readFileSync(file, 'utf8').includes('Typed into the buffer'), false, 'the disk is untouched');

    // A finding in the preview reveals its line in the editor.
    await editor.edit((edit) => edit.replace(document.lineAt(line).range, 'description: short'));
    const finding = await until('a finding on the description line', () => api.preview.current?.findings.find((f) => f.line === line));
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await api.preview.receive({ type: 'preview/revealLine', line: finding.line });
    await until('the cursor on the finding line', () => vscode.window.activeTextEditor?.selection.active.line === line);
  });

  it('follows the active editor to another SKILL.md, and refuses paths outside the skill', async () => {
    const first = skillFile('ops', 'count-files');
    const second = skillFile('release', 'prepare-release');
    await vscode.window.showTextDocument(vscode.Uri.file(first), { viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('skillwright.openSkillPreview', vscode.Uri.file(first));
    await until('the first skill', () => api.preview.current?.file === first);
    await vscode.window.showTextDocument(vscode.Uri.file(second), { viewColumn: vscode.ViewColumn.One });
    const workflow = await until('the workflow skill', () => api.preview.current?.file === second && api.preview.current.workflow);
    assert.deepEqual(workflow.map((step) => [step.id, step.unknown]), [
      ['gather', false],
      ['report', false],
    ]);

    const dropped = api.preview.droppedMessageCount;
    await api.preview.receive({ type: 'preview/openFile' });
    await api.preview.receive({ type: 'preview/revealLine', line: -1 });
    assert.equal(api.preview.droppedMessageCount, dropped + 2);

    // Each resolves once the host has refused it (and said why); nothing may have opened by then.
    await api.preview.receive({ type: 'preview/openFile', path: '../../ops/count-files/SKILL.md' });
    await api.preview.receive({ type: 'preview/openLink', href: 'javascript:alert(1)' });
    const opened = vscode.window.visibleTextEditors.map((editor) => editor.document.uri.fsPath);
    assert.ok(!opened.includes(first), `nothing outside the skill folder was opened (${opened.join(', ')})`);
  });

  it('releases everything when closed: typing no longer builds previews', async () => {
    const file = skillFile('ops', 'count-files');
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('skillwright.openSkillPreview', vscode.Uri.file(file));
    await until('the preview', () => api.preview.current?.file === file);
    api.preview.close();
    assert.equal(api.preview.file, undefined);
    let updates = 0;
    const listener = api.preview.onDidUpdate(() => (updates += 1));
    const line = document.getText().split('\n').findIndex((text) => text.startsWith('description:'));
    await editor.edit((edit) => edit.replace(document.lineAt(line).range, 'description: short'));
    // The Problems panel follows typing after the same pause the preview waits for: once it shows
    // the new finding, an open preview would have followed too.
    await until('the Problems panel to follow the typing', () => vscode.languages.getDiagnostics(document.uri).some((d) => d.range.start.line === line));
    listener.dispose();
    assert.equal(updates, 0);
    assert.equal(api.preview.current, undefined);
  });

  it('comes back after a window reload: the panel VS Code recreates, with the state its webview kept, is the live preview again', async () => {
    const file = skillFile('ops', 'count-files');
    // What the workbench does on reload: a panel of the preview's view type, with the options it was
    // created with, handed to the serializer the extension registered with the webview's state.
    const extensionUri = vscode.extensions.getExtension(EXTENSION_ID)?.extensionUri;
    assert.ok(extensionUri);
    const options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')] };
    const panel = vscode.window.createWebviewPanel(PREVIEW_VIEW_TYPE, 'Skill Preview', { viewColumn: vscode.ViewColumn.Two, preserveFocus: true }, options);
    await api.preview.serializer.deserializeWebviewPanel(panel, { file, preview: { file, stale: true } });
    const model = await until('the restored preview to say ready with its skill', () => api.preview.isReady && api.preview.current?.file === file && api.preview.current).catch((error: Error) =>
      assert.fail(`${error.message}: ready ${String(api.preview.isReady)}, showing ${String(api.preview.file)}, model of ${String(api.preview.current?.file)}, panel visible ${String(panel.visible)}`),
    );
    assert.equal(model.card.name, 'count-files');
    assert.equal(panel.title, 'Preview count-files');
    assert.equal(api.preview.html, panel.webview.html);
    assert.match(panel.webview.html, /script-src 'nonce-[A-Za-z0-9+/=]{24}'/);
    assert.ok(panel.webview.html.includes(`data-file="${file}"`), 'the page names its file, so the webview keeps it in its state at once');

    // It is the live preview, not a picture of it: typing in the SKILL.md reaches it.
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document, vscode.ViewColumn.One);
    const line = document.getText().split('\n').findIndex((text) => text.startsWith('description:'));
    await editor.edit((edit) => edit.replace(document.lineAt(line).range, 'description: Typed after the reload. Use when testing restored previews.'));
    await until('the restored preview to follow typing', () => api.preview.current?.card.description === 'Typed after the reload. Use when testing restored previews.');

    // Closing its tab releases it like any preview.
    const tab = vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label === 'Preview count-files');
    assert.ok(tab, 'the restored preview has its tab');
    await vscode.window.tabGroups.close(tab);
    await until('the restored preview to close', () => api.preview.file === undefined);
  });

  it('closes a restored panel whose state names no SKILL.md, and a second preview while one is open', async () => {
    const closed = (panel: vscode.WebviewPanel) => new Promise<void>((resolve) => panel.onDidDispose(() => resolve()));
    for (const state of [undefined, {}, { file: 'relative/SKILL.md' }, { file: skillFile('ops', 'count-files').replace(/SKILL\.md$/, 'README.md') }]) {
      const panel = vscode.window.createWebviewPanel(PREVIEW_VIEW_TYPE, 'Skill Preview', vscode.ViewColumn.Two, {});
      const gone = closed(panel);
      await api.preview.serializer.deserializeWebviewPanel(panel, state);
      await gone;
      assert.equal(api.preview.file, undefined, JSON.stringify(state));
    }

    const open = skillFile('ops', 'count-files');
    await vscode.commands.executeCommand('skillwright.openSkillPreview', vscode.Uri.file(open));
    await until('the open preview', () => api.preview.current?.file === open);
    const second = vscode.window.createWebviewPanel(PREVIEW_VIEW_TYPE, 'Skill Preview', vscode.ViewColumn.Three, {});
    const gone = closed(second);
    await api.preview.serializer.deserializeWebviewPanel(second, { file: skillFile('release', 'prepare-release') });
    await gone;
    assert.equal(api.preview.file, open, 'the open preview stays as it was');
  });
});
