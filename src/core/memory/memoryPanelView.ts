/**
 * What the Memory tab shows, built from the store, the proposal queue and the refused writes, and
 * the wording a person reads when one of their own edits is refused. Pure: the host controller
 * reads files and posts messages; the shapes here match the panel protocol's `MemoryView`.
 */
import type { MemoryAction, MemoryChange, MemoryFailure, MemoryTarget } from './memoryEdit';
import { TARGET_FILES } from './memoryEdit';
import type { MemoryProposal } from './memoryProposals';
import type { MemoryFileView } from './memoryStore';

export const MEMORY_FILE_LABELS: Readonly<Record<MemoryTarget, string>> = {
  memory: 'Project memory — MEMORY.md',
  user: 'User profile — USER.md',
};

export interface MemoryPanelFile {
  readonly target: MemoryTarget;
  readonly label: string;
  readonly path?: string;
  readonly available: boolean;
  readonly reason?: string;
  readonly entries: string[];
  readonly chars: number;
  readonly limit: number;
}

export interface MemoryPanelProposal {
  readonly id: string;
  readonly target: MemoryTarget;
  readonly summary: string;
  readonly diff: string;
  readonly createdAt: string;
  readonly lastError?: string;
}

export interface MemoryPanelBlocked {
  readonly target: MemoryTarget;
  readonly patternIds: string[];
  readonly at: string;
  readonly preview: string;
}

/** The person's own edit that was refused, as the tab names it. */
export type MemoryEditKind = 'add' | 'edit' | 'remove' | 'accept';

const fmt = (n: number): string => n.toLocaleString('en-US');

/**
 * One file for the tab. `read` is what `MemoryStore.read` returned: undefined when the target has
 * no file (project memory without a usable folder), a failure when the file cannot be read.
 */
export function memoryPanelFile(
  target: MemoryTarget,
  read: MemoryFileView | MemoryFailure | undefined,
  info: { readonly path?: string; readonly limit: number; readonly unavailableReason?: string },
): MemoryPanelFile {
  const base = { target, label: MEMORY_FILE_LABELS[target], ...(info.path ? { path: info.path } : {}) };
  if (read === undefined) {
    const reason = info.unavailableReason ?? 'no folder is open';
    return { ...base, available: false, reason: `Project memory is unavailable: ${reason}.`, entries: [], chars: 0, limit: info.limit };
  }
  if ('ok' in read) {
    // The file is there but unusable (not UTF-8, a folder in its place): show why, never overwrite it.
    return { ...base, available: false, reason: `${capitalise(read.error)}.`, entries: [], chars: 0, limit: info.limit };
  }
  return { ...base, path: read.path, available: true, entries: [...read.entries], chars: read.chars, limit: read.limit };
}

/** A proposal card: which files it touches, what it does, and why accepting it last failed. */
export function memoryPanelProposal(proposal: MemoryProposal): MemoryPanelProposal {
  const target = proposal.changes[0]?.target ?? proposal.actions[0]?.target ?? 'memory';
  return {
    id: proposal.id,
    target,
    summary: `${describeChanges(proposal.changes, proposal.actions)}.`,
    diff: proposal.diff,
    createdAt: new Date(proposal.createdAt).toISOString(),
    ...(proposal.lastError ? { lastError: proposal.lastError } : {}),
  };
}

const VERBS: Record<MemoryChange['kind'], [string, string]> = {
  add: ['Add', 'to'],
  replace: ['Replace', 'in'],
  remove: ['Remove', 'from'],
};

/** "Add an entry to MEMORY.md", "Replace 2 entries in USER.md; remove an entry from MEMORY.md". */
export function describeChanges(changes: readonly MemoryChange[], actions: readonly MemoryAction[] = []): string {
  const counted = new Map<string, { kind: MemoryChange['kind']; target: MemoryTarget; n: number }>();
  const items = changes.length > 0 ? changes.filter((c) => !c.unchanged) : actions.map((a) => ({ kind: a.action, target: a.target }));
  for (const item of items) {
    const key = `${item.kind}:${item.target}`;
    const entry = counted.get(key) ?? { kind: item.kind, target: item.target, n: 0 };
    entry.n += 1;
    counted.set(key, entry);
  }
  if (counted.size === 0) return 'No change (already saved)';
  const parts = [...counted.values()].map(({ kind, target, n }) => {
    const [verb, preposition] = VERBS[kind];
    return `${verb} ${n === 1 ? 'an entry' : `${n} entries`} ${preposition} ${TARGET_FILES[target]}`;
  });
  return parts.map((part, i) => (i === 0 ? part : part.charAt(0).toLowerCase() + part.slice(1))).join('; ');
}

/** Why a write was refused, said to a person (the store's own errors are worded for the model). */
export function refusalReason(failure: MemoryFailure): string {
  const file = failure.target ? TARGET_FILES[failure.target] : 'the memory file';
  switch (failure.code) {
    case 'over_limit': {
      const projected = failure.projected ?? 0;
      const limit = failure.limit ?? 0;
      return `${file} would be ${fmt(projected)} characters, ${fmt(projected - limit)} over its limit of ${fmt(limit)}. Shorten the text, or delete or shorten other entries first`;
    }
    case 'blocked': {
      const ids = blockedPatternIds(failure);
      const first = failure.findings?.[0]?.message;
      return (
        `the threat scanner blocked it (${ids.length === 1 ? 'pattern' : 'patterns'} ${ids.join(', ')})${first ? `: ${first}` : ''}. ` +
        'Memory is read into the agent’s prompt, so it must not hold instructions to the model, secrets or hidden characters'
      );
    }
    case 'no_match':
      return `that entry is no longer in ${file}; it was changed or removed meanwhile (by the agent, another window or an editor). The list now shows the file as it is`;
    case 'ambiguous':
      return `this entry’s text also appears inside another entry of ${file}, so it cannot be changed on its own here. Use Open file to edit ${file} directly`;
    case 'unavailable':
      return 'project memory is unavailable (no folder is open, or the folder is not trusted). Open and trust a folder, or save the fact in the user profile';
    case 'busy':
      return `${file} is being written by another window; try again in a moment`;
    case 'invalid':
    case 'io':
      return failure.error.replace(/^actions\[\d+\]: /, '');
  }
}

/** The notice for a refused edit of the person's own; nothing was written, and the text was kept. */
export function refusalNotice(failure: MemoryFailure, kind: MemoryEditKind): string {
  const reason = refusalReason(failure);
  if (kind === 'accept') return `The proposed memory change was not applied: ${reason}. It stays in the list until you accept or reject it.`;
  const kept = kind === 'remove' ? '' : ' Your text is still in the box.';
  return `Not saved: ${reason}.${kept}`;
}

/** Pattern ids of a blocked write, each once, in the order found. */
export function blockedPatternIds(failure: MemoryFailure): string[] {
  return [...new Set((failure.findings ?? []).map((f) => f.id))];
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
