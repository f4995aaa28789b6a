/** What holds the conversation: a turn (from send to its end) or a switch (New Chat, opening a session). */
export type ClaimKind = 'turn' | 'switch';

export interface Claim {
  readonly kind: ClaimKind;
  /** Aborted by `stop()`: the turn's request, its commands and its approvals end. */
  readonly signal: AbortSignal;
}

interface Held extends Claim {
  readonly controller: AbortController;
  readonly done: Promise<void>;
  readonly release: () => void;
}

/**
 * One conversation, one writer at a time. The lock is taken synchronously, before the first
 * `await`, because the panel delivers messages without waiting for the previous one: two sends
 * in one tick must not both get past the check.
 */
export class ConversationLock {
  private current: Held | undefined;
  private readonly waiting: { readonly kind: ClaimKind; readonly resolve: (claim: Claim) => void }[] = [];

  /** What holds the lock now, if anything. */
  get held(): ClaimKind | undefined {
    return this.current?.kind;
  }

  /** True once the holder was told to stop and has not yet let go. */
  get stopping(): boolean {
    return this.current?.signal.aborted ?? false;
  }

  /** Takes the lock now, or returns undefined when it is held or others wait for it. Never waits. */
  tryTake(kind: ClaimKind): Claim | undefined {
    if (this.current || this.waiting.length > 0) return undefined;
    return this.grant(kind);
  }

  /** Waits its turn; the lock passes straight from the releaser to the first waiter, so no send slips in between. */
  take(kind: ClaimKind): Promise<Claim> {
    const claim = this.tryTake(kind);
    if (claim) return Promise.resolve(claim);
    return new Promise<Claim>((resolve) => this.waiting.push({ kind, resolve }));
  }

  /** Lets go of a claim; a claim that no longer holds the lock is ignored. */
  release(claim: Claim): void {
    if (this.current !== claim) return;
    const held = this.current;
    this.current = undefined;
    held.release();
    const next = this.waiting.shift();
    if (next) next.resolve(this.grant(next.kind));
  }

  /** Asks the holder to stop; it keeps the lock until it has wound down and released it. */
  stop(): void {
    this.current?.controller.abort();
  }

  /** Resolves once nothing holds the lock. */
  async whenFree(): Promise<void> {
    while (this.current) await this.current.done;
  }

  private grant(kind: ClaimKind): Held {
    const controller = new AbortController();
    let release: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.current = { kind, signal: controller.signal, controller, done, release };
    return this.current;
  }
}
