import type { Disposable } from './disposableStore';
import type { Logger } from './logger';
import { describeError, nullLogger } from './logger';

/** A subscription function, shaped like `vscode.Event<T>` so host code can pass either. */
export type Event<T> = (listener: (event: T) => void) => Disposable;

/**
 * The one event emitter of core. A listener that throws is logged and never stops the others;
 * listeners added while an event is delivered hear the next one, not this one.
 */
export class Emitter<T> implements Disposable {
  private readonly listeners = new Set<(event: T) => void>();

  constructor(
    private readonly name: string,
    private readonly logger: Logger = nullLogger,
  ) {}

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  get listenerCount(): number {
    return this.listeners.size;
  }

  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(`${this.name}: a listener failed: ${describeError(error)}`);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
