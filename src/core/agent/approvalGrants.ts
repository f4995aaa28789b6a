/**
 * Where "always for this workspace" grants are kept: one list under STATE_KEYS.allowlist in the
 * extension's workspace state (a VS Code Memento, which VS Code stores as JSON), never in
 * workspace settings, so a cloned repository cannot grant itself anything. The host hands its
 * Memento to `stateAllowlist`; keeping the reading here lets tests load stored grants without
 * VS Code (test/fixtures/formats/approvals/). ApprovalPolicy checks each entry and drops bad ones.
 */
import { STATE_KEYS } from '../base/contributions';
import type { AllowlistStore } from './approvals';

/** The part of a VS Code Memento the grants use; `vscode.Memento` satisfies it. */
export interface GrantState {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** The stored value as a list of candidate entries: a value that is not a list (never set, damaged) holds no grants. */
export function storedGrants(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The grants kept in `state` under `key`, read afresh on every load so a list cleared elsewhere counts at once. */
export function stateAllowlist(state: GrantState, key: string = STATE_KEYS.allowlist): AllowlistStore {
  return {
    load: () => storedGrants(state.get(key)),
    save: async (entries) => {
      await state.update(key, entries);
    },
  };
}
