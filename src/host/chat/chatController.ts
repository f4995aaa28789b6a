import * as vscode from 'vscode';
import type { ApprovalPolicy } from '../../core/agent/approvals';
import type { ApprovalPrompt, ApprovalReply } from '../../core/agent/approvalGate';
import { createApprovalGate } from '../../core/agent/approvalGate';
import type { ChatMessage, ChatModel } from '../../core/llm/chatTypes';
import { DEFAULT_MAX_STEPS } from '../../core/agent/agentSession';
import type { Claim } from '../../core/base/conversationLock';
import type { ContextUsage } from '../../core/agent/contextUsage';
import { ConversationLock } from '../../core/base/conversationLock';
import { COMMANDS, CONTEXT_KEYS, SETTINGS } from '../../core/base/contributions';
import { describeError } from '../../core/base/logger';
import type { RunTrace } from '../../core/execution/executionTypes';
import type { SessionData } from '../../core/sessions/sessionLog';
import { compactedHistory } from '../../core/sessions/compactedHistory';
import { recordTurnTriggers, turnTriggers } from '../../core/skills/index/turnTriggers';
import type { PriorCompaction } from '../../core/sessions/compactedHistory';
import { MODEL_PRESETS } from '../../providers/modelPresets';
import type { AreaMessage, ChatItem, ChatSnapshot, WebviewToHost } from '../../shared/protocol';
import { assertNever } from '../../shared/protocol';
import type { AgentFactoryDeps, BuiltAgent } from './agentFactory';
import { buildAgent } from './agentFactory';
import type { SkillRunHooks } from './agentFactory';
import { ActiveSession, unavailableModel } from './activeSession';
import { insertAtCursor } from './chatLinks';
import { ChatDiffs } from './chatDiffs';
import { openCheckedLink } from './chatLinks';
import { resolveChatModel, resolveCompactionModel } from '../models/chatModelResolver';
import type { ContextWindows } from './chatContext';
import { compactBetweenTurns, meterOf, readSkillText, sessionContext } from './chatContext';
import type { ChatSessions } from './chatSessions';
import { ChatTranscript } from './chatTranscript';
import { parseSlashCommand } from '../../core/agent/slashCommand';
import type { ModelSetup } from '../models/modelSetup';
import type { PanelArea, PanelPort } from '../panel/panelArea';

/** Traces kept for the chat's cards: a turn runs a few skills, not hundreds. */
const RECENT_RUNS = 20;

export interface ChatControllerDeps extends AgentFactoryDeps {
  readonly panel: PanelPort;
  readonly models: ModelSetup;
  readonly policy: ApprovalPolicy;
  readonly contextWindows: ContextWindows;
}

/**
 * The Chat tab: one agent session at a time, streamed into the transcript; approvals asked on
 * cards; everything logged to the session file as soon as it is complete.
 */
export class ChatController implements PanelArea<'chat'>, ChatSessions, vscode.Disposable {
  private transcript: ChatTranscript;
  private active: ActiveSession | undefined;
  /** Taken before the first await of a send, New Chat or resume, so none of them interleave. */
  private readonly lock = new ConversationLock();
  /**
   * skill_run asks through the active session's gate, which exists only once the session does;
   * its workflow steps become nested cards under the call's card as they start and end.
   */
  private readonly runHooks: SkillRunHooks = {
    approve: () => this.active?.runApproval,
    onProgress: (progress, callId) => this.transcript.stepProgress(progress, callId),
  };
  /** The traces of the last few runs, by id: a finished skill_run card takes its steps' exact times from them. */
  private readonly recentRuns = new Map<string, RunTrace>();
  private readonly runSubscription: { dispose(): unknown } | undefined;
  private readonly pending = new Map<string, { prompt: ApprovalPrompt; resolve: (reply: ApprovalReply) => void }>();
  private approvalCounter = 0;
  private turnCounter = 0;
  private readonly diffs: ChatDiffs;
  private readonly sessionEmitter = new vscode.EventEmitter<string | undefined>();
  readonly onDidChangeSession = this.sessionEmitter.event;
  private focusItemId: string | undefined;
  private readonly noticeEmitter = new vscode.EventEmitter<{ level: 'info' | 'warning' | 'error'; message: string }>();
  /** Every notice the chat shows outside the transcript (refused sends, failures). */
  readonly onDidNotice = this.noticeEmitter.event;

  constructor(private readonly deps: ChatControllerDeps) {
    this.runSubscription = deps.execution?.onDidRun((trace) => {
      this.recentRuns.set(trace.trace_id, trace);
      for (const id of this.recentRuns.keys()) {
        if (this.recentRuns.size <= RECENT_RUNS) break;
        this.recentRuns.delete(id);
      }
    });
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

  /** What the next request of the open chat would fill of the model's window (the header's meter). */
  get contextUsage(): ContextUsage | undefined {
    return this.active?.agent.contextUsage();
  }

  get busy(): boolean {
    return this.lock.held === 'turn';
  }

  /** Resolves when the running turn, New Chat or resume (if any) has finished; for tests and shutdown. */
  async idle(): Promise<void> {
    await this.lock.whenFree();
  }

  async currentSession(): Promise<SessionData | undefined> {
    const id = this.currentSessionId;
    if (!id) return undefined;
    await this.active?.saved();
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
        this.notice('info', 'There is no earlier message to retry.');
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
        return openCheckedLink(message.href, (text) => this.notice('warning', text));
      case 'chat/saveAsSkill':
        await vscode.commands.executeCommand('skillwright.saveAsSkill');
        return;
      case 'chat/showTrace':
        await vscode.commands.executeCommand(COMMANDS.showTrace, { traceId: message.traceId });
        return;
      case 'chat/compact':
        return this.compact();
      case 'chat/rate': {
        const skills = this.transcript.rate(message.id, message.rating);
        for (const name of skills ?? []) this.deps.skills.usage.rate(name, message.rating);
        return;
      }
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

  /** Compact Conversation: summarise the older part of this chat now (as `/compact` does). */
  async compact(): Promise<void> {
    await this.send('/compact');
  }

  /** Stops the running turn: the HTTP request is aborted, commands are killed, questions are withdrawn. */
  stop(): void {
    this.lock.stop();
    for (const [id, entry] of this.pending) {
      entry.resolve('deny');
      this.transcript.approvalAnswered(id, 'expired');
    }
    this.pending.clear();
  }

  async newChat(): Promise<void> {
    this.stop();
    const claim = await this.lock.take('switch');
    try {
      this.active = undefined;
      this.transcript = this.newTranscript();
      this.focusItemId = undefined;
      this.sessionEmitter.fire(undefined);
      await this.sync();
    } finally {
      this.lock.release(claim);
    }
  }

  async openSession(id: string, focusMessageId?: string): Promise<void> {
    this.stop();
    const claim = await this.lock.take('switch');
    try {
      const resumed = await this.deps.sessions.log.resume(id);
      const header = resumed?.session.header;
      if (!resumed || !header) throw new Error(`The session ${id} could not be read; it may have been deleted.`);
      const { writer, session } = resumed;
      const built = await buildAgent(this.deps, () => this.currentSessionId, this.runHooks);
      const model = await this.resolveModel();
      // After a compaction the model goes on from the summary; the transcript still shows every message.
      const history = compactedHistory(session);
      for (const reason of history.skipped ?? []) this.deps.logger.warn(`Resuming ${id}: passed over ${reason}`);
      this.active = await this.createSession(built, model ?? unavailableModel(), header.systemPrompt, header.promptLayers, history.messages, history.prior);
      this.active.writer = writer;
      this.transcript = ChatTranscript.fromSession(session, built.assembled.catalog.included);
      this.rebindTranscript();
      this.focusItemId = focusMessageId ? itemForMessage(session, focusMessageId) : undefined;
      this.sessionEmitter.fire(id);
      this.deps.panel.post({ type: 'chat/snapshot', chat: await this.snapshot() });
    } finally {
      this.lock.release(claim);
    }
  }

  forgetSession(id: string): void {
    if (this.currentSessionId === id) void this.newChat();
  }

  dispose(): void {
    this.stop();
    this.runSubscription?.dispose();
    this.diffs.dispose();
    this.sessionEmitter.dispose();
    this.noticeEmitter.dispose();
  }

  private newTranscript(): ChatTranscript {
    return new ChatTranscript(
      {
        item: (item) => this.deps.panel.post({ type: 'chat/item', item }),
        delta: (id, delta) => this.deps.panel.post({ type: 'chat/delta', id, delta }),
      },
      { traceOf: (traceId) => this.recentRuns.get(traceId) },
    );
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
    const context = this.active?.agent.contextUsage();
    return {
      ...(this.currentSessionId ? { sessionId: this.currentSessionId } : {}),
      ...(this.active?.writer?.title ? { title: this.active.writer.title } : {}),
      items: this.transcript.items,
      busy: this.busy,
      ...(setup ? { setup } : {}),
      ...(this.active ? { modelLabel: this.active.model.id } : model?.ok ? { modelLabel: model.label } : {}),
      trusted: vscode.workspace.isTrusted,
      ...(focus ? { focusItemId: focus } : {}),
      ...(context ? { context: meterOf(context) } : {}),
    };
  }

  private postContext(session: ActiveSession): void {
    const usage = session.agent.contextUsage();
    if (usage) this.deps.panel.post({ type: 'chat/context', context: meterOf(usage) });
  }

  private async resolveModel(): Promise<ChatModel | undefined> {
    const resolved = await resolveChatModel(this.deps.models, this.deps.logger);
    return resolved.ok ? resolved.model : undefined;
  }

  private async createSession(
    built: BuiltAgent,
    model: ChatModel,
    systemPrompt: string,
    promptLayers: ActiveSession['promptLayers'],
    history: readonly ChatMessage[] = [],
    priorCompaction?: PriorCompaction,
  ): Promise<ActiveSession> {
    this.deps.contextWindows.learnListed(this.deps.models);
    const summaryModel = await resolveCompactionModel(this.deps.models, this.deps.logger).catch((error: unknown) => {
      this.deps.logger.warn(`The compaction model is unavailable; the chat model writes summaries: ${describeError(error)}`);
      return undefined;
    });
    const maxSteps = vscode.workspace.getConfiguration(SETTINGS.section).get<number>(SETTINGS.maxSteps, DEFAULT_MAX_STEPS);
    const approvals = createApprovalGate(this.deps.policy, (prompt) => this.ask(prompt), {
      preview: (tool, args) => built.workspaceTools.preview(tool, args),
    });
    return new ActiveSession({
      built,
      model,
      systemPrompt,
      ...(promptLayers ? { promptLayers } : {}),
      history,
      ...(priorCompaction ? { priorCompaction } : {}),
      context: sessionContext({ windows: this.deps.contextWindows, summaryModel, readSkill: (name) => readSkillText(this.deps.skills.skillIndex, name) }),
      approvals,
      maxSteps: Number.isInteger(maxSteps) && maxSteps > 0 ? maxSteps : DEFAULT_MAX_STEPS,
      onSaveFailure: (error) => this.logFailure('Saving a message', error),
    });
  }

  private async ensureSession(): Promise<ActiveSession | undefined> {
    const model = await this.resolveModel();
    if (!model) {
      this.deps.panel.post({ type: 'chat/snapshot', chat: await this.snapshot() });
      this.notice('warning', 'Choose a model first: pick a provider on the setup card, or run "Skillwright: Configure Model".');
      return undefined;
    }
    if (this.active) {
      this.active.model.set(model);
      return this.active;
    }
    const built = await buildAgent(this.deps, () => this.currentSessionId, this.runHooks);
    const prompt = built.assembled.prompt;
    this.active = await this.createSession(built, model, prompt.text, prompt.layers);
    if (!built.trusted) {
      this.transcript.notice('warning', 'Restricted Mode: nothing runs, and project skills, project memory and instruction files stay out of the prompt until you trust this folder.');
    }
    if (built.withheld.length > 0) {
      this.transcript.notice('warning', `Memory entries were left out of this session because the threat scanner matched them (${built.withheld.join('; ')}). Review them in the Memory tab.`);
    }
    return this.active;
  }

  /**
   * Runs one turn. The lock is taken before anything is awaited, so a second send in the same
   * tick, a send while a stopped reply winds down and a send while a session opens are refused
   * with a notice (the draft stays in the input box) instead of starting a second turn.
   */
  private async send(typed: string, prepare?: () => Promise<void>): Promise<void> {
    const claim = this.lock.tryTake('turn');
    if (!claim) {
      this.notice('info', this.refusal());
      return;
    }
    this.setBusy(true);
    try {
      const slash = parseSlashCommand(typed, (name) => this.deps.skills.skillIndex.get(name) !== undefined);
      if (!slash.ok) {
        this.notice('warning', slash.error);
        return;
      }
      await prepare?.();
      if (slash.command === 'compact') {
        if (!this.active || this.active.agent.history.length <= 1) {
          this.notice('info', 'Nothing to compact yet: the conversation has not started.');
          return;
        }
        await compactBetweenTurns(this.active, this.transcript, claim.signal, (level, text) => this.notice(level, text));
        this.postContext(this.active);
        return;
      }
      const session = await this.ensureSession();
      // Stopped before the request went out: nothing was said, so nothing is logged.
      if (!session || claim.signal.aborted) return;
      const turnId = `t${Date.now().toString(36)}-${++this.turnCounter}`;
      await this.runTurn(session, turnId, typed, slash.text ?? typed, claim);
    } finally {
      this.lock.release(claim);
      this.setBusy(false);
    }
  }

  private refusal(): string {
    if (this.lock.held === 'switch') return 'A session is opening: send again once it shows.';
    if (this.lock.stopping) return 'The reply is stopping: send again once it has stopped.';
    return 'A reply is still running: stop it first, or wait for it to finish.';
  }

  private async runTurn(session: ActiveSession, turnId: string, typed: string, modelText: string, claim: Claim): Promise<void> {
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
      const result = await session.agent.send(modelText, {
        signal: claim.signal,
        onEvent: (event) => {
          if (event.type === 'usage') {
            session.append((w) => w.appendUsage(event.usage, { model: session.model.id }));
          }
          if (event.type === 'turn_done') this.transcript.setSuggestions(session.suggestions);
          if (event.type === 'context') this.deps.panel.post({ type: 'chat/context', context: meterOf(event.usage) });
          this.transcript.onEvent(event);
        },
      });
      // Each skill's "suggested N×, loaded M×" in the Skills tab and the preview.
      recordTurnTriggers(this.deps.skills.usage, turnTriggers(session.suggestions, result.added));
      await session.saved();
    } catch (error) {
      this.logFailure('The turn', error);
      this.transcript.onEvent({ type: 'turn_done', reason: 'error' });
      this.notice('error', `The turn failed: ${describeError(error)}`);
    } finally {
      this.sessionEmitter.fire(session.writer?.id);
    }
  }

  private async editLast(text: string): Promise<void> {
    await this.send(text, async () => {
      this.active?.agent.dropLastTurn();
      this.transcript.dropLastTurn();
      this.deps.panel.post({ type: 'chat/snapshot', chat: await this.snapshot() });
    });
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
      this.notice('info', 'That request is no longer waiting for an answer.');
      return;
    }
    this.pending.delete(id);
    this.transcript.approvalAnswered(id, answer);
    entry.resolve(answer === 'allow_always' && entry.prompt.suggestedPrefix ? { answer, commandPrefix: entry.prompt.suggestedPrefix } : answer);
  }

  private async openDiff(id: string): Promise<void> {
    if (!(await this.diffs.open(id))) {
      this.notice('info', 'That change has no diff to show any more.');
    }
  }

  private setBusy(busy: boolean): void {
    this.deps.panel.post({ type: 'chat/busy', busy });
    // Enables the Stop command and its Escape keybinding only while a reply runs.
    void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.busy, busy);
  }

  private notice(level: 'info' | 'warning' | 'error', message: string): void {
    this.deps.panel.post({ type: 'panel/notice', level, message });
    this.noticeEmitter.fire({ level, message });
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
