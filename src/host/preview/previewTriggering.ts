import { triggerTestLine } from '../../core/skills/index/skillHealth';
import type { SkillUsageEntry } from '../../core/skills/index/skillUsage';
import type { SkillTriggeringView } from '../../shared/previewProtocol';

/**
 * The preview's "Triggering" part: how often chat turns suggested and loaded the skill, and the
 * latest Test Triggering result with, per query, k/n and what loaded instead. No `vscode` here.
 */
export interface TriggeringSources {
  /** The indexed name: statistics are kept by it. */
  readonly name: string;
  readonly usage: SkillUsageEntry;
  readonly exampleQueries: number;
  /** Hash of the text shown (skillContentHash); a different one marks the kept result outdated. */
  readonly currentHash?: string;
  readonly now: number;
}

const times = (count: number): string => `${count.toLocaleString('en-US')}×`;

/** "suggested 14×, loaded 9× (6 of them when suggested) · run in 2 turns", or `''` before any turn. */
export function triggerStats(usage: SkillUsageEntry): string {
  const suggested = usage.suggested ?? 0;
  const loaded = usage.loadedTurns ?? 0;
  const ran = usage.ranTurns ?? 0;
  if (suggested === 0 && loaded === 0 && ran === 0) return '';
  const whenSuggested = usage.loadedWhenSuggested ?? 0;
  const parts = [`suggested ${times(suggested)}, loaded ${times(loaded)}${whenSuggested > 0 ? ` (${whenSuggested} of them when suggested)` : ''}`];
  if (ran > 0) parts.push(`run in ${ran} ${ran === 1 ? 'turn' : 'turns'}`);
  return parts.join(' · ');
}

export function buildPreviewTriggering(sources: TriggeringSources): SkillTriggeringView {
  const test = sources.usage.triggerTest;
  return {
    name: sources.name,
    stats: triggerStats(sources.usage),
    ...(test ? { line: triggerTestLine(test, sources.now, sources.currentHash), model: test.model } : {}),
    outdated: test !== undefined && sources.currentHash !== undefined && sources.currentHash !== test.contentHash,
    queries: (test?.queries ?? []).map((query) => ({ query: query.query, runs: query.runs, loaded: query.loaded, others: query.others.map((other) => ({ ...other })) })),
    exampleQueries: sources.exampleQueries,
  };
}
