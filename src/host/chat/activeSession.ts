import type { ApprovalGate } from '../../core/toolkit/agentTool';
import { AgentSession } from '../../core/agent/agentSession';
import type { SessionContextOptions } from '../../core/agent/agentSession';
import type { PriorCompaction } from '../../core/sessions/compactedHistory';
import type { ChatMessage, ChatModel, ChatRequest } from '../../core/llm/chatTypes';
import type { SessionWriter } from '../../core/sessions/sessionWriter';
import type { BuiltAgent } from './agentFactory';
import type { RunApproval } from '../../core/execution/executionTypes';
import { gateRunApproval } from '../../core/agent/runApproval';

/** Forwards to whichever model the settings name now, so a session survives a model change. */
export class CurrentModel implements ChatModel {
  constructor(private current: ChatModel) {}
  get id(): string {
    return this.current.id;
  }
  set(model: ChatModel): void {
    this.current = model;
  }
  /** VS Code's context window for one of its language models; undefined for other models. */
  get maxInputTokens(): number | undefined {
    return this.current.maxInputTokens;
  }
  stream(request: ChatRequest) {
    return this.current.stream(request);
  }
}

export interface ActiveSessionOptions {
  readonly built: BuiltAgent;
  readonly model: ChatModel;
  readonly systemPrompt: string;
  readonly promptLayers?: { stable: string; context: string; volatile: string };
  readonly history?: readonly ChatMessage[];
  /** A resumed session's last compaction, which `history` starts from. */
  readonly priorCompaction?: PriorCompaction;
  /** Measuring and compaction (window, threshold, summary model); the chat model itself when absent. */
  readonly context?: (model: CurrentModel) => SessionContextOptions;
  readonly approvals: ApprovalGate;
  readonly maxSteps: number;
  /** Told when saving a record failed; the conversation goes on. */
  readonly onSaveFailure: (error: unknown) => void;
}

/**
 * The conversation the Chat tab shows: the agent session, the file it is logged to (from its
 * first message on) and the skills suggested for the last message.
 */
export class ActiveSession {
  readonly agent: AgentSession;
  readonly built: BuiltAgent;
  readonly model: CurrentModel;
  readonly systemPrompt: string;
  readonly promptLayers: ActiveSessionOptions['promptLayers'];
  writer: SessionWriter | undefined;
  /** skill_run's approval for scripts and endpoints: the same cards and grants as the session's commands. */
  readonly runApproval: RunApproval;
  /** Skill names suggested with the last user message. */
  suggestions: string[] = [];
  /** Appends in call order; awaited before a turn reports done. */
  private appended: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ActiveSessionOptions) {
    this.built = options.built;
    this.model = new CurrentModel(options.model);
    this.systemPrompt = options.systemPrompt;
    this.promptLayers = options.promptLayers;
    this.runApproval = gateRunApproval(options.approvals);
    this.agent = new AgentSession({
      model: this.model,
      tools: options.built.assembled.tools,
      systemPrompt: options.systemPrompt,
      ...(options.history ? { history: options.history } : {}),
      ...(options.priorCompaction ? { priorCompaction: options.priorCompaction } : {}),
      ...(options.context ? { context: options.context(this.model) } : {}),
      // The log keeps every original message; the record says what the model saw from here on.
      onCompaction: (_info, record) => this.append((writer) => writer.appendCompaction(record)),
      approvals: options.approvals,
      maxSteps: options.maxSteps,
      // Meaning as well as words when the endpoint serves embeddings; words alone otherwise, or when they are late.
      suggest: async (text) => {
        const assembled = options.built.assembled;
        const found = await (assembled.suggestHybrid ?? assembled.suggest)(text);
        this.suggestions = found.map((s) => s.name);
        return found;
      },
      onMessage: (message) => this.append((writer) => writer.appendChat(message)),
    });
  }

  /** Queues a write to the session file, after the ones before it; nothing is written before the file exists. */
  append(write: (writer: SessionWriter) => Promise<unknown>): void {
    const writer = this.writer;
    if (!writer) return;
    this.appended = this.appended.then(() => write(writer)).catch((error: unknown) => this.options.onSaveFailure(error));
  }

  /** Resolves when every queued write has been made. */
  async saved(): Promise<void> {
    await this.appended;
  }
}

/** A stand-in when a resumed session has no model now: sending shows the setup card instead. */
export function unavailableModel(): ChatModel {
  return {
    id: 'none',
    async *stream() {
      throw new Error('No model is configured.');
    },
  };
}
