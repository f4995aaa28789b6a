import type { MemoryTool } from '../memory/memoryTool';
import type { AgentTool } from '../toolkit/agentTool';

/** The memory tool as an agent tool; it counts failed attempts per user turn. */
export function memoryAgentTool(tool: MemoryTool): AgentTool {
  const schema = tool.schema.function;
  return {
    spec: { name: schema.name, description: schema.description, parameters: schema.parameters as Record<string, unknown> },
    // Writes memory files, so it runs alone; the approval policy lets it through (it has its own review mode).
    readOnly: false,
    run: (args, context) => tool.run(args, { turnId: context.turnId }),
  };
}
