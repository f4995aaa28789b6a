import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { nullLogger } from '../../src/core/base/logger';
import { NodeFileSystem } from '../../src/core/base/nodeFileSystem';
import { NodeAppendPort, SessionLog } from '../../src/core/sessions/sessionLog';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { HistoryDialogs, HistoryPanel } from '../../src/host/history/historyController';
import { HistoryController } from '../../src/host/history/historyController';
import type { HostToWebview, PanelTab, SessionRow, SessionSearchResults } from '../../src/shared/protocol';
import { until } from '../harness/until';

/** Stands in for the webview: keeps what the controller posts and the tabs it switches to. */
class RecordingPanel implements HistoryPanel {
  readonly posted: HostToWebview[] = [];
  readonly tabs: { tab: PanelTab; focus?: string }[] = [];
  readonly isReady = true;
  post(message: HostToWebview): void {
    this.posted.push(message);
  }
  showTab(tab: PanelTab, focus?: string): Promise<void> {
    this.tabs.push({ tab, ...(focus ? { focus } : {}) });
    return Promise.resolve();
  }
  lastSessions(): SessionRow[] | undefined {
    return this.posted.flatMap((m) => (m.type === 'history/sessions' ? [m.sessions] : [])).at(-1);
  }
  lastResults(): SessionSearchResults | undefined {
    return this.posted.flatMap((m) => (m.type === 'history/results' ? [m.results] : [])).at(-1);
  }
}

/** The person's answers: confirm deletes (or not), save exports to a chosen file. */
class ScriptedDialogs implements HistoryDialogs {
  confirm = true;
  target: vscode.Uri | undefined;
  readonly asked: string[] = [];
  readonly suggestedNames: string[] = [];
  readonly exportedTo: vscode.Uri[] = [];
  confirmDelete(title: string): Promise<boolean> {
    this.asked.push(title);
    return Promise.resolve(this.confirm);
  }
  exportTarget(defaultName: string): Promise<vscode.Uri | undefined> {
    this.suggestedNames.push(defaultName);
    return Promise.resolve(this.target);
  }
  exported(target: vscode.Uri): void {
    this.exportedTo.push(target);
  }
}

const DAY = 86_400_000;

describe('History tab in a real VS Code (sessions list, search, open, delete, export)', () => {
  let api: SkillwrightApi;
  let storageDir: string;
  let panel: RecordingPanel;
  let dialogs: ScriptedDialogs;
  let controller: HistoryController;
  let scratch: string;
  const seeded = ['hist-old-deploy', 'hist-readme', 'hist-recent-cache'];

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    storageDir = path.dirname(api.sessions.log.dir);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-history-'));
    // Written the way another window (or the CLI) would: its own SessionLog on the same folder, dated last week.
    let clock = Date.now() - 8 * DAY;
    const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir, now: () => new Date((clock += 60_000)) });
    const seed = async (id: string, workspace: string, exchanges: [string, string][]) => {
      const writer = await log.create({ id, model: 'scripted-model', systemPrompt: 'You are a test.', workspace });
      for (const [user, reply] of exchanges) {
        await writer.appendMessage({ role: 'user', content: user });
        await writer.appendMessage({ role: 'assistant', content: reply });
      }
      await writer.flush();
    };
    await seed('hist-old-deploy', '/projects/api', [
      ['Deploy the billing API to staging', 'Deployed with helm; all pods are ready.'],
      ['The workers crash with OOMKilled after the rollout', 'I raised the memory limit of the quokka worker to 768Mi and the crashes stopped.'],
      ['Thanks, that fixed it', 'Glad it works.'],
    ]);
    clock = Date.now() - 3 * DAY;
    await seed('hist-readme', '/projects/cli', [['Write a README for the CLI', 'Done: README.md explains install, usage and the memory flag.']]);
    clock = Date.now() - 2 * 3_600_000;
    await seed('hist-recent-cache', '/projects/api', [['Why is the cache cold after deploys?', 'The warm-up job runs before the new pods are ready.']]);

    panel = new RecordingPanel();
    dialogs = new ScriptedDialogs();
    // The real session service and the real chat; only the webview and the dialogs are scripted.
    controller = new HistoryController(api.sessions, api.chat, panel, nullLogger, dialogs);
  });

  after(async () => {
    controller.dispose();
    await api.chat.newChat();
    for (const id of seeded) await api.sessions.index.deleteSession(id).catch(() => false);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('lists sessions written by another window, newest first, with their facts', async () => {
    await controller.handle({ type: 'history/list' });
    const rows = panel.lastSessions();
    assert.ok(rows, 'a history/sessions message was posted');
    const ours = rows.filter((row) => seeded.includes(row.id));
    assert.deepEqual(ours.map((row) => row.id), ['hist-recent-cache', 'hist-readme', 'hist-old-deploy']);
    const old = ours[2]!;
    assert.equal(old.title, 'Deploy the billing API to staging');
    assert.equal(old.workspace, '/projects/api');
    assert.equal(old.messageCount, 6);
    assert.equal(old.current, false);
    assert.ok(Date.parse(old.startedAt) < Date.now() - 7 * DAY && Date.parse(old.updatedAt) >= Date.parse(old.startedAt));
    // Newest first across every session in the folder, not only ours.
    const updated = rows.map((row) => row.updatedAt);
    assert.deepEqual(updated, [...updated].sort().reverse());
  });

  it('finds last week’s session by a phrase from its middle, first, with the words marked', async () => {
    await controller.handle({ type: 'history/search', query: 'memory limit of the quokka worker' });
    const results = panel.lastResults();
    assert.ok(results);
    assert.equal(results.error, undefined);
    assert.equal(results.sessions[0]?.id, 'hist-old-deploy');
    const hit = results.sessions[0]?.hits[0];
    assert.equal(hit?.messageId, 'm4');
    const words = hit!.snippet.marks.map(([start, end]) => hit!.snippet.text.slice(start, end).toLowerCase());
    assert.ok(words.some((word) => word.includes('quokka')), words.join(' | '));
    assert.ok(words.some((word) => word.includes('memory limit')), words.join(' | '));
    assert.ok(results.tookMs >= 0);
  });

  it('answers awkward queries with results or an explanation, never a failure', async () => {
    const queries = ['"memory limit', 'auth-service', 'OOMKilled: crash', 'NOT OR AND (', '🎉 quokka 👍', '***', 'q'.repeat(1_000)];
    for (const query of queries) {
      await controller.handle({ type: 'history/search', query });
      const results = panel.lastResults();
      assert.equal(results?.query, query);
      assert.ok(results.error === undefined || results.error.length > 10, query);
    }
    await controller.handle({ type: 'history/search', query: '🎉 quokka 👍' });
    assert.equal(panel.lastResults()?.sessions[0]?.id, 'hist-old-deploy');
    await controller.handle({ type: 'history/search', query: '***' });
    assert.match(panel.lastResults()?.error ?? '', /no letters or digits/);
  });

  it('opens a hit in the chat through the real panel wiring and marks it current', async () => {
    api.panel.receive({ type: 'history/open', id: 'hist-old-deploy', messageId: 'm4' });
    await until('the chat to show the opened session', () => api.chat.currentSessionId === 'hist-old-deploy');
    assert.ok(api.chat.items.some((item) => item.kind === 'assistant' && item.text.includes('quokka worker')));
    const row = (await api.history.rows()).find((r) => r.id === 'hist-old-deploy');
    assert.equal(row?.current, true);
    // The controller's own path: switch to the Chat tab, then open at the message.
    await controller.handle({ type: 'history/open', id: 'hist-readme' });
    assert.deepEqual(panel.tabs.at(-1), { tab: 'chat' });
    assert.equal(api.chat.currentSessionId, 'hist-readme');
  });

  it('exports a session as Markdown to the file the person picked', async () => {
    dialogs.target = vscode.Uri.file(path.join(scratch, 'export.md'));
    await controller.handle({ type: 'history/export', id: 'hist-old-deploy' });
    assert.deepEqual(dialogs.suggestedNames, ['Deploy-the-billing-API-to-staging.md']);
    const text = fs.readFileSync(path.join(scratch, 'export.md'), 'utf8');
    assert.match(text, /^# Deploy the billing API to staging\n/);
    assert.match(text, /- Workspace: \/projects\/api/);
    assert.match(text, /### User · .*\n\nThe workers crash with OOMKilled after the rollout/);
    assert.match(text, /raised the memory limit of the quokka worker/);
    assert.equal(dialogs.exportedTo.length, 1);
    // Cancelling the save dialog writes nothing.
    dialogs.target = undefined;
    await controller.handle({ type: 'history/export', id: 'hist-readme' });
    assert.equal(dialogs.exportedTo.length, 1);
  });

  it('keeps a session when the deletion is not confirmed', async () => {
    dialogs.confirm = false;
    await controller.handle({ type: 'history/delete', id: 'hist-readme' });
    assert.deepEqual(dialogs.asked, ['Write a README for the CLI']);
    assert.ok(fs.existsSync(path.join(api.sessions.log.dir, 'hist-readme.jsonl')));
    assert.equal(api.chat.currentSessionId, 'hist-readme');
  });

  it('deletes the open session: file and index entry gone, the chat starts fresh, lists updated', async () => {
    dialogs.confirm = true;
    await controller.handle({ type: 'history/search', query: 'README' });
    assert.ok(panel.lastResults()?.sessions.some((s) => s.id === 'hist-readme'));
    panel.posted.length = 0;
    await controller.handle({ type: 'history/delete', id: 'hist-readme' });
    assert.ok(!fs.existsSync(path.join(api.sessions.log.dir, 'hist-readme.jsonl')), 'the session file is gone');
    assert.equal(await api.sessions.index.getSummary('hist-readme'), undefined, 'the index row is gone');
    assert.ok(!(await api.sessions.index.searchSessions('README usage memory flag')).sessions.some((s) => s.id === 'hist-readme'), 'no search finds it');
    assert.notEqual(api.chat.currentSessionId, 'hist-readme', 'the chat let go of it');
    assert.ok(!panel.lastSessions()?.some((row) => row.id === 'hist-readme'), 'the list was pushed without it');
    assert.ok(!panel.lastResults()?.sessions.some((s) => s.id === 'hist-readme'), 'the last search was re-run without it');
  });

  it('says so when a session vanished before it was opened or deleted', async () => {
    panel.posted.length = 0;
    await controller.handle({ type: 'history/open', id: 'hist-readme' });
    const notice = panel.posted.find((m) => m.type === 'panel/notice');
    assert.match(notice?.type === 'panel/notice' ? notice.message : '', /no longer exists/);
  });

  it('pushes a fresh list, debounced, when a session changes', async () => {
    panel.posted.length = 0;
    const writer = await api.sessions.log.create({ id: 'hist-live', model: 'm', systemPrompt: 's' });
    seeded.push('hist-live');
    for (let i = 0; i < 5; i++) await writer.appendMessage({ role: 'user', content: `live message ${i}` });
    const rows = await until('a list with the live session', () => panel.lastSessions()?.find((row) => row.id === 'hist-live'), 5_000);
    assert.equal(rows.messageCount, 5);
    // Six appends within the debounce window make one or two lists, not six.
    const lists = panel.posted.filter((m) => m.type === 'history/sessions').length;
    assert.ok(lists <= 2, `${lists} lists were posted`);
  });

  it('"Search Sessions…" reveals the panel on the History tab', async () => {
    await vscode.commands.executeCommand('skillwright.searchSessions');
    await until('the Skillwright panel to be shown and ready', () => api.panel.isReady, 30_000);
  });
});
