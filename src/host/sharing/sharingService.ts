import * as nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { NodeFileSystem } from '../../core/base/nodeFileSystem';
import { defaultGitPort } from '../../core/sharing/gitPorts';
import type { FetchPorts } from '../../core/sharing/quarantine';
import type { SkillService } from '../skills/skillService';
import { ImportFlow } from './importFlow';
import { LockStatusService } from './lockStatus';
import { RelocateAction } from './relocateAction';
import { RestoreAction } from './restoreAction';
import { ReviewDocuments } from './reviewDocuments';
import { UpdateFlow } from './updateFlow';

/**
 * Skills from elsewhere, in the window: the lock's status in the Skills tab, Import Skills…,
 * Check for Skill Updates, Restore Skills from Lock, and Copy/Move to .agents/skills.
 */
export class SharingService implements vscode.Disposable {
  private readonly store: DisposableStore;
  readonly lockStatus: LockStatusService;
  /** The review documents and diffs the flows open (tests read what they show). */
  readonly documents: ReviewDocuments;
  readonly importFlow: ImportFlow;
  readonly updates: UpdateFlow;
  readonly restore: RestoreAction;
  readonly relocate: RelocateAction;
  private portsCache: FetchPorts | undefined;
  private quarantineRoot: string | undefined;

  constructor(skills: SkillService, logger: Logger) {
    this.store = new DisposableStore(logger);
    this.lockStatus = this.store.add(new LockStatusService(skills.fs, logger));
    this.documents = this.store.add(new ReviewDocuments(logger));
    const ports = () => this.ports();
    this.importFlow = new ImportFlow({ skills, lockStatus: this.lockStatus, documents: this.documents, ports, logger });
    this.updates = new UpdateFlow(skills, this.lockStatus, this.documents, ports, logger);
    this.restore = new RestoreAction(skills, this.lockStatus, ports, logger);
    this.relocate = new RelocateAction(skills, () => this.lockStatus.schedule(), logger);
  }

  /** Starts watching the folders' locks; the first check runs in the background. */
  start(): void {
    this.lockStatus.start();
  }

  /** Git and the quarantine folder, made on first use (nothing runs at activation). */
  private ports(): FetchPorts {
    // Plain Node file access: quarantine writes must not go through the index's synchronous reads.
    // A private folder per window: a shared fixed path could be made beforehand by another user of the machine.
    if (this.portsCache === undefined) {
      this.quarantineRoot = nodeFs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-quarantine-'));
      nodeFs.chmodSync(this.quarantineRoot, 0o700);
      this.portsCache = { fs: new NodeFileSystem(), git: defaultGitPort(), tempRoot: this.quarantineRoot };
    }
    return this.portsCache;
  }

  dispose(): void {
    this.store.dispose();
    if (this.quarantineRoot !== undefined) nodeFs.rmSync(this.quarantineRoot, { recursive: true, force: true });
  }
}
