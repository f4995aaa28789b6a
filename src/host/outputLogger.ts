import type * as vscode from 'vscode';
import type { Logger } from '../core/base/logger';

/** Backs the core Logger with the extension's single LogOutputChannel (its level follows VS Code's). */
export function createOutputLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    trace: (message, ...args) => channel.trace(message, ...args),
    debug: (message, ...args) => channel.debug(message, ...args),
    info: (message, ...args) => channel.info(message, ...args),
    warn: (message, ...args) => channel.warn(message, ...args),
    error: (message, ...args) => channel.error(message, ...args),
  };
}
