import type { ConsentCardView, ConsentSkillView } from '../../../src/shared/protocol';

/** A project skill as the consent card receives it. */
export function consentSkill(name: string, extra: Partial<ConsentSkillView> = {}): ConsentSkillView {
  return {
    file: `/repo/.agents/skills/${name}/SKILL.md`,
    hash: `${name}-hash`,
    name,
    description: `Helps with ${name}.`,
    location: `.agents/skills/${name}`,
    state: 'pending',
    reason: 'new',
    scripts: [],
    endpoints: [],
    tools: [],
    permissions: [],
    verdict: 'safe',
    findings: [],
    moreFindings: 0,
    fileCount: 1,
    ...extra,
  };
}

export const consentCard = (skills: ConsentSkillView[], review = false): ConsentCardView => ({ skills, review });
