import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { CommandId } from '../core/base/contributions';
import { COMMANDS, OUTPUT_CHANNEL_NAME, SETTINGS, VIEWS } from '../core/base/contributions';
import { DisposableStore } from '../core/base/disposableStore';
import { describeError } from '../core/base/logger';
import { describeEntry } from '../core/agent/approvals';
import { autoApproveSettings, createApprovalPolicy, manageApprovals } from './approvals/approvalStore';
import { ChatController } from './chat/chatController';
import { resolveSummaryModel } from './models/chatModelResolver';
import { HistoryController } from './history/historyController';
import { MemoryController } from './memory/memoryController';
import { MemoryService } from './memory/memoryService';
import { createOutputLogger } from './outputLogger';
import type { ModelSetupArgs } from './models/modelSetup';
import { ModelSetup } from './models/modelSetup';
import { PanelViewProvider } from './panel/panelViewProvider';
import { SaveAsSkill } from './saveAsSkill/saveAsSkill';
import { isSaveAsSkillArgs } from './saveAsSkill/saveAsSkillArgs';
import { SessionService } from './history/sessionService';
import { SkillCodeActions } from './skills/skillCodeActions';
import { SkillDiagnostics } from './skills/skillDiagnostics';
import { SkillPreviewPanel } from './preview/skillPreviewPanel';
import { SkillPicker } from './skills/skillPicker';
import { SkillService } from './skills/skillService';
import { isNewSkillArgs } from './skills/newSkillWizard';
import { SkillActions } from './skills/skillActions';
import { isOpenSkillArgs } from './skills/skillPicker';
import { SkillsController } from './skills/skillsController';
import { StatusCollector } from './panel/statusCollector';

/** What the extension exports to other extensions and to its own integration tests. */
export interface SkillwrightApi {
  /** Milliseconds spent in activate(), measured inside the extension host. */
  readonly activationMs: number;
  readonly panel: PanelViewProvider;
  readonly status: StatusCollector;
  readonly skills: SkillService;
  readonly diagnostics: SkillDiagnostics;
  readonly models: ModelSetup;
  /** The live SKILL.md preview (one panel beside the editor). */
  readonly preview: SkillPreviewPanel;
  /** MEMORY.md and USER.md, the agent's memory tool and the pending proposals (one per window). */
  readonly memory: MemoryService;
  /** The Memory tab's host side (its `state()` is what the tab shows). */
  readonly memoryPanel: MemoryController;
  /** Session files and their full-text index (shared with the headless CLI). */
  readonly sessions: SessionService;
  /** The Chat tab: the agent session, its transcript and approvals. */
  readonly chat: ChatController;
  /** The History tab's host side (sessions list, search, open, delete, export). */
  readonly history: HistoryController;
  /** The Skills tab's host side: `list()` is what the tab shows, `actions` what its buttons do. */
  readonly skillsBrowser: SkillsController;
  /** "Save This as a Skill" and "Save Selection as a Skill" (`review` holds the patch diff's documents). */
  readonly saveAsSkill: SaveAsSkill;
  /** Saves what must survive a restart; called from deactivate(). */
  shutdown(): Promise<void>;
}

export function activateSkillwright(context: vscode.ExtensionContext): SkillwrightApi {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  context.subscriptions.push(channel);
  const logger = createOutputLogger(channel);
  const store = new DisposableStore(logger);
  context.subscriptions.push(store);

  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');
  const skills = store.add(new SkillService(context.globalStorageUri.fsPath, logger));
  const diagnostics = store.add(new SkillDiagnostics(skills, logger));
  store.add(
    vscode.languages.registerCodeActionsProvider({ scheme: 'file', pattern: '**/SKILL.md' }, new SkillCodeActions(diagnostics), {
      providedCodeActionKinds: SkillCodeActions.kinds,
    }),
  );
  // The index loads in the background: activation must stay fast, and the panel shows it once ready.
  void skills
    .start()
    .then(() => {
      panel.refresh();
      return diagnostics.lintAll();
    })
    .catch((error: unknown) => logger.error(`Loading skills failed: ${describeError(error)}`));
  const status = new StatusCollector(version, logger, skills);
  const panel = store.add(new PanelViewProvider(context.extensionUri, status, logger));
  store.add(
    vscode.window.registerWebviewViewProvider(VIEWS.panel, panel, {
      // State lives in the webview's getState/setState; the panel is rebuilt when shown again.
      webviewOptions: { retainContextWhenHidden: false },
    }),
  );

  const memory = store.add(new MemoryService(logger));
  const memoryPanel = store.add(new MemoryController(memory, panel, logger));
  panel.setArea('memory', memoryPanel);
  const preview = store.add(new SkillPreviewPanel(context.extensionUri, skills, logger));
  const models = new ModelSetup(context.secrets, logger);
  const sessions = store.add(new SessionService(context.globalStorageUri.fsPath, context.asAbsolutePath('dist'), logger));
  const policy = createApprovalPolicy(context.workspaceState, logger);
  status.setApprovals(() => {
    const auto = autoApproveSettings();
    return { always: policy.allowlist().map(describeEntry), autoEdits: auto.edits === true, autoCommands: auto.commands === true };
  });
  const chat = store.add(
    new ChatController({ panel, skills, memory, sessions, models, policy, logger, summaryModel: () => resolveSummaryModel(models, logger) }),
  );
  panel.setArea('chat', chat);
  // A finished turn may have added an "always" grant the status page lists.
  store.add(chat.onDidChangeSession(() => panel.refresh()));
  const history = store.add(new HistoryController(sessions, chat, panel, logger));
  panel.setArea('history', history);
  const skillActions = new SkillActions(skills, context.asAbsolutePath('skills-templates'), logger);
  const skillsBrowser = store.add(new SkillsController(skills, diagnostics, panel, skillActions, logger));
  panel.setArea('skills', skillsBrowser);
  const saveAsSkill = store.add(new SaveAsSkill({ skills, sessions, chat, models, logger }));
  const handlers: Record<CommandId, (...args: unknown[]) => unknown> = {
    [COMMANDS.openPanel]: () => vscode.commands.executeCommand(`${VIEWS.panel}.focus`),
    [COMMANDS.showLogs]: () => channel.show(true),
    // The panel may pass a settings query (e.g. `skillwright.memory` from the Memory tab).
    [COMMANDS.openSettings]: (query?: unknown) =>
      vscode.commands.executeCommand('workbench.action.openSettings', typeof query === 'string' && query ? query : `@ext:${context.extension.id}`),
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
    [COMMANDS.reindexSkills]: () =>
      vscode.window.withProgress({ location: { viewId: VIEWS.panel }, title: 'Reindexing skills' }, async () => {
        await skills.reindex();
        const count = skills.skillIndex.all().length;
        logger.info(`Reindexed: ${count} skill(s)`);
        void vscode.window.setStatusBarMessage(`Skillwright: ${count} skill(s) indexed`, 4_000);
      }),
  };
  for (const [id, handler] of Object.entries(handlers)) {
    store.add(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(...args);
        } catch (error) {
          logger.error(`Command ${id} failed: ${describeError(error)}`);
          void vscode.window.showErrorMessage(`Skillwright: ${describeError(error)}`);
        }
      }),
    );
  }

  // Anything that changes what the status page shows pushes a fresh snapshot to a visible panel.
  const refresh = (reason: string) => {
    logger.debug(`Status changed: ${reason}`);
    panel.refresh();
  };
  const reconfigure = (reason: string) => {
    refresh(reason);
    void skills.reconfigure().catch((error: unknown) => logger.error(`Updating skill folders failed: ${describeError(error)}`));
  };
  store.add(vscode.workspace.onDidChangeWorkspaceFolders(() => reconfigure('workspace folders')));
  // The chat's setup card and slash-command list follow the model settings and the skills.
  store.add(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SETTINGS.section}.model`) && panel.isReady && !chat.busy) void chat.sync();
    }),
  );
  let namesTimer: ReturnType<typeof setTimeout> | undefined;
  store.add(
    skills.onDidChange(() => {
      clearTimeout(namesTimer);
      namesTimer = setTimeout(() => panel.isReady && chat.postSkillNames(), 300);
    }),
  );
  store.add({ dispose: () => clearTimeout(namesTimer) });
  store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => reconfigure('workspace trusted')));
  // Memory's files and limits follow the first folder, trust and the memory settings.
  store.add(vscode.workspace.onDidChangeWorkspaceFolders(() => memory.reconfigure()));
  store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => memory.reconfigure()));
  store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => policy.setTrusted(true)));
  store.add(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SETTINGS.section}.memory`)) memory.reconfigure();
      if (event.affectsConfiguration(`${SETTINGS.section}.approvals`)) policy.setAutoApprove(autoApproveSettings());
    }),
  );
  store.add(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SETTINGS.section)) {
        reconfigure('settings');
      }
    }),
  );
  store.add(skills.onDidChange(() => refresh('skills')));
  store.add(
    vscode.window.onDidChangeWindowState((state) => {
      // Watchers miss events; coming back to the window is a cheap moment to check the disk.
      if (state.focused) void skills.validate().catch((error: unknown) => logger.warn(`Skill validation failed: ${describeError(error)}`));
    }),
  );

  const activationMs = performance.now() - started;
  logger.info(
    `Skillwright ${version} activated in ${activationMs.toFixed(1)} ms (VS Code ${vscode.version}, ${vscode.workspace.workspaceFolders?.length ?? 0} folder(s), ${vscode.workspace.isTrusted ? 'trusted' : 'Restricted Mode'})`,
  );
  return { activationMs, panel, status, skills, diagnostics, models, preview, memory, memoryPanel, sessions, chat, history, skillsBrowser, saveAsSkill, shutdown: async () => {
    await skills.flush();
    await sessions.flush(logger);
  } };
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
    (record.skipTest === undefined || typeof record.skipTest === 'boolean')
  );
}
