import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { ToolCall } from '../../src/core/llm/chatTypes';
import { NodeFileSystem } from '../../src/core/base/nodeFileSystem';
import { NodeAppendPort, SessionLog } from '../../src/core/sessions/sessionLog';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';
import { runCommand } from './quickInput';
import type { Workbench } from './workbench';
import { calm, openPanel, openTab, openWorkbench, resultsDir } from './workbench';

const HOUR = 3_600_000;

/**
 * Two sessions an earlier chat left in the extension's global storage under code-server's
 * user-data-dir: a log-rotation fix with a failed command, and a changelog update that repeats
 * the sample's write-changelog-entry skill.
 */
async function seedSessions(userDataDir: string): Promise<void> {
  const storageDir = path.join(userDataDir, 'User', 'globalStorage', 'skillwright.skillwright');
  let clock = Date.now() - 5 * HOUR;
  const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir, now: () => new Date((clock += 30_000)) });
  let calls = 0;
  const tool = async (writer: Awaited<ReturnType<SessionLog['create']>>, name: string, args: Record<string, unknown>, result: Record<string, unknown>) => {
    const call: ToolCall = { id: `call-${++calls}`, name, arguments: JSON.stringify(args) };
    await writer.appendMessage({ role: 'assistant', content: '', toolCalls: [call] });
    await writer.appendMessage({ role: 'tool', toolCallId: call.id, toolName: name, content: JSON.stringify(result) });
  };
  const logs = await log.create({ id: '20250301-100000-nginxlog', model: 'gpt-4.1-mini', systemPrompt: 'You are Skillwright.', workspace: '/home/dev/projects/web' });
  await logs.appendMessage({ role: 'user', content: 'Rotate the nginx access logs and compress the old ones' });
  const failed = { success: true, command: 'logrotate -f deploy/logrotate/nginx', exit_code: 1, output: 'error: skipping because parent directory has insecure permissions' };
  await tool(logs, 'run_command', { command: 'logrotate -f deploy/logrotate/nginx' }, failed);
  await tool(logs, 'edit_file', { path: 'deploy/logrotate/nginx', old_string: 'weekly', new_string: 'weekly\n    su root adm' }, { success: true });
  await tool(logs, 'run_command', { command: 'logrotate -f deploy/logrotate/nginx' }, { success: true, command: 'logrotate -f deploy/logrotate/nginx', exit_code: 0, output: '' });
  await logs.appendMessage({ role: 'assistant', content: 'Rotated: the configuration needed `su root adm`.\n\nSave as skill: rotate-nginx-logs' });
  await logs.flush();

  clock = Date.now() - 2 * HOUR;
  const changelog = await log.create({ id: '20250301-120000-changelg', model: 'gpt-4.1-mini', systemPrompt: 'You are Skillwright.', workspace: '/home/dev/projects/web' });
  await changelog.appendMessage({ role: 'user', content: 'Update the changelog with an entry for this change' });
  await tool(changelog, 'read_file', { path: 'CHANGELOG.md' }, { success: true, content: '# Changelog\n\n## [Unreleased]\n' });
  await tool(changelog, 'edit_file', { path: 'CHANGELOG.md', old_string: '## [Unreleased]', new_string: '## [Unreleased]\n### Added\n- `--json` flag' }, { success: true });
  await changelog.appendMessage({ role: 'assistant', content: 'Added the entry under Unreleased / Added.' });
  await changelog.flush();
}

/** Picks the quick-pick row holding `text` once the pick with `title` is showing. */
async function pick(page: Page, title: RegExp, text: string): Promise<void> {
  await until(`the quick pick "${title.source}"`, async () => title.test(await textNow(page.locator('.quick-input-widget .quick-input-title'))));
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await row.waitFor();
  await row.click();
}

describe('Save as Skill (code-server + Chromium, packaged .vsix)', () => {
  let workspace: string;
  let bench: Workbench;
  let panel: Frame;
  const toast = (text: string | RegExp) => bench.page.locator('.notification-toast', { hasText: text }).first();

  before(async () => {
    workspace = makeSampleWorkspace('sample');
    bench = await openWorkbench({ workspace, userSettings: { 'workbench.colorTheme': 'Default Dark Modern' }, seed: ({ userDataDir }) => seedSessions(userDataDir) });
  });

  after(async () => {
    await bench?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('saves a past session as a skill after review, and the Skills tab finds it', async () => {
    const page = bench.page;
    await runCommand(page, 'Skillwright: Save This as a Skill');
    // No chat is open, so it offers the recent sessions, newest first.
    await pick(page, /which session/, 'Rotate the nginx access logs');
    await pick(page, /where/, 'Project');
    await pick(page, /category/, 'ops');

    // The draft opens for review with a preview beside it, and the question waits for the person.
    const question = toast(/Review the draft of "rotate-nginx-logs"/);
    await question.waitFor({ timeout: 30_000 });
    assert.match(await question.innerText(), /filled in from the template \(no model/);
    assert.match(await question.innerText(), /\.agents\/skills\/ops\/rotate-nginx-logs\/SKILL\.md/);
    assert.match(await question.innerText(), /Lint: 0 errors/);
    // Monaco renders spaces as no-break spaces.
    const editorText = (await page.locator('.editor-instance .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(editorText, /name: rotate-nginx-logs/);
    const file = path.join(workspace, '.agents', 'skills', 'ops', 'rotate-nginx-logs', 'SKILL.md');
    assert.ok(!fs.existsSync(file), 'nothing is written before the person confirms');
    await calm(page, { x: 600, y: 300 });
    await page.screenshot({ path: path.join(resultsDir(), 'save-as-skill-dark.png') });

    await question.getByRole('button', { name: 'Save Skill' }).click();
    await until('the saved SKILL.md', () => fs.existsSync(file), 20_000);
    const saved = fs.readFileSync(file, 'utf8');
    assert.match(saved, /^---\nname: rotate-nginx-logs\n/);
    assert.match(saved, /insecure permissions/);
    await toast(/Saved the skill "rotate-nginx-logs"/).waitFor({ timeout: 30_000 });
    // The saved file is what the editor shows now; the draft and its preview are closed, without a prompt.
    await page.getByRole('tab', { name: /^SKILL\.md/ }).first().waitFor();
    await until('the draft closed', async () => (await page.getByRole('tab', { name: /Untitled-1/ }).count()) === 0);
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0);

    panel = await openPanel(page);
    await openTab(panel, 'Skills');
    await panel.getByRole('searchbox', { name: 'Search skills' }).fill('nginx logs');
    const row = panel.getByRole('button', { name: 'rotate-nginx-logs', exact: true });
    await row.waitFor({ timeout: 20_000 });
    assert.match(await panel.locator('li.skill-row', { hasText: 'rotate-nginx-logs' }).innerText(), /Rotate the nginx access logs/);
    await calm(page, { x: 600, y: 300 });
    await page.screenshot({ path: path.join(resultsDir(), 'save-as-skill-browser-dark.png') });
  });

  it('offers "Patch docs/write-changelog-entry instead" with a diff when the session repeats that skill', async () => {
    const page = bench.page;
    const file = path.join(workspace, '.agents', 'skills', 'docs', 'write-changelog-entry', 'SKILL.md');
    const before = fs.readFileSync(file, 'utf8');
    await runCommand(page, 'Skillwright: Save This as a Skill');
    await pick(page, /which session/, 'Update the changelog');
    const offer = toast(/overlaps the skill "docs\/write-changelog-entry"/);
    await offer.waitFor({ timeout: 30_000 });
    // The diff editor shows the existing skill against the patched one; nothing is written yet.
    await page.getByRole('tab', { name: /write-changelog-entry\/SKILL\.md ↔/ }).waitFor();
    await page.locator('.monaco-diff-editor').first().waitFor();
    assert.equal(fs.readFileSync(file, 'utf8'), before);
    await calm(page, { x: 600, y: 300 });
    await page.screenshot({ path: path.join(resultsDir(), 'save-as-skill-patch-dark.png') });

    await offer.getByRole('button', { name: 'Patch docs/write-changelog-entry' }).click();
    await until('the patched SKILL.md', () => fs.readFileSync(file, 'utf8') !== before, 20_000);
    const after = fs.readFileSync(file, 'utf8');
    assert.match(after, /\nversion: 0\.1\.1\n/);
    assert.match(after, /CHANGELOG\.md/);
    await toast(/Patched "docs\/write-changelog-entry"/).waitFor({ timeout: 30_000 });
  });
});
