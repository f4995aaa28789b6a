import { createHash } from 'node:crypto';
import type { ChatMessage, ChatModel, ToolCall, ToolSpec } from '../llm/chatTypes';
import type { ModelError } from '../llm/chatTypes';
import type { SkillRecord } from '../skills/model/skillTypes';
import type { TriggerTestRecord } from '../skills/index/skillUsage';
import { MAX_TRIGGER_OTHERS, MAX_TRIGGER_QUERIES, MAX_TRIGGER_QUERY_CHARS } from '../skills/index/skillUsage';
import { skillTouchOf } from '../skills/index/turnTriggers';
import { lookupSkill } from '../skills/tools/skillManage';
import type { SkillToolContext } from '../skills/tools/skillToolContext';
import { SKILLS_LIST_TOOL, SKILL_VIEW_TOOL } from '../skills/tools/skillTools';
import type { AgentTool } from '../toolkit/agentTool';
import { agentToolsOf } from '../toolkit/toolDefinition';
import { fail } from '../toolkit/toolResult';
import { runAgentTurn } from './agentLoop';
import { withSkillSuggestions } from './systemPrompt';

/** What every tool but skill_view and skills_list answers in a trigger test. */
export const TRIGGER_TEST_REFUSAL = 'this is a trigger test; nothing runs';
export const DEFAULT_TRIGGER_RUNS = 3;
export const MAX_TRIGGER_RUNS = 20;
/**
 * Model requests per run at most. The first request decides in most runs (a skill_view, or an
 * answer without one); the cap leaves room for a skills_list or a refused read before the load.
 */
export const TRIGGER_TEST_STEPS = 3;

/** The skill tools that answer from the index; everything else is refused. */
const ANSWERING = [SKILL_VIEW_TOOL, SKILLS_LIST_TOOL];

export interface TriggerTestOptions {
  readonly model: ChatModel;
  /** The system prompt a session started now would send (catalog, instruction files, memory), byte for byte. */
  readonly systemPrompt: string;
  /** The tools such a session offers; their specs go out unchanged, so the model sees what it would see. */
  readonly tools: readonly ToolSpec[];
  /** What skill_view and skills_list read. Any usage recorder in it is dropped: a test is not a use. */
  readonly skills: SkillToolContext;
  /** The per-turn suggestions of a session (lexical, or hybrid with embeddings), sent with each query as a session would. */
  readonly suggest?: (text: string) => readonly Suggestion[] | Promise<readonly Suggestion[]>;
  /** The skill under test (name, or category/name). */
  readonly skill: string;
  readonly queries: readonly string[];
  /** Runs per query. */
  readonly runs: number;
  readonly maxSteps?: number;
  readonly signal?: AbortSignal;
  /** After each run, for a progress bar. */
  readonly onProgress?: (progress: TriggerProgress) => void;
  readonly now?: () => number;
}

interface Suggestion {
  readonly name: string;
  readonly description: string;
}

export interface TriggerProgress {
  readonly done: number;
  readonly total: number;
  readonly query: string;
  readonly loaded: boolean;
}

export interface TriggerQueryResult {
  readonly query: string;
  /** The per-turn suggestions named the skill. */
  readonly suggested: boolean;
  /** Runs that got an answer. */
  readonly runs: number;
  readonly loaded: number;
  /** Skills loaded or run instead of it, most often first. */
  readonly others: readonly { readonly name: string; readonly runs: number }[];
  /** Runs that ended without loading any skill (an answer, a refused tool, the step cap). */
  readonly none: number;
}

export interface TriggerTestResult {
  /** The skill's indexed name. */
  readonly skill: string;
  readonly file: string;
  readonly model: string;
  /** SHA-256 (hex, first 16) of the SKILL.md tested. */
  readonly contentHash: string;
  readonly at: number;
  readonly runs: number;
  readonly loaded: number;
  /** loaded / runs; 0 before any answered run. */
  readonly rate: number;
  readonly queries: readonly TriggerQueryResult[];
  /** Model requests made. */
  readonly requests: number;
  /** Stopped by the caller before every run was made. */
  readonly stopped: boolean;
  /** The model failed: the test ended at that run (the runs before it count). */
  readonly error?: { readonly kind: string; readonly message: string; readonly advice: string };
}

export class TriggerTestError extends Error {}

/** The queries to send: the skill's example_queries, then the extra ones, trimmed, without repeats. */
export function triggerQueries(record: Pick<SkillRecord, 'exampleQueries'>, extra: readonly string[] = [], examples = true): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const query of [...(examples ? record.exampleQueries : []), ...extra]) {
    const text = query.replace(/\s+/g, ' ').trim().slice(0, MAX_TRIGGER_QUERY_CHARS);
    if (text === '' || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    out.push(text);
  }
  return out.slice(0, MAX_TRIGGER_QUERIES);
}

/** The skill a trigger test would test, or why there is none (unknown, ambiguous, disabled…). */
export function triggerTestTarget(name: string, skills: SkillToolContext): { ok: true; record: SkillRecord } | { ok: false; error: string } {
  const found = lookupSkill(name, skills);
  return found.ok ? { ok: true, record: found.value } : { ok: false, error: found.error };
}

/** What a kept result is compared with: a SKILL.md edited since its test makes the result outdated. */
export function skillContentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/**
 * The tools of a trigger test: the session's specs, unchanged; skill_view and skills_list answer
 * from the index as they do in a session (without recording a use), every other call is refused.
 */
export function triggerTestTools(specs: readonly ToolSpec[], skills: SkillToolContext): AgentTool[] {
  const reading: SkillToolContext = { fs: skills.fs, index: skills.index, ...(skills.search ? { search: skills.search } : {}), ...(skills.logger ? { logger: skills.logger } : {}) };
  const answering = new Map(agentToolsOf(ANSWERING, () => reading).map((tool) => [tool.spec.name, tool]));
  return specs.map((spec) => {
    const real = answering.get(spec.name);
    if (real) return { ...real, spec };
    return { spec, readOnly: true, approval: 'read' as const, run: () => Promise.resolve(fail(TRIGGER_TEST_REFUSAL)) };
  });
}

interface RunOutcome {
  readonly touched: readonly string[];
  readonly requests: number;
  readonly error?: ModelError;
  readonly stopped: boolean;
}

/**
 * Sends each query `runs` times in a fresh one-message conversation with the session's system
 * prompt and tools, and counts the runs in which the model loaded (or ran) the skill. A run ends
 * at the first load of any skill: that is the model's choice, and more requests would only cost.
 * Nothing is written: tools answer from the index or refuse, and no usage is recorded here.
 */
export async function runTriggerTest(options: TriggerTestOptions): Promise<TriggerTestResult> {
  const target = triggerTestTarget(options.skill, options.skills);
  if (!target.ok) throw new TriggerTestError(target.error);
  const record = target.record;
  const queries = triggerQueries({ exampleQueries: [] }, options.queries);
  if (queries.length === 0) {
    throw new TriggerTestError(`"${record.name}" has no queries to test: add example_queries to its SKILL.md frontmatter, or give queries to try`);
  }
  if (!Number.isInteger(options.runs) || options.runs < 1 || options.runs > MAX_TRIGGER_RUNS) {
    throw new TriggerTestError(`runs must be a whole number from 1 to ${MAX_TRIGGER_RUNS}, not ${String(options.runs)}`);
  }
  const now = options.now ?? Date.now;
  const contentHash = skillContentHash(await options.skills.fs.readFile(record.file));
  const tools = triggerTestTools(options.tools, options.skills);
  const total = queries.length * options.runs;
  const results: TriggerQueryResult[] = [];
  let requests = 0;
  let done = 0;
  let stopped = false;
  let error: ModelError | undefined;

  for (const query of queries) {
    if (stopped || error) break;
    // Once per query: the suggestions do not change between runs of the same text.
    const suggestions = (await options.suggest?.(query)) ?? [];
    const messages: ChatMessage[] = [
      { role: 'system', content: options.systemPrompt },
      { role: 'user', content: withSkillSuggestions(query, suggestions) },
    ];
    let answered = 0;
    let loaded = 0;
    let none = 0;
    const others = new Map<string, number>();
    for (let run = 0; run < options.runs; run++) {
      const outcome = await oneRun(options, tools, messages);
      requests += outcome.requests;
      if (outcome.stopped) stopped = true;
      if (outcome.error) error = outcome.error;
      if (outcome.stopped || outcome.error) break;
      answered++;
      const hit = outcome.touched.includes(record.name);
      if (hit) loaded++;
      else if (outcome.touched.length === 0) none++;
      else for (const name of new Set(outcome.touched)) others.set(name, (others.get(name) ?? 0) + 1);
      done++;
      options.onProgress?.({ done, total, query, loaded: hit });
    }
    if (answered > 0) {
      const ranked = [...others].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([name, runs]) => ({ name, runs }));
      results.push({ query, suggested: suggestions.some((s) => s.name === record.name), runs: answered, loaded, others: ranked, none });
    }
  }
  const runs = results.reduce((sum, query) => sum + query.runs, 0);
  const loaded = results.reduce((sum, query) => sum + query.loaded, 0);
  return {
    skill: record.name,
    file: record.file,
    model: options.model.id,
    contentHash,
    at: now(),
    runs,
    loaded,
    rate: runs > 0 ? loaded / runs : 0,
    queries: results,
    requests,
    stopped,
    ...(error ? { error: { kind: error.kind, message: error.message, advice: error.advice } } : {}),
  };
}

async function oneRun(options: TriggerTestOptions, tools: readonly AgentTool[], messages: readonly ChatMessage[]): Promise<RunOutcome> {
  // Ends the run at the first load; the caller's signal stops the whole test.
  const run = new AbortController();
  const outer = options.signal;
  const stop = () => run.abort();
  if (outer?.aborted) return { touched: [], requests: 0, stopped: true };
  outer?.addEventListener('abort', stop, { once: true });
  const calls = new Map<string, ToolCall>();
  const touched: string[] = [];
  let requests = 0;
  const counted: ChatModel = {
    id: options.model.id,
    stream: (request) => {
      requests++;
      return options.model.stream(request);
    },
  };
  try {
    const result = await runAgentTurn({
      model: counted,
      messages,
      tools,
      maxSteps: options.maxSteps ?? TRIGGER_TEST_STEPS,
      signal: run.signal,
      onEvent: (event) => {
        if (event.type === 'tool_start') calls.set(event.call.id, event.call);
      },
      onMessage: (message) => {
        if (message.role !== 'tool') return;
        const call = calls.get(message.toolCallId);
        const touch = call ? skillTouchOf(call, message.content) : undefined;
        if (touch) {
          touched.push(touch.name);
          // Every result of this step is added before the loop looks at the signal, so none is missed.
          run.abort();
        }
      },
    });
    if (outer?.aborted) return { touched, requests, stopped: true };
    if (result.reason === 'error') return { touched, requests, stopped: false, ...(result.error ? { error: result.error } : {}) };
    return { touched, requests, stopped: false };
  } finally {
    outer?.removeEventListener('abort', stop);
  }
}

/** The result as the usage keeps it with the skill's health (trimmed to the kept sizes). */
export function triggerTestRecord(result: TriggerTestResult): TriggerTestRecord {
  return {
    at: result.at,
    contentHash: result.contentHash,
    model: result.model,
    runs: result.runs,
    loaded: result.loaded,
    queries: result.queries.slice(0, MAX_TRIGGER_QUERIES).map((query) => ({
      query: query.query,
      runs: query.runs,
      loaded: query.loaded,
      others: query.others.slice(0, MAX_TRIGGER_OTHERS),
    })),
  };
}

/** "5/6 runs loaded it" with, per query, k/n and what was loaded instead: the text reports of CLI and host. */
export function describeTriggerTest(result: TriggerTestResult): string[] {
  const lines = [`${result.skill}: ${result.loaded}/${result.runs} runs loaded it (${Math.round(result.rate * 100)}%) with ${result.model}`];
  for (const query of result.queries) {
    const instead = query.others.map((other) => `${other.name} ${other.runs}×`);
    if (query.none > 0) instead.push(`no skill ${query.none}×`);
    const suggested = query.suggested ? '' : ' (not among the suggestions)';
    lines.push(`  ${query.loaded}/${query.runs}  ${query.query}${suggested}${instead.length > 0 ? `  — instead: ${instead.join(', ')}` : ''}`);
  }
  return lines;
}
