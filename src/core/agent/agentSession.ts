import type { AgentEvent, AgentTurnResult } from './agentLoop';
import { runAgentTurn } from './agentLoop';
import type { AgentTool, ApprovalGate } from '../toolkit/agentTool';
import type { ChatMessage, ChatModel } from '../llm/chatTypes';
import { withSkillSuggestions } from './systemPrompt';

export interface AgentSessionOptions {
  readonly model: ChatModel;
  readonly tools: readonly AgentTool[];
  /** Built once when the session starts and never rebuilt: the cached prefix of every request. */
  readonly systemPrompt: string;
  /** Earlier messages of a resumed session (without the system prompt). */
  readonly history?: readonly ChatMessage[];
  readonly approvals?: ApprovalGate;
  readonly maxSteps?: number;
  /** Skills that fit a message, sent after the cached prefix with the message. */
  readonly suggest?: (text: string) => readonly { name: string; description: string }[];
  /** Called with each message as soon as it is complete (the session log). */
  readonly onMessage?: (message: ChatMessage) => void;
}

export const DEFAULT_MAX_STEPS = 25;

/**
 * One conversation: the frozen system prompt, the history, and turns run through the agent loop.
 * The prefix of every request is byte-identical, so a provider's prompt cache keeps hitting.
 */
export class AgentSession {
  private readonly messages: ChatMessage[];
  private running = false;

  constructor(private readonly options: AgentSessionOptions) {
    this.messages = [{ role: 'system', content: options.systemPrompt }, ...(options.history ?? [])];
  }

  get history(): readonly ChatMessage[] {
    return this.messages;
  }

  get busy(): boolean {
    return this.running;
  }

  /**
   * Forgets the last user message and everything after it ("edit and resend"). The session log is
   * append-only and keeps them; only what the model sees next changes.
   */
  dropLastTurn(): void {
    if (this.running) throw new Error('Stop the running turn before editing the last message.');
    for (let i = this.messages.length - 1; i > 0; i--) {
      if (this.messages[i]?.role === 'user') {
        this.messages.splice(i);
        return;
      }
    }
  }

  async send(text: string, turn: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void } = {}): Promise<AgentTurnResult> {
    if (this.running) throw new Error('A turn is already running; stop it or wait for it to finish.');
    this.running = true;
    try {
      const suggestions = this.options.suggest?.(text) ?? [];
      const user: ChatMessage = { role: 'user', content: withSkillSuggestions(text, suggestions) };
      this.messages.push(user);
      this.options.onMessage?.(user);
      const result = await runAgentTurn({
        model: this.options.model,
        messages: this.messages,
        tools: this.options.tools,
        maxSteps: this.options.maxSteps ?? DEFAULT_MAX_STEPS,
        ...(turn.signal ? { signal: turn.signal } : {}),
        ...(this.options.approvals ? { approvals: this.options.approvals } : {}),
        ...(turn.onEvent ? { onEvent: turn.onEvent } : {}),
        onMessage: (message) => {
          this.messages.push(message);
          this.options.onMessage?.(message);
        },
      });
      return result;
    } finally {
      this.running = false;
    }
  }
}
