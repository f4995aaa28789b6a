import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { NodeFileSystem } from '../../src/core/base/nodeFileSystem';
import { NodeAppendPort, SessionLog } from '../../src/core/sessions/sessionLog';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { until } from '../harness/until';
import type { Workbench } from './workbench';
import { imagesSettled, openPanel, openTab, openWorkbench, resultsDir } from './workbench';

/**
 * Hostile text through every render path of the panel: a skill's description and body (Skills
 * tab), memory entries (Memory tab), a past session's messages and tool output (History search
 * hits, then the resumed chat). Each payload tries to run script or restyle the page; the test
 * asserts that nothing ran and no active element survived. The chat's live path and the SKILL.md
 * preview have their own payload tests (chat.e2e.ts, preview.e2e.ts).
 */
const PAYLOADS = [
  '<script>window.top.__pwned = "script"; alert("script")</script>',
  '<img src=x onerror="window.top.__pwned = \'img\'; alert(\'img\')">',
  '[click](javascript:window.top.__pwned=\'link\')',
  '<iframe src="javascript:alert(\'frame\')"></iframe>',
  '<svg onload="alert(\'svg\')"><script>alert("svg-script")</script></svg>',
  '<style>#app { display: none !important }</style>',
  '<div style="position:fixed;inset:0;background:red">overlay</div>',
  '<a href="data:text/html,<script>alert(1)</script>">data link</a>',
];
const MARK = 'zebrapayload';

const ACTIVE = 'script:not([nonce]), iframe, object, embed, style, [onerror], [onload], [onclick], [style*="fixed"], a[href^="javascript" i], a[data-href^="javascript" i]';

async function seed(workspace: string, userDataDir: string): Promise<void> {
  const skill = path.join(workspace, '.agents', 'skills', 'docs', 'hostile-skill');
  fs.mkdirSync(skill, { recursive: true });
  fs.writeFileSync(
    path.join(skill, 'SKILL.md'),
    `---\nname: hostile-skill\ndescription: "${MARK} ${PAYLOADS.slice(0, 3).join(' ').replace(/"/g, "'")} Use when testing."\n---\n\n# Hostile\n\n${PAYLOADS.join('\n\n')}\n`,
  );
  const memory = path.join(workspace, '.agents', 'memory');
  fs.mkdirSync(memory, { recursive: true });
  fs.writeFileSync(path.join(memory, 'MEMORY.md'), `${MARK} ${PAYLOADS[1]}\n§\n${PAYLOADS[5]} ${PAYLOADS[6]}\n`);
  const storageDir = path.join(userDataDir, 'User', 'globalStorage', 'skillwright.skillwright');
  const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir });
  const writer = await log.create({ id: '20250101-090000-hostile1', model: 'm', systemPrompt: 'You are Skillwright.', workspace });
  await writer.appendMessage({ role: 'user', content: `show me the ${MARK} output ${PAYLOADS[0]}` });
  await writer.appendMessage({ role: 'assistant', content: '', toolCalls: [{ id: 'call1', name: 'read_file', arguments: JSON.stringify({ path: 'x.html' }) }] });
  await writer.appendMessage({ role: 'tool', toolCallId: 'call1', content: JSON.stringify({ success: true, content: `${MARK} ${PAYLOADS.join(' ')}` }) });
  await writer.appendMessage({ role: 'assistant', content: `Here is the ${MARK} reply.\n\n${PAYLOADS.join('\n\n')}` });
  await writer.flush();
}

describe('hostile text in every panel view stays inert (code-server + Chromium, packaged .vsix)', () => {
  let workspace: string;
  let bench: Workbench;
  let panel: Frame;
  const dialogs: string[] = [];

  async function assertInert(where: string): Promise<void> {
    assert.equal(await panel.locator('#app').locator(ACTIVE).count(), 0, `${where}: no active element in the panel`);
    // Once every image has loaded or failed, any handler that could run has run.
    await imagesSettled(panel, '#app');
    assert.deepEqual(dialogs, [], `${where}: no dialog opened`);
    assert.equal(await panel.evaluate(() => (globalThis as unknown as { top?: { __pwned?: string } }).top?.__pwned), undefined, `${where}: no script ran`);
    assert.equal(await panel.locator('#app').isVisible(), true, `${where}: the panel is still visible`);
  }

  before(async () => {
    workspace = makeSampleWorkspace('hostile');
    bench = await openWorkbench({ workspace, userSettings: { 'workbench.colorTheme': 'Default Dark Modern' }, seed: ({ userDataDir }) => seed(workspace, userDataDir) });
    bench.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    panel = await openPanel(bench.page);
  });

  after(async () => {
    await bench?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('Skills tab: a hostile description is shown as text', async () => {
    await openTab(panel, 'Skills');
    const row = panel.locator('#panel-skills').getByText(MARK).first();
    await row.waitFor({ timeout: 60_000 });
    assert.match(await row.innerText(), /<script>|onerror/);
    await assertInert('Skills tab');
  });

  it('Memory tab: hostile entries are shown as text', async () => {
    await openTab(panel, 'Memory');
    const entry = panel.locator('#panel-memory').getByText(MARK).first();
    await entry.waitFor({ timeout: 30_000 });
    assert.match(await entry.innerText(), /onerror/);
    await assertInert('Memory tab');
  });

  it('History tab: hits from a hostile session are shown as text, with only <mark> added', async () => {
    await openTab(panel, 'History');
    const box = panel.getByRole('searchbox', { name: 'Search all sessions' });
    await box.fill(MARK);
    await box.press('Enter');
    const hit = panel.locator('#panel-history mark', { hasText: MARK }).first();
    await hit.waitFor({ timeout: 30_000 });
    await assertInert('History tab');
  });

  it('Chat: the resumed hostile session (reply and tool output) renders inert', async () => {
    await panel.locator('#panel-history').getByRole('button', { name: /Resume/ }).first().click();
    await until('the Chat tab', async () => (await panel.getByRole('tab', { name: 'Chat', exact: true }).getAttribute('aria-selected')) === 'true');
    const reply = panel.locator('.msg.assistant', { hasText: `Here is the ${MARK} reply.` });
    await reply.waitFor({ timeout: 30_000 });
    await panel.locator('details.tool summary').first().click();
    assert.match(await panel.locator('details.tool').first().innerText(), /onerror/);
    await assertInert('Chat tab');
    await bench.page.screenshot({ path: path.join(resultsDir(), 'security-chat-dark.png') });
  });
});
