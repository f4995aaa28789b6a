import * as vscode from 'vscode';
import type { ApprovalPolicy } from '../../core/agent/approvals';
import type { ApprovalPrompt, ApprovalReply } from '../../core/agent/approvalGate';
import { createApprovalGate } from '../../core/agent/approvalGate';
import type { ChatMessage, ChatModel, ChatRequest } from '../../core/llm/chatTypes';
import { AgentSession, DEFAULT_MAX_STEPS } from '../../core/agent/agentSession';
import { CONTEXT_KEYS, SETTINGS } from '../../core/base/contributions';
import { describeError } from '../../core/base/logger';
import type { SessionData } from '../../core/sessions/sessionLog';
import { toChatMessages } from '../../core/sessions/sessionLog';
import type { SessionWriter } from '../../core/sessions/sessionWriter';
import { MODEL_PRESETS } from '../../providers/modelPresets';
import type { AreaMessage, ChatItem, ChatSnapshot, WebviewToHost } from '../../shared/protocol';
import { assertNever } from '../../shared/protocol';
import type { AgentFactoryDeps, BuiltAgent } from './agentFactory';
import { buildAgent } from './agentFactory';
import { ChatDiffs } from './chatDiffs';
import { openCheckedLink } from './chatLinks';
import { resolveChatModel } from '../models/chatModelResolver';
import type { ChatSessions } from './chatSessions';
import { ChatTranscript } from './chatTranscript';
import { parseSlashCommand } from '../../core/agent/slashCommand';
import type { ModelSetup } from '../models/modelSetup';
import type { PanelArea, PanelPort } from '../panel/panelArea';

export interface ChatControllerDeps extends AgentFactoryDeps {
  readonly panel: PanelPort;
  readonly models: ModelSetup;
  readonly policy: ApprovalPolicy;
}

/** Forwards to whichever model the settings name now, so a session survives a model change. */
class CurrentModel implements ChatModel {
  constructor(private current: ChatModel) {}
  get id(): string {
    return this.current.id;
  }
  set(model: ChatModel): void {
    this.current = model;
  }
  stream(request: ChatRequest) {
    return this.current.stream(request);
  }
}

interface ActiveSession {
  readonly agent: AgentSession;
  readonly built: BuiltAgent;
  readonly model: CurrentModel;
  readonly systemPrompt: string;
  readonly promptLayers?: { stable: string; context: string; volatile: string };
  writer: SessionWriter | undefined;
  /** Appends in call order; awaited before the turn reports done. */
  appended: Promise<unknown>;
  suggestions: string[];
}

/**
 * The Chat tab: one agent session at a time, streamed into the transcript; approvals asked on
 * cards; everything logged to the session file as soon as it is complete.
 */
export class ChatController implements PanelArea<'chat'>, ChatSessions, vscode.Disposable {
  private transcript: ChatTranscript;
  private active: ActiveSession | undefined;
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;
  private readonly pending = new Map<string, { prompt: ApprovalPrompt; resolve: (reply: ApprovalReply) => void }>();
  private approvalCounter = 0;
  private turnCounter = 0;
  private readonly diffs: ChatDiffs;
  private readonly sessionEmitter = new vscode.EventEmitter<string | undefined>();
  readonly onDidChangeSession = this.sessionEmitter.event;
  private focusItemId: string | undefined;

  constructor(private readonly deps: ChatControllerDeps) {
    this.transcript = this.newTranscript();
    this.diffs = new ChatDiffs();
  }

  get currentSessionId(): string | undefined {
    return this.active?.writer?.id;
  }

  /** The transcript as the Chat tab shows it. */
  get items(): ChatItem[] {
    return this.transcript.items;
  }

  get busy(): boolean {
    return this.abort !== undefined;
  }

  /** Resolves when the running turn (if any) has finished; for tests and shutdown. */
  async idle(): Promise<void> {
    await this.running;
  }

  async currentSession(): Promise<SessionData | undefined> {
    const id = this.currentSessionId;
    if (!id) return undefined;
    await this.active?.appended;
    await this.active?.writer?.flush();
    return this.deps.sessions.log.read(id);
  }

  async handle(message: AreaMessage<WebviewToHost, 'chat'>): Promise<void> {
    switch (message.type) {
      case 'chat/send':
        return this.send(message.text);
      case 'chat/stop':
        this.stop();
        return;
      case 'chat/new':
        return this.newChat();
      case 'chat/retry': {
        const last = this.transcript.lastUserText;
        if (last) return this.send(last);
        this.deps.panel.post({ type: 'panel/notice', level: 'info', message: 'There is no earlier message to retry.' });
        return;
      }
      case 'chat/editLast':
        return this.editLast(message.text);
      case 'chat/approve':
        return this.answer(message.id, message.answer);
      case 'chat/openDiff':
        return this.openDiff(message.id);
      case 'chat/copyCode':
        await vscode.env.clipboard.writeText(message.code);
        void vscode.window.setStatusBarMessage('Skillwright: code copied', 2_000);
        return;
      case 'chat/insertCode':
        return insertAtCursor(message.code);
      case 'chat/openLink':
        return openCheckedLink(message.href, (text) => this.deps.panel.post({ type: 'panel/notice', level: 'warning', message: text }));
      case 'chat/saveAsSkill':
        await vscode.commands.executeCommand('skillwright.saveAsSkill');
        return;
      default:
        assertNever(message);
    }
  }

  async sync(): Promise<void> {
    this.deps.panel.post({ type: 'chat/snapshot', chat: await this.snapshot() });
    this.postSkillNames();
  }

  postSkillNames(): void {
    const skills = this.deps.skills.skillIndex.active().map((record) => ({ name: record.name, description: record.description.slice(0, 160) }));
    this.deps.panel.post({ type: 'chat/skillNames', skills });
  }

  /** Forgets every "always" and session grant (tests; the person uses Manage Approvals…). */
  async clearApprovals(): Promise<void> {
    this.deps.policy.clearSession();
    await this.deps.policy.clearAllowlist();
  }

  /** "Run Skill…": an explicit `/name` turn, as if typed in the chat. */
  async runSkill(name: string, request = ''): Promise<void> {
    await this.send(`/${name}${request.trim() ? ` ${request.trim()}` : ''}`);
  }

  /** Stops the running turn: the HTTP request is aborted, commands are killed, questions are withdrawn. */
  stop(): void {
    this.abort?.abort();
    for (const [id, entry] of this.pending) {
      entry.resolve('deny');
      this.transcript.approvalAnswered(id, 'expired');
    }
    this.pending.clear();
  }

  async newChat(): Promise<void> {
    this.stop();
    await this.running;
    this.active = undefined;
    this.transcript = this.newTranscript();
    this.focusItemId = undefined;
    this.sessionEmitter.fire(undefined);
    await this.sync();
  }

  async openSession(id: string, focusMessageId?: string): Promise<void> {
    this.stop();
    await this.running;
    const resumed = await this.deps.sessions.log.resume(id);
    if (!resumed?.session.header) throw new Error(`The session ${id} could not be read; it may have been deleted.`);
    const { writer, session } = resumed;
    const header = session.header!;
    const built = await buildAgent(this.deps, () => this.currentSessionId);
    const model = await this.resolveModel();
    this.active = this.createSession(built, model ?? unavailableModel(), header.systemPrompt, header.promptLayers, toChatMessages(session).slice(1));
    this.active.writer = writer;
    this.transcript = ChatTranscript.fromSession(session, built.assembled.catalog.included);
    this.rebindTranscript();
    this.focusItemId = focusMessageId ? itemForMessage(session, focusMessageId) : undefined;
    this.sessionEmitter.fire(id);
    this.deps.panel.post({ type: 'chat/snapshot', chat: await this.snapshot() });
  }

  forgetSession(id: string): void {
    if (this.currentSessionId === id) void this.newChat();
  }

  dispose(): void {
    this.stop();
    this.diffs.dispose();
    this.sessionEmitter.dispose();
  }

  private newTranscript(): ChatTranscript {
    return new ChatTranscript({
      item: (item) => this.deps.panel.post({ type: 'chat/item', item }),
      delta: (id, delta) => this.deps.panel.post({ type: 'chat/delta', id, delta }),
    });
  }

  /** A transcript rebuilt from a log has no sink; give it the live one. */
  private rebindTranscript(): void {
    const items = this.transcript.items;
    this.transcript = this.newTranscript();
    for (const item of items) this.transcript.put(item);
  }

  private async snapshot(): Promise<ChatSnapshot> {
    const model = this.active ? undefined : await resolveChatModel(this.deps.models, this.deps.logger).catch(() => undefined);
    const setup = model && !model.ok ? { presets: MODEL_PRESETS.map((p) => ({ id: p.id, label: p.label, baseUrl: p.baseUrl, needsKey: p.needsKey })) } : undefined;
    const focus = this.focusItemId;
    this.focusItemId = undefined;
    return {
      ...(this.currentSessionId ? { sessionId: this.currentSessionId } : {}),
      ...(this.active?.writer?.title ? { title: this.active.writer.title } : {}),
      items: this.transcript.items,
      busy: this.busy,
      ...(setup ? { setup } : {}),
      ...(this.active ? { modelLabel: this.active.model.id } : model?.ok ? { modelLabel: model.label } : {}),
      trusted: vscode.workspace.isTrusted,
      ...(focus ? { focusItemId: focus } : {}),
    };
  }

  private async resolveModel(): Promise<ChatModel | undefined> {
    const resolved = await resolveChatModel(this.deps.models, this.deps.logger);
    return resolved.ok ? resolved.model : undefined;
  }

  private createSession(
    built: BuiltAgent,
    model: ChatModel,
    systemPrompt: string,
    promptLayers: ActiveSession['promptLayers'],
    history: readonly ChatMessage[] = [],
  ): ActiveSession {
    const current = new CurrentModel(model);
    const maxSteps = vscode.workspace.getConfiguration(SETTINGS.section).get<number>(SETTINGS.maxSteps, DEFAULT_MAX_STEPS);
    const gate = createApprovalGate(this.deps.policy, (prompt) => this.ask(prompt), {
      preview: (tool, args) => built.workspaceTools.preview(tool, args),
    });
    const session: ActiveSession = {
      built,
      model: current,
      systemPrompt,
      ...(promptLayers ? { promptLayers } : {}),
      writer: undefined,
      appended: Promise.resolve(),
      suggestions: [],
      agent: undefined as unknown as AgentSession,
    };
    const agent = new AgentSession({
      model: current,
      tools: built.assembled.tools,
      systemPrompt,
      history,
      approvals: gate,
      maxSteps: Number.isInteger(maxSteps) && maxSteps > 0 ? maxSteps : DEFAULT_MAX_STEPS,
      suggest: (text) => {
        const found = built.assembled.suggest(text);
        session.suggestions = found.map((s) => s.name);
        return found;
      },
      onMessage: (message) => {
        const writer = session.writer;
        if (writer) session.appended = session.appended.then(() => writer.appendChat(message)).catch((error: unknown) => this.logFailure('Saving a message', error));
      },
    });
    (session as { agent: AgentSession }).agent = agent;
    return session;
  }

  private async ensureSession(): Promise<ActiveSession | undefined> {
    const model = await this.resolveModel();
    if (!model) {
      this.deps.panel.post({ type: 'chat/snapshot', chat: await this.snapshot() });
      this.deps.panel.post({ type: 'panel/notice', level: 'warning', message: 'Choose a model first: pick a provider on the setup card, or run "Skillwright: Configure Model".' });
      return undefined;
    }
    if (this.active) {
      this.active.model.set(model);
      return this.active;
    }
    const built = await buildAgent(this.deps, () => this.currentSessionId);
    const prompt = built.assembled.prompt;
    this.active = this.createSession(built, model, prompt.text, prompt.layers);
    if (!built.trusted) {
      this.transcript.notice('warning', 'Restricted Mode: nothing runs, and project skills, project memory and instruction files stay out of the prompt until you trust this folder.');
    }
    if (built.withheld.length > 0) {
      this.transcript.notice('warning', `Memory entries were left out of this session because the threat scanner matched them (${built.withheld.join('; ')}). Review them in the Memory tab.`);
    }
    return this.active;
  }

  private async send(typed: string): Promise<void> {
    if (this.busy) {
      this.deps.panel.post({ type: 'panel/notice', level: 'info', message: 'A reply is still running: stop it first, or wait for it to finish.' });
      return;
    }
    const slash = parseSlashCommand(typed, (name) => this.deps.skills.skillIndex.get(name) !== undefined);
    if (!slash.ok) {
      this.deps.panel.post({ type: 'panel/notice', level: 'warning', message: slash.error });
      return;
    }
    const session = await this.ensureSession();
    if (!session) return;
    const abort = new AbortController();
    this.abort = abort;
    this.setBusy(true);
    const turnId = `t${Date.now().toString(36)}-${++this.turnCounter}`;
    this.running = this.runTurn(session, turnId, typed, slash.text, abort);
    await this.running;
  }

  private async runTurn(session: ActiveSession, turnId: string, typed: string, modelText: string, abort: AbortController): Promise<void> {
    const catalog = session.built.assembled.catalog.included;
    this.transcript.startTurn(turnId, typed, { catalog, suggestions: [] });
    try {
      if (!session.writer) {
        session.writer = await this.deps.sessions.log.create({
          model: session.model.id,
          systemPrompt: session.systemPrompt,
          ...(session.promptLayers ? { promptLayers: session.promptLayers } : {}),
          workspace: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '(no folder)',
        });
        this.sessionEmitter.fire(session.writer.id);
      }
      const writer = session.writer;
      await session.agent.send(modelText, {
        signal: abort.signal,
        onEvent: (event) => {
          if (event.type === 'usage') {
            session.appended = session.appended.then(() => writer.appendUsage(event.usage, { model: session.model.id })).catch(() => undefined);
          }
          if (event.type === 'turn_done') this.transcript.setSuggestions(session.suggestions);
          this.transcript.onEvent(event);
        },
      });
      await session.appended;
    } catch (error) {
      this.logFailure('The turn', error);
      this.transcript.onEvent({ type: 'turn_done', reason: 'error' });
      this.deps.panel.post({ type: 'panel/notice', level: 'error', message: `The turn failed: ${describeError(error)}` });
    } finally {
      this.abort = undefined;
      this.running = undefined;
      this.setBusy(false);
      this.sessionEmitter.fire(session.writer?.id);
    }
  }

  private async editLast(text: string): Promise<void> {
    if (this.busy) return;
    if (this.active) this.active.agent.dropLastTurn();
    this.transcript.dropLastTurn();
    this.deps.panel.post({ type: 'chat/snapshot', chat: await this.snapshot() });
    await this.send(text);
  }

  private ask(prompt: ApprovalPrompt): Promise<ApprovalReply> {
    const id = `ap-${++this.approvalCounter}`;
    if (prompt.diff) this.diffs.remember(id, prompt.diff);
    this.transcript.approval(id, prompt);
    return new Promise<ApprovalReply>((resolve) => this.pending.set(id, { prompt, resolve }));
  }

  private async answer(id: string, answer: 'allow_once' | 'allow_session' | 'allow_always' | 'deny'): Promise<void> {
    const entry = this.pending.get(id);
    if (!entry) {
      this.deps.panel.post({ type: 'panel/notice', level: 'info', message: 'That request is no longer waiting for an answer.' });
      return;
    }
    this.pending.delete(id);
    this.transcript.approvalAnswered(id, answer);
    entry.resolve(answer === 'allow_always' && entry.prompt.suggestedPrefix ? { answer, commandPrefix: entry.prompt.suggestedPrefix } : answer);
  }

  private async openDiff(id: string): Promise<void> {
    if (!(await this.diffs.open(id))) {
      this.deps.panel.post({ type: 'panel/notice', level: 'info', message: 'That change has no diff to show any more.' });
    }
  }

  private setBusy(busy: boolean): void {
    this.deps.panel.post({ type: 'chat/busy', busy });
    // Enables the Stop command and its Escape keybinding only while a reply runs.
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.busy, busy);
  }

  private logFailure(what: string, error: unknown): void {
    this.deps.logger.error(`${what} failed: ${describeError(error)}`);
  }
}

/** Maps a logged message id (a History hit) to the transcript item that shows it. */
function itemForMessage(session: SessionData, messageId: string): string | undefined {
  const message = session.messages.find((m) => m.id === messageId);
  if (!message) return undefined;
  if (message.role === 'tool' && message.toolCallId) return message.toolCallId;
  return message.id;
}

/** A stand-in when a resumed session has no model now: sending shows the setup card instead. */
function unavailableModel(): ChatModel {
  return {
    id: 'none',
    async *stream() {
      throw new Error('No model is configured.');
    },
  };
}

async function insertAtCursor(code: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    await editor.edit((edit) => {
      for (const selection of editor.selections) edit.replace(selection, code);
    });
    return;
  }
  const document = await vscode.workspace.openTextDocument({ content: code });
  await vscode.window.showTextDocument(document);
}
