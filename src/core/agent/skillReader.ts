import type { SkillToolContext } from '../skills/tools/skillToolContext';
import { runSkillTool } from '../skills/tools/skillTools';

/**
 * Reads a skill's SKILL.md for re-attaching it after a compaction, through skill_view itself, so
 * the model gets the same text (same clipping, same name lookup) it got when it loaded the
 * skill. Usage statistics are left out: a re-attachment is not the model choosing the skill again.
 */
export function skillReader(context: () => SkillToolContext): (name: string) => Promise<string | undefined> {
  return async (name) => {
    const { usage: _usage, ...withoutUsage } = context();
    const result = await runSkillTool('skill_view', { name }, withoutUsage);
    const content = result.success ? (result as Record<string, unknown>)['content'] : undefined;
    return typeof content === 'string' ? content : undefined;
  };
}
