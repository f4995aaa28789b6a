/**
 * Memory writes awaiting the user's review (review setting `ask`). The memory tool queues a
 * proposal after a dry run; the panel shows its diff and calls accept or reject. Accepting runs
 * the same actions through MemoryStore.apply, with every check, against the file as it is then.
 * Kept in memory only: proposals not reviewed before the window closes are dropped.
 */
import type { Disposable } from '../base/disposableStore';
import { Emitter } from '../base/emitter';
import type { MemoryAction, MemoryChange, MemoryFailure } from './memoryEdit';
import { renderMemoryDiff } from './memoryEdit';
import type { MemoryApplySuccess, MemoryStore } from './memoryStore';

export interface MemoryProposal {
  readonly id: string;
  readonly actions: readonly MemoryAction[];
  /** The changes as the dry run saw them when proposed. */
  readonly changes: readonly MemoryChange[];
  readonly diff: string;
  readonly createdAt: number;
  readonly turnId?: string;
  /** Why the last accept failed; the proposal stays until accepted or rejected. */
  readonly lastError?: string;
}

export type AcceptResult = MemoryApplySuccess | MemoryFailure | { readonly ok: false; readonly code: 'unknown_proposal'; readonly error: string };

export class MemoryProposals {
  private readonly items = new Map<string, MemoryProposal>();
  private readonly changes = new Emitter<void>('Memory proposals');
  private next = 1;

  constructor(
    /** Whatever applies actions: the store, or a host wrapper that forwards to the current store. */
    private readonly store: Pick<MemoryStore, 'apply'>,
    private readonly now: () => number = Date.now,
  ) {}

  add(actions: readonly MemoryAction[], changes: readonly MemoryChange[], turnId?: string): MemoryProposal {
    const proposal: MemoryProposal = {
      id: `mem-${this.next++}`,
      actions,
      changes,
      diff: renderMemoryDiff(changes),
      createdAt: this.now(),
      ...(turnId !== undefined ? { turnId } : {}),
    };
    this.items.set(proposal.id, proposal);
    this.changed();
    return proposal;
  }

  list(): readonly MemoryProposal[] {
    return [...this.items.values()];
  }

  get(id: string): MemoryProposal | undefined {
    return this.items.get(id);
  }

  get size(): number {
    return this.items.size;
  }

  /** Applies a proposal with all the checks; on success it leaves the queue, on failure it stays with the error. */
  async accept(id: string): Promise<AcceptResult> {
    const proposal = this.items.get(id);
    if (!proposal) return { ok: false, code: 'unknown_proposal', error: `no pending memory change has the id "${id}" (it was accepted or rejected already)` };
    const result = await this.store.apply(proposal.actions);
    if (result.ok) this.items.delete(id);
    else this.items.set(id, { ...proposal, lastError: result.error });
    this.changed();
    return result;
  }

  reject(id: string): boolean {
    const removed = this.items.delete(id);
    if (removed) this.changed();
    return removed;
  }

  onDidChange(listener: () => void): Disposable {
    return this.changes.event(listener);
  }

  private changed(): void {
    this.changes.fire();
  }
}
