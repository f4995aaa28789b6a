import { seededRandom } from '../../bench/generateSkillTree';

/** The benchmarks' seeded generator (mulberry32): a failing seed reproduces the sequence. */
export const mulberry32: (seed: number) => () => number = seededRandom;

export type Random = ReturnType<typeof mulberry32>;

/** A whole number in [lo, hi]. */
export function randomInt(random: Random, lo: number, hi: number): number {
  return lo + Math.floor(random() * (hi - lo + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}
