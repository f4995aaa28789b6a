import * as path from 'node:path';

export type SkillScope = 'project' | 'user' | 'other';

export interface SkillRoot {
  /** Absolute path of the folder that holds skills. */
  readonly path: string;
  readonly scope: SkillScope;
  /** How the root is shown to a person, e.g. `.agents/skills` or `~/.claude/skills`. */
  readonly label: string;
  /** Workspace folder the root belongs to (project scope only). */
  readonly folder?: string;
  /** True for the folder Skillwright writes new skills of this scope to. */
  readonly writeTarget: boolean;
}

export interface WorkspaceFolderRef {
  readonly name: string;
  readonly fsPath: string;
}

/** Project skill folders, in precedence order; the first is where new project skills go. */
export const PROJECT_SKILL_DIRS: readonly string[] = ['.agents/skills', '.github/skills', '.claude/skills'];

/** User-level skill folders, in precedence order: ours first, then other tools' folders. */
export const USER_SKILL_DIRS: readonly { dir: string; scope: SkillScope }[] = [
  { dir: '.agents/skills', scope: 'user' },
  { dir: '.claude/skills', scope: 'other' },
  { dir: '.copilot/skills', scope: 'other' },
  { dir: '.hermes/skills', scope: 'other' },
];

/**
 * Every folder that may hold skills, in precedence order (project over user over other tools).
 * Whether a folder exists is the caller's question: roots that appear later must still be watched.
 */
export function skillRootCandidates(folders: readonly WorkspaceFolderRef[], homeDir: string): SkillRoot[] {
  const roots: SkillRoot[] = [];
  const multi = folders.length > 1;
  for (const folder of folders) {
    PROJECT_SKILL_DIRS.forEach((dir, index) => {
      roots.push({
        path: path.join(folder.fsPath, ...dir.split('/')),
        scope: 'project',
        label: multi ? `${folder.name}/${dir}` : dir,
        folder: folder.name,
        writeTarget: index === 0,
      });
    });
  }
  if (homeDir) {
    for (const { dir, scope } of USER_SKILL_DIRS) {
      roots.push({
        path: path.join(homeDir, ...dir.split('/')),
        scope,
        label: `~/${dir}`,
        writeTarget: scope === 'user',
      });
    }
  }
  return roots;
}
