import type { MemoryTool } from '../memory/memoryTool';
import type { AgentTool } from '../toolkit/agentTool';
import { isReadOnly, toolSpecOf } from '../toolkit/toolDefinition';

/**
 * The memory tool as an agent tool: offered from its definition, run through `MemoryTool.run`,
 * which checks the arguments itself so that malformed calls count against the per-turn budget.
 */
export function memoryAgentTool(tool: MemoryTool): AgentTool {
  const definition = tool.definition;
  return {
    spec: toolSpecOf(definition),
    readOnly: isReadOnly(definition),
    approval: definition.approval,
    run: (args, context) => tool.run(args, { turnId: context.turnId }),
  };
}
