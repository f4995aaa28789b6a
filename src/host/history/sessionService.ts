import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
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
  private readonly store: DisposableStore;
  private readonly changeEmitter: vscode.EventEmitter<void>;
  /** Sessions were created, appended to or deleted (debounced by the listeners that care). */
  readonly onDidChange: vscode.Event<void>;

  constructor(storageDir: string, wasmDir: string, logger: Logger) {
    this.store = new DisposableStore(logger);
    this.changeEmitter = this.store.add(new vscode.EventEmitter<void>());
    this.onDidChange = this.changeEmitter.event;
    this.log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir, logger });
    this.index = this.store.add(new SessionIndex({ log: this.log, sqlJs: wasmDir, logger }));
    this.store.add(this.log.onDidAppend(() => this.changeEmitter.fire()));
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
    this.store.dispose();
  }
}
