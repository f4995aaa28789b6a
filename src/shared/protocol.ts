/**
 * The host↔webview protocol of the sidebar panel (the SKILL.md preview's is previewProtocol.ts). Every message is a
 * discriminated union member named `area/verb`, described once as a zod schema so that the type
 * and its validator cannot drift apart. Both sides validate what they receive: a malformed
 * message is reported and dropped, never acted on. No `vscode` and no DOM types here.
 */
import * as z from 'zod/mini';
import type { ParseResult } from './system/parseMessage';
import { parseMessage } from './system/parseMessage';

import { count, id, str, text } from './protocolFields';

export const scopeSchema = z.enum(['project', 'user', 'other']);
export type Scope = z.infer<typeof scopeSchema>;

// ---------------------------------------------------------------- status page

const skillRootStatus = z.object({
  label: str,
  path: str,
  scope: scopeSchema,
  exists: z.boolean(),
  folder: z.optional(str),
  /** Skills found under this root (all copies, shadowed ones included). */
  skillCount: z.optional(count),
});
export type SkillRootStatus = z.infer<typeof skillRootStatus>;

const catalogSummary = z.object({
  tokens: count,
  budget: count,
  included: count,
  shortened: count,
  collapsed: count,
  omitted: z.array(str),
});
export type CatalogSummary = z.infer<typeof catalogSummary>;

const skillsSummary = z.object({
  total: count,
  active: count,
  shadowed: count,
  hidden: count,
  disabled: count,
  catalog: catalogSummary,
  /** Settings that could not be used and bounds that were hit. */
  problems: z.array(str),
});
export type SkillsSummary = z.infer<typeof skillsSummary>;

const panelStatus = z.object({
  extensionVersion: str,
  vscodeVersion: str,
  workspaceFolders: z.array(z.object({ name: str, path: str })),
  trusted: z.boolean(),
  skillRoots: z.array(skillRootStatus),
  model: z.object({ configured: z.boolean(), baseUrl: str, model: str, provider: z.optional(str), advice: str }),
  /** Absent while the skill index is still loading. */
  skills: z.optional(skillsSummary),
  /** How skills are ranked for suggestions and search: words, or words and meaning (embeddings). */
  retrieval: z.optional(z.object({ state: z.enum(['off', 'indexing', 'ready', 'unavailable']), text: str })),
  /** What the agent may do without asking: "always" grants of this workspace and the user-level switches. */
  approvals: z.optional(z.object({ always: z.array(str), autoEdits: z.boolean(), autoCommands: z.boolean() })),
});
export type PanelStatus = z.infer<typeof panelStatus>;

export const PANEL_TABS = ['chat', 'skills', 'memory', 'history', 'status'] as const;
const panelTab = z.enum(PANEL_TABS);
export type PanelTab = z.infer<typeof panelTab>;

// ---------------------------------------------------------------- chat

export const approvalAnswerSchema = z.enum(['allow_once', 'allow_session', 'allow_always', 'deny']);
export type ApprovalAnswerValue = z.infer<typeof approvalAnswerSchema>;

/** What an error card offers to fix the error. */
const chatAction = z.enum(['configureModel', 'testConnection', 'retry', 'openLogs', 'trustWorkspace']);
export type ChatAction = z.infer<typeof chatAction>;

const usageLine = z.object({ promptTokens: count, cachedTokens: count, completionTokens: count, requests: count });
export type UsageLine = z.infer<typeof usageLine>;

export const RUN_STEP_STATES = ['running', 'success', 'retried_success', 'failed', 'skipped', 'fallback'] as const;
export type RunStepState = (typeof RUN_STEP_STATES)[number];

/** One step of a workflow that a skill_run call runs: a nested card under the call's card. */
const runStep = z.object({
  /** The trace's step id; a nested workflow's steps are `parent/child`. */
  id: str,
  parent: z.optional(str),
  skill: str,
  state: z.enum(RUN_STEP_STATES),
  error: z.optional(z.string().check(z.maxLength(4_000))),
  durationMs: z.optional(count),
});
export type RunStepView = z.infer<typeof runStep>;

/**
 * One thing shown in the chat transcript. The host sends whole items (upserted by id) and text
 * deltas for the assistant item being streamed; the webview never invents content.
 */
const chatItem = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), id, text }),
  z.object({ kind: z.literal('assistant'), id, text }),
  z.object({
    kind: z.literal('tool'),
    id,
    name: str,
    /** One line: the tool and its most telling argument. */
    summary: str,
    /** Pretty-printed arguments, truncated. */
    args: text,
    state: z.enum(['running', 'done', 'failed']),
    result: z.optional(text),
    durationMs: z.optional(count),
    /** Set when the call loaded, ran or changed a skill ("loaded skill `x`"). */
    skill: z.optional(z.object({ name: str, action: z.enum(['loaded', 'ran', 'changed']) })),
    /** A skill_run of a workflow: its steps as they start and end. */
    steps: z.optional(z.array(runStep).check(z.maxLength(1_000))),
    /** Steps past the ones shown (a very large workflow); the trace has them all. */
    moreSteps: z.optional(count),
    /** The run's trace, once skill_run has returned: "Show trace" opens it. */
    traceId: z.optional(id),
  }),
  z.object({
    kind: z.literal('approval'),
    id,
    tool: str,
    summary: str,
    /** The command, or the unified diff of an edit or write. */
    detail: z.optional(text),
    /** An edit or write: the diff can be opened in VS Code's diff editor. */
    hasDiff: z.boolean(),
    /** For commands: the prefix an "always" answer would allow. */
    commandPrefix: z.optional(str),
    state: z.enum(['pending', 'allow_once', 'allow_session', 'allow_always', 'deny', 'expired']),
  }),
  z.object({
    kind: z.literal('turn'),
    id,
    reason: z.enum(['stop', 'max_steps', 'aborted', 'error']),
    usage: usageLine,
    toolCalls: count,
    /** Skills offered this turn: how many the catalog listed, and the per-message suggestions. */
    offered: z.object({ catalog: count, suggestions: z.array(str) }),
    loaded: z.array(str),
    /** Skills the turn ran with skill_run. */
    ran: z.optional(z.array(str)),
    /** The person's thumbs up (1) or down (-1) on the turn, given once; it counts for the skills loaded or ran. */
    rating: z.optional(z.union([z.literal(1), z.literal(-1)])),
    error: z.optional(z.object({ kind: str, message: str, advice: str, actions: z.array(chatAction) })),
    /** A complex turn: offer "Save this as a skill". */
    offerSkill: z.boolean(),
  }),
  z.object({ kind: z.literal('notice'), id, level: z.enum(['info', 'warning', 'error']), text: str }),
  /** The divider where older messages were replaced by a summary; it opens to show the summary. */
  z.object({
    kind: z.literal('compaction'),
    id,
    state: z.enum(['running', 'done', 'failed']),
    reason: z.enum(['threshold', 'manual', 'server']),
    messagesCompacted: count,
    summaryTokens: count,
    summary: z.optional(text),
    /** Skills re-attached after the summary. */
    skills: z.array(str),
    /** Memory writes made earlier in the session, listed in the summary. */
    memoryWrites: z.array(str),
    error: z.optional(str),
  }),
]);
export type ChatItem = z.infer<typeof chatItem>;

/** How full the model's context window is, in tokens: the chat header's meter. */
const contextMeter = z.object({
  window: count,
  /** Where compaction starts. */
  threshold: count,
  system: count,
  tools: count,
  conversation: count,
  total: count,
  /** Counted with the model's tokenizer (else estimated). */
  exact: z.boolean(),
  /** Where the window size came from: setting, learned, server, table or default. */
  source: str,
});
export type ContextMeter = z.infer<typeof contextMeter>;

const modelPreset = z.object({ id: str, label: str, baseUrl: str, needsKey: z.boolean() });
export type ModelPresetView = z.infer<typeof modelPreset>;

const chatSnapshot = z.object({
  sessionId: z.optional(str),
  title: z.optional(str),
  items: z.array(chatItem),
  busy: z.boolean(),
  /** No model configured: the chat shows a setup card with these presets. */
  setup: z.optional(z.object({ presets: z.array(modelPreset) })),
  modelLabel: z.optional(str),
  trusted: z.boolean(),
  /** Scroll to and highlight this item (a search hit opened from History). */
  focusItemId: z.optional(str),
  context: z.optional(contextMeter),
});
export type ChatSnapshot = z.infer<typeof chatSnapshot>;

const skillName = z.object({ name: str, description: str });

// ---------------------------------------------------------------- skills browser

const skillListItem = z.object({
  /** Absolute path of the SKILL.md; the key of every skill action. */
  file: str,
  name: str,
  description: str,
  category: str,
  scope: scopeSchema,
  rootLabel: str,
  level: z.optional(count),
  version: z.optional(str),
  errors: count,
  warnings: count,
  /** The file of the copy that wins over this one. */
  shadowedBy: z.optional(str),
  platformHidden: z.boolean(),
  disabled: z.boolean(),
  /** Came with the repository; out of the catalog until approved on the consent card. */
  awaitingConsent: z.optional(z.boolean()),
  usage: z.optional(z.object({ lastUsed: z.optional(str), runs: count, views: count })),
  /** From the usage statistics; absent for a skill with none. */
  health: z.optional(
    z.object({
      /** Runs, success rate, latency, last failure, drift, ratings, undeclared calls, staleness; `''` when nothing to add. */
      line: str,
      successRate: z.optional(z.number().check(z.gte(0), z.lte(1))),
      /** Created by the assistant and unused for 30 days. */
      stale: z.boolean(),
      /** ... for 90 days: the actions menu offers to archive it. */
      archivable: z.boolean(),
      /** The order of "by usefulness", higher first. */
      usefulness: z.number().check(z.gte(0)),
    }),
  ),
  inCatalog: z.optional(z.enum(['full', 'shortened', 'collapsed', 'omitted'])),
  /** Listed in the folder's skills-lock.json: `changed` when its files no longer hash to the lock's computedHash. */
  lock: z.optional(z.object({ status: z.enum(['ok', 'changed']), source: str })),
  /** In another tool's folder (~/.claude/skills, .github/skills, …): Copy and Move to .agents/skills apply. */
  relocatable: z.optional(z.boolean()),
});
export type SkillListItem = z.infer<typeof skillListItem>;

/** A skill moved to a skill folder's `.archive`: out of the index, restorable from the Skills tab. */
const archivedSkillItem = z.object({
  /** The archived folder: the key of `skills/restore`. */
  dir: str,
  name: str,
  description: str,
  version: z.optional(str),
  /** The category it is restored to. */
  category: str,
  scope: scopeSchema,
  rootLabel: str,
});
export type ArchivedSkillItem = z.infer<typeof archivedSkillItem>;

/** A skill skills-lock.json lists that is not on disk; `skills/restoreLocked` fetches it again. */
const missingLockedSkill = z.object({ name: str, source: str, folder: str });
export type MissingLockedSkillItem = z.infer<typeof missingLockedSkill>;

/** A thumbs up (1) or down (-1) for a skill a chat turn loaded or ran. */
const skillRating = z.union([z.literal(1), z.literal(-1)]);
export type SkillRating = z.infer<typeof skillRating>;

const skillsList = z.object({
  loading: z.boolean(),
  skills: z.array(skillListItem),
  catalog: z.optional(catalogSummary),
  trusted: z.boolean(),
  archived: z.optional(z.array(archivedSkillItem)),
  /** Skills a workspace folder's skills-lock.json lists that are not on disk: restorable from their source. */
  missing: z.optional(z.array(missingLockedSkill)),
});
export type SkillsList = z.infer<typeof skillsList>;

// ---------------------------------------------------------------- consent for project skills

/** One project skill that came with the repository, as the consent card describes it. */
const consentSkill = z.object({
  /** Its SKILL.md. */
  file: str,
  /** The folder's content hash this description is of: a decision is for exactly this content. */
  hash: str,
  name: str,
  description: str,
  /** Where it lives, e.g. `.agents/skills/ops/deploy`. */
  location: str,
  state: z.enum(['pending', 'declined']),
  /** `changed`: an earlier version was approved, this one differs. */
  reason: z.enum(['new', 'changed', 'declined']),
  scripts: z.array(str),
  endpoints: z.array(str),
  tools: z.array(str),
  permissions: z.array(str),
  verdict: z.enum(['safe', 'caution', 'dangerous']),
  findings: z.array(z.object({ severity: z.enum(['low', 'medium', 'high', 'critical']), message: str, where: z.optional(str) })),
  moreFindings: count,
  fileCount: count,
});
export type ConsentSkillView = z.infer<typeof consentSkill>;

const consentCard = z.object({
  /** Empty: no card. */
  skills: z.array(consentSkill),
  /** Opened by "Review Project Skills…": declined skills are listed too and the card takes focus. */
  review: z.boolean(),
});
export type ConsentCardView = z.infer<typeof consentCard>;

// ---------------------------------------------------------------- memory

const memoryTarget = z.enum(['memory', 'user']);
export type MemoryTargetValue = z.infer<typeof memoryTarget>;

const memoryView = z.object({
  files: z.array(
    z.object({
      target: memoryTarget,
      label: str,
      path: z.optional(str),
      /** Project memory is unavailable without a folder or in Restricted Mode. */
      available: z.boolean(),
      reason: z.optional(str),
      entries: z.array(str),
      chars: count,
      limit: count,
    }),
  ),
  proposals: z.array(
    z.object({ id, target: memoryTarget, summary: str, diff: text, createdAt: str, /** Why the last accept failed; the proposal stays. */ lastError: z.optional(str) }),
  ),
  /** Writes the scanner refused, newest first: the pattern ids and when. */
  blocked: z.array(z.object({ target: memoryTarget, patternIds: z.array(str), at: str, preview: str })),
  reviewMode: z.enum(['ask', 'auto']),
});
export type MemoryView = z.infer<typeof memoryView>;

// ---------------------------------------------------------------- history

const sessionRow = z.object({
  id,
  title: str,
  workspace: str,
  startedAt: str,
  updatedAt: str,
  messageCount: count,
  current: z.boolean(),
});
export type SessionRow = z.infer<typeof sessionRow>;

/** A snippet with the matched ranges, as offsets into `text`: never HTML. */
const highlighted = z.object({ text: str, marks: z.array(z.tuple([count, count])) });
export type Highlighted = z.infer<typeof highlighted>;

const searchResults = z.object({
  query: str,
  sessions: z.array(
    z.object({
      id,
      title: str,
      startedAt: str,
      hits: z.array(z.object({ messageId: str, role: str, snippet: highlighted })),
    }),
  ),
  /** A query the index could not use, explained. */
  error: z.optional(str),
  /** Query words the index does not hold (too common or too short), shown to explain few hits. */
  ignored: z.optional(z.array(str)),
  tookMs: z.number().check(z.nonnegative()),
  /** Past sessions still being read for the first time: the results cover `done` of `total`. */
  indexing: z.optional(z.object({ done: z.number().check(z.int(), z.nonnegative()), total: z.number().check(z.int(), z.nonnegative()) })),
});
export type SessionSearchResults = z.infer<typeof searchResults>;

// ---------------------------------------------------------------- messages

const webviewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('panel/ready') }),
  z.object({ type: z.literal('panel/tab'), tab: panelTab }),
  z.object({ type: z.literal('status/refresh') }),
  z.object({ type: z.literal('logs/show') }),
  z.object({ type: z.literal('settings/open'), query: z.optional(z.string().check(z.maxLength(200))) }),
  z.object({ type: z.literal('model/configure'), preset: z.optional(z.string().check(z.maxLength(100))) }),
  z.object({ type: z.literal('model/test') }),
  z.object({ type: z.literal('approvals/manage') }),
  z.object({ type: z.literal('workspace/trust') }),

  z.object({ type: z.literal('chat/send'), text: z.string().check(z.minLength(1), z.maxLength(2_000_000)) }),
  z.object({ type: z.literal('chat/stop') }),
  z.object({ type: z.literal('chat/new') }),
  z.object({ type: z.literal('chat/retry') }),
  z.object({ type: z.literal('chat/editLast'), text: z.string().check(z.minLength(1), z.maxLength(2_000_000)) }),
  z.object({ type: z.literal('chat/approve'), id, answer: approvalAnswerSchema }),
  z.object({ type: z.literal('chat/openDiff'), id }),
  z.object({ type: z.literal('chat/copyCode'), code: text }),
  z.object({ type: z.literal('chat/insertCode'), code: text }),
  z.object({ type: z.literal('chat/openLink'), href: z.string().check(z.maxLength(4_000)) }),
  z.object({ type: z.literal('chat/saveAsSkill') }),
  z.object({ type: z.literal('chat/showTrace'), traceId: id }),
  z.object({ type: z.literal('chat/rate'), id, rating: z.union([z.literal(1), z.literal(-1)]) }),
  z.object({ type: z.literal('chat/compact') }),

  z.object({ type: z.literal('skills/search'), query: z.string().check(z.maxLength(1_000)) }),
  z.object({ type: z.literal('skills/open'), file: str }),
  z.object({ type: z.literal('skills/preview'), file: str }),
  z.object({ type: z.literal('skills/run'), file: str }),
  z.object({ type: z.literal('skills/new') }),
  z.object({ type: z.literal('skills/duplicate'), file: str }),
  z.object({ type: z.literal('skills/rename'), file: str }),
  z.object({ type: z.literal('skills/delete'), file: str }),
  z.object({ type: z.literal('skills/reveal'), file: str }),
  z.object({ type: z.literal('skills/lastRuns'), file: str }),
  z.object({ type: z.literal('skills/testTriggering'), file: str }),
  z.object({ type: z.literal('skills/setEnabled'), file: str, enabled: z.boolean() }),
  z.object({ type: z.literal('skills/reindex') }),
  z.object({ type: z.literal('skills/archive'), file: str }),
  z.object({ type: z.literal('skills/restore'), dir: str }),
  z.object({ type: z.literal('skills/rate'), name: z.string().check(z.minLength(1), z.maxLength(200)), rating: skillRating }),
  z.object({ type: z.literal('skills/relocate'), file: str, move: z.boolean() }),
  z.object({ type: z.literal('skills/restoreLocked'), folder: str }),
  z.object({ type: z.literal('skills/import') }),
  /** With `file`: only that locked skill; without: every skill of the folders' locks. */
  z.object({ type: z.literal('skills/checkUpdates'), file: z.optional(str) }),

  z.object({ type: z.literal('consent/decide'), file: str, hash: str, decision: z.enum(['approve', 'decline']) }),
  /** Approves the listed contents (the card's hashes), so nothing unseen is approved. */
  z.object({ type: z.literal('consent/approveAll'), hashes: z.array(str).check(z.maxLength(10_000)) }),

  z.object({ type: z.literal('memory/add'), target: memoryTarget, content: z.string().check(z.minLength(1), z.maxLength(2_000_000)) }),
  z.object({ type: z.literal('memory/edit'), target: memoryTarget, oldText: z.string().check(z.minLength(1), z.maxLength(2_000_000)), content: z.string().check(z.minLength(1), z.maxLength(2_000_000)) }),
  z.object({ type: z.literal('memory/remove'), target: memoryTarget, oldText: z.string().check(z.minLength(1), z.maxLength(2_000_000)) }),
  z.object({ type: z.literal('memory/accept'), id }),
  z.object({ type: z.literal('memory/reject'), id }),
  z.object({ type: z.literal('memory/openFile'), target: memoryTarget }),

  z.object({ type: z.literal('history/list') }),
  z.object({ type: z.literal('history/search'), query: z.string().check(z.maxLength(1_000)) }),
  z.object({ type: z.literal('history/open'), id, messageId: z.optional(str) }),
  z.object({ type: z.literal('history/delete'), id }),
  z.object({ type: z.literal('history/export'), id }),
]);
export type WebviewToHost = z.infer<typeof webviewToHost>;

const hostToWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status/update'), status: panelStatus }),
  z.object({ type: z.literal('panel/error'), message: str }),
  z.object({ type: z.literal('panel/notice'), level: z.enum(['info', 'warning', 'error']), message: str }),
  z.object({ type: z.literal('panel/showTab'), tab: panelTab, focus: z.optional(z.string().check(z.maxLength(200))) }),

  z.object({ type: z.literal('chat/snapshot'), chat: chatSnapshot }),
  z.object({ type: z.literal('chat/item'), item: chatItem }),
  z.object({ type: z.literal('chat/delta'), id, delta: text }),
  z.object({ type: z.literal('chat/busy'), busy: z.boolean() }),
  z.object({ type: z.literal('chat/context'), context: contextMeter }),
  z.object({ type: z.literal('chat/skillNames'), skills: z.array(skillName) }),

  z.object({ type: z.literal('skills/list'), list: skillsList }),
  z.object({ type: z.literal('skills/searchResult'), query: str, files: z.array(str), tookMs: z.number().check(z.nonnegative()) }),

  z.object({ type: z.literal('consent/state'), consent: consentCard }),

  z.object({ type: z.literal('memory/state'), memory: memoryView }),

  z.object({ type: z.literal('history/sessions'), sessions: z.array(sessionRow) }),
  z.object({ type: z.literal('history/results'), results: searchResults }),
]);
export type HostToWebview = z.infer<typeof hostToWebview>;

// ---------------------------------------------------------------- parsing


export const parseWebviewMessage = (raw: unknown): ParseResult<WebviewToHost> => parseMessage(webviewToHost, raw);
export const parseHostMessage = (raw: unknown): ParseResult<HostToWebview> => parseMessage(hostToWebview, raw);

/** The `area` of an `area/verb` message type. */
export type AreaOf<T extends { type: string }> = T['type'] extends `${infer A}/${string}` ? A : never;
/** The messages of one area, e.g. `AreaMessage<WebviewToHost, 'chat'>`. */
export type AreaMessage<T extends { type: string }, A extends string> = Extract<T, { type: `${A}/${string}` }>;

export function areaOf(type: string): string {
  return type.slice(0, type.indexOf('/'));
}

/** Compile-time exhaustiveness guard for switches over message unions. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled message: ${JSON.stringify(value)}`);
}
