import * as path from 'node:path';
import type { FileSystemPort } from '../../base/fileSystemPort';
import type { SkillIndex } from '../index/skillIndex';
import { lintSkill } from './skillLint';
import { parseSkillBytes, parseSkillText } from '../model/skillParser';
import type { LintFinding, SkillRecord } from '../model/skillTypes';

/** Where a SKILL.md is and which index it belongs to; `text` lints an unsaved buffer instead of the disk. */
export interface LintTarget {
  readonly file: string;
  readonly text?: string;
}

function otherSkills(index: SkillIndex): Map<string, { version?: string; scope: string; file: string }[]> {
  const skills = new Map<string, { version?: string; scope: string; file: string }[]>();
  for (const record of index.all()) {
    const list = skills.get(record.name) ?? [];
    list.push({ scope: record.scope, file: record.file, ...(record.version !== undefined ? { version: record.version } : {}) });
    skills.set(record.name, list);
  }
  return skills;
}

/**
 * Lints one SKILL.md with everything the rules need: its folder on disk (links, entry scripts) and
 * the other skills of the index (workflow references, duplicate names). Shared by the CLI and the
 * Problems panel so both report the same findings.
 */
export async function lintSkillFile(target: LintTarget, fs: FileSystemPort, index: SkillIndex): Promise<LintFinding[]> {
  const parsed = target.text === undefined ? parseSkillBytes(await fs.readFile(target.file)) : parseSkillText(target.text);
  const dir = path.dirname(target.file);
  const self = index.all().find((record: SkillRecord) => record.file === target.file);
  return lintSkill(parsed, {
    folderName: path.basename(dir),
    exists: async (relative) => (await fs.stat(path.join(dir, relative))) !== undefined,
    skills: otherSkills(index),
    ...(self ? { self: { scope: self.scope, file: self.file } } : {}),
  });
}
