import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CliRun } from './cliRun';
import { runCliCaptured } from './cliRun';
import { parseTraceLine } from '../../../src/core/execution/traceStore';
import type { RunTrace } from '../../../src/core/execution/executionTypes';
import { repoRoot } from '../../repoRoot';
import { ScriptedModelServer } from '../../fakes/scriptedModelServer';


interface InvokeRequest {
  manifest_id: string;
  trace_id: string;
  arguments: Record<string, unknown>;
}

describe('skillwright run-skill and test-skill', () => {
  let work: string;
  let home: string;
  let dataDir: string;
  let server: http.Server;
  let invocations: { url: string; body: InvokeRequest }[];

  async function run(args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
    return runCliCaptured(args, { cwd: work, homeDir: home, env: { PATH: process.env.PATH ?? '', SKILLWRIGHT_DATA_DIR: dataDir, ...extraEnv } });
  }

  const json = <T>(result: CliRun): T => {
    assert.doesNotThrow(() => JSON.parse(result.out) as unknown, `stdout is JSON: ${result.out}\n${result.err}`);
    return JSON.parse(result.out) as T;
  };

  function savedTraces(): RunTrace[] {
    const dir = path.join(dataDir, 'traces');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .flatMap((file) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n'))
      .map((line) => parseTraceLine(line))
      .filter((trace): trace is RunTrace => trace !== undefined);
  }

  beforeEach(async () => {
    invocations = [];
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const parsed = JSON.parse(body) as InvokeRequest;
        invocations.push({ url: req.url ?? '', body: parsed });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, output: { echo: parsed.arguments, manifest: parsed.manifest_id }, error: null }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-skillrun-')));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-skillrun-home-'));
    dataDir = path.join(home, 'data');
    const skills = path.join(work, '.agents', 'skills');
    fs.cpSync(path.join(repoRoot(), 'test', 'fixtures', 'execution', 'skills'), skills, { recursive: true });
    const httpSkill = path.join(skills, 'http-echo', 'SKILL.md');
    fs.writeFileSync(httpSkill, fs.readFileSync(httpSkill, 'utf8').replace('__PORT__', String(port)));
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  describe('run-skill', () => {
    it('runs a Node script skill and prints exactly the result object with --json', async () => {
      const result = await run(['run-skill', 'node-sum', '--args', '{"a": 2, "b": 40}', '--yes-commands', '--json']);
      assert.equal(result.code, 0, result.err);
      const body = json<Record<string, unknown>>(result);
      assert.deepEqual(Object.keys(body).sort(), ['error', 'output', 'success', 'trace_id']);
      assert.deepEqual(body, { success: true, output: { sum: 42, cwd: work }, error: null, trace_id: body['trace_id'] });
      const [trace] = savedTraces();
      assert.equal(trace?.trace_id, body['trace_id']);
      assert.equal(trace?.origin, 'cli');
      assert.equal(trace.kind, 'script');
    });

    it('prints the output for people, with the trace id on stderr, and runs in --cwd', async () => {
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-skillrun-cwd-'));
      try {
        const result = await run(['run-skill', 'node-sum', '--args={"a":1,"b":1}', '--yes-commands', '--root', '.agents/skills', '--cwd', elsewhere]);
        assert.equal(result.code, 0, result.err);
        assert.equal(result.out, `${JSON.stringify({ sum: 2, cwd: fs.realpathSync(elsewhere) }, null, 2)}\n`);
        const [trace] = savedTraces();
        assert.ok(trace);
        assert.match(result.err, new RegExp(`node-sum ran in [\\d.]+ s \\(trace ${trace.trace_id}\\)`));
      } finally {
        fs.rmSync(elsewhere, { recursive: true, force: true });
      }
    });

    it('refuses scripts and endpoints without --yes-commands, naming the flag', async () => {
      const refused = await run(['run-skill', 'node-sum', '--args', '{"a": 2, "b": 3}']);
      assert.equal(refused.code, 1);
      assert.equal(refused.out, '');
      const [trace] = savedTraces();
      assert.ok(trace);
      assert.match(refused.err, /node-sum failed: not run: .*--yes-commands/);
      assert.match(refused.err, new RegExp(`trace ${trace.trace_id}`));
      const asJson = json<{ success: boolean; output: unknown; error: string }>(await run(['run-skill', 'http-echo', '--args', '{"message": "x"}', '--json']));
      assert.equal(asJson.success, false);
      assert.equal(asJson.output, null);
      assert.match(asJson.error, /--yes-commands/);
      assert.equal(invocations.length, 0, 'the endpoint was not called');
    });

    it('runs a Python script skill with arguments from --args-file', async () => {
      fs.writeFileSync(path.join(work, 'args.json'), '\uFEFF{"text": "one two three"}\n');
      const result = await run(['run-skill', 'py-words', '--args-file', 'args.json', '--yes-commands', '--json']);
      assert.equal(result.code, 0, result.err);
      assert.deepEqual(json<{ output: unknown }>(result).output, { words: 3, longest: 'three' });
    });

    it('calls an HTTP skill on a local server with the trace id of the run', async () => {
      const result = await run(['run-skill', 'http-echo', '--args', '{"message": "ping"}', '--yes-commands', '--json']);
      assert.equal(result.code, 0, result.err);
      const body = json<{ output: unknown; trace_id: string }>(result);
      assert.deepEqual(body.output, { echo: { message: 'ping' }, manifest: 'http-echo@2.1.0' });
      assert.equal(invocations.length, 1);
      assert.equal(invocations[0]?.url, '/echo/v1/invoke');
      assert.equal(invocations[0].body.trace_id, body.trace_id);
    });

    it('binds an instruction skill without any flag and prints its instructions', async () => {
      const result = await run(['run-skill', 'explain-diff']);
      assert.equal(result.code, 0, result.err);
      assert.match(result.out, /explain it in a short form, one paragraph per file/);
      const detailed = json<{ output: { instructions: string; arguments: unknown } }>(await run(['run-skill', 'explain-diff', '--args', '{"style": "detailed"}', '--json']));
      assert.match(detailed.output.instructions, /in a detailed form/);
      assert.deepEqual(detailed.output.arguments, { style: 'detailed' });
    });

    it('runs a two-step workflow of the script skills and traces both steps', async () => {
      const result = await run(['run-skill', 'sum-then-words', '--args', '{"a": 1, "b": 2}', '--yes-commands', '--json']);
      assert.equal(result.code, 0, result.err);
      const body = json<{ output: unknown; trace_id: string }>(result);
      assert.deepEqual(body.output, { total: { sum: 3, cwd: work }, count: { words: 5, longest: 'apples' } });
      const trace = savedTraces().find((t) => t.trace_id === body.trace_id);
      assert.equal(trace?.kind, 'workflow');
      assert.deepEqual(trace.steps.map((step) => [step.id, step.skill, step.status]), [
        ['add', 'node-sum', 'success'],
        ['count', 'py-words', 'success'],
      ]);
    });

    it('fails with exit 1 when the run fails, saying why', async () => {
      const missing = await run(['run-skill', 'node-sum', '--args', '{"a": 2}', '--yes-commands']);
      assert.equal(missing.code, 1);
      assert.match(missing.err, /missing required argument "?b"?/);
      const unknown = await run(['run-skill', 'node-summ', '--yes-commands', '--json']);
      assert.equal(unknown.code, 1);
      assert.match(json<{ error: string }>(unknown).error, /node-sum/, 'suggests the close name');
    });

    it('treats bad arguments as usage errors that say where the JSON breaks', async () => {
      const bad = await run(['run-skill', 'node-sum', '--args', '{"a": 2,, "b": 3}']);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--args is not valid JSON at column 9: expected a property name in double quotes but found ","/);
      assert.match(bad.err, /\n {2}\{"a": 2,, "b": 3\}\n {10}\^/);
      assert.match((await run(['run-skill', 'node-sum', '--args', "{'a': 2}"])).err, /column 2: .*double quotes/);
      assert.match((await run(['run-skill', 'node-sum', '--args', '[1, 2]'])).err, /must be a JSON object.*it is a list/);
      assert.match((await run(['run-skill', 'node-sum', '--args', ' '])).err, /--args is empty/);
      fs.writeFileSync(path.join(work, 'bad.json'), '{\n  "a": 1\n  "b": 2\n}\n');
      const file = await run(['run-skill', 'node-sum', '--args-file', 'bad.json']);
      assert.equal(file.code, 2);
      assert.match(file.err, /--args-file bad\.json is not valid JSON at line 3, column 3: expected , or \}/);
      assert.match((await run(['run-skill', 'node-sum', '--args-file', 'nope.json'])).err, /--args-file "nope\.json" cannot be read/);
      assert.match((await run(['run-skill', 'node-sum', '--args', '{}', '--args-file', 'bad.json'])).err, /not both/);
      assert.match((await run(['run-skill'])).err, /run-skill needs a skill name/);
      assert.match((await run(['run-skill', 'node-sum', 'a=1'])).err, /takes one skill name/);
      assert.equal((await run(['run-skill', 'node-sum', '--cwd', 'no/such/dir'])).code, 2);
      assert.equal(savedTraces().length, 0, 'nothing ran');
    });
  });

  describe('test-skill', () => {
    interface Report {
      skill: string;
      passed: number;
      failed: number;
      results: { kind: string; name: string; passed: boolean; message?: string; rank?: number; trace_id?: string }[];
    }

    it('passes every example of a script skill with --yes-commands', async () => {
      const result = await run(['test-skill', 'node-sum', '--yes-commands', '--json']);
      assert.equal(result.code, 0, result.err);
      const report = json<Report>(result);
      assert.deepEqual(
        report.results.map((r) => [r.name, r.passed]),
        [
          ['examples/adds.json', true],
          ['examples/matches-schema.json', true],
          ['examples/needs-b.json', true],
        ],
      );
      assert.deepEqual([report.skill, report.passed, report.failed], ['node-sum', 3, 0]);
      assert.ok(savedTraces().every((trace) => trace.origin === 'test'));
      assert.equal(savedTraces().length, 3);
    });

    it('fails the examples that need a script when --yes-commands is missing', async () => {
      const result = await run(['test-skill', 'node-sum']);
      assert.equal(result.code, 1);
      assert.match(result.out, /^FAIL examples\/adds\.json \([\d.]+ s\)\n {5}the run failed: not run: .*--yes-commands/m);
      assert.match(result.out, /^PASS examples\/needs-b\.json/m, 'an example that fails on its arguments needs no script');
      assert.match(result.out, /node-sum: 1 passed, 2 failed\n$/);
    });

    it('reports each broken or wrong example and still runs the others', async () => {
      const result = await run(['test-skill', 'shout', '--yes-commands', '--json']);
      assert.equal(result.code, 1);
      const report = json<Report>(result);
      const byName = new Map(report.results.map((r) => [r.name, r]));
      assert.equal(byName.get('examples/a-passes.json')?.passed, true);
      assert.equal(byName.get('examples/d-must-fail.json')?.passed, true);
      assert.match(byName.get('examples/b-wrong-output.json')?.message ?? '', /output\.shout: expected "hi", got "HI!"/);
      assert.match(byName.get('examples/c-broken.json')?.message ?? '', /^examples\/c-broken\.json: not valid JSON at line 2, column 33: /);
      assert.match(byName.get('examples/e-typo.json')?.message ?? '', /no key "expected" \(did you mean "expect"\?\)/);
      assert.deepEqual([report.passed, report.failed], [2, 3]);
      const human = await run(['test-skill', 'shout', '--yes-commands']);
      assert.match(human.out, /^FAIL examples\/b-wrong-output\.json .*\n {5}the output does not match expect\.output: output\.shout: expected "hi", got "HI!"\n {5}trace [0-9a-f-]{36}$/m);
      assert.match(human.out, /shout: 2 passed, 3 failed\n$/);
    });

    it('tests HTTP and workflow skills against their examples', async () => {
      const httpResult = await run(['test-skill', 'http-echo', '--yes-commands', '--json']);
      assert.equal(httpResult.code, 0, httpResult.out + httpResult.err);
      assert.equal(invocations.length, 1);
      const workflow = await run(['test-skill', 'sum-then-words', '--yes-commands']);
      assert.equal(workflow.code, 0, workflow.out + workflow.err);
      assert.match(workflow.out, /^PASS examples\/both-steps\.json/m);
    });

    it('checks that an instruction skill binds and that its example queries find it', async () => {
      const good = await run(['test-skill', 'explain-diff', '--json']);
      assert.equal(good.code, 0, good.out + good.err);
      const report = json<Report>(good);
      assert.deepEqual(
        report.results.map((r) => [r.kind, r.name, r.passed]),
        [
          ['binding', 'binding', true],
          ['query', 'explain this git diff', true],
          ['query', 'what does this patch change', true],
        ],
      );
      assert.ok(report.results.filter((r) => r.kind === 'query').every((r) => r.rank !== undefined && r.rank <= 3));

      for (const name of ['meeting-notes', 'notes-of-meetings', 'write-meeting-notes']) {
        const dir = path.join(work, '.agents', 'skills', name);
        fs.mkdirSync(dir);
        const description = 'Writes up meeting notes from a transcript. Use when the user wants the meeting notes written up.';
        fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\nexample_queries:\n  - write up the meeting notes\n---\n\n# Notes\n`);
      }
      const vague = await run(['test-skill', 'vague-notes', '--json']);
      assert.equal(vague.code, 1);
      const [binding, query] = json<Report>(vague).results;
      assert.match(binding?.message ?? '', /does not run as instructions without arguments.*missing required argument/);
      assert.equal(query?.passed, false);
      assert.match(query.message ?? '', /the search ranks "vague-notes" #4 for this query; it must be in the top 3 \(ahead of it: /);
    });

    it('fails a skill with nothing to try, and an unknown skill', async () => {
      const bare = path.join(work, '.agents', 'skills', 'bare');
      fs.mkdirSync(bare);
      fs.writeFileSync(path.join(bare, 'SKILL.md'), '---\nname: bare\ndescription: Does nothing in particular. Use never.\n---\n\n# Bare\n');
      const nothing = await run(['test-skill', 'bare']);
      assert.equal(nothing.code, 1);
      assert.match(nothing.err, /"bare" has nothing to try: add examples\/<name>\.json .*or example_queries/);
      const unknown = await run(['test-skill', 'no-such-skill']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.err, /no-such-skill/);
      assert.match((await run(['test-skill'])).err, /test-skill needs a skill name/);
    });
  });

  describe('headless run', () => {
    let model: ScriptedModelServer;
    beforeEach(async () => {
      model = await ScriptedModelServer.start();
    });
    afterEach(async () => {
      await model.close();
    });

    /** What the agent sent back to the model last: the skill_run result. */
    const lastToolResult = (): string => {
      const content = model.chatRequests.at(-1)?.messages.at(-1)?.content;
      return typeof content === 'string' ? content : JSON.stringify(content);
    };

    const agentRun = (flags: string[]): Promise<CliRun> =>
      run(['run', '-p', 'add two and three', ...flags], { SKILLWRIGHT_BASE_URL: model.baseUrl, SKILLWRIGHT_MODEL: 'scripted', OPENAI_API_KEY: 'sk-test' });

    it('lets the model run a skill with skill_run, scripts only with --yes-commands', async () => {
      const script = (): void => {
        model.on({ user: 'add two and three' }, { toolCalls: [{ id: 'r1', name: 'skill_run', arguments: { name: 'node-sum', arguments: { a: 2, b: 3 } } }] });
        model.on({ toolResult: { toolCallId: 'r1' } }, { text: 'It is 5.' });
      };
      script();
      const allowed = await agentRun(['--yes-commands']);
      assert.equal(allowed.code, 0, allowed.err);
      const result = JSON.parse(lastToolResult()) as { success: boolean; output: { sum: number }; trace_id: string };
      assert.equal(result.success, true);
      assert.equal(result.output.sum, 5);
      const sessions = path.join(dataDir, 'sessions');
      const traceFile = fs.readdirSync(sessions).find((name) => name.endsWith('.traces.jsonl'));
      assert.ok(traceFile, 'the trace is kept beside the session');
      const trace = parseTraceLine(fs.readFileSync(path.join(sessions, traceFile), 'utf8').trim());
      assert.equal(trace?.trace_id, result.trace_id);
      assert.equal(trace.sessionId, traceFile.replace('.traces.jsonl', ''));

      script();
      const refused = await agentRun([]);
      assert.equal(refused.code, 0, refused.err);
      const denied = JSON.parse(lastToolResult()) as { success: boolean; error: string };
      assert.equal(denied.success, false);
      assert.match(denied.error, /--yes-commands/);
    });
  });
});
