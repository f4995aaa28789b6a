import type { Logger } from '../core/base/logger';
import { describeError } from '../core/base/logger';

/** One part's reaction to an event; it may return a promise (its rejection is logged like a throw). */
export type EventPart<T> = (event: T) => unknown;

/**
 * The one listener of one VS Code event: calls every part that cares, in the order given, so the
 * order is written down in one place (e.g. approvals learn of trust before the skills reload). A
 * part that throws or rejects is logged with its name and never keeps the others from hearing the
 * event. Imports no `vscode`, so unit tests run it as the extension does.
 */
export function fanOut<T>(eventName: string, parts: Readonly<Record<string, EventPart<T>>>, logger: Logger): (event: T) => void {
  const entries = Object.entries(parts);
  return (event: T) => {
    for (const [part, listener] of entries) {
      const failed = (error: unknown) => logger.error(`${eventName}: updating ${part} failed: ${describeError(error)}`);
      try {
        const result = listener(event);
        if (isThenable(result)) result.then(undefined, failed);
      } catch (error) {
        failed(error);
      }
    }
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
