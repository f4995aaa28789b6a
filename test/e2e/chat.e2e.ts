import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/agent/compactionSummary';
import { ScriptedModelServer } from '../fakes/scriptedModelServer';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';
import type { Workbench } from './workbench';
import { calm, imagesSettled, openPanel, openTab, openWorkbench, resultsDir } from './workbench';

/** Answers the step of the workbench's quick input (input box or pick list) whose title matches, the way a person types. */
async function answerQuickInput(page: Page, step: RegExp, text: string): Promise<void> {
  const title = page.locator('.quick-input-widget .quick-input-title');
  // Typing only once this step shows: the last step's box may still be on screen for a moment.
  await until(`the quick input "${step.source}"`, async () => step.test(await textNow(title)));
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
}

describe('chat in the workbench (code-server + Chromium, packaged .vsix, scripted model)', () => {
  let workspace: string;
  let bench: Workbench;
  let server: ScriptedModelServer;
  let panel: Frame;
  const dialogs: string[] = [];

  before(async () => {
    workspace = makeSampleWorkspace('chat');
    server = await ScriptedModelServer.start({ models: ['scripted-e2e'] });
    server.always({ user: 'Reply with OK' }, { text: 'OK' });
    bench = await openWorkbench({ workspace, userSettings: { 'workbench.colorTheme': 'Default Dark Modern' } });
    bench.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });

  after(async () => {
    await bench?.close();
    await server?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('offers model set-up on first use and configures the scripted endpoint through the quick picks', async () => {
    panel = await openPanel(bench.page);
    const setup = panel.getByRole('region', { name: 'Set up a model' });
    await setup.waitFor({ timeout: 30_000 });
    await setup.getByRole('button', { name: 'Set up Custom OpenAI-compatible endpoint' }).click();
    await answerQuickInput(bench.page, /Configure Model \(2\/3\): base URL/, server.baseUrl);
    await answerQuickInput(bench.page, /Configure Model: API key/, '');
    await answerQuickInput(bench.page, /Configure Model \(3\/3\): model/, 'scripted-e2e');
    await bench.page.getByText(/scripted-e2e answered in \d+ ms/).first().waitFor({ timeout: 30_000 });
    await setup.waitFor({ state: 'detached', timeout: 30_000 });
    assert.match(await panel.getByTestId('chat-model').innerText(), /scripted-e2e/);
  });

  it('chats with a tool call and an approval, rendering Markdown and code blocks', async () => {
    server.on({ user: 'add a release note' }, { toolCalls: [{ name: 'write_file', arguments: { path: 'NOTES.md', content: '# Notes\n\n- shipped the chat\n' } }] });
    server.on(
      { toolResult: { content: 'NOTES.md' } },
      { text: 'Added **NOTES.md**. To check it:\n\n```sh\ncat NOTES.md\n```\n' },
    );
    const input = panel.getByRole('combobox', { name: 'Message' });
    await input.fill('add a release note');
    await input.press('Enter');
    const card = panel.getByRole('group', { name: /^Approval: / });
    await card.waitFor({ timeout: 30_000 });
    assert.match(await card.innerText(), /\+- shipped the chat/);
    assert.equal(fs.existsSync(path.join(workspace, 'NOTES.md')), false, 'nothing is written before the answer');
    await card.getByRole('button', { name: 'Allow once' }).click();
    await panel.locator('.msg.assistant strong', { hasText: 'NOTES.md' }).waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(workspace, 'NOTES.md'), 'utf8'), '# Notes\n\n- shipped the chat\n');
    await panel.getByRole('button', { name: 'Copy code' }).waitFor();
    await panel.getByRole('button', { name: 'Insert code at cursor' }).waitFor();
    const tool = panel.locator('details.tool', { hasText: 'write_file' });
    assert.match(await tool.innerText(), /✓/);
    assert.match(await panel.getByTestId('token-line').last().innerText(), /prompt \([\d,]+ cached, [\d,]+ new\)/);
    assert.equal(await input.inputValue(), '', 'the box clears once the message is in the transcript');
    await calm(bench.page);
    await bench.page.screenshot({ path: path.join(resultsDir(), 'chat-dark.png') });
  });

  it('completes a skill name after "/" from the keyboard', async () => {
    const input = panel.getByRole('combobox', { name: 'Message' });
    await input.fill('');
    await input.pressSequentially('/write-ch');
    const options = panel.getByRole('listbox', { name: 'Skills' });
    await options.getByRole('option', { name: /\/write-changelog-entry/ }).waitFor();
    assert.equal(await input.getAttribute('aria-expanded'), 'true');
    await input.press('Enter');
    assert.equal(await input.inputValue(), '/write-changelog-entry ');
    assert.equal(await options.isVisible(), false);
    await input.fill('');
  });

  it('stops a streaming reply and keeps what had arrived', async () => {
    server.on({ user: 'write a very long poem' }, { text: 'Roses and lines. '.repeat(300), chunkDelayMs: 60, chunkSize: 17 });
    const input = panel.getByRole('combobox', { name: 'Message' });
    await input.fill('write a very long poem');
    await input.press('Enter');
    const stop = panel.getByRole('button', { name: 'Stop the reply' });
    await stop.waitFor({ timeout: 30_000 });
    await until('some streamed text', async () => /Roses and lines/.test(await panel.locator('.msg.assistant').last().innerText()));
    await stop.click();
    await until('the stopped turn', async () => /^Stopped\./.test(await panel.getByTestId('token-line').last().innerText()));
    const kept = await panel.locator('.msg.assistant').last().innerText();
    assert.ok(kept.length > 0 && kept.length < 'Roses and lines. '.length * 300, `kept ${kept.length} characters`);
    assert.equal(await stop.isVisible(), false);
  });

  it('shows a memory proposal from the agent in the Memory tab, and Accept writes MEMORY.md', async () => {
    server.on({ user: 'remember that we deploy on Fridays' }, { toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'Deploys happen on Fridays, after the 14:00 freeze.' } }] });
    server.on({ toolResult: { content: 'proposalId' } }, { text: 'I proposed that for your memory; accept it in the Memory tab.' });
    const input = panel.getByRole('combobox', { name: 'Message' });
    await input.fill('remember that we deploy on Fridays');
    await input.press('Enter');
    await panel.locator('.msg.assistant', { hasText: 'I proposed that' }).waitFor({ timeout: 30_000 });
    const memoryFile = path.join(workspace, '.agents', 'memory', 'MEMORY.md');
    assert.equal(fs.existsSync(memoryFile), false, 'a proposal writes nothing');
    await openTab(panel, 'Memory');
    const proposal = panel.locator('.proposal', { hasText: 'MEMORY.md' }).first();
    await proposal.waitFor({ timeout: 30_000 });
    assert.match(await proposal.innerText(), /\+.*Deploys happen on Fridays/);
    await bench.page.screenshot({ path: path.join(resultsDir(), 'memory-proposal-dark.png') });
    await proposal.getByRole('button', { name: 'Accept' }).click();
    await until('MEMORY.md on disk', () => fs.existsSync(memoryFile) && /Deploys happen on Fridays/.test(fs.readFileSync(memoryFile, 'utf8')));
    await proposal.waitFor({ state: 'detached', timeout: 30_000 });
    await openTab(panel, 'Chat');
  });

  it('shows the context meter in the header, compacts from its button, and the divider opens to the summary', async () => {
    server.always({ request: (body) => body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT }, { text: '## Goal\nShip the chat.\n## Open questions\nnone' });
    const meter = panel.getByRole('meter', { name: 'Context window' });
    await meter.waitFor({ timeout: 30_000 });
    assert.match((await meter.getAttribute('aria-valuetext')) ?? '', /^[\d,]+ of [\d,]+ tokens/);
    const meterSummary = panel.locator('.context-meter > summary');
    await meterSummary.click();
    assert.match(await panel.locator('.context-parts').innerText(), /System prompt: [\d,]+ tokens[\s\S]*Conversation: [\d,]+ tokens[\s\S]*Tools: [\d,]+ tokens[\s\S]*Compacts at/);
    await meterSummary.click();

    await panel.getByRole('button', { name: 'Compact the conversation: summarise older messages' }).click();
    const divider = panel.getByTestId('compaction-divider');
    await divider.waitFor({ timeout: 30_000 });
    assert.match(await divider.locator('summary').innerText(), /^Conversation compacted: \d+ messages → summary \(\d+ tokens?\)$/);
    await divider.locator('summary').press('Enter');
    await divider.locator('h4', { hasText: 'Summary' }).waitFor();
    assert.match(await divider.innerText(), /Ship the chat/);
    await bench.page.screenshot({ path: path.join(resultsDir(), 'chat-compacted-dark.png') });

    // `/compact` is offered in the slash menu beside the skills.
    const input = panel.getByRole('combobox', { name: 'Message' });
    await input.fill('');
    await input.pressSequentially('/comp');
    await panel.getByRole('listbox', { name: 'Skills' }).getByRole('option', { name: /\/compact/ }).waitFor();
    await input.fill('');
  });

  it('renders hostile model output inert: no script runs, no frame or handler survives', async () => {
    const payload = [
      'Hostile output test.',
      '<script>window.top.__pwned = 1; alert("script")</script>',
      '<img src=x onerror="alert(\'img\')">',
      '[click me](javascript:alert(\'link\'))',
      '<iframe src="https://example.com"></iframe>',
      '<svg><script>alert("svg")</script></svg>',
      '<style>body { display: none }</style><div style="position:fixed;inset:0">overlay</div>',
      '![pixel](https://example.com/track.png)',
    ].join('\n\n');
    server.on({ user: 'show me something odd' }, { text: payload });
    const input = panel.getByRole('combobox', { name: 'Message' });
    await input.fill('show me something odd');
    await input.press('Enter');
    const reply = panel.locator('.msg.assistant', { hasText: 'Hostile output test.' });
    await reply.waitFor({ timeout: 30_000 });
    // markdown-it refuses javascript: targets, so the link stays text; nothing can be clicked into running.
    assert.equal(await reply.locator('a[data-href^="javascript" i], a[href^="javascript" i]').count(), 0);
    assert.match(await reply.innerText(), /\[click me\]\(javascript:/);
    assert.equal(await reply.locator('script, iframe, svg, style, [onerror], [style]').count(), 0);
    // Once every image has loaded or failed, any handler that could run has run.
    await imagesSettled(panel, '.msg.assistant');
    assert.deepEqual(dialogs, []);
    assert.equal(await reply.locator('img[src^="http"]').count(), 0, 'remote images are not loaded');
    assert.equal(await panel.evaluate(() => (globalThis as unknown as { top?: { __pwned?: number } }).top?.__pwned), undefined);
    assert.equal(await panel.locator('body').isVisible(), true);
    // The raw tags are shown as text, so the person sees what the model tried.
    assert.match(await reply.innerText(), /<script>/);
  });
});
