/**
 * Finds the skills in a fetched source: a SKILL.md at the root makes the whole source one skill;
 * otherwise `skills/`, the agents' skill folders (`.agents/skills`, `.claude/skills`, …) and other
 * folders are searched, nested, to a fixed depth. Links are never followed, so a loop cannot form.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { readSkillHeader } from '../skills/model/skillHeader';
import { skillNameProblem, suggestSkillName } from '../skills/model/skillPaths';

export interface ImportCandidate {
  /** A safe folder name: the SKILL.md's `name` when valid, else the closest valid form. */
  readonly name: string;
  readonly dir: string;
  /** The SKILL.md's path relative to the source's top folder, `/`-separated (the lock's skillPath). */
  readonly skillPath: string;
  readonly description?: string;
  /** The `name` the SKILL.md declares, when it differs from `name`. */
  readonly declaredName?: string;
}

export const MAX_DISCOVERY_DEPTH = 6;
const MAX_FOLDERS_VISITED = 5_000;
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'build', '__pycache__']);
/** Hidden folders agents keep skills in; other hidden folders are not searched. */
const AGENT_FOLDERS = new Set([
  '.agents', '.claude', '.github', '.cline', '.codex', '.continue', '.cursor', '.gemini', '.goose', '.junie', '.kilocode', '.kiro',
  '.opencode', '.openhands', '.roo', '.trae', '.windsurf', '.qoder', '.zencoder', '.codebuddy', '.commandcode', '.iflow', '.mux',
  '.neovate', '.pi', '.zcode', '.skills',
]);

/** A safe folder name for a skill: its declared name if valid, else a cleaned form, else its folder's. */
export function safeSkillName(declared: string | undefined, folderName: string): string {
  for (const option of [declared, folderName]) {
    if (option === undefined) continue;
    if (skillNameProblem(option) === undefined) return option;
    const suggestion = suggestSkillName(option);
    if (suggestion && skillNameProblem(suggestion) === undefined) return suggestion;
  }
  return 'unnamed-skill';
}

async function candidateAt(fs: FileSystemPort, dir: string, base: string): Promise<ImportCandidate | undefined> {
  const file = path.join(dir, 'SKILL.md');
  const stat = await fs.lstat(file);
  if (stat?.type !== 'file') return undefined;
  const header = readSkillHeader(await fs.readFile(file), stat.size);
  const declared = typeof header.name === 'string' ? header.name : undefined;
  const name = safeSkillName(declared, path.basename(dir));
  const description = typeof header.description === 'string' && header.description ? header.description : undefined;
  return {
    name,
    dir,
    skillPath: path.relative(base, file).split(path.sep).join('/'),
    ...(description ? { description } : {}),
    ...(declared !== undefined && declared !== name ? { declaredName: declared } : {}),
  };
}

/**
 * The skills under `root`, first found first (the root's own folders before nested ones, `skills/`
 * and the agents' folders before others); a later skill of the same name is left out.
 * `base` is what skillPath is relative to (default: `root`).
 */
export async function findImportableSkills(fs: FileSystemPort, root: string, base: string = root): Promise<ImportCandidate[]> {
  const own = await candidateAt(fs, root, base);
  if (own) return [own];
  const found: ImportCandidate[] = [];
  const names = new Set<string>();
  let visited = 0;
  // Breadth first: a skill near the top wins over a copy deep inside another folder.
  let level: string[] = [root];
  for (let depth = 0; depth < MAX_DISCOVERY_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries;
      try {
        entries = await fs.readDirectory(dir);
      } catch {
        continue;
      }
      const folders = entries
        .filter((entry) => entry.type === 'directory' && !SKIPPED.has(entry.name))
        .filter((entry) => !entry.name.startsWith('.') || AGENT_FOLDERS.has(entry.name) || path.basename(dir) === 'skills')
        .map((entry) => entry.name)
        .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
      for (const name of folders) {
        if (++visited > MAX_FOLDERS_VISITED) return found;
        const child = path.join(dir, name);
        const candidate = await candidateAt(fs, child, base);
        if (candidate) {
          if (!names.has(candidate.name)) {
            names.add(candidate.name);
            found.push(candidate);
          }
        } else {
          next.push(child);
        }
      }
    }
    level = next;
  }
  return found;
}

function rank(name: string): number {
  if (name === 'skills') return 0;
  if (AGENT_FOLDERS.has(name)) return 1;
  return 2;
}
