/**
 * How many tokens a model can take in one request. Who says so, most trusted first: the user's
 * setting, a window learned from the server's own context-length error, the server's model list
 * (`context_length`, `max_model_len`), a table of common models, and a cautious default.
 */
export type ContextWindowSource = 'setting' | 'learned' | 'server' | 'table' | 'default';

export interface ContextWindow {
  readonly tokens: number;
  readonly source: ContextWindowSource;
}

/** Small enough for most local models people run, large enough not to compact on every turn. */
export const DEFAULT_CONTEXT_WINDOW = 32_000;
/** Below this no conversation fits beside a system prompt: such a figure is a typo or a bad listing. */
export const MIN_CONTEXT_WINDOW = 1_024;

/**
 * Published windows of common models, matched on the last segment of the id (`openai:gpt-4o`,
 * `openrouter/meta-llama/llama-3.1-8b`), first match wins, so specific names come first. Local
 * servers may run a model with less (Ollama's `num_ctx` defaults far below the model's maximum):
 * the server's listing, its error, or the setting overrides the table.
 */
export const CONTEXT_WINDOW_TABLE: readonly (readonly [RegExp, number])[] = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^(gpt-4o|chatgpt-4o|gpt-4\.5|gpt-4-turbo|gpt-4-1106|gpt-4-0125)/, 128_000],
  [/^gpt-4-32k/, 32_768],
  [/^gpt-4/, 8_192],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^gpt-oss/, 131_072],
  [/^o1-mini/, 128_000],
  [/^(o1|o3|o4)/, 200_000],
  [/^claude/, 200_000],
  [/^gemini-1\.5-pro/, 2_097_152],
  [/^gemini/, 1_048_576],
  [/^deepseek/, 65_536],
  [/^(meta-)?llama-?3\.[1-3]|^llama-?4/, 131_072],
  [/^(meta-)?llama/, 8_192],
  [/^mistral-(nemo|large|medium|small)|^codestral|^devstral|^ministral/, 131_072],
  [/^(mistral|mixtral)/, 32_768],
  [/^qwen/, 32_768],
  [/^gemma-?3/, 131_072],
  [/^gemma/, 8_192],
  [/^phi-?4/, 16_384],
  [/^phi/, 4_096],
];

function usable(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= MIN_CONTEXT_WINDOW;
}

/**
 * The bare model name of an id: without the provider prefix (`openai:`, `vscode-lm:`), the
 * vendor path (`openrouter/meta-llama/…`) and an Ollama tag (`llama3.1:8b`).
 */
export function bareModelName(model: string): string {
  const unprefixed = model.trim().replace(/^(openai|vscode-lm|azure|ollama|lmstudio):/i, '');
  const last = unprefixed.split('/').pop() ?? '';
  return last.replace(/:[^:]*$/, '').toLowerCase();
}

/** The table's figure for a model id, or undefined when the table does not know it. */
export function tableWindow(model: string): number | undefined {
  const id = bareModelName(model);
  return CONTEXT_WINDOW_TABLE.find(([pattern]) => pattern.test(id))?.[1];
}

/** The window to plan with, and where the figure came from (shown in the chat's context meter). */
export function contextWindowFor(model: string, known: { setting?: number; learned?: number; server?: number }): ContextWindow {
  if (usable(known.setting)) return { tokens: Math.floor(known.setting), source: 'setting' };
  if (usable(known.learned)) return { tokens: Math.floor(known.learned), source: 'learned' };
  if (usable(known.server)) return { tokens: Math.floor(known.server), source: 'server' };
  const table = tableWindow(model);
  if (table !== undefined) return { tokens: table, source: 'table' };
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' };
}

/**
 * The window a server's context-length error states, in the wordings of OpenAI and Azure
 * ("maximum context length is 8192 tokens"), vLLM ("maximum model length", "context length 4096"),
 * llama.cpp ("available context size (4096 tokens)"), LM Studio ("context length of only 4096"),
 * Mistral ("32768 maximum context length"), Anthropic ("> 200000 maximum"), Gemini ("maximum
 * number of tokens allowed (1048576)") and TGI ("must be <= 4096").
 */
const WINDOW_PATTERNS: readonly RegExp[] = [
  /maximum context length (?:is|of)\s*(\d[\d,]*)/i,
  /context length of (?:only )?(\d[\d,]*)/i,
  /(?:available )?context (?:size|length|window)\s*(?:is|of)?\s*\(\s*(\d[\d,]*)\s*(?:tokens)?\s*\)/i,
  /\(\s*context length\s*(\d[\d,]*)\s*\)/i,
  /(\d[\d,]*)\s*(?:tokens?\s*)?maximum context length/i,
  /maximum model length (?:is\s*)?(\d[\d,]*)/i,
  /max_model_len\D{0,12}(\d[\d,]*)/i,
  />\s*(\d[\d,]*)\s*maximum/i,
  /maximum number of tokens allowed\s*\(\s*(\d[\d,]*)\s*\)/i,
  /must be <=\s*(\d[\d,]*)/i,
];

export function windowFromContextError(message: string): number | undefined {
  for (const pattern of WINDOW_PATTERNS) {
    const digits = pattern.exec(message)?.[1];
    if (digits === undefined) continue;
    const value = Number(digits.replace(/,/g, ''));
    if (usable(value)) return value;
  }
  return undefined;
}

/** True when a server's error text says the prompt is longer than the model takes. */
export function isContextLengthMessage(message: string, code?: string): boolean {
  if (code === 'context_length_exceeded' || code === 'exceed_context_size_error') return true;
  return CONTEXT_LENGTH_WORDS.test(message);
}

const CONTEXT_LENGTH_WORDS =
  /maximum context length|context length exceeded|exceeds? (?:the )?(?:available |maximum )?context|context (?:size|window) (?:has been )?exceeded|prompt is too long|too long to fit into the model|too many tokens|max_model_len|maximum model length|greater than the context length|context length of only|input (?:token count|length) (?:\(\d+\) )?exceeds|reduce the length of the messages|tokens \+ `?max_new_tokens`? must be <=/i;
