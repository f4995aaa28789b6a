import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';
import type { Workbench } from './workbench';
import { calm, openPanel, openTab, openWorkbench, resultsDir } from './workbench';

describe('Skillwright panel in the workbench (code-server + Chromium, packaged .vsix)', () => {
  describe('a trusted sample workspace', () => {
    let workspace: string;
    let bench: Workbench;
    let panel: Frame;

    before(async () => {
      workspace = makeSampleWorkspace('sample');
      bench = await openWorkbench({ workspace, userSettings: { 'workbench.colorTheme': 'Default Dark Modern' } });
    });

    after(async () => {
      await bench?.close();
      if (workspace) removeWorkspace(workspace);
    });

    it('opens from the activity bar and shows the status page for the sample workspace', async () => {
      panel = await openPanel(bench.page);
      await openTab(panel, 'Status');
      await panel.getByRole('heading', { name: 'Workspace', exact: true }).waitFor();
      const folders = panel.getByRole('list', { name: 'Workspace folders' });
      assert.match(await folders.innerText(), /sample/);
      assert.match(await panel.getByTestId('trust-state').innerText(), /Trusted/);
      const roots = panel.getByRole('list', { name: 'Skill folders' });
      const agents = roots.getByRole('listitem').filter({ hasText: '.agents/skills' }).first();
      assert.match(await agents.innerText(), /found/);
      assert.doesNotMatch(await agents.innerText(), /not found/);
      assert.match(await panel.getByTestId('model-state').innerText(), /Not configured/);
      const summary = await until('the skill index summary', async () => {
        const text = await panel.getByTestId('skills-summary').innerText();
        return /3 skills, 3 active/.test(text) && text;
      });
      assert.match(summary, /Catalog: \d+ of 3000 tokens, 3 skills listed/);
      assert.match(await panel.getByTestId('version').innerText(), /^v\d+\.\d+\.\d+ · VS Code 1\.100/);
      // No activity-bar tooltip over the panel in the picture.
      await calm(bench.page, { escape: true });
      await bench.page.screenshot({ path: path.join(resultsDir(), 'panel-dark.png') });
    });

    it('"Show Logs" opens the Skillwright output channel', async () => {
      await panel.getByRole('button', { name: 'Show Logs' }).click();
      // The output view is a Monaco editor: its text sits in spans with non-breaking spaces.
      const lines = bench.page.locator('.part.panel .view-lines').first();
      const text = await until('the activation line in the Output view', async () => {
        const value = (await textNow(lines)).replace(/\u00a0/g, ' ');
        return /Skillwright \d+\.\d+\.\d+ activated in [\d.]+ ms/.test(value) && value;
      });
      assert.match(text, /\[info\]/);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'panel-logs.png') });
    });

    it('"Open Settings" shows Skillwright\'s settings', async () => {
      await panel.getByRole('button', { name: 'Open Settings' }).click();
      await bench.page.locator('.settings-editor').getByText('Base Url', { exact: false }).first().waitFor({ timeout: 30_000 });
    });

    it('is reachable and operable with the keyboard', async () => {
      const refresh = panel.getByRole('button', { name: 'Refresh' });
      await refresh.focus();
      assert.equal(await panel.locator(':focus').innerText(), 'Refresh');
      await bench.page.keyboard.press('Enter');
      await panel.locator('main#app[aria-busy="false"]').waitFor();
    });
  });

  describe('Restricted Mode, light theme', () => {
    let workspace: string;
    let bench: Workbench;
    let panel: Frame;

    before(async () => {
      workspace = makeSampleWorkspace('untrusted');
      bench = await openWorkbench({
        workspace,
        trust: true,
        colorScheme: 'light',
        userSettings: { 'workbench.colorTheme': 'Default Light Modern', 'security.workspace.trust.startupPrompt': 'never' },
      });
    });

    after(async () => {
      await bench?.close();
      if (workspace) removeWorkspace(workspace);
    });

    it('says the folder is in Restricted Mode', async () => {
      panel = await openPanel(bench.page);
      await openTab(panel, 'Status');
      await panel.getByTestId('trust-state').waitFor();
      assert.match(await panel.getByTestId('trust-state').innerText(), /Restricted Mode/);
      // The folder's three project skills are held back until it is trusted.
      await until('the skill index summary', async () => /skills?, \d+ active/.test(await panel.getByTestId('skills-summary').innerText()));
      const projectRoot = panel.getByRole('list', { name: 'Skill folders' }).getByRole('listitem').filter({ hasText: '.agents/skills' }).first();
      assert.match(await projectRoot.innerText(), /\(project, 0 skills\)/);
      // No activity-bar tooltip over the panel in the picture.
      await calm(bench.page, { escape: true });
      await bench.page.screenshot({ path: path.join(resultsDir(), 'panel-restricted-light.png') });
    });

    it('the Chat tab says what Restricted Mode holds back', async () => {
      await openTab(panel, 'Chat');
      await panel.getByRole('region', { name: 'Set up a model' }).waitFor();
      assert.match(await panel.locator('.chat-header').innerText(), /Restricted Mode: the agent can read but not change or run anything/);
      await calm(bench.page);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'chat-restricted-light.png') });
    });
  });

  describe('a window with no folder', () => {
    let bench: Workbench;
    let panel: Frame;

    before(async () => {
      bench = await openWorkbench({ userSettings: { 'workbench.colorTheme': 'Default High Contrast' } });
    });

    after(async () => {
      await bench?.close();
    });

    it('asks to open a folder and still lists the user skill folders', async () => {
      panel = await openPanel(bench.page);
      await openTab(panel, 'Status');
      assert.match(await panel.getByTestId('workspace-none').innerText(), /No folder is open/);
      const roots = await panel.getByRole('list', { name: 'Skill folders' }).innerText();
      assert.match(roots, /~\/\.agents\/skills/);
      assert.doesNotMatch(roots, /^\.github\/skills/m);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'panel-no-folder-hc.png') });
    });

    it('the Chat tab offers model set-up with every preset, reachable by keyboard', async () => {
      await openTab(panel, 'Chat');
      const setup = panel.getByRole('region', { name: 'Set up a model' });
      await setup.waitFor();
      const presets = await setup.getByRole('button').allInnerTexts();
      assert.deepEqual(presets, ['OpenAI', 'Azure OpenAI', 'OpenRouter', 'Ollama (local)', 'LM Studio (local)', 'Custom OpenAI-compatible endpoint']);
      await panel.getByRole('tab', { name: 'Chat', exact: true }).focus();
      await bench.page.keyboard.press('ArrowRight');
      assert.equal(await panel.getByRole('tab', { name: 'Skills', exact: true }).getAttribute('aria-selected'), 'true', 'arrow keys move between tabs');
      await bench.page.keyboard.press('ArrowLeft');
      await calm(bench.page);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'chat-setup-hc.png') });
    });
  });
});
