import type { FileSystemPort } from '../base/fileSystemPort';
import type { SkillIndex } from '../skills/index/skillIndex';
import { parseSkillBytes } from '../skills/model/skillParser';
import { findSkill } from '../skills/model/skillPaths';
import type { ErrorKind } from './executionTypes';
import type { ExecutableSkill } from './executableSkill';
import { readExecutableSkill } from './executableSkill';

export type LoadedSkill = { readonly ok: true; readonly skill: ExecutableSkill } | { readonly ok: false; readonly error: string; readonly kind: ErrorKind };

/** Reads a skill fresh for each run: a skill edited (or deleted) between two runs runs as it is now. */
export type SkillLoader = (name: string) => Promise<LoadedSkill>;

export function indexSkillLoader(index: SkillIndex, fs: FileSystemPort): SkillLoader {
  return async (name) => {
    const found = findSkill(name, index.active(), { all: index.all() });
    if (!found.ok) return { ok: false, error: found.error, kind: 'not_found' };
    const record = found.value;
    const stat = await fs.stat(record.file);
    if (!stat || stat.type !== 'file') {
      return { ok: false, error: `the SKILL.md of "${record.name}" is gone (it was moved or deleted while Skillwright ran)`, kind: 'not_found' };
    }
    const parsed = parseSkillBytes(await fs.readFile(record.file));
    const broken = parsed.problems.find((problem) => problem.severity === 'error');
    if (broken && Object.keys(parsed.frontmatter).length === 0) {
      return { ok: false, error: `the SKILL.md of "${record.name}" cannot be read: ${broken.message}`, kind: 'validation' };
    }
    return { ok: true, skill: readExecutableSkill({ name: record.name, dir: record.dir, file: record.file }, parsed) };
  };
}
