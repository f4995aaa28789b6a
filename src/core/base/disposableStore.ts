import type { Logger } from './logger';
import { describeError, nullLogger } from './logger';

/** Structural match for vscode.Disposable, so core can own host registrations without importing vscode. */
export interface Disposable {
  dispose(): unknown;
}

/**
 * Owns disposables and releases them in reverse order of registration (later registrations may
 * depend on earlier ones). One failing dispose never prevents the others.
 */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposed = false;

  constructor(private readonly logger: Logger = nullLogger) {}

  get isDisposed(): boolean {
    return this.disposed;
  }

  get size(): number {
    return this.items.length;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      // Registering after disposal is a lifecycle bug; release at once rather than leak.
      this.logger.warn('DisposableStore: item added after dispose; releasing it immediately');
      this.safeDispose(item);
      return item;
    }
    this.items.push(item);
    return item;
  }

  /** Adds a plain callback as a disposable. */
  addCallback(callback: () => unknown): Disposable {
    return this.add({ dispose: callback });
  }

  /**
   * Releases what the store holds but keeps it usable: for a group that is rebuilt (the watchers of
   * the current roots), so the group can be owned once by its parent store.
   */
  clear(): void {
    this.releaseAll();
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.releaseAll();
  }

  private releaseAll(): void {
    while (this.items.length > 0) {
      const item = this.items.pop();
      if (item) {
        this.safeDispose(item);
      }
    }
  }

  private safeDispose(item: Disposable): void {
    try {
      item.dispose();
    } catch (error) {
      this.logger.error(`Failed to dispose a registration: ${describeError(error)}`);
    }
  }
}
