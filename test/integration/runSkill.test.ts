import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FormPrompter, FormStep, StepReply } from '../../src/core/execution/inputForm';
import type { ExecutedRun } from '../../src/core/execution/skillExecutor';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { until } from '../harness/until';

const EXTENSION_ID = 'skillwright.skillwright';

const ECHO_SKILL = `---
name: echo-args
description: Echoes the arguments it was given as JSON. Use when testing Run Skill.
version: 1.0.0
entry: scripts/echo.js
permissions: [process:node]
input_schema:
  type: object
  required: [message]
  properties:
    folder:
      type: string
      x-context: workspaceFolder
      description: Where it runs
    message:
      type: string
      description: What to echo back
    count:
      type: number
      minimum: 1
      default: 3
      description: How many times
    mode:
      enum: [quick, thorough]
      default: quick
---

# Echo

Prints its input back.
`;

const ECHO_SCRIPT = `let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const args = JSON.parse(input || '{}');
  if (args.message === 'fail') {
    process.stderr.write('asked to fail\\n');
    process.exit(3);
  }
  process.stdout.write(JSON.stringify({ echo: args }));
});
`;

const ONE_STEP_SKILL = `---
name: one-step
description: Echoes one number. Use when testing the real quick input of Run Skill.
entry: scripts/echo.js
permissions: [process:node]
input_schema:
  type: object
  properties:
    size:
      type: integer
      default: 7
      description: How big
---

# One step
`;

const TUNED_SCHEMA = { type: 'object', properties: { batch_size: { type: 'integer', minimum: 10, maximum: 500, default: 100 } } };
const TUNED = (): { name: string; adaptation: unknown; inputSchema: unknown } => ({ name: 'tuned-batch', adaptation: ADAPTATION, inputSchema: TUNED_SCHEMA });
const ADAPTATION = { strategy: 'script', entry: 'scripts/tune.js', min_signals: 1, tunable_params: { batch_size: { type: 'integer', min: 10, max: 500, default: 100, step: 10 } } };

const TUNED_SKILL = `---
name: tuned-batch
description: Processes items in batches whose size tunes itself. Use when testing tuned values.
version: 2.0.0
entry: scripts/run.js
permissions: [process:node]
input_schema:
  type: object
  properties:
    batch_size:
      type: integer
      minimum: 10
      maximum: 500
      default: 100
adaptation: ${JSON.stringify(ADAPTATION)}
---

# Tuned batch
`;

const TUNED_RUN = `let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => process.stdout.write(JSON.stringify({ processed: JSON.parse(input).batch_size })));
`;

/** Proposes 20 more than the current batch size after every run: one change per run, within the 20 % rule. */
const TUNE_SCRIPT = `let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const current = JSON.parse(input).params.find((p) => p.name === 'batch_size').current;
  process.stdout.write(JSON.stringify({ proposals: [{ param: 'batch_size', value: current + 20, reason: 'larger batches ran faster' }] }));
});
`;

type Reply = StepReply | ((step: FormStep) => StepReply);

/**
 * The test seam of Run Skill…: the real form logic asks each step through this instead of VS Code's
 * quick input, and every step it was shown is kept for the assertions.
 */
function answering(replies: readonly Reply[]): FormPrompter & { steps: FormStep[] } {
  const steps: FormStep[] = [];
  let next = 0;
  return {
    steps,
    ask(step) {
      steps.push(step);
      const reply = replies[next++];
      if (reply === undefined) return Promise.reject(new Error(`no answer for ${step.title} (${step.field.name})`));
      return Promise.resolve(typeof reply === 'function' ? reply(step) : reply);
    },
  };
}

/** The modal's seam: answers with `choice` and records what it was asked. */
function confirming(choice: string | undefined) {
  const asked: { message: string; detail: string; choices: readonly string[] }[] = [];
  return {
    asked,
    confirm: (message: string, detail: string, choices: readonly string[]) => {
      asked.push({ message, detail, choices });
      return Promise.resolve(choice);
    },
  };
}

function notifying(answer?: string) {
  const shown: { kind: string; message: string; buttons: readonly string[] }[] = [];
  return {
    shown,
    notify: (kind: 'info' | 'error', message: string, buttons: readonly string[]) => {
      shown.push({ kind, message, buttons });
      return Promise.resolve(answer);
    },
  };
}

describe('Run Skill… (form, approval, result, preview of runs and tuned values)', () => {
  let api: SkillwrightApi;
  let folder: string;
  const dirs: string[] = [];
  let tunedDir = '';

  const runSkill = (args: Record<string, unknown>) => vscode.commands.executeCommand<ExecutedRun | undefined>('skillwright.runSkill', args);
  const tracesOf = async (skill: string) => (await api.execution.traces.list({ skill })).filter((trace) => trace.skill === skill);

  function writeSkill(name: string, text: string, scripts: Record<string, string>): string {
    const dir = path.join(folder, '.agents', 'skills', 'runs', name);
    fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
    for (const [file, body] of Object.entries(scripts)) fs.writeFileSync(path.join(dir, 'scripts', file), body);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), text);
    dirs.push(dir);
    return dir;
  }

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    const sample = vscode.workspace.workspaceFolders?.find((f) => f.name === 'sample');
    assert.ok(sample);
    folder = sample.uri.fsPath;
    writeSkill('echo-args', ECHO_SKILL, { 'echo.js': ECHO_SCRIPT });
    tunedDir = writeSkill('tuned-batch', TUNED_SKILL, { 'run.js': TUNED_RUN, 'tune.js': TUNE_SCRIPT });
    writeSkill('one-step', ONE_STEP_SKILL, { 'echo.js': ECHO_SCRIPT });
    await api.skills.reindex();
    await until('the skills in the index', () => ['echo-args', 'tuned-batch', 'one-step'].every((name) => api.skills.skillIndex.byName(name).length > 0));
    await api.chat.clearApprovals();
  });

  after(async () => {
    api.preview.close();
    await api.chat.clearApprovals();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const dir of dirs) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    await api.skills.reindex();
  });

  it('runs a script skill through its form: steps from input_schema, Back, a refused number, the context prefilled', async () => {
    const prompter = answering([
      (step) => {
        assert.equal(step.title, 'Run echo-args (1/4)');
        assert.equal(step.prompt, 'What to echo back (required)');
        return { type: 'text', text: 'hello from the form' };
      },
      (step) => {
        assert.equal(step.title, 'Run echo-args (2/4)');
        assert.equal(step.value, '3', 'the default is in the box');
        return { type: 'text', text: 'many' };
      },
      (step) => {
        assert.match(step.error ?? '', /count must be a number, got "many"/);
        return { type: 'text', text: '5' };
      },
      (step) => {
        assert.deepEqual(step.field.options?.map((o) => o.label), ['quick', 'thorough']);
        assert.equal(step.activeOption, 0);
        return { type: 'back' };
      },
      (step) => {
        assert.equal(step.title, 'Run echo-args (2/4)');
        assert.equal(step.value, '5', 'Back shows the earlier answer');
        return { type: 'text', text: '5' };
      },
      { type: 'pick', option: 1 },
      (step) => {
        assert.equal(step.title, 'Run echo-args (4/4)');
        assert.equal(step.value, folder, 'bound from the workspace folder and prefilled');
        assert.match(step.placeholder, /leave it to use the workspace folder/);
        return { type: 'text', text: step.value };
      },
    ]);
    const modal = confirming('Always Allow Here');
    const result = notifying('Show Output');
    const run = await runSkill({ name: 'echo-args', prompter, confirm: modal.confirm, notify: result.notify });
    assert.ok(run, 'the command resolves with the run');
    assert.equal(run.success, true, run.error ?? '');
    assert.deepEqual(run.output, { echo: { message: 'hello from the form', count: 5, mode: 'thorough', folder } });
    assert.equal(prompter.steps.length, 7);

    assert.equal(modal.asked.length, 1, 'asked once, before the script ran');
    assert.equal(modal.asked[0]?.message, 'Run the script of "echo-args"?');
    assert.deepEqual(modal.asked[0]?.choices, ['Allow Once', 'Allow for This Session', 'Always Allow Here']);
    assert.match(modal.asked[0]?.detail ?? '', /scripts\/echo\.js/);
    assert.match(modal.asked[0]?.detail ?? '', /"count": 5/);

    const trace = (await tracesOf('echo-args')).find((t) => t.trace_id === run.trace_id);
    assert.ok(trace, 'the run left a trace');
    assert.equal(trace.origin, 'palette');
    assert.equal(trace.success, true);

    assert.deepEqual(result.shown[0]?.buttons, ['Show Output', 'Show Trace']);
    assert.match(result.shown[0]?.message ?? '', /^echo-args: \{"echo":\{"message":"hello from the form"/);
    // "Show Output" was clicked: the full output opens as an untitled JSON document.
    const document = await until('the output document', () =>
      vscode.workspace.textDocuments.find((doc) => doc.isUntitled && doc.languageId === 'json' && doc.getText().includes('"hello from the form"')),
    );
    assert.deepEqual(JSON.parse(document.getText()), run.output);
  });

  it('drives the real quick input once: Enter on the prefilled step runs the skill, Escape cancels the form', async () => {
    // Without a prompter the command shows VS Code's own input box. The box appears some time after
    // the command starts, and a test cannot see it; so Enter (Escape) is pressed until the command
    // has resolved. Before the box shows, either key does nothing.
    const pressUntilSettled = async <T>(command: string, pending: PromiseLike<T>): Promise<T> => {
      let settled = false;
      const tracked = Promise.resolve(pending).finally(() => (settled = true));
      await until(`the quick input to take ${command}`, async () => {
        if (!settled) await vscode.commands.executeCommand(command);
        return settled;
      });
      return tracked;
    };
    const modal = confirming('Allow Once');
    const run = await pressUntilSettled('workbench.action.acceptSelectedQuickOpenItem', runSkill({ name: 'one-step', confirm: modal.confirm, notify: notifying().notify }));
    assert.equal(run?.success, true, run?.error ?? '');
    assert.deepEqual(run?.output, { echo: { size: 7 } }, 'the default, left as it was');
    assert.equal(modal.asked.length, 1);

    const before = (await tracesOf('one-step')).length;
    const cancelled = await pressUntilSettled('workbench.action.closeQuickOpen', runSkill({ name: 'one-step', confirm: modal.confirm }));
    assert.equal(cancelled, undefined);
    assert.equal(modal.asked.length, 1, 'nothing was asked after Escape');
    assert.equal((await tracesOf('one-step')).length, before, 'and nothing ran');
  });

  it('shares grants with the chat: "Always Allow Here" covers the next run, and clearing the chat\'s approvals asks again', async () => {
    const modal = confirming('Allow Once');
    const result = notifying();
    const before = (await tracesOf('echo-args')).length;
    const granted = await runSkill({ name: 'echo-args', arguments: { message: 'again' }, confirm: modal.confirm, notify: result.notify });
    assert.equal(granted?.success, true);
    assert.deepEqual(granted?.output, { echo: { message: 'again', count: 3, mode: 'quick', folder } }, 'explicit arguments skip the form; defaults and context fill the rest');
    assert.equal(modal.asked.length, 0, 'the grant of the first run covered this one');
    const status = await api.status.collect();
    assert.ok(status.approvals?.always.some((entry) => entry.includes('echo-args: scripts/echo.js')), `the grant is in the chat's policy: ${JSON.stringify(status.approvals?.always)}`);

    await api.chat.clearApprovals();
    const failed = await runSkill({ name: 'echo-args', arguments: { message: 'fail' }, confirm: modal.confirm, notify: result.notify });
    assert.equal(modal.asked.length, 1, 'with the grants gone, the modal asks again');
    assert.equal(failed?.success, false);
    assert.match(failed?.error ?? '', /exited with code 3: asked to fail/);
    const shown = result.shown.at(-1);
    assert.equal(shown?.kind, 'error');
    assert.deepEqual(shown?.buttons, ['Show Trace']);
    assert.match(shown?.message ?? '', /echo-args failed: .*exited with code 3/);

    const declined = confirming(undefined);
    const refused = await runSkill({ name: 'echo-args', arguments: { message: 'no' }, confirm: declined.confirm, notify: result.notify });
    assert.equal(declined.asked.length, 1);
    assert.equal(refused?.success, false);
    assert.match(refused?.error ?? '', /not run: the user declined/);
    assert.equal((await tracesOf('echo-args')).length, before + 3, 'every run, refused ones too, has a trace');
  });

  it('Escape in the form ends it without running anything', async () => {
    const before = (await tracesOf('echo-args')).length;
    const modal = confirming('Allow Once');
    const run = await runSkill({ name: 'echo-args', prompter: answering([{ type: 'text', text: 'x' }, { type: 'cancel' }]), confirm: modal.confirm });
    assert.equal(run, undefined);
    assert.equal(modal.asked.length, 0);
    assert.equal((await tracesOf('echo-args')).length, before);
  });

  it('previews a tuned skill with its runs, tuned values and history; Revert goes back; a run refreshes it', async () => {
    const modal = confirming('Allow for This Session');
    const first = await runSkill({ name: 'tuned-batch', prompter: answering([{ type: 'text', text: '100' }]), confirm: modal.confirm, notify: notifying().notify });
    assert.equal(first?.success, true, first?.error ?? '');
    assert.deepEqual(first?.output, { processed: 100 });
    await until('the tuning script to move batch_size', () => api.execution.tuning.view(TUNED()).changes.length > 0);

    const file = path.join(tunedDir, 'SKILL.md');
    await vscode.commands.executeCommand('skillwright.openSkillPreview', vscode.Uri.file(file));
    const runtime = await until('the runtime part of the preview', () => api.preview.current?.file === file && api.preview.current.runtime);
    assert.equal(runtime.kind, 'script');
    assert.equal(runtime.version, '2.0.0');
    assert.deepEqual(runtime.runs.map((run) => [run.traceId, run.success]), [[first.trace_id, true]]);
    assert.match(runtime.health, /^1 run · 100% ok/);
    const tuning = runtime.tuning;
    assert.ok(tuning);
    assert.deepEqual(tuning.params, [{ name: 'batch_size', type: 'integer', default: '100', bounds: '10 to 500, step 10', current: '120', tuned: true }]);
    const change = tuning.changes[0];
    assert.ok(change);
    assert.deepEqual([change.from, change.to, change.reason, change.source], ['100', '120', 'larger batches ran faster', 'script']);

    await api.preview.receive({ type: 'preview/revertTuning', changeId: change.id });
    const reverted = await until('the reverted value in the preview', () => {
      const now = api.preview.current?.runtime?.tuning;
      return now?.params[0]?.current === '100' && now;
    });
    assert.equal(reverted.params[0]?.tuned, false);
    assert.ok(reverted.changes.find((c) => c.id === change.id)?.revertedAt !== undefined, 'the change is kept, marked reverted');
    assert.equal(api.execution.tuning.view(TUNED()).values['batch_size'], 100, 'the next run binds the value from before the change');

    const second = await runSkill({ name: 'tuned-batch', arguments: {}, confirm: modal.confirm, notify: notifying().notify });
    assert.deepEqual(second?.output, { processed: 100 });
    assert.equal(modal.asked.length, 1, '"Allow for This Session" covered the second run');
    const refreshed = await until('the preview to show the new run', () => api.preview.current?.runtime?.runs.length === 2 && api.preview.current.runtime);
    assert.equal(refreshed.runs[0]?.traceId, second?.trace_id);
  });

  it('says why a broken skill cannot run before asking anything', async () => {
    const result = notifying();
    const broken = writeSkill('no-permissions', ECHO_SKILL.replace('name: echo-args', 'name: no-permissions').replace('entry: scripts/echo.js\n', 'entry: scripts/echo.js\nendpoint: https://example.com/run\n'), {});
    await api.skills.reindex();
    await until('the broken skill in the index', () => api.skills.skillIndex.byName('no-permissions').length > 0);
    const prompter = answering([]);
    const run = await runSkill({ name: 'no-permissions', prompter, notify: result.notify });
    assert.equal(run, undefined);
    assert.equal(prompter.steps.length, 0, 'no form for a skill that cannot run');
    assert.match(result.shown[0]?.message ?? '', /"no-permissions" cannot run: the skill declares entry and endpoint; a skill runs one way/);
    fs.rmSync(broken, { recursive: true, force: true });
  });
});
