import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { describeEntry } from '../core/agent/approvals';
import { OUTPUT_CHANNEL_NAME, SETTINGS, VIEWS } from '../core/base/contributions';
import { DisposableStore } from '../core/base/disposableStore';
import { describeError } from '../core/base/logger';
import { autoApproveSettings, createApprovalPolicy } from './approvals/approvalStore';
import { ChatController } from './chat/chatController';
import { ExecutionService } from './execution/executionService';
import { TraceView } from './execution/traceView';
import { commandHandlers, registerCommands, vscodeCommandFailureUi } from './commands';
import { fanOut } from './eventFanout';
import { HistoryController } from './history/historyController';
import { SessionService } from './history/sessionService';
import { MemoryController } from './memory/memoryController';
import { MemoryService } from './memory/memoryService';
import { resolveSummaryModel } from './models/chatModelResolver';
import { ModelSetup } from './models/modelSetup';
import { createOutputLogger } from './outputLogger';
import { PanelViewProvider } from './panel/panelViewProvider';
import { StatusCollector } from './panel/statusCollector';
import { SkillPreviewPanel } from './preview/skillPreviewPanel';
import { SaveAsSkill } from './saveAsSkill/saveAsSkill';
import { ContextWindows } from './chat/chatContext';
import { embeddingStatusText } from '../core/skills/search/embeddingStatusText';
import { SkillActions } from './skills/skillActions';
import { SkillCodeActions } from './skills/skillCodeActions';
import { SkillDiagnostics } from './skills/skillDiagnostics';
import { SkillEmbeddings } from './skills/skillEmbeddings';
import { SkillService } from './skills/skillService';
import { ProjectConsent } from './skills/projectConsent';
import { SkillsController } from './skills/skillsController';
import { SharingService } from './sharing/sharingService';
import { TriggerTestCommand } from './skills/triggerTestCommand';
import { VscodeChat } from './vscodeChat/vscodeChat';

/** What the extension exports to other extensions and to its own integration tests. */
export interface SkillwrightApi {
  /** Milliseconds spent in activate(), measured inside the extension host. */
  readonly activationMs: number;
  readonly panel: PanelViewProvider;
  readonly status: StatusCollector;
  readonly skills: SkillService;
  /** Skill embeddings for hybrid retrieval; started by the first chat turn or search (`status` says how it goes). */
  readonly embeddings: SkillEmbeddings;
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
  /** Runs skills (scripts, endpoints, workflows) for the chat, Run Skill… and the preview; keeps their traces. */
  readonly execution: ExecutionService;
  /** The Skill Run Trace panel (its `state()` is what it shows). */
  readonly traceView: TraceView;
  /** Consent for project skills that came with the repository: its card, decisions and held-back skills. */
  readonly consent: ProjectConsent;
  /** Skills from elsewhere: the lock's status, Import Skills…, updates, restore, Copy/Move to .agents/skills. */
  readonly sharing: SharingService;
  /** Skillwright in VS Code's own chat: the language-model tools and the @skillwright participant. */
  readonly vscodeChat: VscodeChat;
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

  const manifestVersion = (context.extension.packageJSON as { version?: unknown }).version;
  const version = typeof manifestVersion === 'string' ? manifestVersion : '0.0.0';
  const skills = store.add(new SkillService(context.globalStorageUri.fsPath, logger));
  // Before the index starts: project skills nobody consented to must not be served even briefly.
  const consent = store.add(new ProjectConsent({ skills, state: context.workspaceState, panel: { post: (message) => panel.post(message), get isReady() { return panel.isReady; } }, showCard: () => panel.showTab('chat'), logger }));
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
  panel.setArea('consent', consent);
  const preview = store.add(new SkillPreviewPanel(context.extensionUri, skills, logger));
  const models = new ModelSetup(context.secrets, logger);
  // Created here, started on first use: nothing is read or sent during activation.
  const embeddings = store.add(new SkillEmbeddings(skills, models, context.globalStorageUri.fsPath, logger));
  skills.semantic = embeddings;
  // A new API key (Configure Model) reaches the embeddings client too.
  store.add(context.secrets.onDidChange(() => embeddings.reconfigure()));
  const sessions = store.add(new SessionService(context.globalStorageUri.fsPath, context.asAbsolutePath('dist'), logger));
  const policy = createApprovalPolicy(context.workspaceState, logger);
  const execution = store.add(new ExecutionService(skills, context.globalStorageUri.fsPath, logger));
  preview.useExecution(execution);
  status.setRetrieval(() => ({ state: embeddings.status.state, text: embeddingStatusText(embeddings.status) }));
  let retrievalState = embeddings.status.state;
  store.add(
    embeddings.onDidChangeStatus((next) => {
      if (next.state === retrievalState) return;
      retrievalState = next.state;
      panel.refresh();
    }),
  );
  status.setApprovals(() => {
    const auto = autoApproveSettings();
    return { always: policy.allowlist().map(describeEntry), autoEdits: auto.edits === true, autoCommands: auto.commands === true };
  });
  const chat = store.add(
    new ChatController({ panel, skills, embeddings, memory, sessions, models, policy, execution, logger, summaryModel: () => resolveSummaryModel(models, logger), contextWindows: new ContextWindows(context.globalState, logger) }),
  );
  panel.setArea('chat', chat);
  // A finished turn may have added an "always" grant the status page lists.
  store.add(chat.onDidChangeSession(() => panel.refresh()));
  const history = store.add(new HistoryController(sessions, chat, panel, logger));
  panel.setArea('history', history);
  const skillActions = new SkillActions(skills, context.asAbsolutePath('skills-templates'), logger);
  const skillsBrowser = store.add(new SkillsController(skills, diagnostics, panel, skillActions, logger));
  panel.setArea('skills', skillsBrowser);
  skillsBrowser.useEmbeddings(embeddings);
  const sharing = store.add(new SharingService(skills, logger));
  skillsBrowser.useLockStatus(sharing.lockStatus);
  // Watches skills-lock.json and hashes the locked skills in the background, never during activation.
  sharing.start();
  // A run changes the skill's health line (and the usefulness order).
  store.add(execution.onDidRun(() => skillsBrowser.sync()));
  const saveAsSkill = store.add(new SaveAsSkill({ skills, sessions, chat, models, logger }));
  // Registration only: nothing is read until VS Code's chat calls a tool or the participant.
  const vscodeChat = store.add(new VscodeChat({ extensionUri: context.extensionUri, skills, memory, sessions, saveAsSkill, models, logger }));
  const traceView = store.add(new TraceView(context.extensionUri, execution.traces, logger));
  const showLogs = () => channel.show(true);
  // A kept trigger test changes the skill's health line and the preview's Triggering part.
  const triggerTests = new TriggerTestCommand({ skills, memory, sessions, models, execution, logger, onDidKeep: () => (skillsBrowser.sync(), preview.refresh()) });
  const handlers = commandHandlers({ extensionId: context.extension.id, logger, showLogs, panel, skills, skillActions, preview, models, chat, policy, saveAsSkill, traceView, execution, triggerTests, sharing, consent });
  registerCommands(store, handlers, logger, vscodeCommandFailureUi(showLogs));

  // One listener per event, fanning out to the parts that care in a written-down order.
  const refreshStatus = (reason: string) => {
    logger.debug(`Status changed: ${reason}`);
    panel.refresh();
  };
  const setting = (event: vscode.ConfigurationChangeEvent, key?: string) => event.affectsConfiguration(key ? `${SETTINGS.section}.${key}` : SETTINGS.section);
  store.add(
    vscode.workspace.onDidChangeWorkspaceFolders(
      fanOut('Workspace folders changed', { memory: () => memory.reconfigure(), status: () => refreshStatus('workspace folders'), skills: () => skills.reconfigure() }, logger),
    ),
  );
  store.add(
    vscode.workspace.onDidGrantWorkspaceTrust(
      fanOut(
        'Workspace trusted',
        { approvals: () => policy.setTrusted(true), memory: () => memory.reconfigure(), status: () => refreshStatus('workspace trusted'), skills: () => skills.reconfigure() },
        logger,
      ),
    ),
  );
  store.add(
    vscode.workspace.onDidChangeConfiguration(
      fanOut<vscode.ConfigurationChangeEvent>(
        'Settings changed',
        {
          approvals: (event) => setting(event, 'approvals') && policy.setAutoApprove(autoApproveSettings()),
          memory: (event) => setting(event, 'memory') && memory.reconfigure(),
          // The chat's setup card follows the model settings; a running turn keeps the model it started with.
          chat: (event) => setting(event, 'model') && panel.isReady && !chat.busy && chat.sync(),
          status: (event) => setting(event) && refreshStatus('settings'),
          skills: (event) => setting(event) && skills.reconfigure(),
        },
        logger,
      ),
    ),
  );
  store.add(
    vscode.window.onDidChangeWindowState(
      // Watchers miss events; coming back to the window is a cheap moment to check the disk.
      fanOut<vscode.WindowState>('Window focused', { skills: (state) => state.focused && skills.validate() }, logger),
    ),
  );
  // The chat's slash-command list follows the skills, once typing or a bulk change has settled.
  let namesTimer: ReturnType<typeof setTimeout> | undefined;
  store.addCallback(() => clearTimeout(namesTimer));
  store.add(
    skills.onDidChange(
      fanOut(
        'Skills changed',
        {
          status: () => refreshStatus('skills'),
          chat: () => {
            clearTimeout(namesTimer);
            namesTimer = setTimeout(() => panel.isReady && chat.postSkillNames(), 300);
          },
        },
        logger,
      ),
    ),
  );

  const activationMs = performance.now() - started;
  logger.info(
    `Skillwright ${version} activated in ${activationMs.toFixed(1)} ms (VS Code ${vscode.version}, ${vscode.workspace.workspaceFolders?.length ?? 0} folder(s), ${vscode.workspace.isTrusted ? 'trusted' : 'Restricted Mode'})`,
  );
  return { activationMs, panel, status, skills, embeddings, diagnostics, models, preview, memory, memoryPanel, sessions, chat, history, skillsBrowser, saveAsSkill, execution, traceView, sharing, consent, vscodeChat, shutdown: async () => {
    await skills.flush();
    await execution.tuning.flush();
    await sessions.flush(logger);
  } };
}
