/**
 * The model's `memory` tool: its OpenAI function schema, argument checks, the review mode
 * (`ask` queues a proposal, `auto` writes at once) and the per-turn failure budget. Results are
 * JSON objects `{ success, … }`; nothing is thrown to the agent loop.
 */
import { describeError } from '../base/logger';
import { z } from 'zod';
import { parseToolArgs } from '../toolkit/toolArgs';
import { defineTool } from '../toolkit/toolDefinition';
import type { MemoryAction, MemoryFailure, MemoryTarget } from './memoryEdit';
import { MEMORY_TARGETS, TARGET_FILES, renderMemoryDiff } from './memoryEdit';
import type { MemoryProposals } from './memoryProposals';
import type { MemoryApplySuccess, MemoryStore } from './memoryStore';

export type MemoryReviewMode = 'ask' | 'auto';

/** A tool result: assignable to the skills tools' ToolResult, with extra fields on failures too. */
export type MemoryToolResult =
  | { readonly success: true; readonly [k: string]: unknown }
  | { readonly success: false; readonly error: string; readonly [k: string]: unknown };

/** Failed calls allowed in one turn; the last one tells the model to stop. */
export const MAX_MEMORY_FAILURES_PER_TURN = 3;
export const MAX_BATCH_ACTIONS = 20;

const ACTION = z.enum(['add', 'replace', 'remove']).describe('add a new entry, replace an entry, or remove one.');
const TARGET = z.enum(['memory', 'user']).describe('"memory": notes about this project (MEMORY.md). "user": the user profile (USER.md).');
const CONTENT = z.string().describe('add/replace: the entry, a short self-contained fact.');
const OLD_TEXT = z.string().describe('replace/remove: a piece of the existing entry that no other entry contains.');

export const MEMORY_TOOL = defineTool({
  name: 'memory',
  description: [
    'Keep durable notes for future sessions.',
    'target "memory" holds facts about this project (build and test commands, conventions, paths, pitfalls); target "user" holds facts about the user (preferences, role, environment).',
    'Save stable facts that will help later, not task progress or things only this conversation needs.',
    'add takes content; replace takes old_text (a unique piece of the entry) and content; remove takes old_text.',
    'Pass actions: [...] instead to make several changes at once, applied all or nothing, e.g. to consolidate a full file by replacing several entries with one shorter entry.',
    'Each file has a character limit. Saved notes appear in the prompt from the next session on.',
    'Never store secrets, or instructions addressed to yourself; such writes are refused.',
  ].join(' '),
  args: z.strictObject({
    action: ACTION.optional(),
    target: TARGET.optional(),
    content: CONTENT.optional(),
    old_text: OLD_TEXT.optional(),
    actions: z
      .array(z.strictObject({ action: ACTION, target: TARGET, content: CONTENT.optional(), old_text: OLD_TEXT.optional() }))
      // Counted by parseMemoryArgs, whose messages say what to do; the schema tells the model the bounds.
      .meta({ minItems: 1, maxItems: MAX_BATCH_ACTIONS })
      .optional()
      .describe('Several changes applied together, all or nothing (use instead of action/target/content/old_text).'),
  }),
  // Memory is threat-scanned by its tool and reviewed through its own setting (proposals or auto).
  approval: 'self',
  example: '{"action": "add", "target": "memory", "content": "…"}',
  execute: (_args, tool: MemoryTool, run) => tool.run(_args, { turnId: run.turnId }),
});

export interface MemoryCallContext {
  /** Identifies the user turn the call belongs to; failures are counted per turn. */
  readonly turnId: string;
}

export interface MemoryToolOptions {
  readonly store: MemoryStore;
  readonly proposals: MemoryProposals;
  /** The review setting, read on every call so a settings change applies at once. */
  readonly reviewMode: MemoryReviewMode | (() => MemoryReviewMode);
  readonly maxFailuresPerTurn?: number;
}

type Parsed = { ok: true; actions: MemoryAction[] } | { ok: false; error: string };
type CheckedArgs = z.infer<typeof MEMORY_TOOL.args>;

const FIELD_NAMES = ['action', 'target', 'content', 'old_text'] as const;

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

type ActionFields = { readonly action?: string | undefined; readonly target?: string | undefined; readonly content?: string | undefined; readonly old_text?: string | undefined };

/** What the schema cannot say: which fields each action needs and refuses. */
function parseAction(item: ActionFields, at: string): MemoryAction | string {
  const { action, target, content, old_text: oldText } = item;
  if (action !== 'add' && action !== 'replace' && action !== 'remove') return `${at}action must be "add", "replace" or "remove"`;
  if (!MEMORY_TARGETS.includes(target as MemoryTarget)) return `${at}target must be "memory" (this project) or "user" (the user profile)`;
  const t = target as MemoryTarget;
  if (action === 'add') {
    if (!present(content)) return `${at}add needs content: the fact to save`;
    if (present(oldText)) return `${at}add takes no old_text; to change an existing entry use replace`;
    return { action, target: t, content: content as string };
  }
  if (!present(oldText)) return `${at}${action} needs old_text: a piece of the entry that no other entry contains`;
  if (action === 'remove') {
    if (present(content)) return `${at}remove takes no content; to change an entry use replace`;
    return { action, target: t, old_text: oldText as string };
  }
  if (!present(content)) return `${at}replace needs content: the new text of the entry (use remove to delete it)`;
  return { action, target: t, old_text: oldText as string, content: content as string };
}

/** Checks the raw arguments (a JSON string or an object) into a list of actions. */
export function parseMemoryArgs(raw: unknown): Parsed {
  const checked = parseToolArgs(MEMORY_TOOL.name, MEMORY_TOOL.args, raw, MEMORY_TOOL.example);
  if (!checked.ok) return checked;
  const args: CheckedArgs = checked.args;
  const batch = args.actions;
  // An empty batch beside a single action is the model filling every field: the single action counts.
  if (batch === undefined || (batch.length === 0 && FIELD_NAMES.some((k) => present(args[k])))) {
    const parsed = parseAction(args, '');
    return typeof parsed === 'string' ? { ok: false, error: parsed } : { ok: true, actions: [parsed] };
  }
  const given = FIELD_NAMES.filter((k) => present(args[k]));
  if (given.length) return { ok: false, error: `give either actions (a batch) or a single action, not both (found actions and ${given.join(', ')})` };
  if (batch.length === 0) return { ok: false, error: 'actions is empty; give at least one change' };
  if (batch.length > MAX_BATCH_ACTIONS) return { ok: false, error: `actions has ${batch.length} changes; at most ${MAX_BATCH_ACTIONS} fit in one call` };
  const actions: MemoryAction[] = [];
  for (const [i, item] of batch.entries()) {
    const parsed = parseAction(item, `actions[${i}]: `);
    if (typeof parsed === 'string') return { ok: false, error: parsed };
    actions.push(parsed);
  }
  return { ok: true, actions };
}

/** The failure as the model sees it: the error plus whatever helps it fix the call. */
export function failureResult(failure: MemoryFailure | { error: string; code?: string }): MemoryToolResult {
  const f = failure as Partial<MemoryFailure> & { error: string };
  return {
    success: false,
    error: f.error,
    ...(f.code ? { code: f.code } : {}),
    ...(f.findings ? { patterns: [...new Set(f.findings.map((x) => x.id))], findings: f.findings.slice(0, 5).map((x) => ({ id: x.id, message: x.message, excerpt: x.excerpt })) } : {}),
    ...(f.candidates ? { candidates: f.candidates } : {}),
    ...(f.entries ? { entries: f.entries, chars: f.chars, limit: f.limit, projected: f.projected } : {}),
  };
}

function usageOf(result: MemoryApplySuccess): Record<string, string> {
  return Object.fromEntries(result.files.map((f) => [TARGET_FILES[f.target], `${f.chars} of ${f.limit} characters`]));
}

export class MemoryTool {
  readonly definition = MEMORY_TOOL;
  private turnId: string | undefined;
  private failures = 0;

  constructor(private readonly options: MemoryToolOptions) {}

  /** Runs one call. Never throws. */
  async run(args: unknown, call: MemoryCallContext): Promise<MemoryToolResult> {
    if (call.turnId !== this.turnId) {
      this.turnId = call.turnId;
      this.failures = 0;
    }
    const max = this.options.maxFailuresPerTurn ?? MAX_MEMORY_FAILURES_PER_TURN;
    if (this.failures >= max) {
      return {
        success: false,
        stop: true,
        error: `memory already failed ${this.failures} times in this turn, so this call was not run. Do not call memory again in this turn: tell the user what you wanted to save and why it was refused.`,
      };
    }
    let result: MemoryToolResult;
    try {
      result = await this.execute(args, call);
    } catch (error) {
      result = { success: false, error: `memory failed unexpectedly: ${describeError(error)}` };
    }
    if (result.success) return result;
    this.failures++;
    if (this.failures < max) return result;
    return {
      ...result,
      stop: true,
      error: `${result.error} This is failed memory attempt ${this.failures} of ${max} in this turn: stop calling memory now and tell the user what you wanted to save and why it was refused.`,
    };
  }

  private reviewMode(): MemoryReviewMode {
    const mode = typeof this.options.reviewMode === 'function' ? this.options.reviewMode() : this.options.reviewMode;
    return mode === 'auto' ? 'auto' : 'ask';
  }

  private async execute(args: unknown, call: MemoryCallContext): Promise<MemoryToolResult> {
    const parsed = parseMemoryArgs(args);
    if (!parsed.ok) return failureResult({ error: parsed.error, code: 'invalid' });
    const { store, proposals } = this.options;

    if (this.reviewMode() === 'ask') {
      const dry = await store.apply(parsed.actions, { dryRun: true });
      if (!dry.ok) return failureResult(this.withPendingHint(dry));
      if (dry.changes.every((c) => c.unchanged)) return { success: true, unchanged: true, message: 'That is already saved; nothing to change.' };
      const proposal = proposals.add(parsed.actions, dry.changes, call.turnId);
      return {
        success: true,
        pending: true,
        proposalId: proposal.id,
        diff: proposal.diff,
        message: 'Proposed for the user to review in the memory view; it is not saved yet. Do not propose it again. If accepted, it appears in the prompt from the next session.',
      };
    }

    const applied = await store.apply(parsed.actions);
    if (!applied.ok) return failureResult(applied);
    if (!applied.written) return { success: true, unchanged: true, message: 'That is already saved; nothing changed.', usage: usageOf(applied) };
    return {
      success: true,
      saved: true,
      diff: renderMemoryDiff(applied.changes),
      usage: usageOf(applied),
      message: 'Saved. It appears in the prompt from the next session; this session keeps the memory it started with.',
    };
  }

  /** Entries proposed earlier are not on disk yet; say so when old_text finds nothing. */
  private withPendingHint(failure: MemoryFailure): MemoryFailure {
    const pending = this.options.proposals.size;
    if (failure.code !== 'no_match' || pending === 0) return failure;
    return { ...failure, error: `${failure.error} (${pending} proposed change${pending > 1 ? 's are' : ' is'} still waiting for the user's review; entries they add do not exist yet.)` };
  }
}
