import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import type { RunApproval, RunApprovalRequest } from '../../../src/core/execution/executionTypes';
import { createNodeExecutor } from '../../../src/core/execution/executorSetup';
import type { RunFeedback } from '../../../src/core/execution/skillExecutor';

interface Recorded {
  readonly name: string;
  readonly success: boolean;
  readonly drift: boolean;
  readonly calledSkills?: readonly string[];
}

/** A skills folder on disk, an index over it and the real executor (processes, HTTP, trace files). */
function setup() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-exec-'));
  const skillsDir = path.join(tmp, 'skills');
  const storage = path.join(tmp, 'storage');
  fs.mkdirSync(skillsDir);
  const write = (relative: string, text: string): void => {
    const file = path.join(skillsDir, ...relative.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  const index = new SkillIndex({ fs: new NodeFileSystem(), roots: [{ path: skillsDir, scope: 'project', label: 'skills', writeTarget: true }] });
  const asked: RunApprovalRequest[] = [];
  let answer: Awaited<ReturnType<RunApproval>> = { allowed: true };
  let mayRun: { allowed: true } | { allowed: false; reason: string } = { allowed: true };
  const recorded: Recorded[] = [];
  const feedback: RunFeedback = { recordRun: (name, run) => void recorded.push({ name, ...run }) };
  const built = createNodeExecutor({
    index,
    fs: new NodeFileSystem(),
    storageDir: storage,
    processEnv: { PATH: process.env['PATH'], HOME: tmp, OPENAI_API_KEY: 'sk-secret' },
    approve: async (request) => {
      asked.push(request);
      return answer;
    },
    mayRun: () => mayRun,
    feedback,
  });
  return {
    tmp,
    write,
    index,
    asked,
    recorded,
    ...built,
    answer: (next: typeof answer) => (answer = next),
    restrict: (next: typeof mayRun) => (mayRun = next),
    run: (name: string, args: unknown = {}) => built.executor.run(name, args, { context: { workspaceFolder: tmp, sessionId: 's1' }, origin: 'test' }),
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
}

const SCRIPT = `const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const args = JSON.parse(Buffer.concat(chunks).toString() || '{}');
  if (args.remove) require('node:fs').rmSync(args.remove, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ success: true, output: { echoed: args.text, times: args.times, key: process.env.OPENAI_API_KEY ?? null } }));
});
`;

function scriptSkill(name: string, extra = ''): string {
  return `---
name: ${name}
description: Echoes its text argument back. Use when testing the executor.
version: 1.2.0
entry: scripts/run.js
permissions:
  commands: true
input_schema:
  type: object
  required: [text]
  properties:
    text: { type: string, description: The text to echo }
    times: { type: integer, default: 2, description: How often }
    remove: { type: string, description: A folder to delete first }
${extra}---
# Echo
`;
}

describe('SkillExecutor (real scripts, HTTP and trace files)', function () {
  this.timeout(20_000);
  let env: ReturnType<typeof setup>;
  beforeEach(() => (env = setup()));
  afterEach(() => env.cleanup());

  it('runs a script skill: binds defaults and coerces, asks approval, keeps keys out, traces and records feedback', async () => {
    env.write('echo/SKILL.md', scriptSkill('echo'));
    env.write('echo/scripts/run.js', SCRIPT);
    await env.index.load();
    const result = await env.run('echo', { text: 'hi', times: '3' });
    assert.equal(result.success, true, result.error ?? '');
    assert.deepEqual(result.output, { echoed: 'hi', times: 3, key: null });
    assert.equal(env.asked.length, 1);
    assert.equal(env.asked[0]?.kind, 'script');
    assert.deepEqual(env.asked[0]?.arguments, { text: 'hi', times: 3 });
    assert.match(result.trace_id, /^[0-9a-f-]{36}$/);
    const traces = await env.traces.list({ skill: 'echo' });
    assert.equal(traces.length, 1);
    assert.equal(traces[0]?.steps[0]?.status, 'success');
    assert.equal(traces[0]?.version, '1.2.0');
    assert.ok(fs.existsSync(path.join(env.tmp, 'storage', 'sessions', 's1.traces.jsonl')));
    assert.deepEqual(env.recorded.map((r) => [r.name, r.success]), [['echo', true]]);
  });

  it('names a missing required argument with its description and runs nothing', async () => {
    env.write('echo/SKILL.md', scriptSkill('echo'));
    env.write('echo/scripts/run.js', SCRIPT);
    await env.index.load();
    const result = await env.run('echo', {});
    assert.equal(result.success, false);
    assert.match(result.error ?? '', /"text".*The text to echo/);
    assert.equal(env.asked.length, 0);
    assert.equal((await env.traces.list()).length, 1, 'a refused run still leaves a trace');
  });

  it('refuses an executable skill without permissions, saying how to declare them', async () => {
    env.write('bare/SKILL.md', scriptSkill('bare').replace('permissions:\n  commands: true\n', ''));
    env.write('bare/scripts/run.js', SCRIPT);
    await env.index.load();
    const result = await env.run('bare', { text: 'x' });
    assert.equal(result.success, false);
    assert.match(result.error ?? '', /declares no permissions[\s\S]*permissions:\n {2}commands: true/);
    assert.equal(env.asked.length, 0);
  });

  it('does not run when the person declines or the workspace is restricted', async () => {
    env.write('echo/SKILL.md', scriptSkill('echo'));
    env.write('echo/scripts/run.js', `require('node:fs').writeFileSync(${JSON.stringify(path.join(os.tmpdir(), 'never'))}, 'x'); ${SCRIPT}`);
    await env.index.load();
    env.answer({ allowed: false, reason: 'the user declined to run it' });
    const declined = await env.run('echo', { text: 'x' });
    assert.match(declined.error ?? '', /not run: the user declined/);
    env.restrict({ allowed: false, reason: 'this workspace is in Restricted Mode' });
    const restricted = await env.run('echo', { text: 'x' });
    assert.match(restricted.error ?? '', /Restricted Mode/);
    assert.equal(env.asked.length, 1, 'Restricted Mode refuses before asking');
  });

  it('returns instructions with the arguments bound for an instruction skill', async () => {
    env.write('guide/SKILL.md', `---\nname: guide\ndescription: Explains how to greet. Use when greeting.\ninput_schema:\n  type: object\n  properties:\n    who: { type: string, default: world, description: Whom to greet }\n---\nSay hello to \${input.who}.\n`);
    await env.index.load();
    const result = await env.run('guide');
    assert.equal(result.success, true);
    const output = result.output as { instructions: string; arguments: Record<string, unknown> };
    assert.match(output.instructions, /Say hello to world\./);
    assert.deepEqual(output.arguments, { who: 'world' });
    assert.equal(env.asked.length, 0, 'instructions never ask');
  });

  it('records drift when the output does not match output_schema, and still returns it', async () => {
    env.write('echo/SKILL.md', scriptSkill('echo', 'output_schema:\n  type: object\n  required: [count]\n'));
    env.write('echo/scripts/run.js', SCRIPT);
    await env.index.load();
    const result = await env.run('echo', { text: 'a' });
    assert.equal(result.success, true);
    assert.match(result.trace.drift ?? '', /count/);
    assert.equal(env.recorded[0]?.drift, true);
  });

  it('runs a two-step workflow: nested trace steps, called skills, version ranges', async () => {
    env.write('echo/SKILL.md', scriptSkill('echo'));
    env.write('echo/scripts/run.js', SCRIPT);
    env.write('pair/SKILL.md', `---
name: pair
description: Echoes twice. Use when testing workflows.
input_schema:
  type: object
  properties:
    word: { type: string, default: ping, description: The word }
workflow:
  - step: first
    skill: echo@^1.0
    with: { text: "\${input.word}" }
  - step: second
    skill: echo
    with: { text: "again \${steps.first.output.echoed}" }
---
`);
    await env.index.load();
    const result = await env.run('pair');
    assert.equal(result.success, true, result.error ?? '');
    assert.deepEqual(result.output, { echoed: 'again ping', times: 2, key: null });
    assert.deepEqual(result.trace.steps.map((s) => [s.id, s.skill, s.status]), [['first', 'echo@^1.0', 'success'], ['second', 'echo', 'success']]);
    assert.deepEqual(result.trace.calledSkills, ['echo']);
    assert.equal(result.trace.kind, 'workflow');

    env.write('pair/SKILL.md', fs.readFileSync(path.join(env.tmp, 'skills', 'pair', 'SKILL.md'), 'utf8').replace('echo@^1.0', 'echo@^2.0'));
    await env.index.rescan();
    const pinned = await env.run('pair');
    assert.equal(pinned.success, false);
    assert.match(pinned.error ?? '', /\^2\.0.*1\.2\.0/);
  });

  it('fails the step cleanly when a skill is deleted while its workflow runs', async () => {
    env.write('echo/SKILL.md', scriptSkill('echo'));
    env.write('echo/scripts/run.js', SCRIPT);
    env.write('victim/SKILL.md', scriptSkill('victim'));
    env.write('victim/scripts/run.js', SCRIPT);
    const victim = path.join(env.tmp, 'skills', 'victim');
    env.write('flow/SKILL.md', `---
name: flow
description: Deletes a skill, then runs it. Use when testing workflows.
workflow:
  - step: remove
    skill: echo
    with: { text: x, remove: ${JSON.stringify(victim)} }
  - step: use
    skill: victim
    depends_on: remove
    with: { text: y }
---
`);
    await env.index.load();
    const result = await env.run('flow');
    assert.equal(result.success, false);
    assert.match(result.error ?? '', /step "use" failed: the SKILL\.md of "victim" is gone/);
    assert.deepEqual(result.trace.steps.map((s) => s.status), ['success', 'failed']);
  });

  it('refuses a cycle across skills before running anything, naming the path', async () => {
    const flow = (name: string, next: string): string => `---\nname: ${name}\ndescription: Calls ${next}. Use when testing cycles.\nworkflow:\n  - step: go\n    skill: ${next}\n---\n`;
    env.write('ping/SKILL.md', flow('ping', 'pong'));
    env.write('pong/SKILL.md', flow('pong', 'pang'));
    env.write('pang/SKILL.md', flow('pang', 'ping'));
    await env.index.load();
    const result = await env.run('ping');
    assert.equal(result.success, false);
    assert.match(result.error ?? '', /cycle/);
    assert.match(result.error ?? '', /ping/);
    assert.match(result.error ?? '', /pang/);
    assert.deepEqual(result.trace.steps.map((s) => s.status), ['failed'], 'one failed step, nothing ran');
    assert.equal(env.recorded.length, 0);
  });

  it('calls an HTTP skill on a real local server and fails on success:false', async () => {
    const bodies: unknown[] = [];
    const server = http.createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        const body = JSON.parse(text) as { arguments: { q: string } };
        bodies.push(body);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(body.arguments.q === 'bad' ? { success: false, error: 'no such thing' } : { success: true, output: { answer: body.arguments.q.toUpperCase() } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      env.write('lookup/SKILL.md', `---\nname: lookup\ndescription: Looks things up. Use when asked.\nversion: 0.3.0\nendpoint: http://127.0.0.1:${port}\npermissions:\n  network: [127.0.0.1]\ninput_schema:\n  type: object\n  properties:\n    q: { type: string, description: The query }\n---\n`);
      await env.index.load();
      const good = await env.run('lookup', { q: 'abc' });
      assert.deepEqual(good.output, { answer: 'ABC' });
      assert.equal(env.asked[0]?.kind, 'http');
      const sent = bodies[0] as { manifest_id: string; trace_id: string };
      assert.equal(sent.manifest_id, 'lookup@0.3.0');
      assert.equal(sent.trace_id, good.trace_id);
      const bad = await env.run('lookup', { q: 'bad' });
      assert.equal(bad.success, false);
      assert.match(bad.error ?? '', /no such thing/);
    } finally {
      server.close();
    }
  });

  it('refuses an HTTP skill whose endpoint host is not in its network permission', async () => {
    env.write('elsewhere/SKILL.md', `---\nname: elsewhere\ndescription: Calls a service. Use when asked.\nendpoint: https://evil.example.net\npermissions:\n  network: [api.example.com]\n---\n`);
    await env.index.load();
    const result = await env.run('elsewhere');
    assert.match(result.error ?? '', /evil\.example\.net, which its network permission \(api\.example\.com\) does not list/);
  });
});
