import * as vscode from 'vscode';
import type { ApprovalPolicy } from '../../core/agent/approvals';
import type { ApprovalPrompt } from '../../core/agent/approvalGate';
import { createApprovalGate } from '../../core/agent/approvalGate';
import { gateRunApproval } from '../../core/agent/runApproval';
import type { Logger } from '../../core/base/logger';
import { runsSomething } from '../../core/execution/executableSkill';
import type { RunApproval } from '../../core/execution/executionTypes';
import type { FormPrompter, FormStep, StepReply } from '../../core/execution/inputForm';
import { buildInputForm, runInputForm } from '../../core/execution/inputForm';
import type { ExecutedRun } from '../../core/execution/skillExecutor';
import { indexSkillLoader } from '../../core/execution/skillLoader';
import type { ApprovalAnswer } from '../../core/toolkit/agentTool';
import { clipEnd, clipLine } from '../../core/text/clip';
import type { SkillService } from '../skills/skillService';
import type { ExecutionService } from './executionService';

/** The modal's buttons, in the order of the chat's approval card. */
export const APPROVAL_CHOICES = { 'Allow Once': 'allow_once', 'Allow for This Session': 'allow_session', 'Always Allow Here': 'allow_always' } as const satisfies Record<string, ApprovalAnswer>;
export const SHOW_OUTPUT = 'Show Output';
export const SHOW_TRACE = 'Show Trace';
const SUMMARY_CHARS = 200;
const DETAIL_ARGUMENT_CHARS = 1_500;

/** Asks before a script runs or an endpoint is called: VS Code's modal warning, or a test's answer. */
export type ConfirmRun = (message: string, detail: string, choices: readonly string[]) => PromiseLike<string | undefined>;
/** Tells how a run went, with buttons: VS Code's notification, or a test's recorder. */
export type NotifyRun = (kind: 'info' | 'error', message: string, buttons: readonly string[]) => PromiseLike<string | undefined>;

/**
 * What `skillwright.runSkill` takes from scripts, menus and tests. `request` sends the skill to the
 * chat as an explicit turn; `arguments` runs it without the form. The three seams replace only how
 * the person is asked (the form's steps, the modal, the result message); everything behind them,
 * from the step logic to the grants in the shared approval policy, is the real thing. Tests feed
 * answers through `prompter` instead of driving the workbench's quick input, whose focus and timing
 * a test in the extension host cannot observe.
 */
export interface RunSkillArgs {
  readonly name?: string;
  readonly request?: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly prompter?: FormPrompter;
  readonly confirm?: ConfirmRun;
  readonly notify?: NotifyRun;
}

export function readRunSkillArgs(value: unknown): RunSkillArgs | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof vscode.Uri) return undefined;
  const record = value as Record<string, unknown>;
  const isFunctionOrNone = (key: string, method?: string): boolean => {
    const item = record[key];
    return item === undefined || (method === undefined ? typeof item === 'function' : typeof item === 'object' && item !== null && typeof (item as Record<string, unknown>)[method] === 'function');
  };
  const args = record['arguments'];
  const ok =
    (record['name'] === undefined || typeof record['name'] === 'string') &&
    (record['request'] === undefined || typeof record['request'] === 'string') &&
    (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))) &&
    isFunctionOrNone('prompter', 'ask') &&
    isFunctionOrNone('confirm') &&
    isFunctionOrNone('notify');
  return ok ? record : undefined;
}

export interface RunSkillDeps {
  readonly skills: SkillService;
  readonly execution: ExecutionService;
  /** The window's one policy: a grant given here covers the chat's skill_run, and the other way round. */
  readonly policy: ApprovalPolicy;
  readonly logger: Logger;
  /** Instruction skills (and any skill with a `request`) go to the chat as an explicit turn. */
  readonly toChat: (name: string, request?: string) => Promise<unknown>;
}

/**
 * Run Skill… for one named skill: instruction skills go to the chat; executable skills get a form
 * from their `input_schema`, a modal approval through the shared policy, a cancellable progress
 * notification, and a result message. Resolves with the run (undefined when nothing ran).
 */
export async function runNamedSkill(deps: RunSkillDeps, name: string, args: RunSkillArgs = {}): Promise<unknown> {
  if (args.request !== undefined) return deps.toChat(name, args.request);
  await deps.skills.ready;
  const loaded = await indexSkillLoader(deps.skills.skillIndex, deps.skills.fs)(name);
  const notify = args.notify ?? defaultNotify;
  if (!loaded.ok) {
    void notify('error', `Skillwright: "${name}" cannot run: ${loaded.error}`, []);
    return undefined;
  }
  const skill = loaded.skill;
  // Named by a caller (the Skills tab), the turn starts at once; picked in the palette, the chat asks what it should do.
  if (skill.kind === 'instructions') return deps.toChat(skill.name, args.name !== undefined ? '' : undefined);
  if (skill.problems.length > 0) {
    void notify('error', `Skillwright: "${skill.name}" cannot run: ${skill.problems.join('; ')}`, []);
    return undefined;
  }
  if (runsSomething(skill) && !vscode.workspace.isTrusted) {
    // The executor would refuse the same way, but only after the form: say it before anything is asked.
    void notify('error', `Skillwright: "${skill.name}" was not run: this workspace is in Restricted Mode, where no script or endpoint runs. Trust the folder with "Manage Workspace Trust" first.`, []);
    return undefined;
  }

  let explicit: Readonly<Record<string, unknown>>;
  if (args.arguments !== undefined) {
    explicit = args.arguments;
  } else {
    await deps.execution.tuning.ready;
    const form = buildInputForm(skill.inputSchema, { context: deps.execution.contextVariables(), ...tunedOf(deps, skill) });
    if (form.error !== undefined) {
      void notify('error', `Skillwright: "${skill.name}" cannot run: ${form.error}`, []);
      return undefined;
    }
    const answered = await runInputForm(skill.name, form, args.prompter ?? quickInputPrompter());
    if (!answered.ok) {
      deps.logger.info(`Run Skill: ${skill.name} was cancelled in the form`);
      return undefined;
    }
    explicit = answered.arguments;
  }

  const approve = modalRunApproval(deps.policy, args.confirm ?? defaultConfirm);
  const run = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Running ${skill.name}`, cancellable: true },
    async (progress, token) => {
      const stop = new AbortController();
      // Aborting kills the script's whole process group (see NodeScriptPort).
      const cancelled = token.onCancellationRequested(() => stop.abort());
      try {
        return await deps.execution.run(skill.name, explicit, {
          origin: 'palette',
          approve,
          signal: stop.signal,
          onProgress: (step) => progress.report({ message: `${step.id}: ${step.state === 'running' ? 'running' : step.state.replace('_', ' ')}` }),
        });
      } finally {
        cancelled.dispose();
      }
    },
  );
  void reportRun(run, notify, deps.logger);
  return run;
}

function tunedOf(deps: RunSkillDeps, skill: Parameters<ExecutionService['tuning']['valuesFor']>[0]): { tuned?: Readonly<Record<string, unknown>> } {
  const tuned = deps.execution.tuning.valuesFor(skill);
  return tuned ? { tuned } : {};
}

/** The executor's approval through the chat's gate and grants, asked with a modal dialog. */
export function modalRunApproval(policy: ApprovalPolicy, confirm: ConfirmRun): RunApproval {
  const gate = createApprovalGate(policy, async (prompt) => {
    const choice = await confirm(approvalMessage(prompt), approvalDetail(prompt), Object.keys(APPROVAL_CHOICES));
    return choice !== undefined && Object.hasOwn(APPROVAL_CHOICES, choice) ? APPROVAL_CHOICES[choice as keyof typeof APPROVAL_CHOICES] : 'deny';
  });
  return gateRunApproval(gate);
}

function approvalMessage(prompt: ApprovalPrompt): string {
  const args = record(prompt.args);
  const skill = typeof args['skill'] === 'string' ? args['skill'] : 'this skill';
  return /call the endpoint/.test(prompt.summary) ? `Call the endpoint of "${skill}"?` : `Run the script of "${skill}"?`;
}

function approvalDetail(prompt: ApprovalPrompt): string {
  const args = record(prompt.args);
  const shown = JSON.stringify(args['arguments'] ?? {}, null, 2);
  const permissions = args['permissions'] === undefined ? 'none declared' : clipLine(JSON.stringify(args['permissions']), 300);
  return [
    prompt.summary,
    `Arguments:\n${clipEnd(shown, DETAIL_ARGUMENT_CHARS)}`,
    `Permissions: ${permissions}`,
    '"Allow for This Session" and "Always Allow Here" cover this skill with this script or endpoint, in the chat too.',
  ].join('\n\n');
}

const defaultConfirm: ConfirmRun = (message, detail, choices) => vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices);

const defaultNotify: NotifyRun = (kind, message, buttons) =>
  kind === 'info' ? vscode.window.showInformationMessage(message, ...buttons) : vscode.window.showErrorMessage(message, ...buttons);

/** The result message; not awaited by the command, since it stays up until the person answers. */
async function reportRun(run: ExecutedRun, notify: NotifyRun, logger: Logger): Promise<void> {
  const skill = run.trace.skill;
  const choice = run.success
    ? await notify('info', `${skill}: ${outputSummary(run.output)}`, [SHOW_OUTPUT, SHOW_TRACE])
    : await notify('error', `Skillwright: ${skill} failed: ${clipLine(run.error ?? 'no error message', 400)}`, [SHOW_TRACE]);
  try {
    if (choice === SHOW_OUTPUT) await showOutput(run.output);
    if (choice === SHOW_TRACE) await vscode.commands.executeCommand('skillwright.showTrace', { traceId: run.trace_id });
  } catch (error) {
    logger.warn(`Run Skill: ${choice ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The first characters of the output, on one line: a string as it is, anything else as JSON. */
export function outputSummary(output: unknown): string {
  const text = typeof output === 'string' ? output : jsonText(output);
  return text.trim() === '' ? '(no output)' : clipLine(text, SUMMARY_CHARS);
}

/** The full output in an untitled document: JSON, unless the output is text that is not JSON. */
async function showOutput(output: unknown): Promise<void> {
  let content = jsonText(output, 2);
  let language = 'json';
  if (typeof output === 'string') {
    try {
      content = JSON.stringify(JSON.parse(output), null, 2);
    } catch {
      content = output;
      language = 'plaintext';
    }
  }
  const document = await vscode.workspace.openTextDocument({ language, content });
  await vscode.window.showTextDocument(document, { preview: true });
}

// ---- The form in VS Code's quick input ----------------------------------------------------------

/** Each step as an input box or a quick pick, with Back on every step but the first; Escape cancels. */
export function quickInputPrompter(): FormPrompter {
  return { ask: (step) => (step.field.options ? askPick(step) : askText(step)) };
}

function withNotes(step: FormStep, text: string): string {
  return step.notes.length > 0 ? `${text} — ${step.notes.join(' ')}` : text;
}

function askText(step: FormStep): Promise<StepReply> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    box.title = step.title;
    box.prompt = withNotes(step, step.prompt);
    box.placeholder = step.placeholder;
    box.value = step.value;
    box.ignoreFocusOut = true;
    box.buttons = step.canGoBack ? [vscode.QuickInputButtons.Back] : [];
    box.validationMessage = step.error;
    const listeners: vscode.Disposable[] = [];
    let done = false;
    const finish = (reply: StepReply): void => {
      if (done) return;
      done = true;
      for (const listener of listeners) listener.dispose();
      box.dispose();
      resolve(reply);
    };
    listeners.push(
      box.onDidChangeValue((text) => (box.validationMessage = step.validate(text))),
      box.onDidAccept(() => {
        const problem = step.validate(box.value);
        if (problem !== undefined) box.validationMessage = problem;
        else finish({ type: 'text', text: box.value });
      }),
      box.onDidTriggerButton((button) => button === vscode.QuickInputButtons.Back && finish({ type: 'back' })),
      box.onDidHide(() => finish({ type: 'cancel' })),
    );
    box.show();
  });
}

type OptionItem = vscode.QuickPickItem & { readonly index: number };

function askPick(step: FormStep): Promise<StepReply> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<OptionItem>();
    const initial = step.field.initial;
    const source = initial?.source === 'context' ? `from ${step.field.boundFrom ?? 'the context'}` : initial?.source;
    const items = (step.field.options ?? []).map((option, index): OptionItem => {
      const marked = initial !== undefined && option.value !== undefined && JSON.stringify(option.value) === JSON.stringify(initial.value);
      return { label: option.label, index, ...(marked && source ? { description: `(${source})` } : {}) };
    });
    pick.title = step.title;
    pick.placeholder = withNotes(step, step.error ?? step.prompt);
    pick.items = items;
    const active = items[step.activeOption];
    if (active) pick.activeItems = [active];
    pick.ignoreFocusOut = true;
    pick.buttons = step.canGoBack ? [vscode.QuickInputButtons.Back] : [];
    const listeners: vscode.Disposable[] = [];
    let done = false;
    const finish = (reply: StepReply): void => {
      if (done) return;
      done = true;
      for (const listener of listeners) listener.dispose();
      pick.dispose();
      resolve(reply);
    };
    listeners.push(
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
        if (chosen) finish({ type: 'pick', option: chosen.index });
      }),
      pick.onDidTriggerButton((button) => button === vscode.QuickInputButtons.Back && finish({ type: 'back' })),
      pick.onDidHide(() => finish({ type: 'cancel' })),
    );
    pick.show();
  });
}

/** JSON.stringify gives undefined for undefined and functions, whatever its declared type says. */
function jsonText(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) as string | undefined;
  return json ?? String(value);
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
