import * as vscode from 'vscode';
import type { ApprovalPolicy } from '../core/agent/approvals';
import type { CommandId } from '../core/base/contributions';
import { COMMANDS, VIEWS } from '../core/base/contributions';
import type { DisposableStore } from '../core/base/disposableStore';
import type { Logger } from '../core/base/logger';
import { manageApprovals } from './approvals/approvalStore';
import type { ChatController } from './chat/chatController';
import type { CommandFailureUi, CommandHandler } from './commandGuard';
import { guardCommand } from './commandGuard';
import type { ModelSetup, ModelSetupArgs } from './models/modelSetup';
import type { PanelViewProvider } from './panel/panelViewProvider';
import type { SkillPreviewPanel } from './preview/skillPreviewPanel';
import type { SaveAsSkill } from './saveAsSkill/saveAsSkill';
import { isSaveAsSkillArgs } from './saveAsSkill/saveAsSkillArgs';
import { isNewSkillArgs } from './skills/newSkillWizard';
import type { SkillActions } from './skills/skillActions';
import { refuseAwaitingConsent } from './skills/skillActions';
import { isOpenSkillArgs, SkillPicker } from './skills/skillPicker';
import type { SkillService } from './skills/skillService';
import type { TraceView } from './execution/traceView';
import type { ExecutionService } from './execution/executionService';
import { readRunSkillArgs, runNamedSkill } from './execution/runSkillForm';
import type { TriggerTestCommand } from './skills/triggerTestCommand';
import type { SharingService } from './sharing/sharingService';
import { isImportArgs } from './sharing/importFlow';
import { isRelocateArgs } from './sharing/relocateAction';
import { isRestoreArgs } from './sharing/restoreAction';
import { isUpdateArgs } from './sharing/updateFlow';
import type { ProjectConsent } from './skills/projectConsent';

/** What the commands act on; all of it is created by activateSkillwright. */
export interface CommandDeps {
  readonly extensionId: string;
  readonly logger: Logger;
  readonly showLogs: () => void;
  readonly panel: PanelViewProvider;
  readonly skills: SkillService;
  readonly skillActions: SkillActions;
  readonly preview: SkillPreviewPanel;
  readonly models: ModelSetup;
  readonly chat: ChatController;
  readonly policy: ApprovalPolicy;
  readonly saveAsSkill: SaveAsSkill;
  /** Runs executable skills for Run Skill… (the chat reaches it through its own tools). */
  readonly execution: ExecutionService;
  /** The Skill Run Trace panel: a run's timeline, or a pick of the recent runs. */
  readonly traceView: TraceView;
  /** Test Triggering: does the model load a skill for the requests it is meant for? */
  readonly triggerTests: TriggerTestCommand;
  /** Import Skills…, Check for Skill Updates, Restore Skills from Lock, Copy/Move to .agents/skills. */
  readonly sharing: SharingService;
  /** Consent for project skills: "Review Project Skills…" reopens its card. */
  readonly consent: ProjectConsent;
}

/** A handler per command of the manifest; typed by `CommandId`, so a command without one does not compile. */
export function commandHandlers(deps: CommandDeps): Record<CommandId, CommandHandler> {
  const { panel, skills, skillActions, preview, models, chat, policy, saveAsSkill, logger } = deps;
  return {
    [COMMANDS.openPanel]: () => vscode.commands.executeCommand(`${VIEWS.panel}.focus`),
    [COMMANDS.showLogs]: () => deps.showLogs(),
    // The panel may pass a settings query (e.g. `skillwright.memory` from the Memory tab).
    [COMMANDS.openSettings]: (query?: unknown) =>
      vscode.commands.executeCommand('workbench.action.openSettings', typeof query === 'string' && query ? query : `@ext:${deps.extensionId}`),
    [COMMANDS.configureModel]: (args?: unknown) => models.configure(isSetupArgs(args) ? args : undefined),
    [COMMANDS.testConnection]: () => models.testAndReport(),
    [COMMANDS.openSkillPreview]: (target?: unknown) => preview.open(target),
    [COMMANDS.openMemory]: () => panel.showTab('memory'),
    [COMMANDS.newChat]: async () => {
      await chat.newChat();
      await panel.showTab('chat', 'input');
    },
    [COMMANDS.compactConversation]: async () => {
      await panel.showTab('chat');
      await chat.compact();
    },
    [COMMANDS.stop]: () => chat.stop(),
    [COMMANDS.searchSessions]: () => panel.showTab('history', 'search'),
    [COMMANDS.newSkillFromTemplate]: (args?: unknown) => skillActions.newFromTemplate(isNewSkillArgs(args) ? args : undefined),
    [COMMANDS.openSkill]: (args?: unknown) => skillActions.openSkill(isOpenSkillArgs(args) ? args : undefined),
    // `{ name, request }` sends the skill to the chat; `{ name }` or nothing runs it (a form for executable skills).
    [COMMANDS.runSkill]: async (args?: unknown) => {
      const given = readRunSkillArgs(args);
      const toChat = async (name: string, request?: string) => {
        await panel.showTab('chat', 'input');
        await chat.runSkill(name, request ?? (await vscode.window.showInputBox({ title: `Run skill ${name}`, prompt: 'What should it do? (optional)', ignoreFocusOut: true })) ?? '');
        return name;
      };
      const run = (name: string) => runNamedSkill({ skills, execution: deps.execution, policy, logger, toChat }, name, given);
      if (given?.name !== undefined) return run(given.name);
      const picked = await new SkillPicker(skills, (file) => Promise.resolve(skills.skillIndex.all().find((r) => r.file === file)?.name), 'Run Skill').run();
      return picked !== undefined ? run(picked) : undefined;
    },
    [COMMANDS.manageApprovals]: () => manageApprovals(policy),
    [COMMANDS.saveAsSkill]: (args?: unknown) => saveAsSkill.fromSession(isSaveAsSkillArgs(args) ? args : undefined),
    [COMMANDS.saveSelectionAsSkill]: (args?: unknown) => saveAsSkill.fromSelection(isSaveAsSkillArgs(args) ? args : undefined),
    // `{ traceId }` from a chat card, `{ skill }` from a skill's "Last runs", nothing from the palette.
    [COMMANDS.showTrace]: (args?: unknown) => deps.traceView.show(args),
    // `{ name | file, queries?, examples?, runs? }` from scripts, the Skills tab and the preview; a SKILL.md URI from a menu.
    [COMMANDS.testTriggering]: (target?: unknown) => deps.triggerTests.run(target),
    // Each takes scripted answers (tests, scripts); without them it asks.
    [COMMANDS.importSkills]: (args?: unknown) => deps.sharing.importFlow.run(isImportArgs(args) ? args : undefined),
    [COMMANDS.checkSkillUpdates]: (args?: unknown) => deps.sharing.updates.run(isUpdateArgs(args) ? args : undefined),
    [COMMANDS.restoreSkillsFromLock]: (args?: unknown) => deps.sharing.restore.run(isRestoreArgs(args) ? args : undefined),
    // `{ file }` from the Skills tab's menu; a SKILL.md URI from a menu; nothing from the palette.
    [COMMANDS.copyToAgentsSkills]: (args?: unknown) => deps.sharing.relocate.run(false, consentedRelocateArgs(deps.skills, args)),
    [COMMANDS.moveToAgentsSkills]: (args?: unknown) => deps.sharing.relocate.run(true, consentedRelocateArgs(deps.skills, args)),
    [COMMANDS.reviewProjectSkills]: () => deps.consent.review(),
    [COMMANDS.reindexSkills]: () =>
      vscode.window.withProgress({ location: { viewId: VIEWS.panel }, title: 'Reindexing skills' }, async () => {
        await skills.reindex();
        const count = skills.skillIndex.all().length;
        logger.info(`Reindexed: ${count} skill(s)`);
        void vscode.window.setStatusBarMessage(`Skillwright: ${count} skill(s) indexed`, 4_000);
      }),
  };
}

/** VS Code's error message, with the log one click away. */
export function vscodeCommandFailureUi(showLogs: () => void): CommandFailureUi {
  return { showError: (message, ...actions) => vscode.window.showErrorMessage(message, ...actions), showLogs };
}

/**
 * Registers every handler through the one guard (src/host/commandGuard.ts): a failing command is
 * logged and shown, never lost. Generic over the ids so tests can register a command of their own.
 */
export function registerCommands<Id extends string>(store: DisposableStore, handlers: Readonly<Record<Id, CommandHandler>>, logger: Logger, ui: CommandFailureUi): void {
  for (const [id, handler] of Object.entries<CommandHandler>(handlers)) {
    store.add(vscode.commands.registerCommand(id, guardCommand(id, handler, logger, ui)));
  }
}

/** A copy or move writes through the skill service, which counts as written here: a held-back skill must be approved first. */
function consentedRelocateArgs(skills: SkillService, args: unknown): { file?: string } | undefined {
  const parsed = relocateArgs(args);
  const file = parsed?.file;
  const record = file === undefined ? undefined : skills.skillIndex.all().find((candidate) => candidate.file === file);
  if (record) refuseAwaitingConsent(record);
  return parsed;
}

function relocateArgs(args: unknown): { file?: string } | undefined {
  if (args instanceof vscode.Uri) return { file: args.fsPath };
  return isRelocateArgs(args) ? args : undefined;
}

/** Arguments from scripts and tests; anything else (e.g. a URI from a menu) means "ask". */
function isSetupArgs(value: unknown): value is ModelSetupArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    ['baseUrl', 'model', 'apiKey', 'preset'].every((key) => record[key] === undefined || typeof record[key] === 'string') &&
    (record['skipTest'] === undefined || typeof record['skipTest'] === 'boolean')
  );
}
