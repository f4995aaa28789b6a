import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AssembledAgent } from '../../../src/core/agent/agentAssembly';
import { assembleAgent } from '../../../src/core/agent/agentAssembly';
import type { TriggerTestOptions } from '../../../src/core/agent/triggerTest';
import {
  TRIGGER_TEST_REFUSAL,
  TRIGGER_TEST_STEPS,
  TriggerTestError,
  describeTriggerTest,
  runTriggerTest,
  triggerQueries,
  triggerTestRecord,
} from '../../../src/core/agent/triggerTest';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import { WorkspaceTools } from '../../../src/core/tools/workspaceTools';
import { OpenAiChatModel } from '../../../src/providers/openAiChatModel';
import type { ChatRequestBody } from '../../fakes/scriptedModelServer';
import { faults, ScriptedModelServer } from '../../fakes/scriptedModelServer';
import type { ToolWorkspace } from '../skills/skillToolWorkspace';
import { makeWorkspace, skillMd } from '../skills/skillToolWorkspace';

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

/** Every file below a folder with its bytes: what "nothing is written" is checked against. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(dir, full), fs.readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

function toolNames(body: ChatRequestBody): string[] {
  return (body.tools ?? []).map((tool) => (tool.type === 'function' ? tool.function.name : ''));
}

function lastToolResults(body: ChatRequestBody): string[] {
  return body.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : ''));
}

describe('trigger test against the scripted model server', () => {
  let server: ScriptedModelServer;
  let model: OpenAiChatModel;
  let ws: ToolWorkspace;
  let agent: AssembledAgent;
  const recorded: string[] = [];

  beforeEach(async () => {
    server = await ScriptedModelServer.start();
    model = new OpenAiChatModel({ baseUrl: server.baseUrl, model: 'scripted', apiKey: 'test-key', maxRetries: 0, timeoutMs: 5_000 });
    ws = await makeWorkspace({
      setup: (w) => {
        w.write('.agents/skills', 'ops/deploy/SKILL.md', DEPLOY);
        w.write('.agents/skills', 'docs/release-notes/SKILL.md', skillMd('release-notes', 'Writes release notes for a new build of the app.'));
        w.write('.agents/skills', 'lint-fix/SKILL.md', skillMd('lint-fix'));
      },
    });
    await ws.index.load();
    recorded.length = 0;
    const nodeFs = new NodeFileSystem();
    agent = await assembleAgent({
      fs: nodeFs,
      folders: [{ name: 'app', fsPath: ws.project }],
      index: ws.index,
      search: new SkillSearch(ws.index.active()),
      workspaceTools: new WorkspaceTools({ fs: nodeFs, folders: [{ name: 'app', fsPath: ws.project }] }),
      trusted: true,
      usage: { record: (name) => recorded.push(name) },
      date: '2025-06-01',
    });
  });

  afterEach(async () => {
    await server.close();
    ws.cleanup();
  });

  function options(extra: Partial<TriggerTestOptions> = {}): TriggerTestOptions {
    const search = new SkillSearch(ws.index.active());
    return {
      model,
      systemPrompt: agent.prompt.text,
      tools: agent.tools.map((tool) => tool.spec),
      // A usage recorder handed in by mistake must not see the test's views.
      skills: { fs: new NodeFileSystem(), index: ws.index, search, usage: { record: (name) => recorded.push(name) } },
      suggest: agent.suggest,
      skill: 'deploy',
      queries: ['ship the app', 'put the new build live'],
      runs: 3,
      ...extra,
    };
  }

  it('sends each query n times with the session prompt and tools, one request a run, and counts k/n and what loaded instead', async () => {
    server.on({ user: 'ship the app' }, ...[1, 2, 3].map(() => ({ toolCalls: [{ name: 'skill_view', arguments: { name: 'deploy' } }] })));
    server.on(
      { user: 'put the new build live' },
      { toolCalls: [{ name: 'skill_view', arguments: { name: 'release-notes' } }] },
      { text: 'Which server should it go to?' },
      { toolCalls: [{ name: 'skill_view', arguments: { name: 'ops/deploy' } }] },
    );
    const before = snapshot(ws.tmp);
    const progress: string[] = [];
    const result = await runTriggerTest(options({ onProgress: (p) => progress.push(`${p.done}/${p.total}`) }));

    assert.deepEqual(server.pendingScript(), []);
    assert.equal(server.chatRequests.length, 6, 'a run ends at the first load: one request each');
    assert.deepEqual([result.skill, result.runs, result.loaded, result.requests, result.stopped, result.error], ['deploy', 6, 4, 6, false, undefined]);
    assert.equal(result.rate, 4 / 6);
    assert.deepEqual(result.queries.map((q) => [q.query, q.loaded, q.runs, q.none, q.others]), [
      ['ship the app', 3, 3, 0, []],
      ['put the new build live', 1, 3, 1, [{ name: 'release-notes', runs: 1 }]],
    ]);
    assert.deepEqual(progress, ['1/6', '2/6', '3/6', '4/6', '5/6', '6/6']);
    assert.match(result.contentHash, /^[0-9a-f]{16}$/);

    for (const body of server.chatRequests) {
      const [system, user] = body.messages;
      assert.equal(system?.content, agent.prompt.text, 'the system prompt of a real session, byte for byte');
      assert.equal(body.messages.length, 2);
      assert.deepEqual(toolNames(body), agent.tools.map((tool) => tool.spec.name));
      // The per-turn suggestions go with the query, as in a session.
      assert.match(typeof user?.content === 'string' ? user.content : '', /<skill-suggestions>/);
    }
    assert.deepEqual(snapshot(ws.tmp), before, 'nothing was written');
    assert.deepEqual(recorded, [], 'no view was counted as a use');

    const lines = describeTriggerTest(result);
    assert.match(lines[0] ?? '', /^deploy: 4\/6 runs loaded it \(67%\)/);
    assert.match(lines[2] ?? '', /1\/3 {2}put the new build live.*instead: release-notes 1×, no skill 1×/);
    const kept = triggerTestRecord(result);
    assert.deepEqual([kept.runs, kept.loaded, kept.model, kept.queries.length], [6, 4, model.id, 2]);
  });

  it('answers skill_view and skills_list from the index and refuses every other tool, so nothing runs', async () => {
    const marker = path.join(ws.project, 'written.txt');
    server.on(
      { user: 'ship the app' },
      {
        toolCalls: [
          { id: 'w', name: 'write_file', arguments: { path: 'written.txt', content: 'x' } },
          { id: 'r', name: 'run_command', arguments: { command: 'touch written.txt' } },
          { id: 'l', name: 'skills_list', arguments: { query: 'deploy' } },
          { id: 'm', name: 'skill_manage', arguments: { action: 'delete', name: 'deploy' } },
        ],
      },
    );
    server.on({ toolResult: { toolCallId: 'm' } }, { toolCalls: [{ id: 'v', name: 'skill_view', arguments: { name: 'deploy' } }] });
    const result = await runTriggerTest(options({ queries: ['ship the app'], runs: 1 }));

    assert.deepEqual([result.loaded, result.runs, result.requests], [1, 1, 2]);
    const second = server.chatRequests[1];
    assert.ok(second);
    const [write, command, list, manage] = lastToolResults(second).map((text) => JSON.parse(text) as { success: boolean; error?: string; skills?: { name: string }[] });
    for (const refused of [write, command, manage]) assert.deepEqual(refused, { success: false, error: TRIGGER_TEST_REFUSAL });
    assert.ok(list);
    assert.equal(list.success, true);
    assert.ok(list.skills?.some((skill) => skill.name === 'deploy'));
    assert.equal(fs.existsSync(marker), false);
    assert.ok(fs.existsSync(path.join(ws.root('.agents/skills'), 'ops', 'deploy', 'SKILL.md')), 'skill_manage did not delete it');
  });

  it('stops a run at the step cap when the model never loads a skill', async () => {
    server.always({ request: () => true }, { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] });
    const result = await runTriggerTest(options({ queries: ['ship the app'], runs: 2 }));
    assert.equal(server.chatRequests.length, 2 * TRIGGER_TEST_STEPS);
    assert.deepEqual([result.loaded, result.runs, result.queries[0]?.none], [0, 2, 2]);
  });

  it('ends at a model failure with the runs made so far and the provider\'s error', async () => {
    server.on({ user: 'ship the app' }, { toolCalls: [{ name: 'skill_view', arguments: { name: 'deploy' } }] }, faults.unauthorized());
    const result = await runTriggerTest(options());
    assert.equal(result.error?.kind, 'auth');
    assert.deepEqual([result.runs, result.loaded, result.requests, server.chatRequests.length], [1, 1, 2, 2]);
  });

  it('stops when the caller aborts, keeping what was counted', async () => {
    server.always({ request: () => true }, { toolCalls: [{ name: 'skill_view', arguments: { name: 'deploy' } }] });
    const stop = new AbortController();
    const result = await runTriggerTest(options({ signal: stop.signal, onProgress: (p) => p.done === 2 && stop.abort() }));
    assert.deepEqual([result.stopped, result.runs, result.loaded, server.chatRequests.length], [true, 2, 2, 2]);
  });

  it('refuses an unknown skill, no queries and a bad run count, before any request', async () => {
    await assert.rejects(runTriggerTest(options({ skill: 'deplo' })), (error: unknown) => error instanceof TriggerTestError && /deplo/.test(error.message));
    await assert.rejects(runTriggerTest(options({ queries: ['  ', ''] })), /no queries to test: add example_queries/);
    await assert.rejects(runTriggerTest(options({ runs: 0 })), /runs must be a whole number from 1 to 20/);
    assert.equal(server.chatRequests.length, 0);
  });

  it('takes the example queries, then the extra ones, trimmed and without repeats', () => {
    const record = ws.index.get('deploy');
    assert.ok(record);
    assert.deepEqual(triggerQueries(record, ['  Ship   the app ', 'roll back the release', '']), ['ship the app', 'put the new build live', 'roll back the release']);
    assert.deepEqual(triggerQueries(record, ['roll back'], false), ['roll back']);
  });
});
