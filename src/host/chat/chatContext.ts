import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import type { ContextUsage } from '../../core/agent/contextUsage';
import { SETTINGS, STATE_KEYS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import type { ContextWindow } from '../../core/llm/contextWindows';
import { contextWindowFor } from '../../core/llm/contextWindows';
import type { ChatModel } from '../../core/llm/chatTypes';
import type { ContextMeter } from '../../shared/protocol';
import type { ModelSetup } from '../models/modelSetup';
import type { SessionContextOptions } from '../../core/agent/agentSession';
import { tokenCounterFor } from '../../core/llm/tokenCounter';
import type { ActiveSession, CurrentModel } from './activeSession';
import type { ChatTranscript } from './chatTranscript';

const DEFAULT_THRESHOLD = 0.8;

/**
 * What Skillwright knows about each model's context window, in the order it trusts it: the
 * setting, what a server's "too long" answer taught it (kept across windows and restarts in the
 * global state, per model), what the server lists, and the core's table of common models.
 */
export class ContextWindows {
  private readonly listed = new Map<string, number>();
  /** Endpoints whose model list was asked for (once per window: windows rarely change). */
  private readonly asked = new Set<string>();

  constructor(
    private readonly state: vscode.Memento,
    private readonly logger: Logger,
  ) {}

  /** A window the server listed for a model (GET /v1/models, or VS Code's own figure). */
  noteListed(modelId: string, tokens: number): void {
    if (Number.isFinite(tokens) && tokens > 0) this.listed.set(modelId, Math.floor(tokens));
  }

  /**
   * Asks the configured endpoint's model list for the windows it states, in the background: until
   * it answers, the table applies, and a server without a list simply states none.
   */
  learnListed(setup: ModelSetup): void {
    const { baseUrl } = setup.settings();
    if (!baseUrl || this.asked.has(baseUrl)) return;
    this.asked.add(baseUrl);
    void (async () => {
      const apiKey = await setup.apiKey(baseUrl);
      const { listModelWindows } = await import('../../providers/modelConnection');
      const windows = await listModelWindows({ baseUrl, ...(apiKey ? { apiKey } : {}), logger: this.logger });
      for (const [id, tokens] of windows) this.noteListed(`openai:${id}`, tokens);
    })().catch((error: unknown) => this.logger.debug(`No context windows from the model list: ${String(error)}`));
  }

  /** `maxInputTokens`: VS Code's figure for one of its language models. */
  windowFor(model: Pick<ChatModel, 'id'> & { readonly maxInputTokens?: number | undefined }): ContextWindow {
    const setting = vscode.workspace.getConfiguration(SETTINGS.section).get<number>(SETTINGS.contextWindow, 0);
    const learned = this.learnedWindows()[model.id];
    const server = this.listed.get(model.id) ?? (model.maxInputTokens !== undefined && model.maxInputTokens > 0 ? model.maxInputTokens : undefined);
    return contextWindowFor(model.id, {
      ...(typeof setting === 'number' && setting > 0 ? { setting: Math.floor(setting) } : {}),
      ...(learned !== undefined ? { learned } : {}),
      ...(server !== undefined ? { server } : {}),
    });
  }

  /** The server said a request was too long: remember the window it named (or a smaller guess) for this model. */
  learn(modelId: string, tokens: number): void {
    if (!Number.isFinite(tokens) || tokens <= 0) return;
    const all = { ...this.learnedWindows(), [modelId]: Math.floor(tokens) };
    this.logger.info(`Learned a context window of ${Math.floor(tokens)} tokens for ${modelId} from the server's answer.`);
    void Promise.resolve(this.state.update(STATE_KEYS.learnedWindows, all)).catch((error: unknown) => this.logger.warn(`Could not keep the learned context window: ${String(error)}`));
  }

  private learnedWindows(): Record<string, number> {
    const value = this.state.get<unknown>(STATE_KEYS.learnedWindows);
    if (!value || typeof value !== 'object') return {};
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0));
  }
}

/** The share of the window at which the conversation is compacted, from the setting (0.3–0.95). */
export function compactThreshold(): number {
  const value = vscode.workspace.getConfiguration(SETTINGS.section).get<number>(SETTINGS.compactThreshold, DEFAULT_THRESHOLD);
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(0.95, Math.max(0.3, value)) : DEFAULT_THRESHOLD;
}

/** The chat header's meter, from the core's measurement of the next request. */
export function meterOf(usage: ContextUsage): ContextMeter {
  return {
    window: usage.window,
    threshold: usage.threshold,
    system: usage.system,
    tools: usage.tools,
    conversation: usage.conversation,
    total: usage.total,
    exact: usage.exact,
    source: usage.windowSource,
  };
}

export interface SessionContextDeps {
  readonly windows: ContextWindows;
  /** The model that writes summaries (skillwright.context.compactionModel); the chat model when undefined. */
  readonly summaryModel: ChatModel | undefined;
  /** A skill's SKILL.md text, to attach it again after a summary. */
  readonly readSkill: (name: string) => Promise<string | undefined>;
}

/** How a chat session keeps inside its model's window; the window is asked before each request. */
export function sessionContext(deps: SessionContextDeps): (model: CurrentModel) => SessionContextOptions {
  return (model) => ({
    counter: tokenCounterFor(model.id),
    window: () => deps.windows.windowFor(model),
    thresholdShare: compactThreshold(),
    ...(deps.summaryModel ? { summaryModel: deps.summaryModel } : {}),
    onWindowLearned: (tokens) => deps.windows.learn(model.id, tokens),
    readSkill: deps.readSkill,
  });
}

/**
 * Compact Conversation between turns (command, header button, `/compact`): a divider while the
 * summary is written, then its outcome; "nothing to compact" is a notice, not a failure.
 */
export async function compactBetweenTurns(
  session: ActiveSession,
  transcript: ChatTranscript,
  signal: AbortSignal,
  notice: (level: 'info' | 'warning' | 'error', text: string) => void,
): Promise<void> {
  const id = `compaction-${Date.now().toString(36)}`;
  transcript.compactionStarted(id);
  const result = await session.agent.compact({ signal, reason: 'manual' });
  if (result.ok) {
    transcript.compactionEnded(id, { ok: true, compaction: result.compaction });
  } else if (signal.aborted) {
    transcript.compactionEnded(id, { ok: false, error: 'stopped' });
  } else if (result.error) {
    transcript.compactionEnded(id, { ok: false, error: result.reason });
  } else {
    transcript.compactionEnded(id, { ok: false, nothing: true });
    notice('info', `Nothing was compacted: ${result.reason}`);
  }
  await session.saved();
}

/** Larger SKILL.md files are attached as a pointer anyway; reading them whole would only waste memory. */
const MAX_SKILL_READ_BYTES = 1024 * 1024;

/** A skill's SKILL.md text by name, from the index; undefined when it is gone, unreadable or huge. */
export async function readSkillText(index: { get(name: string): { readonly file: string } | undefined }, name: string): Promise<string | undefined> {
  const record = index.get(name);
  if (!record) return undefined;
  try {
    const stat = await fsp.stat(record.file);
    if (!stat.isFile() || stat.size > MAX_SKILL_READ_BYTES) return undefined;
    return await fsp.readFile(record.file, 'utf8');
  } catch {
    return undefined;
  }
}
