import * as assert from 'node:assert/strict';
import { compactedHistory } from '../../../src/core/sessions/compactedHistory';
import { searchHistory } from '../../../src/core/sessions/historySearch';
import { SessionIndex } from '../../../src/core/sessions/sessionIndex';
import { toChatMessages } from '../../../src/core/sessions/sessionLog';
import { sharedSqlJs } from '../sessions/sessionFixture';
import type { FixtureStorage } from './fixtureStorage';
import { fixtureStorage } from './fixtureStorage';

/** The messages after the compaction's own two (summary, acknowledgement): the kept ones, then the later ones. */
const KEPT_AND_LATER = [
  ['user', 'Now go through the release checklist.'],
  ['assistant', 'Checklist: tests pass, version bumped to 1.3.0, changelog written.'],
  ['user', 'Push the release to staging.'],
  ['assistant', 'Pushed 1.3.0 to staging: https://staging.example/app'],
  ['user', 'Thanks. Is production next?'],
  ['assistant', 'Yes, after the staging smoke tests pass.'],
];

describe('persisted formats: a session file with a compaction record (v1-compacted)', () => {
  let storage: FixtureStorage;
  beforeEach(() => (storage = fixtureStorage(['v1-compacted.jsonl'], false)));
  afterEach(() => storage.cleanup());

  it('reads with no skipped line: every original message, the compaction with what it compacted, and the title', async () => {
    const session = await storage.log.read('v1-compacted');
    assert.ok(session?.header);
    assert.equal(session.skippedLines, 0, storage.logger.lines.join('\n'));
    assert.deepEqual(storage.logger.lines, []);
    assert.equal(session.title, 'Deploy 1.3.0 to staging');
    assert.deepEqual(session.messages.map((message) => message.id), Array.from({ length: 15 }, (_, i) => `m${i + 1}`));
    assert.equal(session.messages[0]?.content, 'The deploy to staging fails with a 403 from the container registry.');
    assert.equal(session.compactions?.length, 1);
    const entry = (session.compactions ?? [])[0];
    assert.ok(entry);
    assert.equal(entry.messagesBefore, 12);
    const { record } = entry;
    assert.deepEqual(
      [record.reason, record.kept, record.messagesCompacted, record.model, record.messages.map((message) => message.role)],
      ['manual', 3, 9, 'ollama:qwen2.5-coder:7b', ['user', 'assistant']],
    );
    assert.ok(record.tokensAfter < record.tokensBefore, `tokens ${record.tokensBefore} → ${record.tokensAfter}`);
    assert.ok(record.summary.startsWith('## Goal\nShip release 1.3.0 to staging.'));
    assert.deepEqual(record.skills, [
      { name: 'deploy', attached: 'full' },
      { name: 'flaky-tests', attached: 'pointer', reason: 'its SKILL.md could not be read (moved, renamed or deleted?)' },
    ]);
    assert.deepEqual(record.memoryWrites, ['add memory: Staging pushes to registry.eu-west.example.']);
    // The full conversation is still there for the History tab and an export: 15 messages after the prompt.
    assert.equal(toChatMessages(session).length, 16);
  });

  it('compactedHistory: the summary with the re-attached skill and memory, then the kept and later messages, and the prior skills', async () => {
    const session = await storage.log.read('v1-compacted');
    assert.ok(session);
    const history = compactedHistory(session);
    assert.equal(history.skipped, undefined);
    const [summary, ack, ...rest] = history.messages;
    assert.ok(summary && ack);
    assert.equal(summary.role, 'user');
    assert.ok(summary.content.startsWith('<conversation-summary>\nThe earlier part of this conversation (9 messages) was compacted'), summary.content);
    for (const part of [
      '## Goal\nShip release 1.3.0 to staging.',
      '<skill name="deploy">',
      'Log in to the registry of the target first',
      'skill_view(name="flaky-tests")',
      '- add memory: Staging pushes to registry.eu-west.example.',
    ]) {
      assert.ok(summary.content.includes(part), `the summary message lacks ${JSON.stringify(part)}`);
    }
    assert.equal(ack.role, 'assistant');
    assert.deepEqual(rest.map((message) => [message.role, message.content]), KEPT_AND_LATER);
    // What was compacted away is not sent again: its words survive only in the summary.
    assert.ok(!history.messages.some((message) => message.content.includes('403')));
    assert.deepEqual(history.prior, { replacementMessages: 2, skills: ['deploy', 'flaky-tests'], memoryWrites: ['add memory: Staging pushes to registry.eu-west.example.'] });
  });

  it('resumes after the compaction: numbering carries on and the new message follows the compacted history', async () => {
    const resumed = await storage.log.resume('v1-compacted');
    assert.ok(resumed);
    const added = await resumed.writer.appendMessage({ role: 'user', content: 'Deploy to production.' });
    assert.equal(added.id, 'm16');
    const session = await storage.log.read('v1-compacted');
    assert.ok(session);
    assert.equal(session.skippedLines, 0);
    const history = compactedHistory(session);
    assert.deepEqual(history.messages.slice(2).map((message) => [message.role, message.content]), [...KEPT_AND_LATER, ['user', 'Deploy to production.']]);
    assert.deepEqual(history.prior?.skills, ['deploy', 'flaky-tests']);
  });
});

describe('persisted formats: the session index over a compacted session', () => {
  let storage: FixtureStorage;
  afterEach(() => storage.cleanup());

  it('History search finds messages the compaction summarised, and not the summary itself', async () => {
    storage = fixtureStorage(['v1-compacted.jsonl'], false);
    const index = new SessionIndex({ log: storage.log, sqlJs: sharedSqlJs, saveDelayMs: 60_000, logger: storage.logger });
    try {
      await index.ready();
      assert.deepEqual(index.stats, { sessions: 1, messages: 15, orphans: 0 });
      const found = await searchHistory(index, '403 container registry');
      assert.equal(found.error, undefined);
      assert.deepEqual(found.sessions.map((session) => [session.id, session.title]), [['v1-compacted', 'Deploy 1.3.0 to staging']]);
      assert.deepEqual(found.sessions[0]?.hits.map((hit) => hit.messageId), ['m1']);
      // The summary is what the model saw, not what was said: indexing it would find the session twice over.
      // "Decisions" is a heading of the summary only: the index has no message with it.
      const summaryOnly = await index.searchSessions('Decisions');
      assert.deepEqual([summaryOnly.ignored, summaryOnly.sessions], [['decisions'], []]);
    } finally {
      index.dispose();
    }
  });

  it('an index saved before compaction existed (schema 2) takes in the compacted session by reading only its file', async () => {
    storage = fixtureStorage(['v1.jsonl', 'v1-crashed.jsonl', 'v1-compacted.jsonl'], true);
    const index = new SessionIndex({ log: storage.log, sqlJs: sharedSqlJs, saveDelayMs: 60_000, logger: storage.logger });
    try {
      await index.ready();
      assert.equal(storage.fs.sessionReads, 1, storage.logger.lines.join('\n'));
      assert.ok(!storage.logger.lines.some((line) => line.includes('Rebuilding')), storage.logger.lines.join('\n'));
      assert.deepEqual(index.stats, { sessions: 3, messages: 28, orphans: 0 });
      const found = await index.searchSessions('registry');
      assert.deepEqual(found.sessions.map((session) => `${session.id}: ${session.messageCount} messages`), ['v1-compacted: 15 messages']);
    } finally {
      index.dispose();
    }
  });
});
