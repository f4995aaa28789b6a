import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/core/agent/compactionSummary';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { ChatItem } from '../../src/shared/protocol';
import type { ChatRequestBody } from '../fakes/scriptedModelServer';
import { ScriptedModelServer } from '../fakes/scriptedModelServer';
import { until } from '../harness/until';

type Divider = Extract<ChatItem, { kind: 'compaction' }>;

const SUMMARY = '## Goal\nKeep the changelog current.\n## Decisions\nnone\n## Files touched\nnone\n## Commands run\nnone\n## Skills\nwrite-changelog-entry\n## Open questions\nnone';
const isSummaryRequest = (body: ChatRequestBody) => body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT;
const chatRequests = (server: ScriptedModelServer) => server.chatRequests.filter((body) => !isSummaryRequest(body));
const text = (body: ChatRequestBody | undefined) => JSON.stringify(body?.messages ?? []);

describe('long conversations compact in a real VS Code (scripted model, real openai client)', () => {
  let api: SkillwrightApi;
  let server: ScriptedModelServer;
  const config = () => vscode.workspace.getConfiguration('skillwright');
  const dividers = () => api.chat.items.filter((item): item is Divider => item.kind === 'compaction');
  const turnsDone = () => api.chat.items.filter((item) => item.kind === 'turn').length;
  const send = async (message: string) => {
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text: message });
    await until(`the turn for "${message.slice(0, 40)}" to end`, () => turnsDone() > before);
    await api.chat.idle();
  };
  let original: { baseUrl?: string; model?: string } = {};

  before(async () => {
    original = { baseUrl: config().inspect<string>('model.baseUrl')?.globalValue, model: config().inspect<string>('model.name')?.globalValue };
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    server = await ScriptedModelServer.start({ models: ['scripted-chat'] });
    server.always({ request: isSummaryRequest }, { text: SUMMARY });
    await vscode.commands.executeCommand('skillwright.configureModel', { baseUrl: server.baseUrl, model: 'scripted-chat', apiKey: '', skipTest: true });
    await api.chat.newChat();
  });

  after(async () => {
    await api.chat.newChat();
    await config().update('context.window', undefined, vscode.ConfigurationTarget.Global);
    await config().update('model.baseUrl', original.baseUrl, vscode.ConfigurationTarget.Global);
    await config().update('model.name', original.model, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('"Compact Conversation" summarises the older turns, keeps the prompt bytes, re-attaches the loaded skill, and logs a record', async () => {
    server.on({ user: 'note the release of 1.2 for me' }, { toolCalls: [{ name: 'skill_view', arguments: { name: 'write-changelog-entry' } }] });
    server.on({ toolResult: { content: 'write-changelog-entry' } }, { text: 'Loaded the changelog skill. Saffron heron.' });
    await send('note the release of 1.2 for me');
    for (let i = 1; i <= 3; i++) {
      server.on({ user: `step ${i} of the release` }, { text: `Done with step ${i}.` });
      await send(`step ${i} of the release`);
    }
    const before = chatRequests(server).length;
    const system = JSON.stringify(chatRequests(server)[0]?.messages[0]);

    await vscode.commands.executeCommand('skillwright.compactConversation');
    const divider = await until('the compaction divider', () => dividers().find((d) => d.state !== 'running'));
    assert.equal(divider.state, 'done', JSON.stringify(divider));
    assert.equal(divider.reason, 'manual');
    assert.ok(divider.messagesCompacted >= 3, JSON.stringify(divider));
    assert.deepEqual(divider.skills, ['write-changelog-entry']);
    assert.match(divider.summary ?? '', /Keep the changelog current/);
    assert.equal(chatRequests(server).length, before, 'compacting sends no chat request, only the summary request');

    server.on({ user: 'what is next' }, { text: 'The announcement.' });
    await send('what is next');
    const next = chatRequests(server).at(-1);
    assert.equal(JSON.stringify(next?.messages[0]), system, 'the system prompt is byte-identical after the compaction');
    assert.match(text(next), /Keep the changelog current/, 'the summary stands in for the older turns');
    assert.match(text(next), /name: write-changelog-entry/, 'the skill loaded before is attached again');
    assert.doesNotMatch(text(next), /note the release of 1\.2/, 'the compacted user message is gone from what the model sees');
    assert.match(text(next), /step 3 of the release/, 'the last turns are kept verbatim');

    const session = await api.chat.currentSession();
    assert.equal(session?.compactions?.length, 1, 'the log holds one compaction record');
    assert.ok(session?.messages.some((m) => m.content.includes('note the release of 1.2')), 'the log keeps the original messages');
    const id = api.chat.currentSessionId;
    const found = await until('session search to find a compacted message', async () => (await api.sessions.index.searchSessions('saffron heron')).sessions.find((s) => s.id === id));
    assert.ok(found.hits.length > 0);

    // Resume continues from the compacted state, and the divider is back where it was.
    assert.ok(id);
    await api.chat.newChat();
    await api.chat.openSession(id);
    assert.equal(dividers().length, 1);
    server.on({ user: 'and after that' }, { text: 'Nothing more.' });
    await send('and after that');
    const resumed = chatRequests(server).at(-1);
    assert.equal(JSON.stringify(resumed?.messages[0]), system);
    assert.match(text(resumed), /Keep the changelog current/);
    assert.doesNotMatch(text(resumed), /note the release of 1\.2/);
  });

  it('compacts by itself when a turn would pass the threshold, and the meter shows what the next request fills', async () => {
    await api.chat.newChat();
    server.on({ user: 'first long message' }, { text: 'Noted.' });
    await send(`first long message ${'lorem ipsum dolor '.repeat(150)}`);
    const usage = api.chat.contextUsage;
    assert.ok(usage && usage.system > 0 && usage.tools > 0 && usage.conversation > 0, JSON.stringify(usage));
    assert.equal(usage.total, usage.system + usage.tools + usage.conversation);
    // The prompt and tools fill half of this window; at 80 % there is room for about two of the long turns below.
    const window = 2 * (usage.system + usage.tools);
    await config().update('context.window', window, vscode.ConfigurationTarget.Global);
    assert.equal(api.chat.contextUsage?.window, window);
    assert.equal(api.chat.contextUsage?.windowSource, 'setting');
    for (const n of [2, 3, 4]) {
      server.on({ user: `long message ${n}` }, { text: `Noted ${n}.` });
      await send(`long message ${n} ${'consectetur adipiscing '.repeat(150)}`);
    }
    const divider = await until('an automatic compaction', () => dividers().find((d) => d.state === 'done'));
    assert.equal(divider.reason, 'threshold');
    const after = api.chat.contextUsage;
    assert.ok(after && after.total < after.threshold, `after compacting the next request fits under the threshold: ${JSON.stringify(after)}`);
  });
});
