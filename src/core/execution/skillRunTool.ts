import { z } from 'zod';
import { defineTool } from '../toolkit/toolDefinition';
import type { ToolResult } from '../toolkit/toolResult';
import type { RunApproval, RunContextVariables } from './executionTypes';
import type { SkillExecutor } from './skillExecutor';
import type { StepProgress } from './workflowRunner';

/** What skill_run works with: the executor and, per call, the context variables of the chat. */
export interface SkillRunToolContext {
  /** The executor, or a wrapper of it that also tells the window about the run. */
  readonly executor: Pick<SkillExecutor, 'run'>;
  readonly context: () => RunContextVariables;
  /** Told about every workflow step as it starts and ends, for the chat's nested cards. */
  readonly onProgress?: (progress: StepProgress, callId: string | undefined) => void;
  /** Approval for scripts and endpoints (the chat's cards); default: the executor's own. */
  readonly approve?: RunApproval;
}

export const SKILL_RUN_TOOL = defineTool({
  name: 'skill_run',
  description:
    'Run a skill by name with JSON arguments (validated against its input_schema; missing ones come from the context and defaults). ' +
    'Instruction skills return their instructions with the arguments bound, for you to follow; script, HTTP and workflow skills run and return ' +
    '{success, output, error, trace_id}. Scripts and endpoints ask the user first. Load a skill with skill_view to read what it needs.',
  args: z.strictObject({
    name: z.string().describe('The skill to run, as skills_list shows it (name or category/name).'),
    arguments: z.record(z.string(), z.unknown()).optional().describe('Arguments for the skill, as its input_schema describes them.'),
  }),
  // The executor asks for approval itself, only for skills that run something (instruction skills never ask).
  approval: 'self',
  example: '{"name": "format-json", "arguments": {"path": "data.json"}}',
  timeoutMs: 15 * 60_000,
  async execute(args, ctx: SkillRunToolContext, run): Promise<ToolResult> {
    const result = await ctx.executor.run(args.name, args.arguments ?? {}, {
      context: ctx.context(),
      origin: 'chat',
      signal: run.signal,
      ...(ctx.onProgress ? { onProgress: (progress: StepProgress) => ctx.onProgress?.(progress, run.callId) } : {}),
      ...(ctx.approve ? { approve: ctx.approve } : {}),
    });
    const steps = result.trace.steps.length > 1 || result.trace.kind === 'workflow'
      ? result.trace.steps.map((step) => ({ step: step.id, skill: step.skill, status: step.status, ...(step.error ? { error: step.error } : {}) }))
      : undefined;
    const payload = { output: result.output, trace_id: result.trace_id, ...(steps ? { steps } : {}), ...(result.trace.drift ? { drift: result.trace.drift } : {}) };
    return result.success ? { success: true, ...payload } : { success: false, error: result.error ?? 'the skill failed', ...payload };
  },
});
