import type { SkillRecord } from '../model/skillTypes';
import { SkillSearch } from './skillSearch';

export interface SkillSearchBuildOptions {
  readonly synonyms?: boolean;
  /** Work per slice before pausing; default 8 ms. */
  readonly sliceMs?: number;
  /** How to pause between slices; default the next turn of the event loop (after pending I/O). */
  readonly pause?: () => Promise<void>;
  readonly signal?: AbortSignal;
}

const DEFAULT_SLICE_MS = 8;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Builds a search over `records` in slices of about `sliceMs` of work, pausing between them, so
 * the event loop that also answers the panel never waits long: 10,000 skills take about two
 * seconds to index, which in one call would stall the extension host for as long.
 */
export async function buildSkillSearch(records: readonly SkillRecord[], options: SkillSearchBuildOptions = {}): Promise<SkillSearch> {
  const search = new SkillSearch([], options);
  const unique = new Map<string, SkillRecord>();
  for (const record of records) unique.set(record.file, record);
  const list = [...unique.values()];
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  const pause = options.pause ?? nextTurn;
  let i = 0;
  while (i < list.length) {
    if (options.signal?.aborted) throw new Error('building the skill search was cancelled');
    const until = performance.now() + sliceMs;
    do {
      search.upsert(list[i] as SkillRecord);
      i++;
    } while (i < list.length && performance.now() < until);
    if (i < list.length) await pause();
  }
  return search;
}
