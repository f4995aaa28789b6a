import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import type { SkillToolContext } from '../skills/tools/skillToolContext';
import { SKILL_TOOLS } from '../skills/tools/skillTools';
import type { AgentTool } from '../toolkit/agentTool';
import { agentToolsOf } from '../toolkit/toolDefinition';

/**
 * The skill tools as agent tools. `skill_manage` changes files, so its definition asks for
 * approval like any edit; the others read.
 */
export function skillAgentTools(context: () => SkillToolContext, logger?: Logger): AgentTool[] {
  return agentToolsOf(SKILL_TOOLS, context, (tool, error) => (context().logger ?? logger)?.error(`${tool} failed: ${describeError(error)}`));
}
