import type { SkillIndex } from '../skills/index/skillIndex';
import { checkRunnable } from '../skills/model/skillDependencies';

/**
 * The static checks of a workflow before it runs (the lint reports the same): unknown skills,
 * version ranges the installed skill does not satisfy, and cycles across skills.
 */
export function runnableProblems(index: SkillIndex, name: string): string[] {
  const record = index.get(name) ?? index.active().find((candidate) => candidate.name === name);
  if (!record || record.level < 1) return [];
  return checkRunnable(
    record.name,
    (skill) => {
      const found = index.get(skill);
      return found ? (found.calls ?? []) : undefined;
    },
    (skill) => index.get(skill)?.version,
  );
}
