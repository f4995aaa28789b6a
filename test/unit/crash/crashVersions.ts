import * as path from 'node:path';
import type { MemoryAction } from '../../../src/core/memory/memoryEdit';
import type { LockEntry, SkillsLock } from '../../../src/core/sharing/skillsLock';

/**
 * The versions the crash writer writes, one function of the version number each, so the test can
 * tell a whole version (old or new) from a torn or mixed file: the file must equal one of them.
 */

export type CrashKind = 'skill-edit' | 'skill-create' | 'memory' | 'lock' | 'session' | 'index';
export const CRASH_KINDS: readonly CrashKind[] = ['skill-edit', 'skill-create', 'memory', 'lock', 'session', 'index'];

export const SKILL_NAME = 'crash-skill';

/** Where each kind writes inside the iteration's folder. */
export const layout = (dir: string) => ({
  project: path.join(dir, 'project'),
  home: path.join(dir, 'home'),
  skillsRoot: path.join(dir, 'project', '.agents', 'skills'),
  skillFile: path.join(dir, 'project', '.agents', 'skills', SKILL_NAME, 'SKILL.md'),
  memoryFile: path.join(dir, 'project', '.agents', 'memory', 'MEMORY.md'),
  storage: path.join(dir, 'storage'),
  cache: path.join(dir, 'cache'),
  tree: path.join(dir, 'tree'),
});

/** Some tens of kilobytes that differ in length per version, so a torn write shows. */
const padding = (v: number, unit: string, lines: number): string =>
  Array.from({ length: lines + (v % 17) }, (_, i) => `${unit} ${v}.${i} ${'é'.repeat((v + i) % 13)}`).join('\n');

/** SKILL.md of version `v` (no `version:` field, so the edit writes it exactly as given). */
export function skillText(v: number, name = SKILL_NAME): string {
  return `---\nname: ${name}\ndescription: Crash test skill, version ${v}. Use when checking that writes are atomic.\n---\n\n# Version ${v}\n\n${padding(v, '- step', 300)}\n\nend of version ${v}\n`;
}

/** The version a SKILL.md holds when it is whole; undefined when it is not exactly some version. */
export function skillVersionOf(text: string, name = SKILL_NAME): number | undefined {
  const v = Number(/^# Version (\d+)$/m.exec(text)?.[1]);
  return Number.isInteger(v) && text === skillText(v, name) ? v : undefined;
}

export const MEMORY_FIXED = 'The project builds with npm run build and tests with npm test.';

/** The memory entries of version `v`. */
export function memoryEntries(v: number): string[] {
  return [MEMORY_FIXED, `Crash counter is at number ${v} (${'n'.repeat(v % 40)}).`];
}

/** The action that turns version `v - 1` into `v` (a replace, as the memory tool sends it). */
export function memoryAction(v: number): MemoryAction {
  return { action: 'replace', target: 'memory', old_text: `at number ${v - 1} (`, content: memoryEntries(v)[1] as string };
}

/** The lock of version `v`: a varying number of entries. */
export function lockOf(v: number): SkillsLock {
  const skills: Record<string, LockEntry> = {};
  for (let i = 0; i < 50 + (v % 23) * 5; i++) {
    skills[`skill-${i.toString().padStart(3, '0')}`] = {
      source: `team/skills-${i}`,
      sourceType: 'github',
      ref: `v${v}`,
      skillPath: `skills/skill-${i}/SKILL.md`,
      computedHash: (v * 7919 + i).toString(16).padStart(64, '0'),
    };
  }
  return { version: 1, skills };
}

/** Text of message `n` (1-based) of the crash session: varied length, multibyte characters, a newline. */
export function messageText(n: number): string {
  return `message ${n}: ${'ü'.repeat(n % 31)} ${'word '.repeat(20 + (n % 50))}\nsecond line ${n}`;
}
