/**
 * The host↔webview protocol of the SKILL.md preview (its own webview panel), built like the
 * panel's (protocol.ts): zod schemas from which the types come, validated on both sides.
 */
import * as z from 'zod/mini';
import type { ParseResult } from './system/parseMessage';
import { parseMessage } from './system/parseMessage';
import { count, id, str, text } from './protocolFields';

const previewFinding = z.object({
  code: str,
  severity: z.enum(['error', 'warning', 'info']),
  message: str,
  /** 0-based line in the SKILL.md; absent for file-level findings. */
  line: z.optional(count),
});

const workflowStep = z.object({
  id: str,
  label: str,
  skill: z.optional(str),
  /** The skill is not in the index. */
  unknown: z.boolean(),
  condition: z.optional(str),
  fallback: z.optional(str),
  next: z.array(str),
});
export type WorkflowStepView = z.infer<typeof workflowStep>;

const linkedFile = z.object({ path: str, exists: z.boolean(), isFolder: z.boolean() });

/** One of the latest runs of the skill, from its trace. */
const previewRun = z.object({
  traceId: id,
  /** ISO time the run started. */
  started: str,
  success: z.boolean(),
  durationMs: z.number().check(z.nonnegative()),
  origin: str,
  error: z.optional(str),
});

/** A tunable parameter of a Level 2 skill; values are shown as JSON text. */
const tunedParam = z.object({ name: str, type: str, default: str, bounds: str, current: str, tuned: z.boolean() });

const tuningChange = z.object({
  id,
  param: str,
  from: str,
  to: str,
  reason: str,
  /** Epoch milliseconds. */
  at: z.number(),
  source: str,
  revertedAt: z.optional(z.number()),
  /** Later active changes of the same parameter that a revert of this one takes back too. */
  alsoReverts: count,
});

/** What running the skill has shown: for executable and Level 2 skills only. */
const skillRuntime = z.object({
  name: str,
  kind: z.enum(['instructions', 'script', 'http', 'workflow']),
  version: z.optional(str),
  /** One line from the usage statistics; empty before any run or rating. */
  health: str,
  /** Skills the workflow's steps and fallbacks name. */
  declared: z.array(str),
  /** Skills the latest runs actually called. */
  called: z.array(str),
  /** Called but not declared. */
  undeclared: z.array(str),
  /** Newest first. */
  runs: z.array(previewRun),
  tuning: z.optional(
    z.object({
      params: z.array(tunedParam),
      /** Newest first. */
      changes: z.array(tuningChange),
      /** Older changes not listed. */
      hiddenChanges: count,
      /** Why the adaptation block cannot be used, when it cannot. */
      errors: z.array(str),
    }),
  ),
});
export type SkillRuntimeView = z.infer<typeof skillRuntime>;

const triggerQuery = z.object({
  query: str,
  runs: count,
  loaded: count,
  /** Skills loaded instead, most often first. */
  others: z.array(z.object({ name: str, runs: count })),
});

/** How the skill gets chosen: chat turns that suggested and loaded it, and the latest Test Triggering. */
const skillTriggering = z.object({
  /** The indexed name (what Test Triggering tests). */
  name: str,
  /** "suggested 14×, loaded 9× (6 of them when suggested)"; `''` before any chat turn touched it. */
  stats: str,
  /** "Triggering: 5/6 runs loaded it, 2 days ago"; absent before a test. */
  line: z.optional(str),
  /** The SKILL.md changed since the test. */
  outdated: z.boolean(),
  model: z.optional(str),
  queries: z.array(triggerQuery),
  /** How many example_queries the skill has (Test Triggering asks for queries when none). */
  exampleQueries: count,
});
export type SkillTriggeringView = z.infer<typeof skillTriggering>;

const skillPreview = z.object({
  file: str,
  /** Set when the frontmatter cannot be read; the body is still shown. */
  parseError: z.optional(str),
  card: z.object({
    name: z.optional(str),
    description: z.optional(str),
    tags: z.array(str),
    level: z.optional(count),
    version: z.optional(str),
    permissions: z.array(str),
    platforms: z.array(str),
  }),
  body: text,
  /** 0-based line of the SKILL.md where the body starts, to place findings. */
  bodyLine: count,
  files: z.array(linkedFile),
  findings: z.array(previewFinding),
  /** The exact line the model sees in the catalog, or why it sees none. */
  catalogLine: str,
  /** True when catalogLine is the catalog's text; false when it explains why the skill is not listed. */
  catalogListed: z.boolean(),
  workflow: z.optional(z.array(workflowStep)),
  runtime: z.optional(skillRuntime),
  /** For indexed skills in use: how it triggers. */
  triggering: z.optional(skillTriggering),
});
export type SkillPreview = z.infer<typeof skillPreview>;

const previewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('preview/ready') }),
  z.object({ type: z.literal('preview/openFile'), path: str }),
  z.object({ type: z.literal('preview/revealLine'), line: count }),
  z.object({ type: z.literal('preview/openLink'), href: z.string().check(z.maxLength(4_000)) }),
  z.object({ type: z.literal('preview/showTrace'), traceId: id }),
  z.object({ type: z.literal('preview/revertTuning'), changeId: id }),
  z.object({ type: z.literal('preview/testTriggering') }),
]);
export type PreviewToHost = z.infer<typeof previewToHost>;

const hostToPreview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('preview/update'), preview: skillPreview }),
  z.object({ type: z.literal('preview/error'), message: str }),
]);
export type HostToPreview = z.infer<typeof hostToPreview>;

export const parsePreviewMessage = (raw: unknown): ParseResult<PreviewToHost> => parseMessage(previewToHost, raw);
export const parseHostPreviewMessage = (raw: unknown): ParseResult<HostToPreview> => parseMessage(hostToPreview, raw);
