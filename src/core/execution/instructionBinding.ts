import type { ExecutableSkill } from './executableSkill';

const PLACEHOLDER = /\$\{input\.([A-Za-z_][\w-]*)\}/g;

/**
 * An instruction skill "runs" by handing the model its body with the arguments bound: the same
 * text skill_view shows, with `${input.x}` placeholders filled in and the arguments beside it.
 */
export function bindInstructions(skill: ExecutableSkill, args: Readonly<Record<string, unknown>>): { skill: string; version?: string; instructions: string; arguments: Readonly<Record<string, unknown>>; hint: string } {
  const instructions = skill.body.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(args, name)) return whole;
    const value = args[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
  return {
    skill: skill.name,
    ...(skill.version !== undefined ? { version: skill.version } : {}),
    instructions,
    arguments: args,
    hint: 'Follow these instructions with the arguments given; they are the skill itself, not a result.',
  };
}
