import type { Logger } from '../core/base/logger';
import { describeError } from '../core/base/logger';

/** The button on a failed command's error message; it opens the Skillwright log. */
export const SHOW_LOGS_ACTION = 'Show Logs';

/** How a failed command reaches the person: VS Code's error message and the log, or a script in tests. */
export interface CommandFailureUi {
  showError(message: string, ...actions: string[]): PromiseLike<string | undefined>;
  showLogs(): void;
}

export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * Wraps a command handler so that a failure is never lost: it is logged with the command id and
 * shown with a Show Logs button, and the command resolves to undefined. Rethrowing instead would
 * make VS Code add a second, generic notification for the same failure. A cancellation (the person
 * dismissed or stopped something) is logged only. This module imports no `vscode`, so unit tests
 * run it as the extension does.
 */
export function guardCommand(id: string, handler: CommandHandler, logger: Logger, ui: CommandFailureUi): (...args: unknown[]) => Promise<unknown> {
  return async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (isCancellation(error)) {
        logger.info(`Command ${id} was cancelled`);
        return undefined;
      }
      logger.error(`Command ${id} failed: ${describeError(error)}`);
      if (error instanceof Error && error.stack) logger.debug(error.stack);
      void report(error, logger, ui);
      return undefined;
    }
  };
}

/** Not awaited by the command: the message stays up until the person answers, the command need not. */
async function report(error: unknown, logger: Logger, ui: CommandFailureUi): Promise<void> {
  try {
    const choice = await ui.showError(`Skillwright: ${describeError(error)}`, SHOW_LOGS_ACTION);
    if (choice === SHOW_LOGS_ACTION) ui.showLogs();
  } catch (uiError) {
    logger.warn(`Could not show the error message: ${describeError(uiError)}`);
  }
}

/** vscode.CancellationError and AbortController's AbortError, recognised without importing either. */
function isCancellation(error: unknown): boolean {
  return error instanceof Error && (error.name === 'Canceled' || error.name === 'AbortError');
}
