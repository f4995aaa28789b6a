import type { SkillScope } from '../../base/skillRoots';

/** Where a change to `skillwright.skills.disabled` is written. */
export type DisabledTarget = 'workspace' | 'user';

export interface DisabledSettingState {
  /** Scope of the skill being enabled or disabled. */
  readonly scope: SkillScope;
  /** A folder or workspace is open, so workspace settings exist. */
  readonly hasWorkspace: boolean;
  readonly workspaceValue?: readonly string[];
  readonly userValue?: readonly string[];
}

export interface DisabledSettingChange {
  readonly target: DisabledTarget;
  readonly value: string[];
}

function clean(list: readonly string[] | undefined): string[] {
  return Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : [];
}

/**
 * The write that enables or disables `name`, or undefined when the setting already says so.
 *
 * A workspace value replaces the user value (VS Code does not merge arrays), so once a workspace
 * has its own list, only that list has any effect and it is the one changed. Otherwise a project
 * skill is disabled for this workspace only (starting from the user list, so what that list
 * disables stays disabled), and a user or other tool's skill is disabled everywhere. Enabling
 * removes the name from the list that is in effect.
 */
export function disabledSettingChange(state: DisabledSettingState, name: string, enabled: boolean): DisabledSettingChange | undefined {
  const workspace = state.workspaceValue !== undefined ? clean(state.workspaceValue) : undefined;
  const user = clean(state.userValue);
  let target: DisabledTarget;
  let base: string[];
  if (workspace !== undefined && state.hasWorkspace) {
    target = 'workspace';
    base = workspace;
  } else if (!enabled && state.scope === 'project' && state.hasWorkspace) {
    target = 'workspace';
    base = user;
  } else {
    target = 'user';
    base = user;
  }
  // `base` is always the list in effect, so it alone says whether anything would change.
  const has = base.includes(name);
  if (enabled ? !has : has) return undefined;
  const value = enabled ? base.filter((entry) => entry !== name) : [...base, name];
  return { target, value };
}
