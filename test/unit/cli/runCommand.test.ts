import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliCaptured } from './cliRun';
import { ScriptedModelServer } from '../../fakes/scriptedModelServer';

describe('skillwright run (headless agent)', () => {
  let server: ScriptedModelServer;
  let work: string;
  let home: string;

  async function run(args: string[], env: Record<string, string | undefined> = {}) {
    return runCliCaptured(['run', ...args], { cwd: work, homeDir: home, env: { SKILLWRIGHT_BASE_URL: server.baseUrl, SKILLWRIGHT_MODEL: 'scripted', OPENAI_API_KEY: 'sk-test', SKILLWRIGHT_DATA_DIR: path.join(home, 'data'), ...env } });
  }

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-run-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-run-home-'));
    fs.writeFileSync(path.join(work, 'README.md'), '# Demo\n');
    fs.writeFileSync(path.join(work, 'AGENTS.md'), 'Always answer in one sentence.\n');
    const skill = path.join(work, '.agents', 'skills', 'count-files');
    fs.mkdirSync(skill, { recursive: true });
    fs.writeFileSync(path.join(skill, 'SKILL.md'), '---\nname: count-files\ndescription: Counts files in a folder. Use when the user asks how many files there are.\n---\n\n# Count\n\nUse list_files.\n');
  });

  afterEach(async () => {
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('runs a turn with tools and streams JSON events', async () => {
    server.on({ user: 'how many files' }, { toolCalls: [{ id: 'l1', name: 'list_files', arguments: { path: '.' } }] });
    server.on({ toolResult: { toolCallId: 'l1' } }, { text: 'There are 2 files.' });
    const result = await run(['-p', 'how many files are here?', '--json']);
    assert.equal(result.code, 0, result.err);
    const events = result.out.trim().split('\n').map((line) => JSON.parse(line) as { type: string; ok?: boolean; reason?: string });
    assert.deepEqual(events.filter((e) => e.type === 'tool_end').map((e) => e.ok), [true]);
    assert.deepEqual(events.slice(-2).map((e) => e.type), ['turn_done', 'session']);
    assert.equal(events.at(-2)?.reason, 'stop');
    const first = server.chatRequests[0];
    const system = String(first?.messages[0]?.content);
    assert.match(system, /count-files: Counts files in a folder/, 'the catalog is in the prompt');
    assert.match(system, /Always answer in one sentence/, 'AGENTS.md is in the prompt');
    assert.match(String(first?.messages.at(-1)?.content), /<skill-suggestions>[\s\S]*count-files/);
    assert.equal(server.requests[0]?.headers.authorization, 'Bearer sk-test');
  });

  it('denies edits and commands unless flags allow them', async () => {
    const script = () => {
      server.on({ user: 'write it' }, { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'out.txt', content: 'hello' } }] });
      server.on({ toolResult: { toolCallId: 'w' } }, { text: 'Done.' });
    };
    script();
    const denied = await run(['-p', 'write it']);
    assert.equal(denied.code, 0);
    assert.equal(fs.existsSync(path.join(work, 'out.txt')), false);
    assert.match(denied.err, /write_file failed/);
    const sentBack = server.chatRequests[1]?.messages.at(-1);
    assert.match(String(sentBack?.content), /--yes-edits/);

    script();
    const allowed = await run(['-p', 'write it', '--yes-edits']);
    assert.equal(allowed.code, 0, allowed.err);
    assert.equal(fs.readFileSync(path.join(work, 'out.txt'), 'utf8'), 'hello');
    assert.match(allowed.out, /Done\./);
  });

  it('puts the memory snapshot in the prompt and writes memory only with --yes-edits', async () => {
    fs.mkdirSync(path.join(work, '.agents', 'memory'), { recursive: true });
    fs.writeFileSync(path.join(work, '.agents', 'memory', 'MEMORY.md'), 'The build uses esbuild.\n');
    const script = () => {
      server.on({ user: 'remember' }, { toolCalls: [{ id: 'm', name: 'memory', arguments: { action: 'add', target: 'memory', content: 'Tests run with npm test.' } }] });
      server.on({ toolResult: { toolCallId: 'm' } }, { text: 'Noted.' });
    };
    script();
    await run(['-p', 'remember this']);
    assert.match(String(server.chatRequests[0]?.messages[0]?.content), /The build uses esbuild\./);
    assert.doesNotMatch(fs.readFileSync(path.join(work, '.agents', 'memory', 'MEMORY.md'), 'utf8'), /npm test/);
    script();
    await run(['-p', 'remember this', '--yes-edits']);
    assert.match(fs.readFileSync(path.join(work, '.agents', 'memory', 'MEMORY.md'), 'utf8'), /Tests run with npm test\./);
  });

  it('records the session, resumes it with the same prompt, and finds it later by a phrase', async () => {
    server.on({ user: 'flaky payment webhook' }, { text: 'The retry queue was misconfigured; fixed the backoff.' });
    const first = await run(['-p', 'why is the flaky payment webhook failing?', '--json']);
    assert.equal(first.code, 0, first.err);
    const sessionLine = first.out.trim().split('\n').map((line) => JSON.parse(line) as { type: string; id?: string }).find((e) => e.type === 'session');
    assert.ok(sessionLine?.id);

    server.on({ user: 'and the tests' }, { text: 'Added a test for the backoff.' });
    const resumed = await run(['-p', 'and the tests?', '--session', sessionLine.id]);
    assert.equal(resumed.code, 0, resumed.err);
    const [firstRequest, resumedRequest] = server.chatRequests;
    assert.equal(resumedRequest?.messages[0]?.content, firstRequest?.messages[0]?.content, 'byte-identical system prompt after resume');
    assert.deepEqual(resumedRequest?.messages.slice(2, 3).map((m) => m.content), ['The retry queue was misconfigured; fixed the backoff.']);

    server.on({ user: 'what did we do' }, { toolCalls: [{ id: 's', name: 'session_search', arguments: { query: 'payment webhook backoff' } }] });
    server.on({ toolResult: { toolCallId: 's' } }, { text: 'We fixed the webhook backoff.' });
    const later = await run(['-p', 'what did we do about that webhook?']);
    assert.equal(later.code, 0, later.err);
    const toolResult = server.chatRequests.at(-1)?.messages.at(-1);
    assert.match(String(toolResult?.content), new RegExp(sessionLine.id));
    assert.match(String(toolResult?.content), /misconfigured/);
    assert.equal((await run(['-p', 'x', '--session', 'no-such-session'])).code, 2);
  });

  it('compacts a resumed session past the listed window, records it, and resumes from the compacted state', async () => {
    const isSummary = (body: { messages: { content?: unknown }[] }) => String(body.messages[0]?.content).startsWith('You summarise');
    server.on({ user: 'first:' }, { text: 'Read all of it.' });
    const first = await run(['-p', `first: ${'legacy importer notes '.repeat(1_000)}`, '--json']);
    assert.equal(first.code, 0, first.err);
    const id = first.out.trim().split('\n').map((line) => JSON.parse(line) as { type: string; id?: string }).find((e) => e.type === 'session')?.id;
    assert.ok(id);
    // The next run meets a server whose listed window that first request nearly fills (80 % is the threshold).
    const firstTokens = Math.ceil((server.requests.at(-1)?.rawBody.length ?? 0) / 4);
    await server.close();
    server = await ScriptedModelServer.start({ models: ['scripted'], contextWindow: Math.ceil(firstTokens * 1.15) });
    server.always({ request: isSummary }, { text: '## Goal\nInvestigate the LEGACY-IMPORTER.' });

    server.on({ user: 'second' }, { text: 'Done.' });
    const second = await run(['-p', 'second question', '--session', id]);
    assert.equal(second.code, 0, second.err);
    assert.match(second.err, /\[compacted\] 2 messages → summary \(\d+ tokens\)/);
    const file = path.join(home, 'data', 'sessions', `${id}.jsonl`);
    const records = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; kept?: number });
    assert.deepEqual(records.filter((r) => r.type === 'compaction').map((r) => r.kept), [1]);
    assert.equal(records.filter((r) => r.type === 'message').length, 4, 'the log keeps every message');

    server.on({ user: 'third' }, { text: 'Still here.' });
    const third = await run(['-p', 'third question', '--session', id]);
    assert.equal(third.code, 0, third.err);
    const sent = server.chatRequests.at(-1);
    assert.match(String(sent?.messages[1]?.content), /<conversation-summary>[\s\S]*LEGACY-IMPORTER/);
    assert.ok(!JSON.stringify(sent?.messages).includes('legacy importer notes legacy'), 'the compacted turn stays compacted after a resume');
  });

  it('explains a missing model and a failing one', async () => {
    const missing = await run(['-p', 'hi'], { SKILLWRIGHT_BASE_URL: '', SKILLWRIGHT_MODEL: '' });
    assert.equal(missing.code, 2);
    assert.match(missing.err, /SKILLWRIGHT_BASE_URL and SKILLWRIGHT_MODEL/);
    assert.equal((await run([])).code, 2);
    server.always({ user: 'hi' }, { fault: { kind: 'http', status: 401, error: { message: 'bad key', type: 'invalid_request_error' } } });
    const failed = await run(['-p', 'hi']);
    assert.equal(failed.code, 1);
    assert.match(failed.err, /Configure Model|API key/);
  });
});
