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
import { isOpenSkillArgs, SkillPicker } from './skills/skillPicker';
import type { SkillService } from './skills/skillService';
import type { TraceView } from './execution/traceView';

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
  /** The Skill Run Trace panel: a run's timeline, or a pick of the recent runs. */
  readonly traceView: TraceView;
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
    [COMMANDS.stop]: () => chat.stop(),
    [COMMANDS.searchSessions]: () => panel.showTab('history', 'search'),
    [COMMANDS.newSkillFromTemplate]: (args?: unknown) => skillActions.newFromTemplate(isNewSkillArgs(args) ? args : undefined),
    [COMMANDS.openSkill]: (args?: unknown) => skillActions.openSkill(isOpenSkillArgs(args) ? args : undefined),
    [COMMANDS.runSkill]: async (args?: unknown) => {
      const given = isRunSkillArgs(args) ? args : undefined;
      const run = async (name: string, request?: string) => {
        await panel.showTab('chat', 'input');
        await chat.runSkill(name, request ?? (await vscode.window.showInputBox({ title: `Run skill ${name}`, prompt: 'What should it do? (optional)', ignoreFocusOut: true })) ?? '');
        return name;
      };
      if (given) return run(given.name, given.request ?? '');
      return new SkillPicker(skills, async (file) => {
        const record = skills.skillIndex.all().find((r) => r.file === file);
        return record ? run(record.name) : undefined;
      }, 'Run Skill').run();
    },
    [COMMANDS.manageApprovals]: () => manageApprovals(policy),
    [COMMANDS.saveAsSkill]: (args?: unknown) => saveAsSkill.fromSession(isSaveAsSkillArgs(args) ? args : undefined),
    [COMMANDS.saveSelectionAsSkill]: (args?: unknown) => saveAsSkill.fromSelection(isSaveAsSkillArgs(args) ? args : undefined),
    // `{ traceId }` from a chat card, `{ skill }` from a skill's "Last runs", nothing from the palette.
    [COMMANDS.showTrace]: (args?: unknown) => deps.traceView.show(args),
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

/** `{ name, request? }` from scripts and tests; anything else means "pick a skill". */
function isRunSkillArgs(value: unknown): value is { name: string; request?: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return typeof record['name'] === 'string' && (record['request'] === undefined || typeof record['request'] === 'string');
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
