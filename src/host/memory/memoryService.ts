import * as os from 'node:os';
import * as vscode from 'vscode';
import { memoryAgentTool } from '../../core/agent/memoryAgentTool';
import type { AgentTool } from '../../core/toolkit/agentTool';
import { DisposableStore } from '../../core/base/disposableStore';
import { SETTINGS } from '../../core/base/contributions';
import type { Logger } from '../../core/base/logger';
import type { MemoryTarget } from '../../core/memory/memoryEdit';
import { DEFAULT_MEMORY_LIMITS } from '../../core/memory/memoryEdit';
import { NodeFileLock } from '../../core/memory/memoryLock';
import { MemoryProposals } from '../../core/memory/memoryProposals';
import { MemoryStore } from '../../core/memory/memoryStore';
import type { MemoryReviewMode } from '../../core/memory/memoryTool';
import { MemoryTool } from '../../core/memory/memoryTool';
import { NodeFileSystem } from '../../core/base/nodeFileSystem';

/** A memory write the threat scanner refused, kept for the Memory tab's notice. */
export interface BlockedWrite {
  readonly target: MemoryTarget;
  readonly patternIds: readonly string[];
  readonly at: Date;
  /** The start of the refused text, with invisible characters escaped by the scanner's excerpt. */
  readonly preview: string;
}

const MAX_BLOCKED = 20;

/**
 * MEMORY.md (first workspace folder, trusted only) and USER.md (home folder), with the limits and
 * review mode from settings. The store is rebuilt when folders, trust or limits change; pending
 * proposals live as long as the window.
 */
export class MemoryService implements vscode.Disposable {
  private current: MemoryStore;
  readonly proposals: MemoryProposals;
  private readonly blockedWrites: BlockedWrite[] = [];
  private readonly registrations: DisposableStore;
  private readonly changeEmitter: vscode.EventEmitter<void>;
  /** Fires after the agent or the Memory tab wrote, proposed or was refused, or settings changed. */
  readonly onDidChange: vscode.Event<void>;

  constructor(private readonly logger: Logger) {
    this.registrations = new DisposableStore(logger);
    this.changeEmitter = this.registrations.add(new vscode.EventEmitter<void>());
    this.onDidChange = this.changeEmitter.event;
    this.current = this.createStore();
    // Proposals re-check against whichever store is current when accepted.
    this.proposals = new MemoryProposals({ apply: (actions, options) => this.current.apply(actions, options) });
    this.registrations.add(this.proposals.onDidChange(() => this.changeEmitter.fire()));
  }

  get store(): MemoryStore {
    return this.current;
  }

  /** Folders, trust or the limit settings changed. */
  reconfigure(): void {
    this.current = this.createStore();
    this.changeEmitter.fire();
  }

  /** Something outside the service changed the files (the Memory tab's edits). */
  changed(): void {
    this.changeEmitter.fire();
  }

  reviewMode(): MemoryReviewMode {
    return vscode.workspace.getConfiguration(SETTINGS.section).get<string>(SETTINGS.memoryReview) === 'auto' ? 'auto' : 'ask';
  }

  get blocked(): readonly BlockedWrite[] {
    return this.blockedWrites;
  }

  /** Why project memory is unavailable, or undefined when it is available. */
  projectUnavailableReason(): string | undefined {
    if (!vscode.workspace.workspaceFolders?.length) return 'no folder is open';
    if (!vscode.workspace.isTrusted) return 'the folder is not trusted (Restricted Mode)';
    return undefined;
  }

  /** The `memory` tool for a new agent session; refusals by the scanner are recorded for the tab. */
  agentTool(): AgentTool {
    const tool = memoryAgentTool(new MemoryTool({ store: this.current, proposals: this.proposals, reviewMode: () => this.reviewMode() }));
    return {
      ...tool,
      run: async (args, context) => {
        const result = (await tool.run(args, context)) as Record<string, unknown>;
        if (result['code'] === 'blocked') this.recordBlocked(args, result);
        if (result['success'] === true && !result['unchanged']) this.changeEmitter.fire();
        return result;
      },
    };
  }

  /** Records a refusal (also used by the Memory tab when a person's own entry is refused). */
  recordBlocked(args: unknown, result: Record<string, unknown>): void {
    const patterns = Array.isArray(result['patterns']) ? result['patterns'].filter((p): p is string => typeof p === 'string') : [];
    const findings = Array.isArray(result['findings']) ? (result['findings'] as { excerpt?: unknown }[]) : [];
    const target = targetOf(args);
    const excerpt = typeof findings[0]?.excerpt === 'string' ? findings[0].excerpt : '';
    this.blockedWrites.unshift({ target, patternIds: patterns, at: new Date(), preview: excerpt.slice(0, 160) });
    this.blockedWrites.length = Math.min(this.blockedWrites.length, MAX_BLOCKED);
    this.logger.warn(`Memory write refused by the threat scanner (${patterns.join(', ') || 'no pattern id'})`);
    this.changeEmitter.fire();
  }

  dispose(): void {
    this.registrations.dispose();
  }

  private createStore(): MemoryStore {
    const config = vscode.workspace.getConfiguration(SETTINGS.section);
    const folder = vscode.workspace.workspaceFolders?.[0];
    const reason = this.projectUnavailableReason();
    return new MemoryStore({
      fs: new NodeFileSystem(),
      lock: new NodeFileLock(),
      ...(folder && !reason ? { projectRoot: folder.uri.fsPath } : {}),
      ...(reason ? { projectUnavailableReason: reason } : {}),
      userHome: os.homedir(),
      limits: {
        memory: config.get<number>(SETTINGS.memoryProjectLimit, DEFAULT_MEMORY_LIMITS.memory),
        user: config.get<number>(SETTINGS.memoryUserLimit, DEFAULT_MEMORY_LIMITS.user),
      },
      logger: this.logger,
    });
  }
}

function targetOf(args: unknown): MemoryTarget {
  const record = args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  const first = Array.isArray(record['actions']) ? (record['actions'][0] as Record<string, unknown> | undefined) : record;
  return first?.['target'] === 'user' ? 'user' : 'memory';
}
