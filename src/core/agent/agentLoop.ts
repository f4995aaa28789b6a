import type { AgentTool, ApprovalGate } from '../toolkit/agentTool';
import type { ChatMessage, ChatModel, ToolCall, TokenUsage } from '../llm/chatTypes';
import { ModelError } from '../llm/chatTypes';
import type { CompactionInfo } from './compactionInfo';
import type { ContextUsage } from './contextUsage';

export type TurnEndReason = 'stop' | 'max_steps' | 'aborted' | 'error';

export type AgentEvent =
  | { readonly type: 'text'; readonly delta: string }
  | { readonly type: 'tool_start'; readonly call: ToolCall }
  | {
      readonly type: 'tool_end';
      readonly call: ToolCall;
      readonly ok: boolean;
      /** The JSON text fed back to the model. */
      readonly result: string;
      readonly summary: string;
      readonly durationMs: number;
    }
  | { readonly type: 'approval'; readonly call: ToolCall; readonly summary: string }
  | { readonly type: 'usage'; readonly usage: TokenUsage; readonly step: number }
  /** Before each model request: what it costs against the window. */
  | { readonly type: 'context'; readonly usage: ContextUsage }
  | { readonly type: 'compaction_start'; readonly reason: CompactionInfo['reason'] }
  | { readonly type: 'compaction'; readonly compaction: CompactionInfo }
  | { readonly type: 'turn_done'; readonly reason: TurnEndReason; readonly error?: ModelError };

/** What a compaction did to the history handed to it. */
export type CompactOutcome =
  /** `info` when older turns were summarised; without it only oversized messages were clipped. */
  | { readonly kind: 'compacted'; readonly messages: readonly ChatMessage[]; readonly info?: CompactionInfo }
  /** Nothing older than the kept turns: the request goes out as it is (the server judges). */
  | { readonly kind: 'unchanged'; readonly reason: string }
  /** Summarising failed or was stopped: the turn ends with this error, the history untouched. */
  | { readonly kind: 'failed'; readonly error: ModelError };

/**
 * Keeps a turn's requests inside the model's context window (AgentSession provides it). The loop
 * calls it only at the top of a step, when every tool call so far has its result: a compaction
 * can never separate a call from its result or run while a tool is running.
 */
export interface TurnContext {
  measure(messages: readonly ChatMessage[]): ContextUsage;
  compact(
    messages: readonly ChatMessage[],
    reason: 'threshold' | 'server',
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
    cause?: ModelError,
  ): Promise<CompactOutcome>;
}

export interface AgentTurnOptions {
  readonly model: ChatModel;
  /** The conversation so far, system prompt first, ending with the new user message. */
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly AgentTool[];
  /** Model requests in this turn at most (each may run several tools). */
  readonly maxSteps: number;
  readonly signal?: AbortSignal;
  readonly approvals?: ApprovalGate;
  readonly onEvent?: (event: AgentEvent) => void;
  /** Called with each message the turn adds, as soon as it is complete (for the session log). */
  readonly onMessage?: (message: ChatMessage) => void;
  readonly now?: () => number;
  readonly defaultToolTimeoutMs?: number;
  /** Identifies this turn to tools; generated when absent. */
  readonly turnId?: string;
  /** Measuring and compaction before each request; without it requests go out as they are. */
  readonly context?: TurnContext;
}

export interface AgentTurnResult {
  /** Messages this turn added: assistant replies and tool results. */
  readonly added: readonly ChatMessage[];
  readonly reason: TurnEndReason;
  readonly error?: ModelError;
  readonly toolCalls: number;
}

const MAX_RESULT_CHARS = 100_000;
let turnCounter = 0;

function errorResult(error: string): string {
  return JSON.stringify({ success: false, error });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One line about a call for cards and logs: the tool and its most telling argument. */
export function summarizeCall(call: ToolCall): string {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return `${call.name} (unreadable arguments)`;
  }
  if (args && typeof args === 'object') {
    const record = args as Record<string, unknown>;
    for (const key of ['command', 'path', 'name', 'query', 'glob', 'action']) {
      if (typeof record[key] === 'string') return `${call.name}: ${String(record[key]).slice(0, 120)}`;
    }
  }
  return call.name;
}

function summarizeResult(text: string): string {
  try {
    const value = JSON.parse(text) as { success?: unknown; error?: unknown };
    if (value && value.success === false && typeof value.error === 'string') return `failed: ${value.error.slice(0, 160)}`;
  } catch {
    // not JSON: fall through
  }
  return `${text.length} chars`;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, signal: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${Math.round(ms / 1000)} s`)), ms);
    onAbort = () => reject(new Error('stopped by the user'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Runs one user turn: streams a reply, runs the tools it asks for, feeds results back, and repeats
 * until the model stops calling tools, the step limit is hit, the user stops, or the model fails.
 * Tool problems (malformed arguments, unknown tools, throws, timeouts, refusals) become tool
 * results the model can react to; what was already said is always kept.
 */
export async function runAgentTurn(options: AgentTurnOptions): Promise<AgentTurnResult> {
  const { model, tools, maxSteps } = options;
  const emit = options.onEvent ?? (() => undefined);
  const now = options.now ?? Date.now;
  const signal = options.signal ?? new AbortController().signal;
  const turnId = options.turnId ?? `turn-${++turnCounter}`;
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  const specs = tools.map((tool) => tool.spec);
  const history: ChatMessage[] = [...options.messages];
  const added: ChatMessage[] = [];
  let toolCalls = 0;
  const add = (message: ChatMessage) => {
    history.push(message);
    added.push(message);
    options.onMessage?.(message);
  };
  const finish = (reason: TurnEndReason, error?: ModelError): AgentTurnResult => {
    emit({ type: 'turn_done', reason, ...(error ? { error } : {}) });
    return { added, reason, toolCalls, ...(error ? { error } : {}) };
  };

  const context = options.context;
  const replaceHistory = (messages: readonly ChatMessage[]) => {
    history.length = 0;
    history.push(...messages);
    if (context) emit({ type: 'context', usage: context.measure(history) });
  };
  const failed = (error: ModelError) => (signal.aborted || error.kind === 'aborted' ? finish('aborted') : finish('error', error));

  for (let step = 0; step < maxSteps; step += 1) {
    if (context) {
      const usage = context.measure(history);
      emit({ type: 'context', usage });
      if (usage.total > usage.threshold) {
        const outcome = await context.compact(history, 'threshold', signal, emit);
        if (outcome.kind === 'failed') return failed(outcome.error);
        if (outcome.kind === 'compacted') replaceHistory(outcome.messages);
      }
    }
    let text = '';
    const calls: ToolCall[] = [];
    // The server is the final judge of size: its context-length error earns one compaction and one retry.
    for (let attempt = 0; ; attempt += 1) {
      try {
        for await (const event of model.stream({ messages: history, tools: specs, signal })) {
          if (event.type === 'text') {
            text += event.delta;
            emit(event);
          } else if (event.type === 'tool_call') {
            calls.push(event.call);
          } else if (event.type === 'usage') {
            emit({ type: 'usage', usage: event.usage, step });
          }
        }
        break;
      } catch (error) {
        const modelError = error instanceof ModelError ? error : new ModelError('unknown', describe(error), 'Try again; the log has details.');
        if (context && attempt === 0 && modelError.kind === 'context_length' && text === '' && calls.length === 0 && !signal.aborted) {
          const outcome = await context.compact(history, 'server', signal, emit, modelError);
          if (outcome.kind === 'compacted') {
            replaceHistory(outcome.messages);
            continue;
          }
          if (outcome.kind === 'failed') return failed(outcome.error);
        }
        if (text) add({ role: 'assistant', content: text });
        return failed(modelError);
      }
    }
    if (signal.aborted) {
      if (text) add({ role: 'assistant', content: text });
      return finish('aborted');
    }
    add(calls.length > 0 ? { role: 'assistant', content: text, toolCalls: calls } : { role: 'assistant', content: text });
    if (calls.length === 0) return finish('stop');

    toolCalls += calls.length;
    const results = await runCalls(calls, byName, { ...options, turnId }, signal, emit, now);
    for (const [i, call] of calls.entries()) {
      add({ role: 'tool', toolCallId: call.id, content: results[i] ?? errorResult('no result') });
    }
    if (signal.aborted) return finish('aborted');
  }
  return finish('max_steps');
}

/** Read-only calls run together; anything that changes the workspace runs alone, in order. */
async function runCalls(
  calls: readonly ToolCall[],
  byName: ReadonlyMap<string, AgentTool>,
  options: AgentTurnOptions,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
  now: () => number,
): Promise<string[]> {
  const results: string[] = new Array<string>(calls.length);
  let batch: Promise<void>[] = [];
  for (const [i, call] of calls.entries()) {
    const tool = byName.get(call.name);
    const job = async () => {
      results[i] = await runOne(call, tool, options, signal, emit, now);
    };
    if (tool?.readOnly !== false) {
      batch.push(job());
    } else {
      await Promise.all(batch);
      batch = [];
      await job();
    }
  }
  await Promise.all(batch);
  return results;
}

async function runOne(
  call: ToolCall,
  tool: AgentTool | undefined,
  options: AgentTurnOptions,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
  now: () => number,
): Promise<string> {
  const started = now();
  emit({ type: 'tool_start', call });
  const done = (ok: boolean, result: string) => {
    const clipped = result.length > MAX_RESULT_CHARS ? `${result.slice(0, MAX_RESULT_CHARS)}… [result cut at ${MAX_RESULT_CHARS} characters]` : result;
    emit({ type: 'tool_end', call, ok, result: clipped, summary: summarizeResult(clipped), durationMs: now() - started });
    return clipped;
  };
  if (signal.aborted) return done(false, errorResult('stopped by the user before this tool ran'));
  if (!tool) {
    const known = [...options.tools.map((t) => t.spec.name)].join(', ');
    return done(false, errorResult(`unknown tool "${call.name}"; the tools are: ${known}`));
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return done(false, errorResult(`the arguments are not valid JSON (${describe(error)}); send one JSON object matching the tool's schema`));
  }
  if (!tool.readOnly && options.approvals) {
    const verdict = options.approvals.check(call.name, args);
    if (verdict.decision === 'deny') return done(false, errorResult(`not allowed: ${verdict.reason ?? 'denied by the approval settings'}`));
    if (verdict.decision === 'ask') {
      const summary = summarizeCall(call);
      emit({ type: 'approval', call, summary });
      const answer = await options.approvals.ask({ tool: call.name, args, summary });
      options.approvals.record(call.name, args, answer);
      if (answer === 'deny') return done(false, errorResult('the user declined this action; ask what they want instead'));
    }
  }
  try {
    const value = await withTimeout(tool.run(args, { signal, turnId: options.turnId ?? '', callId: call.id }), tool.timeoutMs ?? options.defaultToolTimeoutMs ?? 120_000, signal);
    const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
    const ok = !(value && typeof value === 'object' && (value as { success?: unknown }).success === false);
    return done(ok, text);
  } catch (error) {
    return done(false, errorResult(`${call.name} failed: ${describe(error)}`));
  }
}
