import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { ChatItem } from '../../src/shared/protocol';
import { parseHostTraceMessage } from '../../src/shared/traceProtocol';
import { ScriptedModelServer } from '../fakes/scriptedModelServer';
import { until } from '../harness/until';

type Of<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>;

const ECHO = `---
name: trace-echo
description: Echoes a word back with its length. Use when testing skill runs.
version: 1.0.0
entry: scripts/run.js
permissions:
  commands: true
input_schema:
  type: object
  required: [text]
  properties:
    text: { type: string, description: The word to echo }
---
# Echo
`;

const ECHO_SCRIPT = `const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const args = JSON.parse(Buffer.concat(chunks).toString() || '{}');
  process.stdout.write(JSON.stringify({ success: true, output: { echoed: args.text, length: String(args.text).length } }));
});
`;

const PAIR = `---
name: trace-pair
description: Echoes a word, then echoes the first echo again. Use when testing workflows.
input_schema:
  type: object
  properties:
    word: { type: string, default: ping, description: The word }
workflow:
  - step: first
    skill: trace-echo@^1.0
    with: { text: "\${input.word}" }
  - step: second
    skill: trace-echo
    with: { text: "again \${steps.first.output.echoed}" }
---
# Pair
`;

describe('skill runs in a real VS Code: workflow steps in the chat, and the trace panel', () => {
  let api: SkillwrightApi;
  let server: ScriptedModelServer;
  let skillsDir: string;
  const config = () => vscode.workspace.getConfiguration('skillwright');
  let original: { baseUrl?: string; model?: string } = {};
  const items = () => api.chat.items;
  const last = <K extends ChatItem['kind']>(kind: K) => items().filter((i): i is Of<K> => i.kind === kind).at(-1);
  const turnsDone = () => items().filter((i) => i.kind === 'turn').length;
  let traceId = '';

  before(async () => {
    original = { baseUrl: config().inspect<string>('model.baseUrl')?.globalValue, model: config().inspect<string>('model.name')?.globalValue };
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === 'sample');
    assert.ok(folder, 'the sample folder is open');
    skillsDir = path.join(folder.uri.fsPath, '.agents', 'skills', 'exec');
    fs.mkdirSync(path.join(skillsDir, 'trace-echo', 'scripts'), { recursive: true });
    fs.mkdirSync(path.join(skillsDir, 'trace-pair'), { recursive: true });
    fs.writeFileSync(path.join(skillsDir, 'trace-echo', 'SKILL.md'), ECHO);
    fs.writeFileSync(path.join(skillsDir, 'trace-echo', 'scripts', 'run.js'), ECHO_SCRIPT);
    fs.writeFileSync(path.join(skillsDir, 'trace-pair', 'SKILL.md'), PAIR);
    // Watchers may miss files written right after their folder: a reindex reads them for certain.
    await api.skills.reindex();
    await until('both skills in the index', () => api.skills.skillIndex.get('trace-echo') && api.skills.skillIndex.get('trace-pair'));
    server = await ScriptedModelServer.start({ models: ['scripted-exec'] });
    await vscode.commands.executeCommand('skillwright.configureModel', { baseUrl: server.baseUrl, model: 'scripted-exec', apiKey: '', skipTest: true });
    await api.chat.newChat();
  });

  after(async () => {
    api.traceView.close();
    await api.chat.newChat();
    await api.chat.clearApprovals();
    await config().update('model.baseUrl', original.baseUrl, vscode.ConfigurationTarget.Global);
    await config().update('model.name', original.model, vscode.ConfigurationTarget.Global);
    await server.close();
    fs.rmSync(skillsDir, { recursive: true, force: true });
    await api.skills.reindex();
  });

  it('runs a workflow with skill_run: each step is a nested card, live while it runs, with its state at the end', async () => {
    server.on({ user: 'run the pair workflow' }, { toolCalls: [{ name: 'skill_run', arguments: { name: 'trace-pair', arguments: { word: 'ping' } } }] });
    server.on({ toolResult: { content: 'trace_id' } }, { text: 'Both echoes ran.' });
    const before = turnsDone();
    api.panel.receive({ type: 'chat/send', text: 'run the pair workflow' });

    // Each step's script asks first; while it waits, its card already shows the step running.
    const seenWhileAsked: string[][] = [];
    for (const expected of ['first', 'second']) {
      const card = await until(`the approval of step ${expected}`, () => {
        const item = last('approval');
        return item?.state === 'pending' && item.tool === 'run_skill' && item;
      });
      assert.match(card.summary, /^trace-echo: run the script scripts\/run\.js/);
      const tool = last('tool');
      assert.ok(tool);
      assert.equal(tool.name, 'skill_run');
      assert.equal(tool.state, 'running');
      seenWhileAsked.push((tool.steps ?? []).map((step) => `${step.id}:${step.state}`));
      api.panel.receive({ type: 'chat/approve', id: card.id, answer: 'allow_once' });
      await until('the answer to be taken', () => items().find((i) => i.id === card.id && i.kind === 'approval' && i.state === 'allow_once'));
    }
    assert.deepEqual(seenWhileAsked, [['first:running'], ['first:success', 'second:running']]);

    await until('the turn to end', () => turnsDone() > before);
    await api.chat.idle();
    assert.equal(last('turn')?.reason, 'stop');
    assert.match(last('assistant')?.text ?? '', /Both echoes ran/);
    const tool = last('tool');
    assert.ok(tool);
    assert.equal(tool.state, 'done', tool.result);
    assert.deepEqual(tool.skill, { name: 'trace-pair', action: 'ran' });
    const steps = tool.steps ?? [];
    assert.deepEqual(
      steps.map((step) => [step.id, step.skill, step.state, step.parent ?? null]),
      [
        ['first', 'trace-echo@^1.0', 'success', null],
        ['second', 'trace-echo', 'success', null],
      ],
    );
    assert.ok(steps.every((step) => typeof step.durationMs === 'number'), 'every step has its time');
    assert.match(tool.traceId ?? '', /^[0-9a-f-]{36}$/);
    traceId = tool.traceId ?? '';
    assert.match(tool.result ?? '', /"echoed":"again ping"/);
  });

  it('opens the run as a timeline from the command with the trace id, in a strict webview that says ready', async () => {
    assert.ok(traceId, 'the first test ran');
    const shown = await vscode.commands.executeCommand<string | undefined>('skillwright.showTrace', { traceId });
    assert.equal(shown, traceId);
    const state = await until('the trace page to load and show the run', () => {
      const now = api.traceView.state();
      return now.ready && now.trace?.traceId === traceId && now;
    });
    const trace = state.trace;
    assert.ok(trace);
    assert.equal(trace.skill, 'trace-pair');
    assert.equal(trace.kind, 'workflow');
    assert.equal(trace.success, true);
    assert.equal(trace.origin, 'chat');
    assert.deepEqual(trace.calledSkills, ['trace-echo']);
    assert.deepEqual(trace.steps.map((step) => [step.id, step.status, step.attempts.length]), [['first', 'success', 1], ['second', 'success', 1]]);
    const [first, second] = trace.steps;
    assert.ok(first && second && second.offsetMs >= first.offsetMs + first.durationMs, 'the second step starts after the first, whose output it uses');
    assert.ok(parseHostTraceMessage({ type: 'trace/show', trace }).ok, 'the model passes the page\'s protocol check');

    const html = api.traceView.html ?? '';
    assert.match(html, /script-src 'nonce-[A-Za-z0-9+/=]{24}'/);
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
    assert.match(html, /trace\.js/);
    const tab = vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label === 'Trace: trace-pair');
    assert.ok(tab, 'a webview tab titled after the skill');
  });

  it('opens it from the chat card\'s Show trace, and from a pick of the runs of a skill the workflow called', async () => {
    api.traceView.close();
    assert.equal(api.traceView.state().open, false);
    api.panel.receive({ type: 'chat/showTrace', traceId });
    await until('the trace from the chat card', () => api.traceView.state().ready && api.traceView.state().trace?.traceId === traceId);

    api.traceView.close();
    let picked: string | undefined | null = null;
    void vscode.commands.executeCommand<string | undefined>('skillwright.showTrace', { skill: 'trace-echo' }).then((value) => (picked = value));
    // The pick lists the newest run first; accept it once the pick is up (accepting with none up does nothing).
    await until('the pick to take the newest run', async () => {
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return picked !== null;
    });
    assert.equal(picked, traceId, 'the workflow run is among the runs of the skill it called');
    await until('the picked trace', () => api.traceView.state().trace?.traceId === traceId);
  });

  it('refuses an unknown trace id and a malformed page message without changing what is shown', async () => {
    const result = await vscode.commands.executeCommand<string | undefined>('skillwright.showTrace', { traceId: 'no-such-trace' });
    assert.equal(result, undefined);
    assert.equal(api.traceView.state().trace?.traceId, traceId);
    const dropped = api.traceView.droppedMessageCount;
    await api.traceView.receive({ type: 'trace/pickRun', skill: 7 });
    await api.traceView.receive({ type: 'trace/delete' });
    assert.equal(api.traceView.droppedMessageCount, dropped + 2);
    assert.equal(api.traceView.state().trace?.traceId, traceId);
  });
});
