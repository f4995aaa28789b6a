import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { ScriptedModelServer } from '../fakes/scriptedModelServer';
import { findFrame, textNow } from '../harness/browser';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { until } from '../harness/until';
import { repoRoot } from '../repoRoot';
import { quickInputTitle, runCommand } from './quickInput';
import type { Workbench } from './workbench';
import { calm, openPanel, openTab, openWorkbench, resultsDir } from './workbench';

/**
 * Skills that run, the way a person meets them: a Python script skill from Run Skill… (form,
 * modal approval, result, trace), a two-step workflow from the chat (approval cards, live step
 * cards, trace), the health line those runs leave in the Skills tab, and a tuned value reverted in
 * the preview. The skills are test/fixtures/execution/e2e-skills, copied into the sample workspace.
 */

const STORAGE = ['User', 'globalStorage', 'skillwright.skillwright'];
const HOUR = 3_600_000;

/** Copies the e2e skills into the workspace's project skill folder, category folders and all. */
function executionWorkspace(): string {
  const workspace = makeSampleWorkspace('execution');
  fs.cpSync(path.join(repoRoot(), 'test', 'fixtures', 'execution', 'e2e-skills'), path.join(workspace, '.agents', 'skills'), { recursive: true });
  return workspace;
}

/** The tuning store an earlier window left: one heuristic change of sample-lines' max_lines, 20 → 24. */
function seedTuning(userDataDir: string): void {
  const dir = path.join(userDataDir, ...STORAGE);
  fs.mkdirSync(dir, { recursive: true });
  const change = { id: 'c1', param: 'max_lines', from: 20, to: 24, reason: 'three runs in a row did better with more lines', at: Date.now() - 2 * HOUR, source: 'heuristic' };
  const store = { version: 1, skills: { 'sample-lines': { values: { max_lines: 24 }, changes: [change], pending: {} } } };
  fs.writeFileSync(path.join(dir, 'skill-tuning.json'), `${JSON.stringify(store, null, 1)}\n`);
}

/**
 * Picks a skill in Run Skill…'s pick by clicking its row in the full list. Not typed: the pick
 * replaces its items 120 ms after each keystroke, and an Enter or click in that moment can accept
 * another skill than the one shown.
 */
async function pickSkill(page: Page, name: string): Promise<void> {
  await quickInputTitle(page, /^Run Skill$/);
  const row = page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) });
  await row.waitFor({ timeout: 30_000 });
  await row.click();
}

/** Types the answer of one step of the Run Skill form, once that step is the one showing. */
async function answerStep(page: Page, title: RegExp, text: string): Promise<void> {
  await quickInputTitle(page, title);
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
}

/** The Skill Run Trace panel's frame once it shows the run of `skill` (the panel is reused from run to run). */
async function traceFrame(page: Page, skill: string): Promise<Frame> {
  return until(
    `the trace panel showing ${skill}`,
    async () => {
      for (const frame of page.frames()) {
        try {
          const heading = frame.locator('main#trace[aria-busy="false"] .trace-header h1');
          if ((await heading.count()) === 0) continue;
          const text = await heading.innerText();
          if (text === skill || text.startsWith(`${skill} `)) return frame;
        } catch {
          // frame detached while we looked
        }
      }
      return undefined;
    },
    30_000,
  );
}

describe('skills that run, in the workbench (code-server + Chromium, packaged .vsix, scripted model)', () => {
  let workspace: string;
  let bench: Workbench;
  let server: ScriptedModelServer;
  let panel: Frame;

  before(async () => {
    workspace = executionWorkspace();
    server = await ScriptedModelServer.start({ models: ['scripted-e2e'] });
    bench = await openWorkbench({
      workspace,
      userSettings: { 'workbench.colorTheme': 'Default Dark Modern', 'skillwright.model.baseUrl': server.baseUrl, 'skillwright.model.name': 'scripted-e2e' },
      seed: ({ userDataDir }) => seedTuning(userDataDir),
    });
  });

  // What the window showed when a step failed: a webview's state is hard to tell from a timeout alone.
  afterEach(async function () {
    const test = this.currentTest;
    if (test?.state !== 'failed') return;
    const name = `execution-failed-${test.title.replace(/\W+/g, '-').slice(0, 40)}.png`;
    await bench.page.screenshot({ path: path.join(resultsDir(), name) }).catch(() => undefined);
  });

  after(async () => {
    await bench?.close();
    await server?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('runs the Python skill from the palette: pick, form, modal approval, result, and its trace', async () => {
    const page = bench.page;
    await runCommand(page, 'Skillwright: Run Skill…');
    await pickSkill(page, 'word-count');

    await answerStep(page, /^Run word-count \(1\/2\)/, 'the quick brown fox jumps over a lazy dog');
    await answerStep(page, /^Run word-count \(2\/2\)/, '4');

    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const asked = await dialog.innerText();
    assert.match(asked, /Run the script of "word-count"\?/);
    assert.match(asked, /"min_length": 4/, 'the dialog shows the answers of the form');
    assert.match(asked, /Permissions: \["process:python3"\]/);
    await dialog.getByRole('button', { name: 'Allow Once' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 15_000 });

    // Four of the nine words are shorter than 4 characters: the typed minimum reached the script.
    const toast = page.locator('.notification-toast', { hasText: 'word-count: {"words":5}' });
    await toast.waitFor({ timeout: 60_000 });
    await toast.getByRole('button', { name: 'Show Trace' }).click();

    const trace = await traceFrame(page, 'word-count');
    assert.equal(await trace.getByTestId('run-status').innerText(), '✓ Succeeded');
    assert.match(await trace.locator('.trace-facts').innerText(), /^script run from Run Skill…, .*1 succeeded\.$/);
    const step = trace.locator('button.step-row');
    assert.equal(await step.count(), 1);
    assert.match((await step.getAttribute('aria-label')) ?? '', /^Step main, skill word-count: Succeeded, started at 0 ms, took .+, 1 attempt$/);
    assert.equal(await step.locator('.step-status').innerText(), 'Succeeded');
    await step.click();
    const detail = trace.getByRole('region', { name: 'Details of step main' });
    await detail.waitFor();
    assert.match(await detail.innerText(), /Attempt 1: .+, succeeded/);
    assert.match(await detail.innerText(), /Skill: word-count 1\.0\.0 \(script\)/);
  });

  it('runs the two-step workflow from the chat: an approval card per script, live step cards, and the trace', async () => {
    const text = 'Ship the release notes before Friday';
    server.on({ user: 'count the words of my note' }, { toolCalls: [{ name: 'skill_run', arguments: { name: 'count-and-describe', arguments: { text } } }] });
    server.on({ toolResult: { content: 'The text has 6 words.' } }, { text: 'Your note has **6 words**.' });

    panel = await openPanel(bench.page);
    const input = panel.getByRole('combobox', { name: 'Message' });
    await input.fill('count the words of my note');
    await input.press('Enter');

    const steps = panel.getByRole('list', { name: 'Steps of count-and-describe' });
    const stepCard = (id: string) => steps.locator(`li.run-step[data-step="${id}"]`);
    // Each script asks before it runs; while it waits, its step's card says it is running.
    const first = panel.getByRole('group', { name: /^Approval: word-count: run the script/ });
    await first.waitFor({ timeout: 30_000 });
    await until('the count step running', async () => /count\s+word-count\s+Running/.test(await textNow(stepCard('count'))));
    await first.getByRole('button', { name: 'Allow once' }).click();

    const second = panel.getByRole('group', { name: /^Approval: describe-count: run the script/ });
    await second.waitFor({ timeout: 30_000 });
    await until('count done and describe running', async () => {
      const [count, describe] = await Promise.all([textNow(stepCard('count')), textNow(stepCard('describe'))]);
      return /Succeeded/.test(count) && /describe\s+describe-count\s+Running/.test(describe);
    });
    await second.getByRole('button', { name: 'Allow once' }).click();

    await panel.locator('.msg.assistant strong', { hasText: '6 words' }).waitFor({ timeout: 30_000 });
    await until('both steps succeeded', async () => (await steps.locator('li.run-step.status-success').count()) === 2);
    assert.match(await stepCard('count').innerText(), /✓\s*count\s+word-count\s+Succeeded\s+\d/);
    assert.match(await stepCard('describe').innerText(), /✓\s*describe\s+describe-count\s+Succeeded\s+\d/);
    assert.match(await first.locator('.approval-state').innerText(), /Allowed once/);
    assert.deepEqual(server.pendingScript(), [], 'the model got the run’s result');

    await calm(bench.page);
    await bench.page.screenshot({ path: path.join(resultsDir(), 'execution-chat-dark.png') });
    await panel.getByRole('button', { name: 'Show the trace of count-and-describe' }).click();
    const trace = await traceFrame(bench.page, 'count-and-describe');
    assert.equal(await trace.getByTestId('run-status').innerText(), '✓ Succeeded');
    assert.match(await trace.locator('.trace-facts').innerText(), /^workflow run from the chat, .*2 succeeded\.$/);
    const rows = trace.getByRole('list', { name: /^Steps of count-and-describe on a time axis of / }).locator('button.step-row');
    const labels = await rows.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-label') ?? ''));
    assert.equal(labels.length, 2);
    assert.match(labels[0] ?? '', /^Step count, skill word-count: Succeeded, started at .+, took .+, 1 attempt$/);
    assert.match(labels[1] ?? '', /^Step describe, skill describe-count: Succeeded, started at .+, took .+, 1 attempt$/);
    assert.deepEqual(await rows.locator('.step-status').allInnerTexts(), ['Succeeded', 'Succeeded']);
    assert.match(await trace.locator('.trace-id').innerText(), /called word-count, describe-count/);
    await calm(bench.page);
    await bench.page.screenshot({ path: path.join(resultsDir(), 'execution-trace-dark.png') });
  });

  it('shows the runs in the health line of the Skills tab', async () => {
    await openTab(panel, 'Skills');
    const health = (name: string) =>
      panel.locator('.skill-row', { has: panel.getByRole('button', { name, exact: true }) }).first().getByTestId('skill-health');
    // One run from the palette, one as the workflow's first step.
    await until('the health of word-count', async () => /^2 runs · 100% ok/.test(await textNow(health('word-count'))));
    assert.match(await health('describe-count').innerText(), /^1 run · 100% ok/);
    assert.match(await health('count-and-describe').innerText(), /^1 run · 100% ok/);
    assert.equal(await health('sample-lines').count(), 0, 'a skill that never ran has no health line');
  });

  it('reverts a tuned value from the preview, back to the default', async () => {
    await panel.getByRole('button', { name: 'Actions for sample-lines' }).click();
    await panel.getByRole('menu', { name: 'Actions for sample-lines' }).getByRole('menuitem', { name: 'Open Preview' }).click();
    const preview = await findFrame(bench.page, 'main#preview[aria-busy="false"] .preview-header', 60_000);
    await until('the sample-lines preview', async () => (await textNow(preview.locator('.preview-header h1'))).trim() === 'sample-lines');
    const tuned = preview.getByRole('region', { name: 'Tuned values' });
    await tuned.waitFor({ timeout: 30_000 });
    const param = tuned.locator('table.tuned-values tbody tr', { has: preview.locator('th', { hasText: 'max_lines' }) });
    assert.match(await param.innerText(), /max_lines\s+20\s+5 to 100\s+24\s+tuned/);
    const change = tuned.locator('.tuning-changes .change').first();
    assert.match(await change.innerText(), /max_lines: 20 → 24/);
    assert.match(await change.innerText(), /three runs in a row did better with more lines/);

    await tuned.getByRole('button', { name: 'Revert max_lines from 24 to 20' }).click();
    await until('max_lines back at its default', async () => /max_lines\s+20\s+5 to 100\s+20\s+\(default\)/.test(await textNow(param)));
    await until('the change marked reverted', async () => /reverted/.test(await textNow(change)));
    assert.equal(await tuned.getByRole('button', { name: /^Revert / }).count(), 0, 'nothing is left to revert');

    const stored = JSON.parse(fs.readFileSync(path.join(bench.server.userDataDir, ...STORAGE, 'skill-tuning.json'), 'utf8')) as {
      skills: Record<string, { values: Record<string, unknown>; changes: { id: string; revertedAt?: number }[] }>;
    };
    const state = stored.skills['sample-lines'];
    assert.ok(state, 'sample-lines is still in the store');
    assert.equal(state.values['max_lines'], 20, 'the store holds the default again');
    assert.equal(typeof state.changes[0]?.revertedAt, 'number', 'the change is kept, marked reverted');
    await calm(bench.page);
    await bench.page.screenshot({ path: path.join(resultsDir(), 'execution-tuning-dark.png') });
  });
});
