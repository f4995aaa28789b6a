import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { ChatMessage } from '../../../src/core/llm/chatTypes';
import { isValidSessionId, newSessionId, parseSessionText, toChatMessages } from '../../../src/core/sessions/sessionLog';
import { utf8Length } from '../../../src/core/sessions/sessionWriter';
import { FlakyAppendPort, RecordingLogger, SessionFixture } from './sessionFixture';

describe('SessionLog', () => {
  let fixture: SessionFixture;
  beforeEach(() => (fixture = new SessionFixture()));
  afterEach(() => fixture.cleanup());

  it('reads back exactly what was appended: header, prompt, messages, tool calls, results, usage, title', async () => {
    const systemPrompt = 'You are Skillwright.\n\n## Skills\n- deploy: ship it  \u00a7 trailing spaces kept  ';
    const layers = { stable: 'You are Skillwright.', context: '## AGENTS.md\nbe brief', volatile: 'Date: 2025-05-01' };
    const writer = await fixture.log.create({ model: 'openai:gpt-4.1-mini', systemPrompt, promptLayers: layers, workspace: '/projects/app' });
    const conversation: ChatMessage[] = [
      { role: 'user', content: 'Why does the login time out? 🙂' },
      { role: 'assistant', content: 'Let me read the config.', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"auth/config.ts"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'export const TIMEOUT_MS = 30_000;' },
      { role: 'assistant', content: 'The timeout is 30 s; raise TIMEOUT_MS.' },
    ];
    for (const message of conversation) await writer.appendChat(message);
    await writer.appendUsage({ promptTokens: 1200, completionTokens: 80, cachedTokens: 1024 }, { model: 'gpt-4.1-mini', messageId: 'm4' });
    await writer.setTitle('Login timeout', 'user');

    const session = await fixture.log.read(writer.id);
    assert.ok(session?.header);
    assert.equal(session.header.systemPrompt, systemPrompt);
    assert.deepEqual(session.header.promptLayers, layers);
    assert.equal(session.header.workspace, '/projects/app');
    assert.deepEqual(session.messages.map((message) => message.id), ['m1', 'm2', 'm3', 'm4']);
    assert.deepEqual(toChatMessages(session), [{ role: 'system', content: systemPrompt }, ...conversation]);
    assert.deepEqual(session.usage.map((record) => record.usage), [{ promptTokens: 1200, completionTokens: 80, cachedTokens: 1024 }]);
    assert.equal(session.title, 'Login timeout');
    assert.equal(session.skippedLines, 0);
    assert.ok(session.created && session.updated && session.created < session.updated);
  });

  it('drafts a title after the first exchange and lets a later title replace it', async () => {
    const writer = await fixture.session('titled', [['Hi! Can you set up a GitHub Actions workflow for the tests?', 'Sure: here is a workflow.']]);
    assert.equal(writer.title, 'Set up a GitHub Actions workflow for the tests');
    await writer.setTitle('CI workflow', 'model');
    assert.equal((await fixture.log.read('titled'))?.title, 'CI workflow');
    await assert.rejects(writer.setTitle('   '), /at least one visible character/);
  });

  it('keeps call order when appends are not awaited one by one', async () => {
    const writer = await fixture.log.create({ id: 'burst', model: 'm', systemPrompt: 's' });
    await Promise.all(Array.from({ length: 40 }, (_, i) => writer.appendMessage({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` })));
    const session = await fixture.log.read('burst');
    assert.deepEqual(
      session?.messages.map((message) => message.content),
      Array.from({ length: 40 }, (_, i) => `message ${i}`),
    );
  });

  it('ignores a torn last line after a crash, and a resumed session continues on a line of its own', async () => {
    await fixture.session('torn', [
      ['first question', 'first answer'],
      ['second question', 'second answer'],
    ]);
    const file = fixture.file('torn');
    const text = fs.readFileSync(file, 'utf8');
    // The process died while writing the last message: cut it in the middle.
    fs.writeFileSync(file, text.slice(0, text.length - 12));
    const crashed = await fixture.log.read('torn');
    assert.deepEqual(crashed?.messages.map((message) => message.content), ['first question', 'first answer', 'second question']);
    assert.equal(crashed?.skippedLines, 1);

    const resumed = await fixture.log.resume('torn');
    assert.ok(resumed);
    assert.equal(resumed.session.header?.systemPrompt, 'System prompt of torn');
    const added = await resumed.writer.appendMessage({ role: 'assistant', content: 'second answer, again' });
    assert.equal(added.id, 'm4');
    const after = await fixture.log.read('torn');
    assert.deepEqual(after?.messages.map((message) => message.content), ['first question', 'first answer', 'second question', 'second answer, again']);
  });

  it('reads a file whose header line was lost', () => {
    const session = parseSessionText('x', '{"type":"message","id":"m1","role":"user","content":"hello","at":"2025-01-01T00:00:00.000Z"}\nnot json\n{"type":"future","x":1}\n');
    assert.equal(session.header, undefined);
    assert.equal(session.messages.length, 1);
    assert.equal(session.created, '2025-01-01T00:00:00.000Z');
    assert.equal(session.skippedLines, 2);
  });

  it('logs once why each unreadable line was skipped, without its text, and reads everything else', async () => {
    const logger = new RecordingLogger();
    const log = fixture.newLog({ logger });
    await fixture.session('damaged', [
      ['first question', 'first answer with a SECRET'],
      ['second question', 'second answer'],
    ], { log });
    const file = fixture.file('damaged');
    // Lines: header, m1, m2, title, m3, m4. Damage m2 and tear m4, as a bad disk and a crash would.
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[2] = (lines[2] ?? '').slice(0, 60);
    fs.writeFileSync(file, lines.slice(0, 6).join('\n').slice(0, -10));

    const session = await log.read('damaged');
    assert.deepEqual(session?.messages.map((message) => message.content), ['first question', 'second question']);
    assert.equal(session?.title, 'First question');
    assert.equal(session?.skippedLines, 2);
    assert.equal(logger.lines.length, 2, logger.lines.join('\n'));
    assert.match(logger.lines[0] ?? '', /^warn: Session damaged: skipped line 3: not JSON/);
    assert.match(logger.lines[1] ?? '', /^info: Session damaged: skipped line 6: unfinished last line/);
    assert.ok(logger.lines.every((line) => !line.includes('SECRET')));

    // Reading again (the History tab, the index) says nothing new.
    await log.read('damaged');
    await log.readFrom('damaged', 0);
    assert.equal(logger.lines.length, 2, logger.lines.join('\n'));

    // A chunk read from the middle of the file counts lines from the start of the file.
    const other = new RecordingLogger();
    const offset = Buffer.byteLength(`${lines.slice(0, 2).join('\n')}\n`);
    const chunk = await fixture.newLog({ logger: other }).readFrom('damaged', offset);
    assert.equal(chunk?.skippedLines, 1);
    assert.deepEqual(other.lines.map((line) => line.replace(/: not JSON.*/, '')), ['warn: Session damaged: skipped line 3']);
  });

  it('reports a failed append clearly and carries on with the next one', async () => {
    const port = new FlakyAppendPort(0);
    const log = fixture.newLog({ append: port });
    const writer = await log.create({ id: 'flaky', model: 'm', systemPrompt: 's' });
    await writer.appendMessage({ role: 'user', content: 'kept' });
    port.failures = 1;
    await assert.rejects(writer.appendMessage({ role: 'assistant', content: 'lost' }), /could not save to session flaky: ENOSPC/);
    await writer.appendMessage({ role: 'assistant', content: 'kept too' });
    assert.deepEqual((await log.read('flaky'))?.messages.map((message) => message.content), ['kept', 'kept too']);
  });

  it('refuses session ids that could leave the sessions folder', async () => {
    for (const id of ['../escape', 'a/b', '', '.hidden', 'x'.repeat(200), 'semi;colon']) {
      assert.equal(isValidSessionId(id), false, id);
      assert.equal(await fixture.log.read(id), undefined);
      assert.equal(await fixture.log.delete(id), false);
    }
    await assert.rejects(fixture.log.create({ id: '../escape', model: 'm', systemPrompt: 's' }), /is not a session id/);
    assert.equal(await fixture.log.resume('missing'), undefined);
  });

  it('names new sessions by time so that file order is creation order', async () => {
    const early = newSessionId(new Date(Date.UTC(2025, 0, 2, 3, 4, 5)), () => 'ffff');
    const late = newSessionId(new Date(Date.UTC(2025, 0, 2, 3, 4, 6)), () => '0000');
    assert.equal(early, '20250102-030405-ffff');
    assert.ok(early < late && isValidSessionId(early));
    const created = await fixture.log.create({ model: 'm', systemPrompt: 's' });
    await assert.rejects(fixture.log.create({ id: created.id, model: 'm', systemPrompt: 's' }), /already exists/);
    assert.deepEqual((await fixture.log.list()).map((info) => info.id), [created.id]);
  });

  it('counts UTF-8 bytes the way the file stores them', () => {
    for (const text of ['plain', 'café', '東京', '🙂 emoji and é', '\u2028 line separator', '']) {
      assert.equal(utf8Length(text), Buffer.byteLength(text, 'utf8'), text);
    }
  });
});
