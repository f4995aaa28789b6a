import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { participantFollowups } from '../../../src/core/agent/participantFollowups';
import { runParticipantTurn } from '../../../src/core/agent/participantTurn';
import type { ParticipantHistoryTurn, ParticipantRequest } from '../../../src/core/agent/participantTypes';
import { COMMANDS } from '../../../src/core/base/contributions';
import { OpenAiChatModel } from '../../../src/providers/openAiChatModel';
import { faults, ScriptedModelServer } from '../../fakes/scriptedModelServer';
import type { ChatFixture } from './chatFixture';
import { HELM_STEP, makeChatFixture, RecordingStream } from './chatFixture';

const signal = () => new AbortController().signal;
const ask = (prompt: string, history: ParticipantHistoryTurn[] = [], command?: string): ParticipantRequest => ({ prompt, history, ...(command ? { command } : {}) });
const contentOf = (message: ChatCompletionMessageParam | undefined): string => (typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? ''));

describe('the @skillwright participant turn (scripted model, real openai client)', function () {
  this.timeout(30_000);
  let fx: ChatFixture;
  let server: ScriptedModelServer;
  let model: OpenAiChatModel;

  beforeEach(async () => {
    fx = await makeChatFixture();
    server = await ScriptedModelServer.start();
    model = new OpenAiChatModel({ baseUrl: server.baseUrl, model: 'scripted', apiKey: 'test-key', maxRetries: 0, timeoutMs: 5_000 });
  });
  afterEach(async () => {
    await server.close();
    fx.cleanup();
  });

  it('answers with the layered prompt and suggestions, loads a skill with skill_view, references its file and offers Save as Skill', async () => {
    server
      .on({ user: 'deploy the payments service' }, { toolCalls: [{ id: 'v1', name: 'skill_view', arguments: { name: 'deploy-app' } }] })
      .on({ toolResult: { toolCallId: 'v1' } }, { text: 'Following deploy-app: run helm upgrade, then watch the rollout.\n\nSave as skill: payments-deploy' });
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('Please deploy the payments service to kubernetes'), fx.deps({ model }), stream, signal());

    assert.equal(result.errorDetails, undefined);
    assert.match(stream.text(), /^Following deploy-app: run helm upgrade/);
    assert.deepEqual(stream.of('progress'), ['Reading the skill deploy-app…']);
    assert.deepEqual(stream.of('reference'), [fx.skillFile('deploy-app')]);

    const [first, second] = server.chatRequests;
    assert.ok(first && second);
    const system = contentOf(first.messages[0]);
    assert.match(system, /You are Skillwright/);
    assert.match(system, /deploy-app/, 'the catalog is in the stable layer');
    assert.doesNotMatch(system, /vendored/, 'a held-back skill stays out of the catalog');
    assert.match(system, /Use pnpm, never npm\./, 'AGENTS.md is in the context layer');
    assert.match(system, /Build: pnpm build/, 'the memory snapshot is in the volatile layer');
    assert.doesNotMatch(system, /Ignore previous instructions/, 'a memory entry the scanner flags is withheld');
    assert.match(contentOf(first.messages.at(-1)), /<skill-suggestions>[\s\S]*- deploy-app:/);
    assert.deepEqual(first.tools?.map((tool) => (tool as { function: { name: string } }).function.name), ['skills_list', 'skill_view', 'session_search', 'memory_read']);
    assert.ok(contentOf(second.messages.at(-1)).includes(HELM_STEP), 'the SKILL.md went back to the model');

    assert.deepEqual(result.metadata.skills, ['deploy-app']);
    assert.equal(result.metadata.saveOffer, true);
    assert.deepEqual(result.metadata.messages?.map((m) => m.role), ['assistant', 'tool', 'assistant']);
    const followups = participantFollowups(JSON.parse(JSON.stringify(result.metadata)));
    assert.deepEqual(followups[0], { prompt: '', label: 'Save this conversation as a skill', command: 'save' });
  });

  it('sends the earlier turns, with the tool calls their metadata kept, and falls back to the text when metadata is garbage', async () => {
    server
      .on({ user: 'deploy the payments' }, { toolCalls: [{ id: 'v1', name: 'skill_view', arguments: { name: 'deploy-app', file_path: 'references/helm.md' } }] })
      .on({ toolResult: { toolCallId: 'v1' } }, { text: 'Values live in chart/values.yaml.' });
    const firstStream = new RecordingStream();
    const first = await runParticipantTurn(ask('deploy the payments'), fx.deps({ model }), firstStream, signal());
    assert.deepEqual(firstStream.of('reference'), [path.join(path.dirname(fx.skillFile('deploy-app')), 'references', 'helm.md')]);

    server.on({ user: 'and the namespace?' }, { text: 'The payments namespace.' });
    const history: ParticipantHistoryTurn[] = [
      { kind: 'request', prompt: 'what is this repo?' },
      { kind: 'response', text: 'A payments service.', metadata: { messages: [{ role: 'tool', toolCallId: 'nope', content: 'x' }] } },
      { kind: 'request', prompt: 'deploy the payments' },
      { kind: 'response', text: firstStream.text(), metadata: JSON.parse(JSON.stringify(first.metadata)) as unknown },
    ];
    const second = await runParticipantTurn(ask('and the namespace?', history), fx.deps({ model }), new RecordingStream(), signal());
    assert.equal(second.errorDetails, undefined);
    const sent = server.chatRequests.at(-1)?.messages ?? [];
    assert.deepEqual(
      sent.map((m) => m.role),
      ['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user'],
    );
    assert.equal(contentOf(sent[2]), 'A payments service.');
    assert.match(contentOf(sent[5]), /Values live in chart\/values\.yaml/);
  });

  it('turns a failing model into the chat\'s error, with no follow-ups', async () => {
    server.on({ user: 'hello there' }, faults.serverError('The upstream model is down (scripted).'));
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('hello there'), fx.deps({ model }), stream, signal());
    assert.match(result.errorDetails?.message ?? '', /down|server/i);
    assert.equal(result.metadata.failed, true);
    assert.deepEqual(participantFollowups(result.metadata), []);
  });

  it('feeds garbage from the model (malformed arguments, an unknown tool) back as tool results and still answers', async () => {
    server
      .on({ user: 'find a skill' }, {
        toolCalls: [
          { id: 'g1', name: 'skill_view', arguments: '{"name": ' },
          { id: 'g2', name: 'skill_manage', arguments: { action: 'delete', name: 'deploy-app' } },
        ],
      })
      .on({ toolResult: { toolCallId: 'g2' } }, { text: 'Sorry, let me answer directly.' });
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('find a skill'), fx.deps({ model }), stream, signal());
    assert.equal(result.errorDetails, undefined);
    const results = (server.chatRequests.at(-1)?.messages ?? []).filter((m) => m.role === 'tool').map(contentOf);
    assert.match(results[0] ?? '', /not valid JSON/);
    assert.match(results[1] ?? '', /unknown tool \\?"skill_manage\\?"/);
    assert.equal(stream.text(), 'Sorry, let me answer directly.');
    assert.deepEqual(stream.of('reference'), []);
    assert.ok(fx.index.get('deploy-app'), 'nothing was deleted');
  });

  it('says so when the model answers with nothing', async () => {
    server.on({ user: 'say nothing' }, { text: '' });
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('say nothing'), fx.deps({ model }), stream, signal());
    assert.equal(result.errorDetails, undefined);
    assert.match(stream.text(), /The model gave no answer/);
  });

  it('stops on a cancelled token: before the turn nothing is sent, during it the request is closed', async () => {
    const stopped = new AbortController();
    stopped.abort();
    const before = await runParticipantTurn(ask('deploy it'), fx.deps({ model }), new RecordingStream(), stopped.signal);
    assert.equal(before.metadata.cancelled, true);
    assert.equal(server.chatRequests.length, 0);

    server.on({ user: 'tell me a long story' }, { text: 'Once upon a time there was a very long story that went on and on.', chunkSize: 4, chunkDelayMs: 40 });
    const stop = new AbortController();
    const stream = new RecordingStream();
    const turn = runParticipantTurn(ask('tell me a long story'), fx.deps({ model }), { ...stream, markdown: (text) => (stream.markdown(text), stop.abort()), progress: (t) => stream.progress(t), reference: (f) => stream.reference(f), button: (b) => stream.button(b) }, stop.signal);
    const result = await turn;
    assert.equal(result.metadata.cancelled, true);
    assert.equal(result.errorDetails, undefined);
    assert.ok(stream.text().length < 'Once upon a time there was a very long story that went on and on.'.length);
    assert.deepEqual(participantFollowups(result.metadata), []);
  });

  it('without a model, asks for one to be picked; an empty prompt gets the help', async () => {
    const none = await runParticipantTurn(ask('deploy it'), fx.deps(), new RecordingStream(), signal());
    assert.match(none.errorDetails?.message ?? '', /Pick a model in the chat view/);
    const help = new RecordingStream();
    await runParticipantTurn(ask('  '), fx.deps({ model }), help, signal());
    assert.match(help.text(), /`\/skills`[\s\S]*`\/save`[\s\S]*`\/search`/);
    assert.equal(server.chatRequests.length, 0);
  });

  it('/skills lists the active skills grouped, linked to their SKILL.md, never the held-back one; words rank them', async () => {
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('', [], 'skills'), fx.deps({ model }), stream, signal());
    const text = stream.text();
    assert.match(text, /^2 skills:/);
    assert.ok(text.includes(`[deploy-app](${pathToFileURL(fx.skillFile('deploy-app')).href})`), text);
    assert.match(text, /\*\*\\\(top level\\\)\*\*\n\n- \[release-notes\][\s\S]*\*\*devops\*\*\n\n- \[deploy-app\]/);
    assert.doesNotMatch(text, /vendored/);
    assert.deepEqual(participantFollowups(result.metadata).map((f) => f.label), ['Explain release-notes', 'Explain deploy-app']);

    const ranked = new RecordingStream();
    await runParticipantTurn(ask('release notes for a tag', [], 'skills'), fx.deps({ model }), ranked, signal());
    assert.match(ranked.text(), /^Skills for "release notes for a tag", best first:\n\n- \[release-notes\]/);

    const restricted = new RecordingStream();
    await runParticipantTurn(ask('', [], 'skills'), fx.deps({ model, trusted: false }), restricted, signal());
    assert.match(restricted.text(), /Restricted Mode: its project skills stay out/);
    assert.equal(server.chatRequests.length, 0, 'slash commands need no model');
  });

  it('/search shows matching sessions with their excerpt and a History button; no hits says so', async () => {
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('pgbouncer timeouts', [], 'search'), fx.deps({ model }), stream, signal());
    assert.match(stream.text(), /Earlier sessions about "pgbouncer timeouts"/);
    assert.match(stream.text(), /> .*default\\_pool\\_size to 40/);
    assert.deepEqual(stream.buttons(), [{ title: 'Open in Skillwright History', command: COMMANDS.searchSessions }]);
    assert.equal(result.metadata.hits, 1);
    assert.equal(participantFollowups(result.metadata)[0]?.command, undefined);

    const none = new RecordingStream();
    const empty = await runParticipantTurn(ask('kubernetes helm', [], 'search'), fx.deps({ model }), none, signal());
    assert.match(none.text(), /No earlier session mentions "kubernetes helm"/);
    assert.deepEqual(participantFollowups(empty.metadata), []);
  });

  it('/save hands the conversation, tool calls included, to Save as Skill and links the saved file', async () => {
    const history: ParticipantHistoryTurn[] = [
      { kind: 'request', prompt: 'deploy the payments' },
      {
        kind: 'response',
        text: 'Done.',
        metadata: {
          messages: [
            { role: 'assistant', content: '', toolCalls: [{ id: 'v1', name: 'skill_view', arguments: '{"name":"deploy-app"}' }] },
            { role: 'tool', toolCallId: 'v1', content: '{"success":true}' },
            { role: 'assistant', content: 'Done.' },
          ],
        },
      },
    ];
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('', history, 'save'), fx.deps({ model }), stream, signal());
    assert.equal(fx.saved.length, 1);
    assert.deepEqual(fx.saved[0]?.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.match(stream.text(), /Saved the skill "payments-deploy"\./);
    const file = path.join(fx.ws.root('.agents/skills'), 'payments-deploy', 'SKILL.md');
    assert.deepEqual(stream.of('reference'), [file]);
    assert.deepEqual(stream.buttons(), [{ title: 'Open Skill Preview', command: COMMANDS.openSkillPreview, file }]);
    assert.deepEqual(participantFollowups(result.metadata), [{ prompt: 'payments-deploy', label: 'Show payments-deploy in /skills', command: 'skills' }]);

    const nothing = new RecordingStream();
    await runParticipantTurn(ask('', [{ kind: 'request', prompt: '', command: 'skills' }], 'save'), fx.deps({ model }), nothing, signal());
    assert.match(nothing.text(), /nothing to save yet/);
    assert.equal(fx.saved.length, 1, 'the flow did not start');
  });

  it('answers an unknown command with the known ones, and a port that throws with an error', async () => {
    const stream = new RecordingStream();
    const result = await runParticipantTurn(ask('x', [], 'deploy'), fx.deps({ model }), stream, signal());
    assert.match(stream.text(), /no command `\/deploy`.*\/skills, \/save, \/search/);
    assert.ok(result.errorDetails);

    const failing = await runParticipantTurn(ask('', [{ kind: 'request', prompt: 'deploy' }], 'save'), fx.deps({ model, save: () => Promise.reject(new Error('the review editor could not open')) }), new RecordingStream(), signal());
    assert.match(failing.errorDetails?.message ?? '', /the review editor could not open.*Show Logs/);
  });
});
