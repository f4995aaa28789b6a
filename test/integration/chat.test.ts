import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { ChatItem } from '../../src/shared/protocol';
import { faults, ScriptedModelServer } from '../fakes/scriptedModelServer';
import { until } from '../harness/until';

type Of<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>;

function sampleFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === 'sample');
  assert.ok(folder, 'the sample folder is open');
  return folder.uri.fsPath;
}

describe('chat with the agent in a real VS Code (scripted model, real openai client)', () => {
  let api: SkillwrightApi;
  let server: ScriptedModelServer;
  const config = () => vscode.workspace.getConfiguration('skillwright');
  const items = () => api.chat.items;
  const last = <K extends ChatItem['kind']>(kind: K) => items().filter((i): i is Of<K> => i.kind === kind).at(-1);
  const turnsDone = () => items().filter((i) => i.kind === 'turn').length;
  const notices: string[] = [];
  const noticeAbout = (pattern: RegExp) => until(`a notice matching ${pattern}`, () => notices.find((n) => pattern.test(n)));
  const usersSaying = (text: string) => items().filter((i) => i.kind === 'user' && i.text === text).length;
  const send = async (text: string) => {
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text });
    const turn = await until(`the turn for "${text}" to end`, () => turnsDone() > before && last('turn'));
    // The turn item shows before the chat lets go of the conversation (the log is flushed first).
    await api.chat.idle();
    return turn;
  };

  let original: { baseUrl?: string; model?: string } = {};

  before(async () => {
    // Other suites read the runner's model settings: put them back afterwards.
    original = { baseUrl: config().inspect<string>('model.baseUrl')?.globalValue, model: config().inspect<string>('model.name')?.globalValue };
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    api.chat.onDidNotice((notice) => notices.push(notice.message));
    await api.skills.ready;
    server = await ScriptedModelServer.start({ models: ['scripted-chat'] });
    await vscode.commands.executeCommand('skillwright.configureModel', { baseUrl: server.baseUrl, model: 'scripted-chat', apiKey: '', skipTest: true });
    await api.chat.newChat();
  });

  after(async () => {
    await api.chat.newChat();
    await config().update('model.baseUrl', original.baseUrl, vscode.ConfigurationTarget.Global);
    await config().update('model.name', original.model, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('runs a turn with a tool call, shows it as a card, logs the session and finds it by a phrase', async () => {
    server.on({ user: 'which skills does this project have' }, { toolCalls: [{ name: 'list_files', arguments: { path: 'sample/.agents/skills', depth: 2 } }] });
    server.on({ toolResult: { content: 'write-changelog-entry' } }, { text: 'It has three skills; the changelog one is called write-changelog-entry. Quartz flamingo.' });
    const turn = await send('which skills does this project have');
    assert.equal(turn.reason, 'stop', JSON.stringify(turn));
    const tool = last('tool');
    assert.equal(tool?.name, 'list_files');
    assert.equal(tool?.state, 'done');
    assert.match(tool?.result ?? '', /write-changelog-entry/);
    assert.match(last('assistant')?.text ?? '', /Quartz flamingo/);
    assert.ok(turn.usage.requests === 2 && turn.usage.promptTokens > 0, JSON.stringify(turn.usage));
    assert.ok(turn.offered.catalog >= 3, 'the catalog listed the sample skills');

    const id = api.chat.currentSessionId;
    assert.ok(id, 'the session has an id once something was said');
    const session = await api.chat.currentSession();
    assert.deepEqual(
      session?.messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    const found = await until('the session index to find the phrase', async () => {
      const result = await api.sessions.index.searchSessions('quartz flamingo');
      return result.sessions.find((s) => s.id === id);
    });
    assert.ok(found.hits.length > 0);
  });

  it('sends the same system prompt, byte for byte, on every request of the session', () => {
    const systems = server.chatRequests.map((r) => JSON.stringify(r.messages[0]));
    assert.ok(systems.length >= 2);
    assert.equal(new Set(systems).size, 1);
  });

  it('asks before writing a file, writes on "Allow once", and refuses on "Deny"', async () => {
    const target = path.join(sampleFolder(), 'notes', 'from-agent.md');
    fs.rmSync(path.dirname(target), { recursive: true, force: true });
    server.on({ user: 'write the note' }, { toolCalls: [{ name: 'write_file', arguments: { path: 'sample/notes/from-agent.md', content: 'hello from the agent\n' } }] });
    server.on({ toolResult: { content: 'from-agent.md' } }, { text: 'Written.' });
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'write the note' });
    const card = await until('an approval card', () => {
      const item = last('approval');
      return item?.state === 'pending' && item;
    });
    assert.equal(card.tool, 'write_file');
    assert.equal(card.hasDiff, true);
    assert.match(card.detail ?? '', /\+hello from the agent/);
    assert.equal(fs.existsSync(target), false, 'nothing is written while the card waits');
    api.panel.receive({ type: 'chat/approve', id: card.id, answer: 'allow_once' });
    await until('the turn to end', () => turnsDone() > before);
    await api.chat.idle();
    assert.equal(fs.readFileSync(target, 'utf8'), 'hello from the agent\n');
    assert.equal(last('approval')?.state, 'allow_once');

    server.on({ user: 'run the cleanup' }, { toolCalls: [{ name: 'run_command', arguments: { command: 'rm -rf notes', cwd: 'sample' } }] });
    server.on({ toolResult: { content: 'denied' } }, { text: 'I will not run it.' });
    const next = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'run the cleanup' });
    const ask = await until('the command approval', () => {
      const item = last('approval');
      return item?.state === 'pending' && item.tool === 'run_command' && item;
    });
    assert.equal(ask.detail, 'rm -rf notes');
    api.panel.receive({ type: 'chat/approve', id: ask.id, answer: 'deny' });
    await until('the turn to end', () => turnsDone() > next);
    assert.equal(fs.existsSync(target), true, 'the denied command did not run');
    assert.equal(last('tool')?.state, 'failed');
    fs.rmSync(path.dirname(target), { recursive: true, force: true });
  });

  it('"Always here" grants a command for this workspace: listed on the status page, not asked again', async () => {
    server.on({ user: 'print the greeting' }, { toolCalls: [{ name: 'run_command', arguments: { command: 'echo hello-always', cwd: 'sample' } }] });
    server.on({ toolResult: { content: 'hello-always' } }, { text: 'Printed.' });
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'print the greeting' });
    const ask = await until('the command approval', () => {
      const item = last('approval');
      return item?.state === 'pending' && item.detail === 'echo hello-always' && item;
    });
    api.panel.receive({ type: 'chat/approve', id: ask.id, answer: 'allow_always' });
    await until('the turn to end', () => turnsDone() > before);
    await api.chat.idle();
    assert.equal(last('tool')?.state, 'done');
    const status = await api.status.collect();
    assert.ok(status.approvals?.always.some((entry) => /echo/.test(entry)), JSON.stringify(status.approvals));

    server.on({ user: 'print it again' }, { toolCalls: [{ name: 'run_command', arguments: { command: 'echo hello-always', cwd: 'sample' } }] });
    server.on({ toolResult: { content: 'hello-always' } }, { text: 'Printed again.' });
    const approvals = items().filter((i) => i.kind === 'approval').length;
    const again = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'print it again' });
    await until('the second turn', () => turnsDone() > again);
    assert.equal(items().filter((i) => i.kind === 'approval').length, approvals, 'not asked again');
    assert.equal(last('tool')?.state, 'done');
    await api.chat.clearApprovals();
    assert.deepEqual((await api.status.collect()).approvals?.always, []);
  });

  it('Stop mid-stream keeps the partial reply and ends the turn as stopped', async () => {
    server.on({ user: 'tell a long story' }, { text: 'Once upon a time '.repeat(200), chunkDelayMs: 40, chunkSize: 20 });
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'tell a long story' });
    await until('some streamed text', () => (last('assistant')?.text.startsWith('Once upon') ? true : false));
    api.panel.receive({ type: 'chat/stop' });
    const turn = await until('the stopped turn', () => turnsDone() > before && last('turn'));
    await api.chat.idle();
    assert.equal(turn.reason, 'aborted');
    const partial = last('assistant')?.text ?? '';
    assert.ok(partial.length > 0 && partial.length < 'Once upon a time '.length * 200, `partial reply of ${partial.length} chars`);
    assert.equal(api.chat.busy, false);
  });

  it('starts one turn for two sends in the same tick, and refuses the second with a notice', async () => {
    server.on({ user: 'first of two' }, { text: 'Only the first one ran.', chunkDelayMs: 20, chunkSize: 5 });
    const requests = server.chatRequests.length;
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'first of two' });
    api.panel.receive({ type: 'chat/send', text: 'second of two' });
    await noticeAbout(/still running/);
    await until('the first turn to end', () => turnsDone() > before && last('turn'));
    await api.chat.idle();
    assert.equal(turnsDone(), before + 1, 'one turn item');
    assert.equal(server.chatRequests.length, requests + 1, 'one model request');
    assert.equal(usersSaying('first of two'), 1);
    assert.equal(usersSaying('second of two'), 0, 'the refused message is not in the transcript');
    const logged = await api.chat.currentSession();
    assert.equal(logged?.messages.filter((m) => m.role === 'user' && String(m.content).startsWith('second of two')).length, 0, 'nor in the session log');
  });

  it('refuses a send while a stopped reply winds down, and takes the next one once it has stopped', async () => {
    server.on({ user: 'a slow story' }, { text: 'Long ago '.repeat(200), chunkDelayMs: 40, chunkSize: 10 });
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'a slow story' });
    await until('some streamed text', () => (last('assistant')?.text.startsWith('Long ago') ? true : false));
    api.panel.receive({ type: 'chat/stop' });
    api.panel.receive({ type: 'chat/send', text: 'sent during stop' });
    await noticeAbout(/stopping/);
    await until('the stopped turn', () => turnsDone() > before && last('turn'));
    await api.chat.idle();
    assert.equal(turnsDone(), before + 1);
    assert.equal(last('turn')?.reason, 'aborted');
    assert.equal(usersSaying('sent during stop'), 0);
    server.on({ user: 'after the stop' }, { text: 'Back again.' });
    const next = await send('after the stop');
    assert.equal(next.reason, 'stop');
    assert.equal(turnsDone(), before + 2);
  });

  it('refuses a send while a session is being opened, and keeps the resumed transcript intact', async () => {
    const id = api.chat.currentSessionId;
    assert.ok(id);
    const requests = server.chatRequests.length;
    await api.chat.newChat();
    const opening = api.chat.openSession(id);
    api.panel.receive({ type: 'chat/send', text: 'sent during resume' });
    await noticeAbout(/session is opening/);
    await opening;
    await api.chat.idle();
    assert.equal(api.chat.currentSessionId, id, 'the resumed session is the one shown');
    assert.equal(usersSaying('sent during resume'), 0);
    assert.equal(server.chatRequests.length, requests, 'nothing was sent to the model');
  });

  it('turns a model error into a card with the action that fixes it', async () => {
    server.on({ user: 'this will fail' }, faults.unauthorized());
    const turn = await send('this will fail');
    assert.equal(turn.reason, 'error');
    assert.equal(turn.error?.kind, 'auth');
    assert.deepEqual(turn.error?.actions.slice(0, 2), ['configureModel', 'testConnection']);
  });

  it('/skill-name loads the skill explicitly, and an unknown one is refused before sending', async () => {
    server.on({ user: 'Use the skill "write-changelog-entry"' }, { toolCalls: [{ name: 'skill_view', arguments: { name: 'write-changelog-entry' } }] });
    server.on({ toolResult: { content: 'changelog' } }, { text: 'Loaded it.' });
    const turn = await send('/write-changelog-entry for the 1.2 release');
    assert.deepEqual(turn.loaded, ['write-changelog-entry']);
    assert.equal(last('tool')?.skill?.action, 'loaded');
    assert.equal(last('user')?.text, '/write-changelog-entry for the 1.2 release', 'the transcript shows what was typed');
    const requests = server.chatRequests.length;
    api.panel.receive({ type: 'chat/send', text: '/no-such-skill please' });
    await noticeAbout(/no-such-skill/);
    await api.chat.idle();
    assert.equal(server.chatRequests.length, requests, `nothing was sent for an unknown skill: ${JSON.stringify(server.chatRequests.at(-1)?.messages.at(-1)).slice(0, 300)}`);
  });

  it('"Run Skill…" with arguments starts an explicit skill turn in the chat', async () => {
    server.on({ user: 'Use the skill "count-files"' }, { text: 'Counting with count-files.' });
    const before = turnsDone();
    await vscode.commands.executeCommand('skillwright.runSkill', { name: 'count-files', request: 'in the docs folder' });
    await until('the skill turn', () => turnsDone() > before);
    await api.chat.idle();
    assert.equal(last('user')?.text, '/count-files in the docs folder');
    assert.match(String(server.chatRequests.at(-1)?.messages.at(-1)?.content ?? ''), /^Use the skill "count-files": load it with skill_view first[\s\S]*in the docs folder/);
  });

  it('Retry sends the last message again, and Edit Last replaces it in what the model sees', async () => {
    server.on({ user: 'count the files' }, faults.unauthorized());
    const failed = await send('count the files');
    assert.equal(failed.reason, 'error');
    server.on({ user: 'count the files' }, { text: 'There are 12 files.' });
    const before = turnsDone();
    api.panel.receive({ type: 'chat/retry' });
    await until('the retried turn', () => turnsDone() > before && last('turn')?.reason === 'stop');
    await api.chat.idle();
    assert.equal(last('user')?.text, 'count the files');

    server.on({ user: 'count the folders' }, { text: 'There are 3 folders.' });
    const edited = turnsDone();
    api.panel.receive({ type: 'chat/editLast', text: 'count the folders' });
    await until('the edited turn', () => turnsDone() > edited - 1 && last('assistant')?.text === 'There are 3 folders.');
    const sent = server.chatRequests.at(-1)?.messages ?? [];
    const users = sent.filter((m) => m.role === 'user').map((m) => String(m.content));
    assert.ok(users.some((u) => u.startsWith('count the folders')));
    assert.equal(users.filter((u) => u.startsWith('count the files')).length, 1, 'the replaced message is gone; the failed first try stays');
    assert.equal(items().filter((i) => i.kind === 'user' && i.text === 'count the files').length, 1);
  });

  it('resumes a session from its log with the same prompt, and New Chat starts fresh', async () => {
    const id = api.chat.currentSessionId;
    assert.ok(id);
    await api.chat.newChat();
    assert.equal(api.chat.currentSessionId, undefined);
    assert.equal(items().length, 0);
    await api.chat.openSession(id);
    assert.equal(api.chat.currentSessionId, id);
    assert.ok(items().some((i) => i.kind === 'user' && i.text === 'which skills does this project have'));
    server.on({ user: 'are you still there' }, { text: 'Yes.' });
    const systemBefore = JSON.stringify(server.chatRequests[0]?.messages[0]);
    await send('are you still there');
    assert.equal(JSON.stringify(server.chatRequests.at(-1)?.messages[0]), systemBefore, 'the resumed session sends its stored prompt');
  });
});
