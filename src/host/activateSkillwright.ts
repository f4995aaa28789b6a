import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { CommandId } from '../core/contributions';
import { COMMANDS, OUTPUT_CHANNEL_NAME, SETTINGS, VIEWS } from '../core/contributions';
import { DisposableStore } from '../core/disposableStore';
import { describeError } from '../core/logger';
import { createOutputLogger } from './outputLogger';
import { PanelViewProvider } from './panelViewProvider';
import { StatusCollector } from './statusCollector';

/** What the extension exports to other extensions and to its own integration tests. */
export interface SkillwrightApi {
  /** Milliseconds spent in activate(), measured inside the extension host. */
  readonly activationMs: number;
  readonly panel: PanelViewProvider;
  readonly status: StatusCollector;
}

export function activateSkillwright(context: vscode.ExtensionContext): SkillwrightApi {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  context.subscriptions.push(channel);
  const logger = createOutputLogger(channel);
  const store = new DisposableStore(logger);
  context.subscriptions.push(store);

  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');
  const status = new StatusCollector(version, logger);
  const panel = store.add(new PanelViewProvider(context.extensionUri, status, logger));
  store.add(
    vscode.window.registerWebviewViewProvider(VIEWS.panel, panel, {
      // State lives in the webview's getState/setState; the panel is rebuilt when shown again.
      webviewOptions: { retainContextWhenHidden: false },
    }),
  );

  const handlers: Record<CommandId, () => unknown> = {
    [COMMANDS.openPanel]: () => vscode.commands.executeCommand(`${VIEWS.panel}.focus`),
    [COMMANDS.showLogs]: () => channel.show(true),
    [COMMANDS.openSettings]: () => vscode.commands.executeCommand('workbench.action.openSettings', `@ext:${context.extension.id}`),
  };
  for (const [id, handler] of Object.entries(handlers)) {
    store.add(
      vscode.commands.registerCommand(id, async () => {
        try {
          await handler();
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
  store.add(vscode.workspace.onDidChangeWorkspaceFolders(() => refresh('workspace folders')));
  store.add(vscode.workspace.onDidGrantWorkspaceTrust(() => refresh('workspace trusted')));
  store.add(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SETTINGS.section)) {
        refresh('settings');
      }
    }),
  );

  const activationMs = performance.now() - started;
  logger.info(
    `Skillwright ${version} activated in ${activationMs.toFixed(1)} ms (VS Code ${vscode.version}, ${vscode.workspace.workspaceFolders?.length ?? 0} folder(s), ${vscode.workspace.isTrusted ? 'trusted' : 'Restricted Mode'})`,
  );
  return { activationMs, panel, status };
}
