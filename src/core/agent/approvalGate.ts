import type { ApprovalAnswer, ApprovalGate, ApprovalRequest } from '../toolkit/agentTool';
import type { ApprovalDiff, ApprovalPreview } from '../toolkit/approvalPreview';
import type { ApprovalPolicy, ToolKind } from './approvals';
import { suggestCommandPrefix } from './approvals';

/**
 * What the approval card shows and how the loop asks: the ApprovalGate the agent loop takes, built
 * over an ApprovalPolicy, the UI's question and the tools' previews.
 */

export interface ApprovalPrompt extends ApprovalRequest {
  readonly kind: ToolKind;
  /** Why approval is needed (e.g. a sensitive file). */
  readonly reason: string;
  readonly diff?: ApprovalDiff;
  /** For run_command: a prefix the card can offer for "always allow commands starting with …". */
  readonly suggestedPrefix?: string;
}

export type ApprovalReply = ApprovalAnswer | { readonly answer: ApprovalAnswer; readonly commandPrefix?: string };
export type RequestApproval = (prompt: ApprovalPrompt) => Promise<ApprovalReply>;

/**
 * The loop's ApprovalGate over a policy and the UI's question: previews the change for the card,
 * passes on the prefix the user chose, and treats a failed or closed question as a refusal.
 */
export function createApprovalGate(
  policy: ApprovalPolicy,
  request: RequestApproval,
  options: { readonly preview?: (tool: string, args: unknown) => Promise<ApprovalPreview | undefined> } = {},
): ApprovalGate {
  const chosenPrefix = new WeakMap<object, string>();
  return {
    check: (tool, args) => {
      const { decision, reason } = policy.check(tool, args);
      return { decision, reason };
    },
    async ask(req) {
      const check = policy.check(req.tool, req.args);
      let preview: ApprovalPreview | undefined;
      try {
        preview = await options.preview?.(req.tool, req.args);
      } catch {
        preview = undefined;
      }
      // The tool re-checks everything and will refuse with its own message.
      if (preview && !preview.ok) return 'allow_once';
      const command = req.args && typeof req.args === 'object' ? (req.args as Record<string, unknown>)['command'] : undefined;
      const suggestedPrefix = check.kind === 'command' && typeof command === 'string' ? suggestCommandPrefix(command) : undefined;
      let reply: ApprovalReply;
      try {
        reply = await request({
          ...req,
          ...(preview?.ok ? { summary: preview.summary } : {}),
          kind: check.kind,
          reason: check.reason,
          ...(preview?.ok && preview.diff ? { diff: preview.diff } : {}),
          ...(suggestedPrefix ? { suggestedPrefix } : {}),
        });
      } catch {
        return 'deny';
      }
      const answer = typeof reply === 'string' ? reply : reply.answer;
      if (typeof reply !== 'string' && reply.commandPrefix && req.args && typeof req.args === 'object') chosenPrefix.set(req.args, reply.commandPrefix);
      return ['allow_once', 'allow_session', 'allow_always', 'deny'].includes(answer) ? answer : 'deny';
    },
    record(tool, args, answer) {
      const commandPrefix = args && typeof args === 'object' ? chosenPrefix.get(args) : undefined;
      policy.record(tool, args, answer, commandPrefix ? { commandPrefix } : {});
    },
  };
}
