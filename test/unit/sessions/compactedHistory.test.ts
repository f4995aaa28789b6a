import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { ChatMessage } from '../../../src/core/llm/chatTypes';
import { compactedHistory } from '../../../src/core/sessions/compactedHistory';
import type { NewCompaction } from '../../../src/core/sessions/sessionWriter';
import { SessionFixture } from './sessionFixture';

const conversation: ChatMessage[] = [
  { role: 'user', content: 'why does the nightly ZEBRA-EXPORT fail?' },
  { role: 'assistant', content: 'Reading the log.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"export.log"}' }] },
  { role: 'tool', toolCallId: 'c1', content: 'disk full' },
  { role: 'assistant', content: 'The disk is full.' },
  { role: 'user', content: 'clean it up' },
  { role: 'assistant', content: 'Cleaned.' },
];

function compaction(kept: number, extra: Partial<NewCompaction> = {}): NewCompaction {
  return {
    id: 'c-1',
    at: '2025-05-01T09:10:00.000Z',
    reason: 'threshold',
    summary: '## Goal\nFix the export.',
    messages: [
      { role: 'user', content: '<conversation-summary>\n## Goal\nFix the export.\n</conversation-summary>' },
      { role: 'assistant', content: 'Understood.' },
    ],
    kept,
    messagesCompacted: 4,
    summaryTokens: 6,
    tokensBefore: 900,
    tokensAfter: 300,
    skills: [{ name: 'deploy-app', attached: 'full' }],
    memoryWrites: ['add memory: exports run at 02:00'],
    ...extra,
  };
}

describe('compactedHistory (resume after a compaction)', () => {
  let fixture: SessionFixture;
  beforeEach(() => (fixture = new SessionFixture()));
  afterEach(() => fixture.cleanup());

  async function write(records: (ChatMessage | NewCompaction)[]): Promise<string> {
    const writer = await fixture.log.create({ model: 'm', systemPrompt: 'You are a test agent.' });
    for (const record of records) {
      if ('kept' in record) await writer.appendCompaction(record);
      else await writer.appendChat(record);
    }
    await writer.flush();
    return writer.id;
  }

  it('without a compaction is every message', async () => {
    const id = await write(conversation);
    const session = await fixture.log.read(id);
    assert.ok(session);
    assert.deepEqual(compactedHistory(session), { messages: conversation });
  });

  it('continues from the summary, the kept messages and everything after, while search still finds the originals', async () => {
    const later: ChatMessage[] = [{ role: 'user', content: 'and tomorrow?' }, { role: 'assistant', content: 'It will run.' }];
    const id = await write([...conversation, compaction(2), ...later]);
    const session = await fixture.log.read(id);
    assert.ok(session);
    assert.equal(session.messages.length, 8, 'the log keeps every original message');
    const history = compactedHistory(session);
    assert.deepEqual(history.messages, [
      { role: 'user', content: '<conversation-summary>\n## Goal\nFix the export.\n</conversation-summary>' },
      { role: 'assistant', content: 'Understood.' },
      ...conversation.slice(4),
      ...later,
    ]);
    assert.deepEqual(history.prior, { replacementMessages: 2, skills: ['deploy-app'], memoryWrites: ['add memory: exports run at 02:00'] });

    const index = fixture.newIndex();
    const found = await index.searchSessions('ZEBRA-EXPORT');
    assert.deepEqual(found.sessions.map((s) => s.id), [id]);
  });

  it('skips a damaged compaction line with a reason and uses the full history', async () => {
    const id = await write(conversation);
    // A compaction cut short: no `messages`, so the summary cannot be rebuilt.
    fs.appendFileSync(fixture.file(id), `${JSON.stringify({ type: 'compaction', id: 'c-2', at: '2025-05-01T09:20:00.000Z', summary: 'x', kept: 2 })}\n`);
    const session = await fixture.log.read(id);
    assert.ok(session);
    assert.equal(session.skippedLines, 1);
    assert.deepEqual(compactedHistory(session).messages, conversation);
  });

  it('passes over a compaction that does not fit the messages around it, with the reason', async () => {
    const id = await write([...conversation, compaction(2, { id: 'c-good' }), { role: 'user', content: 'next' }, compaction(50, { id: 'c-bad' })]);
    const session = await fixture.log.read(id);
    assert.ok(session);
    const history = compactedHistory(session);
    assert.deepEqual(history.skipped, ['compaction c-bad at 2025-05-01T09:10:00.000Z: it keeps 50 messages but only 7 come before it; an earlier one is used']);
    assert.deepEqual(history.messages.slice(2), [...conversation.slice(4), { role: 'user', content: 'next' }]);

    const orphan = await write([...conversation.slice(0, 3), compaction(1)]);
    const broken = await fixture.log.read(orphan);
    assert.ok(broken);
    const fallback = compactedHistory(broken);
    assert.match(fallback.skipped?.[0] ?? '', /first message it keeps is a tool result, cut off from its call; the full history is used$/);
    assert.deepEqual(fallback.messages, conversation.slice(0, 3));
  });
});
