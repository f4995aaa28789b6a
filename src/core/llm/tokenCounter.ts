import { createRequire } from 'node:module';
import * as path from 'node:path';
import { estimateTokens } from '../text/tokenEstimate';
import type { ChatMessage, ToolSpec } from './chatTypes';
import { bareModelName } from './contextWindows';

/**
 * Counts the tokens of a request before it is sent, to know when the conversation must be
 * compacted. `exact` is true when a real tokenizer for the model's family does the counting; the
 * server's own figure (usage, or a context-length error) stays the final word either way.
 */
export interface TokenCounter {
  readonly exact: boolean;
  count(text: string): number;
  countMessages(messages: readonly ChatMessage[]): number;
  countTools(tools: readonly ToolSpec[]): number;
}

/**
 * Per-message framing: OpenAI documents 3 tokens per message (role and separators) plus 3 that
 * prime the reply; the JSON keys other servers' templates add cost about as much.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const REPLY_PRIMING_TOKENS = 3;
/** Each offered tool is wrapped in a function-definition frame the count of its JSON does not see. */
export const TOOL_OVERHEAD_TOKENS = 8;

type Encoding = 'o200k_base' | 'cl100k_base';
type CountFn = (text: string) => number;

/**
 * The BPE tables are megabytes, so they are loaded on the first count, never at import (the
 * extension must activate fast). In the bundles each table is its own file beside the bundle
 * (scripts/build.mjs writes dist/tokenizer/<encoding>.js); from sources it is the package itself.
 * `createRequire` keeps esbuild from pulling the tables into the bundle that imports this file.
 */
const loaded = new Map<Encoding, CountFn | null>();

function loadEncoding(encoding: Encoding): CountFn | null {
  const cached = loaded.get(encoding);
  if (cached !== undefined) return cached;
  const load = createRequire(__filename);
  const candidates = [path.join(__dirname, 'tokenizer', `${encoding}.js`), `gpt-tokenizer/cjs/encoding/${encoding}`];
  let fn: CountFn | null = null;
  for (const candidate of candidates) {
    try {
      const api = load(candidate) as { countTokens?: (text: string, options?: { disallowedSpecial?: Set<string> }) => number };
      if (typeof api.countTokens === 'function') {
        const countTokens = api.countTokens;
        // "<|endoftext|>" typed by a user is text, not a special token: never throw on it.
        const options = { disallowedSpecial: new Set<string>() };
        fn = (text) => countTokens(text, options);
        break;
      }
    } catch {
      // Not there (bundle vs sources): try the next place, then fall back to the estimate.
    }
  }
  loaded.set(encoding, fn);
  return fn;
}

/** The OpenAI encoding of a model id, or undefined for models of other families. */
export function encodingFor(modelId: string): Encoding | undefined {
  // Ids come as `openai:gpt-4o`, `openrouter/openai/gpt-4o-mini`, `vscode-lm:copilot/gpt-4.1`, …
  const id = bareModelName(modelId);
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|codex)/.test(id)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(id)) return 'cl100k_base';
  return undefined;
}

/**
 * The documented estimate for models without a tokenizer here (Llama, Qwen, Mistral, …):
 * ceil(ASCII characters / 4) + one token per non-ASCII character (core/text/tokenEstimate.ts),
 * never below ceil(characters / 4), plus the per-message overhead above.
 */
export const estimateCounter: TokenCounter = counterOf(false, estimateTokens);

/** A counter for the model: the gpt-tokenizer encoding for OpenAI-family ids, the estimate otherwise. */
export function tokenCounterFor(modelId: string): TokenCounter {
  const encoding = encodingFor(modelId);
  if (encoding === undefined) return estimateCounter;
  return new LazyCounter(encoding);
}

class LazyCounter implements TokenCounter {
  private fn: CountFn | undefined;
  private inner: TokenCounter | undefined;

  constructor(private readonly encoding: Encoding) {}

  /** True once the tokenizer loaded (and, before the first count, when it is expected to). */
  get exact(): boolean {
    return this.fn === undefined ? loaded.get(this.encoding) !== null : this.fn !== estimateTokens;
  }

  count(text: string): number {
    return this.counter().count(text);
  }

  countMessages(messages: readonly ChatMessage[]): number {
    return this.counter().countMessages(messages);
  }

  countTools(tools: readonly ToolSpec[]): number {
    return this.counter().countTools(tools);
  }

  private counter(): TokenCounter {
    if (this.inner === undefined) {
      this.fn = loadEncoding(this.encoding) ?? estimateTokens;
      this.inner = counterOf(this.fn !== estimateTokens, this.fn);
    }
    return this.inner;
  }
}

function counterOf(exact: boolean, count: CountFn): TokenCounter {
  // Messages are immutable and measured before every request: count each object once.
  const counted = new WeakMap<ChatMessage, number>();
  const countMessage = (message: ChatMessage): number => {
    const known = counted.get(message);
    if (known !== undefined) return known;
    const tokens = countFresh(message);
    counted.set(message, tokens);
    return tokens;
  };
  // A session's tool specs are built once and measured before every request, like its messages.
  const toolsCounted = new WeakMap<ToolSpec, number>();
  const countTool = (tool: ToolSpec): number => {
    const known = toolsCounted.get(tool);
    if (known !== undefined) return known;
    const tokens = TOOL_OVERHEAD_TOKENS + count(tool.name) + count(tool.description) + count(JSON.stringify(tool.parameters));
    toolsCounted.set(tool, tokens);
    return tokens;
  };
  const countFresh = (message: ChatMessage): number => {
    let tokens = MESSAGE_OVERHEAD_TOKENS + count(message.content);
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) tokens += MESSAGE_OVERHEAD_TOKENS + count(call.name) + count(call.arguments);
    if (message.role === 'tool') tokens += count(message.toolCallId);
    return tokens;
  };
  return {
    exact,
    count: (text) => (text === '' ? 0 : count(text)),
    countMessages: (messages) => (messages.length === 0 ? 0 : messages.reduce((sum, message) => sum + countMessage(message), REPLY_PRIMING_TOKENS)),
    countTools: (tools) => tools.reduce((sum, tool) => sum + countTool(tool), 0),
  };
}
