import * as assert from 'node:assert/strict';
import { SessionIndex } from '../../../src/core/sessions/sessionIndex';
import { toChatMessages } from '../../../src/core/sessions/sessionLog';
import { sharedSqlJs } from '../sessions/sessionFixture';
import type { FixtureStorage, SessionFixture } from './fixtureStorage';
import { fixtureStorage } from './fixtureStorage';

/** The sessions the saved index (session-index/v2.sqlite) was built from. */
const INDEXED: readonly SessionFixture[] = ['v1.jsonl', 'v1-crashed.jsonl'];

function storageWithFixtures(withIndex: boolean): FixtureStorage {
  return fixtureStorage(INDEXED, withIndex);
}

describe('persisted formats: session files (JSONL)', () => {
  let storage: FixtureStorage;
  beforeEach(() => (storage = storageWithFixtures(false)));
  afterEach(() => storage.cleanup());

  it('v1: every message, tool call, result, usage record and title still reads, and resumes with the same prompt', async () => {
    const session = await storage.log.read('v1');
    assert.ok(session?.header);
    assert.equal(session.skippedLines, 0);
    assert.equal(session.header.systemPrompt, 'You are Skillwright.\n\n## AGENTS.md\nBe brief.\n\nDate: 2025-05-01');
    assert.deepEqual(session.header.promptLayers, { stable: 'You are Skillwright.', context: '## AGENTS.md\nBe brief.', volatile: 'Date: 2025-05-01' });
    assert.equal(session.header.workspace, '/projects/app');
    assert.equal(session.header.model, 'openai:gpt-4.1-mini');
    assert.equal(session.title, 'Login timeout in auth-service');
    assert.equal(session.created, '2025-05-01T09:00:01.000Z');
    assert.equal(session.updated, '2025-05-01T09:00:14.000Z');
    assert.deepEqual(
      session.messages.map((message) => [message.id, message.role, message.content]),
      [
        ['m1', 'user', 'Why does the login time out? 🙂'],
        ['m2', 'assistant', 'Let me read the config.'],
        ['m3', 'tool', 'export const TIMEOUT_MS = 30_000;'],
        ['m4', 'assistant', 'The timeout is 30 s: raise TIMEOUT_MS in auth/config.ts.'],
        ['m5', 'user', 'Run the auth tests.'],
        ['m6', 'assistant', ''],
        ['m7', 'tool', 'run_command was denied by the user'],
        ['m8', 'system', 'The user stopped the reply.'],
        ['m9', 'assistant', 'Understood, I will not run the'],
      ],
    );
    const [, m2, m3, , , m6, m7, , m9] = session.messages;
    assert.deepEqual(m2?.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: '{"path":"auth/config.ts"}' }]);
    assert.equal(m2?.started, '2025-05-01T09:00:02.500Z');
    assert.equal(m2?.durationMs, 850);
    assert.deepEqual([m3?.toolCallId, m3?.toolName, m3?.durationMs], ['call_1', 'read_file', 4]);
    assert.equal(m6?.toolCalls?.[0]?.name, 'run_command');
    assert.deepEqual([m7?.toolCallId, m7?.isError], ['call_2', true]);
    assert.equal(m9?.status, 'stopped');
    assert.deepEqual(
      session.usage.map((record) => [record.usage.promptTokens, record.usage.completionTokens, record.usage.cachedTokens, record.model, record.messageId]),
      [
        [1200, 80, 1024, 'gpt-4.1-mini', 'm2'],
        [1320, 24, 1200, 'gpt-4.1-mini', 'm4'],
      ],
    );
    // What a resume sends: the stored prompt byte for byte, then the conversation with its tool pairing.
    const chat = toChatMessages(session);
    assert.equal(chat[0]?.content, session.header.systemPrompt);
    assert.deepEqual(chat[3], { role: 'tool', toolCallId: 'call_1', content: 'export const TIMEOUT_MS = 30_000;' });
    assert.equal(chat.length, 10);
  });

  it('v1 after a crash and a resume: the torn line is skipped and logged, everything around it kept, and it resumes again', async () => {
    const session = await storage.log.read('v1-crashed');
    assert.equal(session?.skippedLines, 1);
    assert.equal(session?.title, 'Add dark mode to the settings page');
    assert.deepEqual(session?.messages.map((message) => message.content), [
      'Add dark mode to the settings page.',
      'Added a dark theme toggle to settings.tsx.',
      'Now make it follow the system theme, please.',
      'It now follows prefers-color-scheme.',
    ]);
    assert.equal(session?.messages[3]?.status, 'failed');
    assert.deepEqual(storage.logger.lines.map((line) => line.replace(/: not JSON.*/, '')), ['warn: Session v1-crashed: skipped line 5']);

    const resumed = await storage.log.resume('v1-crashed');
    assert.ok(resumed);
    const added = await resumed.writer.appendMessage({ role: 'user', content: 'Thanks.' });
    assert.equal(added.id, 'm5');
    assert.deepEqual((await storage.log.read('v1-crashed'))?.messages.map((message) => message.id), ['m1', 'm2', 'm3', 'm4', 'm5']);
  });
});

describe('persisted formats: the session index (sql.js, schema 2)', () => {
  let storage: FixtureStorage;
  afterEach(() => storage.cleanup());

  async function searchIn(index: SessionIndex): Promise<string[]> {
    const result = await index.searchSessions('TIMEOUT_MS config');
    return result.sessions.map((match) => `${match.id}: ${match.title}, ${match.messageCount} messages`);
  }

  it('v2: a saved index is used as it is, without reading the session files again', async () => {
    storage = storageWithFixtures(true);
    const index = new SessionIndex({ log: storage.log, sqlJs: sharedSqlJs, saveDelayMs: 60_000, logger: storage.logger });
    try {
      await index.ready();
      // A rebuild (bumped SCHEMA_VERSION, unreadable file) reads every session file: on upgrade
      // that costs users a full re-index, so change this expectation only on purpose.
      assert.equal(storage.fs.sessionReads, 0, storage.logger.lines.join('\n'));
      assert.ok(!storage.logger.lines.some((line) => line.includes('Rebuilding')), storage.logger.lines.join('\n'));
      assert.deepEqual(index.stats, { sessions: 2, messages: 13, orphans: 0 });
      assert.deepEqual(await searchIn(index), ['v1: Login timeout in auth-service, 9 messages']);
      assert.deepEqual((await index.listSessions()).map((summary) => summary.id), ['v1-crashed', 'v1']);
    } finally {
      index.dispose();
    }
  });

  it('without the saved index the same sessions are found (what the reuse above saves is only time)', async () => {
    storage = storageWithFixtures(false);
    const index = new SessionIndex({ log: storage.log, sqlJs: sharedSqlJs, saveDelayMs: 60_000 });
    try {
      await index.ready();
      assert.equal(storage.fs.sessionReads, 2);
      assert.deepEqual(index.stats, { sessions: 2, messages: 13, orphans: 0 });
      assert.deepEqual(await searchIn(index), ['v1: Login timeout in auth-service, 9 messages']);
    } finally {
      index.dispose();
    }
  });
});
