import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { CommandId } from '../core/contributions';
import { COMMANDS, OUTPUT_CHANNEL_NAME, SETTINGS, VIEWS } from '../core/contributions';
import { DisposableStore } from '../core/disposableStore';
import { describeError } from '../core/logger';
import { createOutputLogger } from './outputLogger';
import type { ModelSetupArgs } from './modelSetup';
import { ModelSetup } from './modelSetup';
import { PanelViewProvider } from './panelViewProvider';
import { SkillCodeActions } from './skillCodeActions';
import { SkillDiagnostics } from './skillDiagnostics';
import { SkillService } from './skillService';
import { StatusCollector } from './statusCollector';

/** What the extension exports to other extensions and to its own integration tests. */
export interface SkillwrightApi {
  /** Milliseconds spent in activate(), measured inside the extension host. */
  readonly activationMs: number;
  readonly panel: PanelViewProvider;
  readonly status: StatusCollector;
  readonly skills: SkillService;
  readonly diagnostics: SkillDiagnostics;
  readonly models: ModelSetup;
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

  const models = new ModelSetup(context.secrets, logger);
  const handlers: Record<CommandId, (...args: unknown[]) => unknown> = {
    [COMMANDS.openPanel]: () => vscode.commands.executeCommand(`${VIEWS.panel}.focus`),
    [COMMANDS.showLogs]: () => channel.show(true),
    [COMMANDS.openSettings]: () => vscode.commands.executeCommand('workbench.action.openSettings', `@ext:${context.extension.id}`),
    [COMMANDS.configureModel]: (args?: unknown) => models.configure(isSetupArgs(args) ? args : undefined),
    [COMMANDS.testConnection]: () => models.testAndReport(),
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
  store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => reconfigure('workspace trusted')));
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
  return { activationMs, panel, status, skills, diagnostics, models, shutdown: () => skills.flush() };
}

/** Arguments from scripts and tests; anything else (e.g. a URI from a menu) means "ask". */
function isSetupArgs(value: unknown): value is ModelSetupArgs {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    ['baseUrl', 'model', 'apiKey'].every((key) => record[key] === undefined || typeof record[key] === 'string') &&
    (record.skipTest === undefined || typeof record.skipTest === 'boolean')
  );
}
