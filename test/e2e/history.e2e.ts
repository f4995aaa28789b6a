import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { NodeFileSystem } from '../../src/core/base/nodeFileSystem';
import { NodeAppendPort, SessionLog } from '../../src/core/sessions/sessionLog';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';
import type { Workbench } from './workbench';
import { calm, openPanel, openTab, openWorkbench, resultsDir } from './workbench';

const DAY = 86_400_000;

/**
 * Sessions as earlier chats left them, in the extension's global storage under code-server's
 * user-data-dir. Written before the window opens: the extension finds them as it would find last
 * week's sessions after a restart.
 */
async function seedSessions(userDataDir: string): Promise<void> {
  const storageDir = path.join(userDataDir, 'User', 'globalStorage', 'skillwright.skillwright');
  let clock = 0;
  const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir, now: () => new Date((clock += 45_000)) });
  const seed = async (id: string, daysAgo: number, workspace: string, exchanges: [string, string][]) => {
    // Whole days start at local noon of that day, so a run near midnight still reads "yesterday"
    // (the messages after the first are minutes later and must not cross into another day).
    const then = new Date(Date.now() - daysAgo * DAY);
    clock = Number.isInteger(daysAgo) ? new Date(then.getFullYear(), then.getMonth(), then.getDate(), 12).getTime() : then.getTime();
    const writer = await log.create({ id, model: 'gpt-4.1-mini', systemPrompt: 'You are Skillwright.', workspace });
    for (const [user, reply] of exchanges) {
      await writer.appendMessage({ role: 'user', content: user });
      await writer.appendMessage({ role: 'assistant', content: reply });
    }
    await writer.flush();
  };
  await seed('20250101-090000-backup01', 9, '/home/dev/projects/infra', [
    ['Set up the nightly backup of the orders database', 'Added a cron job that dumps the database and uploads it to object storage.'],
    ['It fails every night since Tuesday', 'The upload step reports a checksum mismatch on the glacier bucket: the multipart upload uses a part size the bucket policy rejects, so the final object differs from the local dump.'],
    ['How do we fix it?', 'Set the part size to 64 MiB in backup.sh and re-run; the checksums now match.'],
  ]);
  await seed('20250101-090000-readme02', 4, '/home/dev/projects/cli', [['Write a README for the CLI', 'Done: README.md explains install, usage and the --json flag.']]);
  await seed('20250101-090000-flaky003', 1, '/home/dev/projects/web', [['Why is the login test flaky?', 'It waits for a fixed 500 ms; I replaced that with waiting for the redirect.']]);
  // Twenty minutes ago: "min ago" at any time of day (an hour ago could be yesterday after midnight).
  await seed('20250101-090000-release4', 20 / 1440, '/home/dev/projects/web', [['Prepare the 2.3.0 release notes', 'Drafted CHANGELOG.md from the merged pull requests since 2.2.0.']]);
}

describe('History tab (code-server + Chromium, packaged .vsix)', () => {
  let workspace: string;
  let bench: Workbench;
  let panel: Frame;
  const sessions = () => panel.getByRole('list', { name: 'Sessions' });
  const row = (title: string) => sessions().getByRole('listitem').filter({ hasText: title });
  const searchBox = () => panel.getByRole('searchbox', { name: 'Search all sessions' });

  before(async () => {
    workspace = makeSampleWorkspace('sample');
    bench = await openWorkbench({ workspace, userSettings: { 'workbench.colorTheme': 'Default Dark Modern' }, seed: ({ userDataDir }) => seedSessions(userDataDir) });
  });

  after(async () => {
    await bench?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('"Skillwright: Search Sessions…" opens the History tab with the search box focused', async () => {
    // The palette lists an extension's commands once the remote extension host has reported it.
    await bench.page.getByRole('tab', { name: /^Skillwright/ }).first().waitFor({ timeout: 60_000 });
    await bench.page.keyboard.press('F1');
    const input = bench.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill('>Skillwright: Search Sessions');
    await bench.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Search Sessions' }).first().waitFor();
    await bench.page.keyboard.press('Enter');
    panel = await openPanel(bench.page);
    await until('the History tab selected', async () => (await panel.getByRole('tab', { name: 'History', exact: true }).getAttribute('aria-selected')) === 'true');
    await panel.locator('#history-query:focus').waitFor({ timeout: 15_000 });
  });

  it('lists the sessions newest first with workspace, relative date and message count', async () => {
    await row('Set up the nightly backup').waitFor();
    const titles = await sessions().locator('.session-title').allInnerTexts();
    assert.deepEqual(titles, ['Prepare the 2.3.0 release notes', 'Why is the login test flaky', 'Write a README for the CLI', 'Set up the nightly backup of the orders database']);
    const backup = await row('Set up the nightly backup').innerText();
    assert.match(backup, /1 week ago · infra · 6 messages/);
    assert.match(await row('Why is the login test flaky').innerText(), /yesterday · web · 2 messages/);
    assert.match(await row('Prepare the 2.3.0').innerText(), /h ago|min ago/);
    // The exact date is in the tooltip.
    assert.match((await row('Set up the nightly backup').locator('time').getAttribute('title')) ?? '', /Last message .*\nStarted /);
    assert.equal(await panel.getByTestId('history-count').innerText(), '4 sessions');
    // Up and Down move between the same action of neighbouring sessions.
    await row('Prepare the 2.3.0').getByRole('button', { name: /^Resume/ }).focus();
    await bench.page.keyboard.press('ArrowDown');
    assert.equal(await panel.locator('button:focus').getAttribute('aria-label'), 'Resume: Why is the login test flaky');
    await bench.page.keyboard.press('End');
    assert.equal(await panel.locator('button:focus').getAttribute('aria-label'), 'Resume: Set up the nightly backup of the orders database');
    await calm(bench.page); // no Escape: it would clear the search
    await bench.page.screenshot({ path: path.join(resultsDir(), 'history-list-dark.png') });
  });

  it('finds last week’s session by a phrase from its middle, highlighted, and opens it at that message', async () => {
    await searchBox().fill('checksum mismatch glacier');
    await bench.page.keyboard.press('Enter');
    const summary = await until('the search summary', async () => {
      const text = await textNow(panel.getByTestId('history-summary'));
      return /searched in [\d.]+ ms/.test(text) && text;
    });
    assert.match(summary, /^1 session, searched in [\d.]+ ms$/);
    const results = panel.getByRole('list', { name: 'Search results' });
    const first = results.getByRole('listitem').first();
    assert.match(await first.getByRole('heading').innerText(), /Set up the nightly backup/);
    const hit = first.getByRole('button', { name: /checksum mismatch on the glacier bucket/ });
    const marks = await hit.locator('mark').allInnerTexts();
    assert.deepEqual(marks.map((m) => m.toLowerCase()), ['checksum mismatch', 'glacier']);
    await calm(bench.page); // no Escape: it would clear the search
    await bench.page.screenshot({ path: path.join(resultsDir(), 'history-dark.png') });

    // Keyboard: Enter on the focused hit opens it.
    await hit.focus();
    await bench.page.keyboard.press('Enter');
    await until('the Chat tab selected', async () => (await panel.getByRole('tab', { name: 'Chat', exact: true }).getAttribute('aria-selected')) === 'true');
    // chat/snapshot arrived: the chat shows the session, with the hit's message picked out.
    const focused = panel.locator('#panel-chat .focused-hit');
    await focused.waitFor({ timeout: 20_000 });
    assert.match(await focused.innerText(), /checksum mismatch on the glacier bucket/);
    assert.match(await panel.locator('#panel-chat').innerText(), /Set up the nightly backup of the orders database/);
    await calm(bench.page); // no Escape: it would clear the search
    await bench.page.screenshot({ path: path.join(resultsDir(), 'history-opened-dark.png') });
  });

  it('marks the open session as current in the list', async () => {
    await openTab(panel, 'History');
    await panel.getByRole('button', { name: 'Show all sessions' }).click();
    await until('the current badge', async () => /Current/.test(await row('Set up the nightly backup').innerText()));
    assert.equal(await row('Set up the nightly backup').getAttribute('aria-current'), 'true');
  });

  it('says so when nothing matches, and explains a query with no words', async () => {
    await searchBox().fill('zeppelin');
    await bench.page.keyboard.press('Enter');
    await until('the no-match line', async () => /No session mentions “zeppelin”/.test(await textNow(panel.getByTestId('history-summary'))));
    await searchBox().fill('"--- :: **"');
    await bench.page.keyboard.press('Enter');
    await until('the explanation', async () => /no letters or digits/.test(await textNow(panel.getByRole('alert'))));
    // Escape in the search box goes back to the list.
    await searchBox().focus();
    await bench.page.keyboard.press('Escape');
    await sessions().waitFor();
  });

  it('exports a session as Markdown through the save dialog', async () => {
    await row('Write a README').getByRole('button', { name: /^Export as Markdown/ }).click();
    // code-server's save dialog is a quick input holding the suggested path.
    const input = bench.page.locator('.quick-input-widget input');
    await input.waitFor();
    const suggested = await until('the suggested file name', async () => {
      const value = await input.inputValue();
      return value.endsWith('.md') && value;
    });
    assert.match(suggested, /Write-a-README-for-the-CLI\.md$/);
    await bench.page.keyboard.press('Enter');
    const file = path.join(workspace, 'Write-a-README-for-the-CLI.md');
    await until('the exported file', () => fs.existsSync(file), 15_000);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /^# Write a README for the CLI\n/);
    assert.match(text, /README\.md explains install, usage and the --json flag/);
  });

  it('deletes a session after a modal confirmation, with the keyboard', async () => {
    const deleteButton = row('Why is the login test flaky').getByRole('button', { name: /^Delete/ });
    await deleteButton.focus();
    await bench.page.keyboard.press('Enter');
    const dialog = bench.page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Delete the session “Why is the login test flaky”/);
    // Escape keeps it.
    await bench.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await row('Why is the login test flaky').count(), 1);
    await deleteButton.click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await until('the row to go', async () => (await row('Why is the login test flaky').count()) === 0);
    assert.equal(await panel.getByTestId('history-count').innerText(), '3 sessions');
    const file = path.join(bench.server.userDataDir, 'User', 'globalStorage', 'skillwright.skillwright', 'sessions', '20250101-090000-flaky003.jsonl');
    assert.ok(!fs.existsSync(file), 'the session file is gone');
  });
});
