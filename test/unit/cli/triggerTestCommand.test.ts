import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliCaptured } from './cliRun';
import { TRIGGER_TEST_REFUSAL } from '../../../src/core/agent/triggerTest';
import { faults, ScriptedModelServer } from '../../fakes/scriptedModelServer';

const DEPLOY = `---
name: deploy
description: Deploys the web app to production with the release checklist.
example_queries:
  - ship the app
  - put the new build live
---

# Deploy

1. Run the checklist.
`;

const viewOf = (name: string) => ({ toolCalls: [{ name: 'skill_view', arguments: { name } }] });

/** Every file below a folder, for "nothing was written". */
function listing(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : [];
}

describe('skillwright test-trigger', () => {
  let server: ScriptedModelServer;
  let work: string;
  let home: string;

  async function run(args: string[], env: Record<string, string | undefined> = {}) {
    return runCliCaptured(['test-trigger', ...args], { cwd: work, homeDir: home, env: { SKILLWRIGHT_BASE_URL: server.baseUrl, SKILLWRIGHT_MODEL: 'scripted', OPENAI_API_KEY: 'sk-test', SKILLWRIGHT_DATA_DIR: path.join(home, 'data'), ...env } });
  }

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-trig-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-trig-home-'));
    const skills = path.join(work, '.agents', 'skills');
    fs.mkdirSync(path.join(skills, 'deploy'), { recursive: true });
    fs.writeFileSync(path.join(skills, 'deploy', 'SKILL.md'), DEPLOY);
    fs.mkdirSync(path.join(skills, 'release-notes'), { recursive: true });
    fs.writeFileSync(path.join(skills, 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Writes release notes for a new build.\n---\n\n# Notes\n');
    fs.mkdirSync(path.join(skills, 'bare'), { recursive: true });
    fs.writeFileSync(path.join(skills, 'bare', 'SKILL.md'), '---\nname: bare\ndescription: A skill without example queries.\n---\n\n# Bare\n');
  });

  afterEach(async () => {
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('exits 0 when every query loads the skill in at least half its runs, and writes nothing', async () => {
    server.on({ user: 'ship the app' }, viewOf('deploy'), viewOf('deploy'));
    server.on({ user: 'put the new build live' }, viewOf('deploy'), viewOf('release-notes'));
    const before = [listing(work), listing(home)];
    const result = await run(['deploy', '--runs', '2']);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /^deploy: 3\/4 runs loaded it \(75%\) with openai:scripted/m);
    assert.match(result.out, /1\/2 {2}put the new build live {2}— instead: release-notes 1×/);
    assert.match(result.err, /Every query loaded it in at least 50% of its runs/);
    assert.deepEqual([listing(work), listing(home)], before, 'no session, memory, trace or usage file');
    assert.equal(server.chatRequests.length, 4);
    assert.match(JSON.stringify(server.chatRequests[0]?.messages[0]?.content), /deploy: Deploys the web app/, 'the catalog is in the prompt');
  });

  it('exits 1 below --min-rate and says which query; --json has the whole result and nothing else', async () => {
    server.on({ user: 'ship the app' }, viewOf('deploy'), viewOf('deploy'));
    server.on({ user: 'put the new build live' }, viewOf('deploy'), { text: 'Which server?' });
    server.on({ user: 'roll it out' }, { text: 'Sure.' }, { text: 'Sure.' });
    const result = await run(['deploy', '--runs', '2', '--query', 'roll it out', '--min-rate', '0.75', '--json']);
    assert.equal(result.code, 1, result.err);
    const json = JSON.parse(result.out) as { passed: boolean; minRate: number; runs: number; loaded: number; queries: { query: string; loaded: number; runs: number; rate: number; none: number }[] };
    assert.deepEqual([json.passed, json.minRate, json.runs, json.loaded], [false, 0.75, 6, 3]);
    assert.deepEqual(json.queries.map((q) => [q.query, q.loaded, q.runs, q.rate, q.none]), [
      ['ship the app', 2, 2, 1, 0],
      ['put the new build live', 1, 2, 0.5, 1],
      ['roll it out', 0, 2, 0, 2],
    ]);
    server.on({ user: 'ship the app' }, viewOf('deploy'));
    server.on({ user: 'put the new build live' }, viewOf('release-notes'));
    const text = await run(['deploy', '--runs', '1', '--min-rate', '1']);
    assert.equal(text.code, 1);
    assert.match(text.err, /Below --min-rate 1: 0\/1 "put the new build live"$/m);
  });

  it('refuses every tool but the skill tools: a command the model asks for does not run', async () => {
    server.on({ user: 'ship the app' }, { toolCalls: [{ id: 'c', name: 'run_command', arguments: { command: 'touch ran.txt' } }] });
    server.on({ toolResult: { toolCallId: 'c' } }, viewOf('deploy'));
    server.on({ user: 'put the new build live' }, viewOf('deploy'));
    // --query adds to the example queries; one already among them is sent once.
    const result = await run(['deploy', '--runs', '1', '--query', 'Ship the app', '--json']);
    assert.equal(result.code, 0, result.err + result.out);
    assert.equal(fs.existsSync(path.join(work, 'ran.txt')), false);
    assert.match(JSON.stringify(server.chatRequests[1]?.messages.at(-1)?.content), new RegExp(TRIGGER_TEST_REFUSAL));
  });

  it('exits 3 when the model fails, with its message', async () => {
    server.on({ user: 'ship the app' }, faults.unauthorized());
    const result = await run(['deploy', '--runs', '1']);
    assert.equal(result.code, 3);
    assert.match(result.err, /the model failed: .*API key/i);
  });

  it('exits 2 on usage errors, each saying what to do, before any request', async () => {
    const cases: [string[], RegExp, Record<string, string | undefined>?][] = [
      [[], /needs a skill name/],
      [['bare'], /"bare" has no example_queries: add some .* or pass --query/],
      [['deplo'], /deplo/],
      [['deploy', '--runs', '0'], /--runs takes a whole number from 1 to 20/],
      [['deploy', '--min-rate', '2'], /--min-rate takes a number from 0 to 1/],
      [['deploy', 'extra words'], /give queries with --query/],
      [['deploy'], /needs a model: set SKILLWRIGHT_BASE_URL/, { SKILLWRIGHT_BASE_URL: '' }],
      [['deploy', '--query'], /--query needs a value/],
    ];
    for (const [args, message, env] of cases) {
      const result = await run(args, env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.err}`);
      assert.match(result.err, message);
    }
    assert.equal(server.chatRequests.length, 0);
  });
});
