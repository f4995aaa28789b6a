import * as path from 'node:path';
import type { SkillRecord } from '../../../src/core/skills/model/skillTypes';

export const FIXTURE_ROOT = path.join(path.sep, 'skills');

/** A SkillRecord under a fake project root, for tests that need records without files. */
export function skillRecord(name: string, description: string, extra: Partial<SkillRecord> = {}): SkillRecord {
  const dir = path.join(FIXTURE_ROOT, extra.category ?? '', name);
  return {
    name,
    folderName: name,
    dir,
    file: path.join(dir, 'SKILL.md'),
    root: { path: FIXTURE_ROOT, scope: 'project', label: '.agents/skills', writeTarget: true },
    scope: 'project',
    category: '',
    description,
    tags: [],
    platforms: [],
    useCases: [],
    exampleQueries: [],
    headings: [],
    level: 0,
    mtimeMs: 0,
    size: 0,
    readErrors: [],
    ...extra,
  };
}
