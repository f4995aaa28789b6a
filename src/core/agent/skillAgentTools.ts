import type { SkillToolContext } from '../skills/tools/skillTools';
import { runSkillTool, SKILL_TOOL_SCHEMAS } from '../skills/tools/skillTools';
import type { AgentTool } from '../toolkit/agentTool';

/** Tools that only read. */
const READ_ONLY = new Set(['skills_list', 'skill_view']);

/**
 * The skill tools as agent tools. `skill_manage` changes files, so it goes through the approval
 * gate like any other write; the others read.
 */
export function skillAgentTools(context: () => SkillToolContext): AgentTool[] {
  return SKILL_TOOL_SCHEMAS.map((schema) => ({
    spec: { name: schema.function.name, description: schema.function.description, parameters: schema.function.parameters as Record<string, unknown> },
    readOnly: READ_ONLY.has(schema.function.name),
    run: (args: unknown) => runSkillTool(schema.function.name, args, context()),
  }));
}
