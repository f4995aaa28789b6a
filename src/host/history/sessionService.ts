import * as vscode from 'vscode';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { NodeFileSystem } from '../../core/base/nodeFileSystem';
import { SessionIndex } from '../../core/sessions/sessionIndex';
import { NodeAppendPort, SessionLog } from '../../core/sessions/sessionLog';

/**
 * The session log (append-only JSONL files in the extension's global storage, shared with the
 * headless CLI) and its full-text index. The index loads on first use, never during activation.
 */
export class SessionService implements vscode.Disposable {
  readonly log: SessionLog;
  readonly index: SessionIndex;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Sessions were created, appended to or deleted (debounced by the listeners that care). */
  readonly onDidChange = this.changeEmitter.event;
  private readonly unsubscribe: { dispose(): void };

  constructor(storageDir: string, wasmDir: string, logger: Logger) {
    this.log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir, logger });
    this.index = new SessionIndex({ log: this.log, sqlJs: wasmDir, logger });
    this.unsubscribe = this.log.onDidAppend(() => this.changeEmitter.fire());
  }

  /** Tells listeners that a session appeared or went away outside an append (delete, resume). */
  changed(): void {
    this.changeEmitter.fire();
  }

  /** Saves the index; called on deactivate so a restart need not catch up. */
  async flush(logger?: Logger): Promise<void> {
    try {
      if (this.index.isLoaded) await this.index.flush();
    } catch (error) {
      logger?.warn(`Saving the session index failed (it is rebuilt from the session files): ${describeError(error)}`);
    }
  }

  dispose(): void {
    this.unsubscribe.dispose();
    this.index.dispose();
    this.changeEmitter.dispose();
  }
}
