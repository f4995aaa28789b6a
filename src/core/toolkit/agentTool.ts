import type { ToolSpec } from '../llm/chatTypes';

export interface ToolRunContext {
  readonly signal: AbortSignal;
  /** Identifies the user turn; tools that count failures per turn (memory) use it. */
  readonly turnId: string;
  /** The model's id for this call, when a loop runs it: lets a tool's progress find its card. */
  readonly callId?: string;
}

/**
 * How a tool is gated: `read` never asks and may run in parallel with other reads; `edit` and
 * `command` ask unless granted (see core/agent/approvals.ts); `self` is trusted to gate itself
 * (memory has its own review mode).
 */
export type ToolApproval = 'read' | 'edit' | 'command' | 'self';

/** A tool the agent loop can offer and run. Results are JSON-serialisable values. */
export interface AgentTool {
  readonly spec: ToolSpec;
  /** Read-only tools never ask for approval and may run in parallel with each other. */
  readonly readOnly: boolean;
  /** How the approval policy treats it; tools built from a definition always say (see toolDefinition.ts). */
  readonly approval?: ToolApproval;
  /** Longest a call may take; the loop turns an overrun into an error result. */
  readonly timeoutMs?: number;
  run(args: unknown, context: ToolRunContext): Promise<unknown>;
}

/** What the loop asks a person before running a tool that edits, writes or runs something. */
export interface ApprovalRequest {
  readonly tool: string;
  readonly args: unknown;
  /** One line for the approval card, e.g. `run_command: npm test`. */
  readonly summary: string;
}

export type ApprovalAnswer = 'allow_once' | 'allow_session' | 'allow_always' | 'deny';

/** The loop's view of the approval policy: decide, and ask through the UI when needed. */
export interface ApprovalGate {
  check(tool: string, args: unknown): { readonly decision: 'allow' | 'ask' | 'deny'; readonly reason?: string };
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
  record(tool: string, args: unknown, answer: ApprovalAnswer): void;
}
