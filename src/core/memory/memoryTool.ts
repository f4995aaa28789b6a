/**
 * The model's `memory` tool: its OpenAI function schema, argument checks, the review mode
 * (`ask` queues a proposal, `auto` writes at once) and the per-turn failure budget. Results are
 * JSON objects `{ success, … }`; nothing is thrown to the agent loop.
 */
import { describeError } from '../base/logger';
import type { ToolSchema } from '../skills/tools/skillTools';
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

const ACTION_FIELDS = {
  action: { type: 'string', enum: ['add', 'replace', 'remove'], description: 'add a new entry, replace an entry, or remove one.' },
  target: { type: 'string', enum: ['memory', 'user'], description: '"memory": notes about this project (MEMORY.md). "user": the user profile (USER.md).' },
  content: { type: 'string', description: 'add/replace: the entry, a short self-contained fact.' },
  old_text: { type: 'string', description: 'replace/remove: a piece of the existing entry that no other entry contains.' },
} as const;

export const MEMORY_TOOL_SCHEMA: ToolSchema = {
  type: 'function',
  function: {
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
    parameters: {
      type: 'object',
      properties: {
        ...ACTION_FIELDS,
        actions: {
          type: 'array',
          description: 'Several changes applied together, all or nothing (use instead of action/target/content/old_text).',
          minItems: 1,
          maxItems: MAX_BATCH_ACTIONS,
          items: { type: 'object', properties: ACTION_FIELDS, required: ['action', 'target'], additionalProperties: false },
        },
      },
      additionalProperties: false,
    },
  },
};

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

const FIELD_NAMES = Object.keys(ACTION_FIELDS);

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function parseAction(raw: unknown, at: string): MemoryAction | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return `${at}must be an object such as {"action": "add", "target": "memory", "content": "…"}`;
  const item = raw as Record<string, unknown>;
  const unknown = Object.keys(item).filter((k) => !FIELD_NAMES.includes(k));
  if (unknown.length) return `${at}unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; allowed: ${FIELD_NAMES.join(', ')}`;
  const { action, target, content, old_text: oldText } = item;
  if (action !== 'add' && action !== 'replace' && action !== 'remove') return `${at}action must be "add", "replace" or "remove"${present(action) ? `, not ${JSON.stringify(action)}` : ''}`;
  if (!MEMORY_TARGETS.includes(target as MemoryTarget)) return `${at}target must be "memory" (this project) or "user" (the user profile)${present(target) ? `, not ${JSON.stringify(target)}` : ''}`;
  for (const [name, value] of [['content', content], ['old_text', oldText]] as const) {
    if (present(value) && typeof value !== 'string') return `${at}${name} must be a string`;
  }
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
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, error: 'memory arguments are not valid JSON; send an object such as {"action": "add", "target": "memory", "content": "…"}' };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'memory arguments must be a JSON object such as {"action": "add", "target": "memory", "content": "…"}' };
  }
  const args = value as Record<string, unknown>;
  if (!present(args.actions) || (Array.isArray(args.actions) && args.actions.length === 0 && FIELD_NAMES.some((k) => present(args[k])))) {
    const { actions: _ignored, ...single } = args;
    const parsed = parseAction(single, '');
    return typeof parsed === 'string' ? { ok: false, error: parsed } : { ok: true, actions: [parsed] };
  }
  const given = FIELD_NAMES.filter((k) => present(args[k]));
  if (given.length) return { ok: false, error: `give either actions (a batch) or a single action, not both (found actions and ${given.join(', ')})` };
  const extra = Object.keys(args).filter((k) => k !== 'actions' && !FIELD_NAMES.includes(k));
  if (extra.length) return { ok: false, error: `unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')}; allowed: actions, ${FIELD_NAMES.join(', ')}` };
  if (!Array.isArray(args.actions)) return { ok: false, error: 'actions must be an array of objects, each with action, target and content or old_text' };
  if (args.actions.length === 0) return { ok: false, error: 'actions is empty; give at least one change' };
  if (args.actions.length > MAX_BATCH_ACTIONS) return { ok: false, error: `actions has ${args.actions.length} changes; at most ${MAX_BATCH_ACTIONS} fit in one call` };
  const actions: MemoryAction[] = [];
  for (const [i, item] of args.actions.entries()) {
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
  readonly schema = MEMORY_TOOL_SCHEMA;
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
