import { workflowGraph } from '../model/workflowGraph';
import type { SkillFailure, SkillUsageEntry, TriggerTestRecord } from './skillUsage';
import { calledSkills, medianLatencyMs, undeclaredCalls } from './skillUsage';

const DAY_MS = 24 * 60 * 60 * 1000;
/** An assistant-created skill nobody used for this long is marked stale in the Skills tab. */
export const STALE_AFTER_DAYS = 30;
/** ... and after this long it may be archived (moved aside, restorable; never deleted). */
export const ARCHIVE_AFTER_DAYS = 90;
/** Pseudo-runs of the smoothed success rate behind "by usefulness" (the same as the search prior's). */
const PSEUDO_RUNS = 3;

export interface HealthOptions {
  /** Created by the assistant (skill_manage `create`, Save as Skill); defaults to what the usage recorded. */
  readonly agentCreated?: boolean;
  /** The skills the SKILL.md declares it calls (see `declaredSkills`); without it, calls are not compared. */
  readonly declared?: readonly string[];
}

export interface SkillHealth {
  readonly runs: number;
  /** successes / (successes + failures); absent before any run with an outcome. */
  readonly successRate?: number;
  readonly medianLatencyMs?: number;
  readonly lastFailure?: SkillFailure;
  readonly drift: number;
  readonly thumbsUp: number;
  readonly thumbsDown: number;
  /** Skills the latest runs called that the SKILL.md does not declare. */
  readonly undeclared: readonly string[];
  /** Whole days since the last use (or creation, or restore); absent when none is known. */
  readonly idleDays?: number;
  readonly stale: boolean;
  readonly archivable: boolean;
  /** The order of "by usefulness" (higher first); 0 for a skill never used. */
  readonly usefulness: number;
  /** Chat turns that suggested it, and that loaded it. */
  readonly suggested: number;
  readonly loadedTurns: number;
  /** The latest Test Triggering result, when there is one. */
  readonly triggerTest?: TriggerTestRecord;
  /** One line for people; `''` when there is nothing to say (no runs, ratings or staleness). */
  readonly line: string;
}

/**
 * The health of one skill from its usage. Staleness only concerns skills the assistant created:
 * a skill someone wrote or installed is theirs to keep, used or not.
 */
export function healthOf(usage: SkillUsageEntry, now: number, options: HealthOptions = {}): SkillHealth {
  const agentCreated = options.agentCreated ?? usage.createdBy === 'agent';
  const outcomes = usage.successes + usage.failures;
  const successRate = outcomes > 0 ? usage.successes / outcomes : undefined;
  const median = medianLatencyMs(usage);
  const drift = usage.drift ?? 0;
  const thumbsUp = usage.thumbsUp ?? 0;
  const thumbsDown = usage.thumbsDown ?? 0;
  const undeclared = options.declared ? undeclaredCalls(options.declared, calledSkills(usage)) : [];
  const since = Math.max(usage.lastUsed ?? -1, usage.createdAt ?? -1, usage.restoredAt ?? -1);
  const idleMs = since >= 0 ? Math.max(0, now - since) : undefined;
  const idleDays = idleMs === undefined ? undefined : Math.floor(idleMs / DAY_MS);
  const stale = agentCreated && idleMs !== undefined && idleMs >= STALE_AFTER_DAYS * DAY_MS;
  const archivable = stale && idleMs >= ARCHIVE_AFTER_DAYS * DAY_MS;

  const parts: string[] = [];
  if (usage.runs > 0) parts.push(`${usage.runs.toLocaleString('en-US')} ${usage.runs === 1 ? 'run' : 'runs'}`);
  if (successRate !== undefined) parts.push(`${Math.round(successRate * 100)}% ok`);
  if (median !== undefined) parts.push(`median ${duration(median)}`);
  if (usage.lastFailure) parts.push(`last failure ${ago(now - usage.lastFailure.at)}: "${usage.lastFailure.message}"`);
  if (drift > 0) parts.push(`${drift} drift`);
  if (thumbsUp > 0 || thumbsDown > 0) parts.push(`rated ${thumbsUp} up, ${thumbsDown} down`);
  const suggested = usage.suggested ?? 0;
  const loadedTurns = usage.loadedTurns ?? 0;
  if (suggested > 0 || loadedTurns > 0) parts.push(`suggested ${times(suggested)}, loaded ${times(loadedTurns)}`);
  if (usage.triggerTest) parts.push(`trigger test ${usage.triggerTest.loaded}/${usage.triggerTest.runs}`);
  for (const name of undeclared.slice(0, 3)) parts.push(`calls \`${name}\`, not declared`);
  if (undeclared.length > 3) parts.push(`${undeclared.length - 3} more undeclared calls`);
  if (stale && idleDays !== undefined) parts.push(`stale: unused for ${idleDays} days`);
  return {
    runs: usage.runs,
    ...(successRate !== undefined ? { successRate } : {}),
    ...(median !== undefined ? { medianLatencyMs: median } : {}),
    ...(usage.lastFailure ? { lastFailure: usage.lastFailure } : {}),
    drift,
    thumbsUp,
    thumbsDown,
    undeclared,
    ...(idleDays !== undefined ? { idleDays } : {}),
    stale,
    archivable,
    usefulness: usefulness(usage),
    suggested,
    loadedTurns,
    ...(usage.triggerTest ? { triggerTest: usage.triggerTest } : {}),
    line: parts.join(' · '),
  };
}

/**
 * How useful a skill has been, for the Skills tab's "by usefulness" order: how often it was used
 * (log-scaled, so a hundred uses do not bury ten good ones), times its success rate smoothed with
 * three pseudo-runs at 50 % (one lucky run proves little), times 1 ± half its net rating.
 */
export function usefulness(usage: SkillUsageEntry): number {
  const uses = usage.runs + usage.views;
  if (uses === 0) return 0;
  const success = (usage.successes + PSEUDO_RUNS / 2) / (usage.successes + usage.failures + PSEUDO_RUNS);
  const up = usage.thumbsUp ?? 0;
  const down = usage.thumbsDown ?? 0;
  const rating = (up - down) / (up + down + PSEUDO_RUNS);
  return Math.log2(1 + uses) * success * (1 + rating / 2);
}

/**
 * The skills a SKILL.md's frontmatter declares it calls: the `skill` and `fallback_skill` of every
 * workflow step, without a version range (`deploy@^1` → `deploy`).
 */
export function declaredSkills(frontmatter: Readonly<Record<string, unknown>>): string[] {
  const graph = workflowGraph(frontmatter, () => true);
  const names = new Set<string>();
  for (const step of graph?.steps ?? []) {
    for (const written of [step.skill, step.fallback]) {
      const name = written?.split('@')[0]?.trim();
      if (name) names.add(name);
    }
  }
  return [...names];
}

/**
 * The preview's line about the latest trigger test: "Triggering: 5/6 runs loaded it, 2 days ago",
 * and a word when the SKILL.md changed since (its content hash differs), so an old figure is not
 * taken for the current text's.
 */
export function triggerTestLine(test: TriggerTestRecord, now: number, currentHash?: string): string {
  const rate = test.runs > 0 ? `${test.loaded}/${test.runs} ${test.runs === 1 ? 'run' : 'runs'} loaded it` : 'no run got an answer';
  const stale = currentHash !== undefined && currentHash !== test.contentHash ? ' (SKILL.md changed since: test again)' : '';
  return `Triggering: ${rate}, ${ago(now - test.at)}${stale}`;
}

const times = (count: number): string => `${count.toLocaleString('en-US')}×`;

function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", "3 weeks ago", "4 months ago". */
function ago(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 14) return days === 1 ? 'yesterday' : `${days} days ago`;
  if (days < 60) return `${Math.floor(days / 7)} weeks ago`;
  return `${Math.floor(days / 30)} months ago`;
}
