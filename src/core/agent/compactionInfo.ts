/** What one compaction did: shown as the chat's divider, kept in the session log. */
export interface CompactionInfo {
  readonly id: string;
  /** ISO 8601. */
  readonly at: string;
  /** `threshold`: the next request would have passed the share of the window; `server`: the server said the prompt was too long. */
  readonly reason: 'threshold' | 'manual' | 'server';
  readonly messagesCompacted: number;
  readonly summary: string;
  readonly summaryTokens: number;
  /** The whole request (system prompt, tools, conversation) before and after. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Skills loaded or run in the compacted part (and in earlier compactions), as re-attached. */
  readonly skills: readonly { name: string; attached: 'full' | 'pointer'; reason?: string }[];
  /** Memory writes of this session (memory tool calls that add, replace or remove), one line each. */
  readonly memoryWrites: readonly string[];
}

export type CompactionReason = CompactionInfo['reason'];
