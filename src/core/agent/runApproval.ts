import type { RunApproval } from '../execution/executionTypes';
import type { ApprovalGate } from '../toolkit/agentTool';

/** The grant name for running a skill's script or calling its endpoint: asked and granted like a command. */
export const RUN_SKILL_GRANT = 'run_skill';

/**
 * The executor's approval through the same gate, cards and grants as run_command: "allow for this
 * session" and "always here" cover this one skill with this one script or endpoint.
 */
export function gateRunApproval(gate: ApprovalGate): RunApproval {
  return async (request) => {
    const args = { command: `${request.skill}: ${request.target}`, skill: request.skill, arguments: request.arguments, permissions: request.permissions };
    const check = gate.check(RUN_SKILL_GRANT, args);
    if (check.decision === 'deny') return { allowed: false, reason: check.reason ?? 'not allowed here' };
    if (check.decision === 'allow') return { allowed: true };
    const what = request.kind === 'script' ? 'run the script' : 'call the endpoint';
    const answer = await gate.ask({ tool: RUN_SKILL_GRANT, args, summary: `${request.skill}: ${what} ${request.target}` });
    gate.record(RUN_SKILL_GRANT, args, answer);
    return answer === 'deny' ? { allowed: false, reason: 'the user declined to run it' } : { allowed: true };
  };
}
