import * as path from 'node:path';
import type { SkillRoot, WorkspaceFolderRef } from '../../base/skillRoots';
import { skillRootCandidates } from '../../base/skillRoots';

/** What the user can say about skill roots in settings. */
export interface RootSettings {
  /** Extra folders: absolute, `~/…`, or relative to the first workspace folder. */
  readonly extraRoots?: readonly string[];
  /** Roots to ignore, by label (`.claude/skills`, `~/.hermes/skills`) or by path. */
  readonly disabledRoots?: readonly string[];
}

export interface ConfiguredRoots {
  readonly roots: SkillRoot[];
  /** Settings entries that could not be used, with the reason (shown to the user). */
  readonly problems: string[];
}

function expandHome(value: string, homeDir: string): string {
  if (value === '~') return homeDir;
  if (value.startsWith('~/') || value.startsWith('~\\')) return path.join(homeDir, value.slice(2));
  return value;
}

/**
 * The roots Skillwright reads, in precedence order: the standard candidates minus disabled ones,
 * then extra folders (lowest precedence, scope `other`). Duplicated paths are kept once.
 */
export function configuredRoots(folders: readonly WorkspaceFolderRef[], homeDir: string, settings: RootSettings = {}): ConfiguredRoots {
  const problems: string[] = [];
  const disabled = (settings.disabledRoots ?? []).map((entry) => entry.trim()).filter(Boolean);
  const disabledPaths = new Set(disabled.map((entry) => path.resolve(expandHome(entry, homeDir))));
  const disabledLabels = new Set(disabled);
  // In a multi-root workspace a label like `.claude/skills` disables that root in every folder.
  const bareLabel = (root: SkillRoot) =>
    root.folder !== undefined && root.label.startsWith(`${root.folder}/`) ? root.label.slice(root.folder.length + 1) : root.label;
  const isDisabled = (root: SkillRoot) =>
    disabledLabels.has(root.label) || disabledLabels.has(bareLabel(root)) || disabledPaths.has(path.resolve(root.path));

  const roots: SkillRoot[] = [];
  const seen = new Set<string>();
  const push = (root: SkillRoot) => {
    const key = path.resolve(root.path);
    if (seen.has(key)) return;
    seen.add(key);
    roots.push(root);
  };
  for (const root of skillRootCandidates(folders, homeDir)) {
    if (!isDisabled(root)) push(root);
  }
  for (const raw of settings.extraRoots ?? []) {
    const entry = raw.trim();
    if (!entry) continue;
    const expanded = expandHome(entry, homeDir);
    let resolved: string;
    if (path.isAbsolute(expanded)) {
      resolved = path.normalize(expanded);
    } else if (folders[0]) {
      resolved = path.resolve(folders[0].fsPath, expanded);
    } else {
      problems.push(`Extra skill folder "${entry}" is relative, but no workspace folder is open. Use an absolute path or ~/….`);
      continue;
    }
    const root: SkillRoot = { path: resolved, scope: 'other', label: entry, writeTarget: false };
    if (isDisabled(root)) continue;
    push(root);
  }
  return { roots, problems };
}
