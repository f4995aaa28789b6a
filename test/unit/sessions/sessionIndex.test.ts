import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SqlJsStatic } from '../../../src/core/sessions/sessionIndex';
import { SessionIndex } from '../../../src/core/sessions/sessionIndex';
import { SessionFixture, sharedSqlJs } from './sessionFixture';

const ids = (result: { sessions: readonly { id: string }[] }): string[] => result.sessions.map((session) => session.id);

describe('SessionIndex', function () {
  this.timeout(30_000);
  let fixture: SessionFixture;
  beforeEach(() => (fixture = new SessionFixture()));
  afterEach(() => fixture.cleanup());

  it('finds last week’s session by a phrase from its middle, with the matching message', async () => {
    await fixture.session('s-deploy', [
      ['Deploy the API to staging', 'Deployed with helm.'],
      ['The pods crash with OOMKilled after the rollout', 'Raised the memory limit of the worker to 512Mi.'],
      ['Thanks, looks good now', 'Great.'],
    ]);
    await fixture.session('s-other', [['Write a README for the CLI', 'Done: README.md explains install and usage.']]);
    const index = fixture.newIndex();
    const result = await index.searchSessions('memory limit worker');
    assert.deepEqual(ids(result), ['s-deploy']);
    assert.equal(result.mode, 'all');
    const hit = result.sessions[0]?.hits[0];
    assert.equal(hit?.messageId, 'm4');
    assert.equal(hit?.role, 'assistant');
    assert.match(hit?.snippet ?? '', /memory limit of the worker/);
  });

  it('indexes appends at once while loaded, including tool calls and tool results', async () => {
    const index = fixture.newIndex();
    await index.ready();
    const writer = await fixture.log.create({ id: 'live', model: 'm', systemPrompt: 's' });
    await writer.appendMessage({ role: 'user', content: 'check the nginx config' });
    await writer.appendMessage({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"deploy/nginx.conf"}' }] });
    await writer.appendMessage({ role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'proxy_read_timeout 45s;' });
    assert.deepEqual(ids(await index.searchSessions('proxy_read_timeout')), ['live']);
    assert.equal((await index.searchSessions('nginx.conf')).sessions[0]?.hits[0]?.messageId, 'm2');
    assert.deepEqual(index.stats, { sessions: 1, messages: 3, orphans: 0 });
  });

  it('catches up after a crash: saved index, more JSONL written without it, restart finds everything', async () => {
    await fixture.session('before', [['alpha question', 'alpha answer']]);
    const first = fixture.newIndex();
    await first.ready();
    await first.flush();
    assert.ok(first.lastSave && first.lastSave.bytes > 0);
    first.dispose(); // the window dies; nothing below reaches this index

    const other = fixture.newLog();
    const resumed = await other.resume('before');
    await resumed?.writer.appendMessage({ role: 'user', content: 'zebra crossing follow-up' });
    await fixture.session('after', [['brand new kiwi topic', 'kiwi reply']], { log: other });

    const restarted = fixture.newIndex();
    assert.deepEqual(ids(await restarted.searchSessions('zebra')), ['before']);
    assert.deepEqual(ids(await restarted.searchSessions('kiwi')), ['after']);
    assert.deepEqual(ids(await restarted.searchSessions('alpha')), ['before']);
    // Nothing new since: a refresh reads no messages again.
    assert.equal((await restarted.refresh()).messages, 0);
  });

  it('indexes what survived a torn last line, and the rest once the session goes on', async () => {
    await fixture.session('torn', [['keep this lighthouse', 'ok'], ['half written walrus', 'never finished']]);
    const file = fixture.file('torn');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.slice(0, text.lastIndexOf('never') + 3));
    const index = fixture.newIndex();
    assert.deepEqual(ids(await index.searchSessions('lighthouse')), ['torn']);
    assert.deepEqual(ids(await index.searchSessions('walrus')), ['torn']);
    assert.deepEqual(ids(await index.searchSessions('finished')), []);
    const resumed = await fixture.log.resume('torn');
    await resumed?.writer.appendMessage({ role: 'assistant', content: 'finished after the restart' });
    await index.refresh();
    assert.deepEqual(ids(await index.searchSessions('finished restart')), ['torn']);
  });

  it('groups hits per session, best session first, each session once', async () => {
    await fixture.session('weak', [['talk about kubernetes once', 'and nothing else about it']]);
    await fixture.session('strong', [
      ['kubernetes ingress kubernetes', 'kubernetes kubernetes'],
      ['more kubernetes', 'yes kubernetes'],
    ]);
    await fixture.session('none', [['unrelated', 'words']]);
    const result = await fixture.newIndex().searchSessions('kubernetes');
    assert.deepEqual(ids(result), ['strong', 'weak']);
    const strong = result.sessions[0];
    assert.ok(strong && strong.matches === 4 && strong.hits.length === 3);
    assert.ok(strong.hits.every((hit, i, all) => i === 0 || (all[i - 1]?.score ?? 0) >= hit.score));
    // The shortest message with the word twice ranks first (BM25 weighs term frequency by length).
    assert.equal(strong.hits[0]?.messageId, 'm2');
  });

  it('prefers messages with every word, and falls back to any word when none has them all', async () => {
    await fixture.session('both', [['redis cache eviction policy', 'use allkeys-lru']]);
    await fixture.session('one', [['redis persistence', 'AOF'], ['cache headers', 'etag']]);
    const index = fixture.newIndex();
    const all = await index.searchSessions('redis cache');
    assert.equal(all.mode, 'all');
    assert.deepEqual(ids(all), ['both']);
    const any = await index.searchSessions('persistence etag');
    assert.equal(any.mode, 'any');
    assert.deepEqual(ids(any), ['one']);
    const missing = await index.searchSessions('redis quokka');
    assert.deepEqual(missing.ignored, ['quokka']);
    assert.deepEqual(ids(missing).sort(), ['both', 'one']);
  });

  it('leaves out the current session, and searches inside one session on request', async () => {
    await fixture.session('past', [['the flaky test in payments', 'retry added']]);
    await fixture.session('current', [['the flaky test again', 'looking']]);
    const index = fixture.newIndex();
    assert.deepEqual(ids(await index.searchSessions('flaky test', { excludeSessionId: 'current' })), ['past']);
    assert.deepEqual(ids(await index.searchSessions('flaky test', { sessionId: 'current' })), ['current']);
    assert.deepEqual(ids(await index.searchSessions('flaky', { sessionId: 'no-such-session' })), []);
  });

  it('never throws on awkward queries, and reads punctuation as separators', async () => {
    await fixture.session('odd', [['the auth-service returned a:b at café 🙂', 'NEAR the (parenthesis) and "quotes" AND more']]);
    const index = fixture.newIndex();
    const awkward = ['"', '-foo', 'a:b', 'AND', 'OR', 'NOT', 'NEAR', 'NEAR/2', '*', '^', '(', ')', '""', '"unbalanced', 'x OR', '🙂', '\u0000\u0007', ' ', '', 'x'.repeat(2_000), 'word '.repeat(400)];
    for (const query of awkward) {
      const result = await index.searchSessions(query);
      assert.ok(Array.isArray(result.sessions), JSON.stringify(query.slice(0, 20)));
    }
    assert.deepEqual(ids(await index.searchSessions('a:b')), ['odd']);
    assert.deepEqual(ids(await index.searchSessions('auth-service')), ['odd']);
    assert.deepEqual(ids(await index.searchSessions('"auth service"')), ['odd']);
    assert.deepEqual(ids(await index.searchSessions('"service auth"')), []);
    assert.deepEqual(ids(await index.searchSessions('CAFE')), ['odd']);
    assert.deepEqual(ids(await index.searchSessions('🙂')), ['odd']);
    assert.deepEqual(ids(await index.searchSessions('near')), ['odd']);
    assert.deepEqual(ids(await index.searchSessions('(parenthesis')), ['odd']);
    const long = await index.searchSessions(`auth ${'zz '.repeat(1_000)}`);
    assert.equal(long.truncatedQuery, true);
  });

  it('deletes a session from disk and from the index, also after a restart', async () => {
    await fixture.session('doomed', [['secret-ish pelican notes', 'noted']]);
    await fixture.session('kept', [['pelican photos', 'nice']]);
    const index = fixture.newIndex();
    assert.deepEqual(ids(await index.searchSessions('pelican')).sort(), ['doomed', 'kept']);
    assert.equal(await index.deleteSession('doomed'), true);
    assert.equal(fs.existsSync(fixture.file('doomed')), false);
    assert.deepEqual(ids(await index.searchSessions('pelican')), ['kept']);
    assert.deepEqual(ids(await index.searchSessions('notes')), []);
    assert.deepEqual(index.stats, { sessions: 1, messages: 2, orphans: 0 });
    assert.equal(await index.deleteSession('doomed'), false);
    assert.equal(await index.deleteSession('../kept'), false);
    await index.flush();
    const again = fixture.newIndex();
    assert.deepEqual(ids(await again.searchSessions('pelican')), ['kept']);
    assert.equal(again.stats.messages, 2);
  });

  it('drops sessions removed outside and re-reads files rewritten outside', async () => {
    await fixture.session('gone', [['ostrich facts', 'tall']]);
    await fixture.session('changed', [['original heron text', 'yes']]);
    const index = fixture.newIndex();
    await index.ready();
    fs.rmSync(fixture.file('gone'));
    fs.rmSync(fixture.file('changed'));
    // Another window writes a new, longer file under the same id: same name, bigger size, other content.
    await fixture.session('changed', [['new egret', 'ok'], ['and a much longer second exchange', 'so the file grows past the old size']], { log: fixture.newLog() });
    await index.refresh();
    assert.deepEqual(ids(await index.searchSessions('ostrich')), []);
    assert.deepEqual(ids(await index.searchSessions('heron')), []);
    assert.deepEqual(ids(await index.searchSessions('egret')), ['changed']);
    assert.equal(index.stats.sessions, 1);
  });

  it('counts every message once when sessions are written while the index loads', async () => {
    await fixture.session('existing', [['old albatross', 'reply']]);
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // sql.js "loads" until the writes below are done, so every append arrives while loading.
    const index = fixture.newIndex({ sqlJs: () => gate.then(sharedSqlJs) });
    const loading = index.ready();
    const writer = await fixture.log.create({ id: 'during', model: 'm', systemPrompt: 's' });
    for (let i = 0; i < 5; i++) await writer.appendMessage({ role: 'user', content: `puffin note ${i}` });
    release();
    await loading;
    await index.refresh();
    assert.deepEqual(index.stats, { sessions: 2, messages: 7, orphans: 0 });
    assert.equal((await index.searchSessions('puffin')).sessions[0]?.matches, 5);
  });

  it('starts a session over when a new file appears under a known id', async () => {
    await fixture.session('reused', [['first cormorant', 'reply']]);
    const index = fixture.newIndex();
    await index.ready();
    fs.rmSync(fixture.file('reused'));
    await fixture.session('reused', [['second gannet', 'reply']]);
    assert.deepEqual(ids(await index.searchSessions('gannet')), ['reused']);
    assert.deepEqual(ids(await index.searchSessions('cormorant')), []);
    assert.deepEqual(index.stats, { sessions: 1, messages: 2, orphans: 2 });
  });

  it('rebuilds from the session files when the saved index is damaged', async () => {
    await fixture.session('s1', [['marmot burrow', 'deep']]);
    const indexFile = path.join(fixture.dir, 'session-index.sqlite');
    fs.writeFileSync(indexFile, 'this is not a database');
    const messages: string[] = [];
    const note = (message: string | Error): number => messages.push(String(message));
    const index = fixture.newIndex({ logger: { trace: note, debug: note, info: note, warn: note, error: note } });
    assert.deepEqual(ids(await index.searchSessions('marmot')), ['s1']);
    assert.ok(messages.some((message) => /Rebuilding the session index/.test(message)), messages.join('\n'));
  });

  it('does not load sql.js until a search, list or delete needs it', async () => {
    let loads = 0;
    const counting = (): Promise<SqlJsStatic> => {
      loads++;
      return sharedSqlJs();
    };
    const index = fixture.newIndex({ sqlJs: counting });
    const writer = await fixture.log.create({ id: 'lazy', model: 'm', systemPrompt: 's' });
    await writer.appendMessage({ role: 'user', content: 'appended before anything was loaded' });
    assert.equal((await index.readSession('lazy'))?.messages.length, 1);
    assert.match((await index.exportSessionMarkdown('lazy')) ?? '', /appended before anything/);
    await index.flush();
    assert.equal(loads, 0);
    assert.equal(index.isLoaded, false);
    assert.deepEqual(ids(await index.searchSessions('appended')), ['lazy']);
    assert.equal(loads, 1);
  });

  it('lists recent sessions with title, dates, message count and workspace', async () => {
    await fixture.session('old', [['Fix the flaky payment test', 'done']], { workspace: '/projects/pay' });
    await fixture.session('new', [['Please add dark mode to the settings page', 'added']]);
    const untitled = await fixture.log.create({ id: 'empty', model: 'm', systemPrompt: 's' });
    await untitled.flush();
    const index = fixture.newIndex();
    const listed = await index.listSessions();
    assert.deepEqual(listed.map((session) => session.id), ['empty', 'new', 'old']);
    const old = listed.find((session) => session.id === 'old');
    assert.deepEqual(old && { title: old.title, count: old.messageCount, workspace: old.workspace }, { title: 'Fix the flaky payment test', count: 2, workspace: '/projects/pay' });
    assert.equal(listed.find((session) => session.id === 'empty')?.title, 'Untitled session');
    assert.deepEqual((await index.listSessions({ excludeSessionId: 'empty', limit: 1 })).map((session) => session.id), ['new']);
  });
});

describe('SessionIndex with many messages', function () {
  this.timeout(60_000);
  let fixture: SessionFixture;
  before(async () => {
    fixture = new SessionFixture({ autoTitle: false });
    // 12,000 messages: enough for estimated token frequencies and for common words (in more than 5,000 messages).
    const filler = ['the', 'file', 'and', 'build'];
    for (let s = 0; s < 60; s++) {
      const exchanges: [string, string][] = [];
      for (let m = 0; m < 100; m++) exchanges.push([`${filler[m % 4]} the step ${s}-${m}`, `the answer ${m % 7 === 0 ? 'and' : 'or'} more`]);
      if (s === 17) exchanges.push(['the narwhal migration broke the build', 'the narwhal fix']);
      await fixture.session(`bulk-${String(s).padStart(2, '0')}`, exchanges);
    }
  });
  after(() => fixture.cleanup());

  it('keeps very common words out of the AND, so a rare word decides', async () => {
    const index = fixture.newIndex();
    const result = await index.searchSessions('the narwhal');
    assert.deepEqual(ids(result), ['bulk-17']);
    assert.deepEqual(result.ignored, ['the']);
    const phrase = await index.searchSessions('"narwhal migration broke the build"');
    assert.deepEqual(ids(phrase), ['bulk-17']);
  });

  it('still answers a query of nothing but common words, from the newest matches', async () => {
    const index = fixture.newIndex();
    const result = await index.searchSessions('the', { limit: 3 });
    assert.equal(result.sessions.length, 3);
    assert.equal(result.capped, true);
    assert.equal(result.sessions[0]?.id, 'bulk-59');
  });
});

describe('SessionIndex while its first catch-up runs', function () {
  this.timeout(30_000);
  let fixture: SessionFixture;
  beforeEach(() => (fixture = new SessionFixture()));
  afterEach(() => fixture.cleanup());

  it('answers a partial search from the sessions read so far while the first catch-up runs, and says how far it got', async () => {
    for (let i = 0; i < 40; i++) await fixture.session(`s-${String(i).padStart(2, '0')}`, [[`question about topic${i} and the shared walrus`, `answer ${i}`]]);
    // Reads of the last session wait until released: the catch-up is then held in its second batch.
    let reached!: () => void;
    const held = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    class HeldFileSystem extends NodeFileSystem {
      override async readFile(p: string): Promise<Uint8Array> {
        if (p.endsWith('s-39.jsonl')) {
          reached();
          await gate;
        }
        return super.readFile(p);
      }
    }
    const index = new SessionIndex({ log: fixture.newLog({ fs: new HeldFileSystem() }), sqlJs: sharedSqlJs, saveDelayMs: 60_000 });
    try {
      const loading = index.ready();
      await held;
      const partial = await index.searchSessions('walrus', { limit: 100, partial: true });
      // The first batch (32 sessions) is in; the second, with s-39, is still being read.
      assert.deepEqual(partial.indexing, { done: 32, total: 40 });
      assert.equal(partial.sessions.length, 32);
      assert.ok(!ids(partial).includes('s-39'));
      release();
      await loading;
      const whole = await index.searchSessions('walrus', { limit: 100, partial: true });
      assert.equal(whole.indexing, undefined);
      assert.equal(whole.sessions.length, 40);
      assert.deepEqual(ids(await index.searchSessions('topic39')), ['s-39']);
    } finally {
      release();
      index.dispose();
    }
  });
});
