import { MEMORY_TOOL } from '../memory/memoryTool';
import { SESSION_SEARCH_TOOL } from '../sessions/sessionSearchTool';
import { SKILL_TOOLS } from '../skills/tools/skillTools';
import type { ApprovalAnswer, ToolApproval } from '../toolkit/agentTool';
import { WORKSPACE_TOOLS } from '../tools/workspaceTools';
import { SKILL_RUN_TOOL } from '../execution/skillRunTool';
import { RUN_SKILL_GRANT } from './runApproval';

/**
 * Who may do what without asking. Reads never ask. Edits, writes and commands ask unless a grant
 * covers them: for this session (kept in memory) or always for this workspace (an allowlist the
 * host keeps in workspace state, where the user can see and clear it). Restricted Mode allows
 * nothing that writes or runs; a headless run turns every question into a refusal.
 * See docs/workspace-tools.md for the full table.
 */

export type ToolKind = ToolApproval | 'unknown';
export type ApprovalDecision = 'allow' | 'ask' | 'deny';

export interface ApprovalCheck {
  readonly decision: ApprovalDecision;
  /** Why, in words for the model (on deny) and for the approval card (on ask). */
  readonly reason: string;
  readonly kind: ToolKind;
}

/** Which kind each tool is, read off the tool definitions; tools not listed are `unknown` and ask (or are refused when headless). */
export const DEFAULT_TOOL_KINDS: Readonly<Record<string, Exclude<ToolKind, 'unknown'>>> = Object.fromEntries(
  [...[...SKILL_TOOLS, ...WORKSPACE_TOOLS, MEMORY_TOOL, SESSION_SEARCH_TOOL, SKILL_RUN_TOOL].map((definition) => [definition.name, definition.approval] as const), [RUN_SKILL_GRANT, 'command'] as const],
);

export type AllowlistEntry =
  | { readonly type: 'tool'; readonly tool: string; readonly addedAt?: string }
  | { readonly type: 'command'; readonly match: 'exact' | 'prefix'; readonly command: string; readonly addedAt?: string };

/** Where "always" grants live. The host backs it with workspace state, never with workspace settings. */
export interface AllowlistStore {
  /** Read on every check, so a list cleared elsewhere takes effect at once; bad entries are dropped. */
  load(): readonly unknown[];
  save(entries: readonly AllowlistEntry[]): void | Promise<void>;
}

export interface AutoApprove {
  readonly edits?: boolean;
  readonly commands?: boolean;
}

export interface ApprovalPolicyOptions {
  /** False in Restricted Mode. Default true. */
  readonly trusted?: boolean;
  /** False for headless runs: whatever would ask is refused. Default true. */
  readonly interactive?: boolean;
  readonly autoApprove?: AutoApprove;
  /** Only reads are allowed (the CLI's `--yes-reads-only`). */
  readonly readsOnly?: boolean;
  readonly store?: AllowlistStore;
  /** Extra or changed tool kinds, merged over DEFAULT_TOOL_KINDS. */
  readonly kinds?: Readonly<Record<string, Exclude<ToolKind, 'unknown'>>>;
  /** Added to headless refusals, e.g. `pass --yes-edits to allow edits`. */
  readonly headlessHint?: string;
  readonly now?: () => Date;
  /** Told when the store fails to save; the grant still holds for the session. */
  readonly onStoreError?: (error: unknown) => void;
}

const record = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** Shell syntax that chains, substitutes or redirects: a prefix grant never covers a command with it. */
export function hasShellControl(command: string): boolean {
  return /[;&|`<>\n\r]|\$\(/.test(command);
}

/** Programs whose next word is not a subcommand but arbitrary code or another program. */
const NO_PREFIX = new Set([
  'sh', 'bash', 'zsh', 'fish', 'dash', 'pwsh', 'powershell', 'cmd', 'sudo', 'su', 'doas', 'env', 'xargs', 'eval', 'exec',
  'nohup', 'time', 'timeout', 'watch', 'nice', 'ssh', 'docker', 'kubectl', 'python', 'python3', 'node', 'deno', 'bun',
  'ruby', 'perl', 'php', 'rm', 'mv', 'dd', 'chmod', 'chown', 'curl', 'wget',
]);
const WORD = /^[a-z][\w:.-]*$/i;

/**
 * A prefix to offer for "always allow commands starting with …": the program and its subcommand
 * (`npm test`, `git status`, `npm run build`). Undefined when a prefix would be a blank cheque
 * (shells, interpreters, sudo, rm) or the command chains other commands.
 */
export function suggestCommandPrefix(command: string): string | undefined {
  const trimmed = command.trim();
  if (trimmed === '' || hasShellControl(trimmed)) return undefined;
  const words = trimmed.split(/\s+/);
  const program = words[0] as string;
  if (!/^[\w./-]+$/.test(program) || NO_PREFIX.has(program.replace(/^.*\//, '').toLowerCase())) return undefined;
  const prefix = [program];
  if (words[1] !== undefined && WORD.test(words[1])) {
    prefix.push(words[1]);
    if (['run', 'exec', 'x'].includes(words[1]) && words[2] !== undefined && WORD.test(words[2])) prefix.push(words[2]);
  }
  return prefix.join(' ');
}

/** Whether a grant for `entry` covers this command line. */
export function commandMatches(entry: Extract<AllowlistEntry, { type: 'command' }>, command: string): boolean {
  const trimmed = command.trim();
  if (entry.match === 'exact') return trimmed === entry.command;
  if (hasShellControl(trimmed) || hasShellControl(entry.command) || entry.command === '') return false;
  return trimmed === entry.command || trimmed.startsWith(`${entry.command} `) || trimmed.startsWith(`${entry.command}\t`);
}

/**
 * Files that make other programs run code or steer the agent, so writing them is as strong as a
 * command: git hooks and config, VS Code tasks and settings, CI workflows, dev containers, agent
 * instruction files, the agent's skills and memory. Edits to them ask even when edits are
 * auto-approved or granted. The check is on the path as written (and every segment of it).
 */
export function sensitivePathReason(filePath: string): string | undefined {
  const segments = filePath.replace(/\\/g, '/').toLowerCase().split('/').filter((s) => s !== '' && s !== '.');
  const last = segments[segments.length - 1] ?? '';
  const has = (name: string): boolean => segments.includes(name);
  if (has('.git')) return 'it is inside .git, where hooks and config make git run code';
  if (has('.husky')) return 'it is a git hook (.husky), which runs on commit';
  if (has('.vscode')) return 'it is in .vscode, where tasks and settings can run commands when the folder opens';
  if (has('.devcontainer')) return 'it is a dev container definition, which runs code when the container is built';
  if (segments.some((s, i) => s === '.github' && segments[i + 1] === 'workflows')) return 'it is a CI workflow, which runs code on push';
  if (['agents.md', 'claude.md'].includes(last) || (last === 'copilot-instructions.md' && has('.github'))) {
    return 'it is an agent instruction file, which steers every future session';
  }
  if (has('.agents')) return 'it is in .agents (skills and memory); the skill and memory tools change these with validation';
  return undefined;
}

function parseEntry(value: unknown): AllowlistEntry | undefined {
  const entry = record(value);
  const addedAt = typeof entry['addedAt'] === 'string' ? { addedAt: entry['addedAt'] } : {};
  if (entry['type'] === 'tool' && typeof entry['tool'] === 'string' && entry['tool'] !== '') return { type: 'tool', tool: entry['tool'], ...addedAt };
  if (entry['type'] === 'command' && typeof entry['command'] === 'string' && entry['command'].trim() !== '' && (entry['match'] === 'exact' || entry['match'] === 'prefix')) {
    return { type: 'command', match: entry['match'], command: entry['command'].trim(), ...addedAt };
  }
  return undefined;
}

const sameGrant = (a: AllowlistEntry, b: AllowlistEntry): boolean =>
  a.type === 'tool' ? b.type === 'tool' && a.tool === b.tool : b.type === 'command' && a.match === b.match && a.command === b.command;

/** How an entry reads in a list the user reviews. */
export function describeEntry(entry: AllowlistEntry): string {
  if (entry.type === 'tool') return `${entry.tool}: every call`;
  return entry.match === 'exact' ? `run_command: exactly \`${entry.command}\`` : `run_command: commands starting with \`${entry.command}\``;
}

export class ApprovalPolicy {
  private trusted: boolean;
  private autoApprove: AutoApprove;
  private readonly interactive: boolean;
  private readonly readsOnly: boolean;
  private readonly kinds: Readonly<Record<string, Exclude<ToolKind, 'unknown'>>>;
  private readonly session: AllowlistEntry[] = [];
  /** "Always" grants kept here when there is no store, or saving to it failed. */
  private memoryAlways: AllowlistEntry[] = [];
  /** "Always" grants being saved, so they count before an asynchronous store catches up. */
  private pendingAlways: AllowlistEntry[] = [];

  constructor(private readonly options: ApprovalPolicyOptions = {}) {
    this.trusted = options.trusted ?? true;
    this.autoApprove = options.autoApprove ?? {};
    this.interactive = options.interactive ?? true;
    this.readsOnly = options.readsOnly ?? false;
    this.kinds = { ...DEFAULT_TOOL_KINDS, ...options.kinds };
  }

  /** Workspace trust changed (VS Code's onDidGrantWorkspaceTrust). */
  setTrusted(trusted: boolean): void {
    this.trusted = trusted;
  }

  /** The autoApprove settings changed. */
  setAutoApprove(autoApprove: AutoApprove): void {
    this.autoApprove = autoApprove;
  }

  kindOf(tool: string): ToolKind {
    return Object.prototype.hasOwnProperty.call(this.kinds, tool) ? (this.kinds[tool] as ToolKind) : 'unknown';
  }

  /** The "always" grants for this workspace, as stored. */
  allowlist(): AllowlistEntry[] {
    const stored = this.options.store ? this.options.store.load().map(parseEntry).filter((e): e is AllowlistEntry => e !== undefined) : [];
    const merged = [...stored];
    for (const entry of [...this.pendingAlways, ...this.memoryAlways]) if (!merged.some((known) => sameGrant(known, entry))) merged.push(entry);
    return merged;
  }

  /** The grants for this session only. */
  sessionGrants(): AllowlistEntry[] {
    return [...this.session];
  }

  clearSession(): void {
    this.session.length = 0;
  }

  async removeFromAllowlist(entry: AllowlistEntry): Promise<void> {
    const kept = this.allowlist().filter((known) => !sameGrant(known, entry));
    this.memoryAlways = this.memoryAlways.filter((known) => !sameGrant(known, entry));
    this.pendingAlways = this.pendingAlways.filter((known) => !sameGrant(known, entry));
    await this.options.store?.save(kept);
  }

  async clearAllowlist(): Promise<void> {
    this.memoryAlways = [];
    this.pendingAlways = [];
    await this.options.store?.save([]);
  }

  check(tool: string, args: unknown): ApprovalCheck {
    const kind = this.kindOf(tool);
    if (kind === 'read') return { decision: 'allow', reason: 'reading never needs approval', kind };
    const action = kind === 'command' ? 'running commands' : 'changing files';
    if (!this.trusted) {
      return {
        decision: 'deny',
        reason: `${tool} is not allowed: this workspace is in Restricted Mode (not trusted), so nothing that writes or runs is allowed. Tell the user; they can trust the folder with "Manage Workspace Trust".`,
        kind,
      };
    }
    if (this.readsOnly) return { decision: 'deny', reason: `${tool} is not allowed: this run allows reading only, not ${action}`, kind };
    if (kind === 'self') return { decision: 'allow', reason: 'memory writes are scanned and reviewed by the memory tool itself', kind };
    return this.unattended(this.decide(tool, kind, args));
  }

  private decide(tool: string, kind: ToolKind, args: unknown): ApprovalCheck {
    const grants = [...this.session, ...this.allowlist()];
    if (kind === 'command') {
      const command = typeof record(args)['command'] === 'string' ? (record(args)['command'] as string) : '';
      if (this.autoApprove.commands) return { decision: 'allow', reason: 'commands are auto-approved in the settings', kind };
      const grant = grants.find((entry) => entry.type === 'command' && commandMatches(entry, command));
      if (grant) return { decision: 'allow', reason: `allowed by the grant "${describeEntry(grant)}"`, kind };
      return { decision: 'ask', reason: 'running a command needs your approval', kind };
    }
    if (kind === 'edit') {
      const target = typeof record(args)['path'] === 'string' ? (record(args)['path'] as string) : '';
      const sensitive = sensitivePathReason(target);
      if (sensitive) return { decision: 'ask', reason: `this file always needs approval: ${sensitive}`, kind };
      if (this.autoApprove.edits) return { decision: 'allow', reason: 'edits are auto-approved in the settings', kind };
    }
    const grant = grants.find((entry) => entry.type === 'tool' && entry.tool === tool);
    if (grant) return { decision: 'allow', reason: `allowed by the grant "${describeEntry(grant)}"`, kind };
    if (kind === 'unknown') return { decision: 'ask', reason: `${tool} is not a known read-only tool, so it needs your approval`, kind };
    const what = tool === 'write_file' ? 'writing a file' : tool === 'edit_file' ? 'editing a file' : `${tool} changes files and`;
    return { decision: 'ask', reason: `${what} needs your approval`, kind };
  }

  private unattended(check: ApprovalCheck): ApprovalCheck {
    if (check.decision !== 'ask' || this.interactive) return check;
    const hint = this.options.headlessHint ? `; ${this.options.headlessHint}` : '';
    return { ...check, decision: 'deny', reason: `not allowed in this unattended run (${check.reason}, and no one is there to approve)${hint}` };
  }

  /**
   * Remembers the user's answer. `allow_session` and `allow_always` grant commands by exact command
   * line, or by `commandPrefix` when the user chose one (it must start the command); other tools
   * are granted as a whole. Session grants live in memory; "always" grants only in the allowlist.
   * `allow_once` and `deny` leave no trace.
   */
  record(tool: string, args: unknown, answer: ApprovalAnswer, options: { readonly commandPrefix?: string } = {}): void {
    if (answer !== 'allow_session' && answer !== 'allow_always') return;
    const kind = this.kindOf(tool);
    if (kind === 'read' || kind === 'self') return;
    let entry: AllowlistEntry;
    if (kind === 'command') {
      const command = typeof record(args)['command'] === 'string' ? (record(args)['command'] as string).trim() : '';
      if (command === '') return;
      const prefix = options.commandPrefix?.trim();
      const usable = prefix && !hasShellControl(prefix) && commandMatches({ type: 'command', match: 'prefix', command: prefix }, command);
      entry = usable ? { type: 'command', match: 'prefix', command: prefix } : { type: 'command', match: 'exact', command };
    } else {
      entry = { type: 'tool', tool };
    }
    entry = { ...entry, addedAt: (this.options.now?.() ?? new Date()).toISOString() };
    if (answer === 'allow_session') {
      if (!this.session.some((known) => sameGrant(known, entry))) this.session.push(entry);
      return;
    }
    // "Always" lives only in the allowlist, so clearing the list (here or in the host) revokes it.
    const current = this.allowlist();
    if (current.some((known) => sameGrant(known, entry))) return;
    const store = this.options.store;
    if (!store) {
      this.memoryAlways.push(entry);
      return;
    }
    const saved = entry;
    const keepInMemory = (error: unknown): void => {
      this.pendingAlways = this.pendingAlways.filter((known) => known !== saved);
      this.memoryAlways.push(saved);
      this.options.onStoreError?.(error);
    };
    this.pendingAlways.push(saved);
    // The whole list goes back, including grants still being saved or kept after a failed save.
    const retried = [...this.memoryAlways];
    try {
      Promise.resolve(store.save([...current, saved]))
        .then(() => {
          this.pendingAlways = this.pendingAlways.filter((known) => known !== saved);
          this.memoryAlways = this.memoryAlways.filter((known) => !retried.includes(known));
        })
        .catch(keepInMemory);
    } catch (error) {
      keepInMemory(error);
    }
  }
}

export interface HeadlessFlags {
  /** `--yes-edits`: edit_file and write_file run without asking (sensitive files are still refused). */
  readonly allowEdits?: boolean;
  /** `--yes-commands`: run_command runs without asking. */
  readonly allowCommands?: boolean;
  /** `--yes-reads-only`: nothing but reads, not even skill or memory writes. */
  readonly readsOnly?: boolean;
  readonly headlessHint?: string;
}

/** The policy of a CLI run: nobody to ask, so anything not allowed by a flag is refused. */
export function headlessApprovalPolicy(flags: HeadlessFlags = {}): ApprovalPolicy {
  return new ApprovalPolicy({
    trusted: true,
    interactive: false,
    readsOnly: flags.readsOnly ?? false,
    autoApprove: { edits: flags.allowEdits ?? false, commands: flags.allowCommands ?? false },
    headlessHint: flags.headlessHint ?? 'the CLI allows edits with --yes-edits and commands with --yes-commands',
  });
}
