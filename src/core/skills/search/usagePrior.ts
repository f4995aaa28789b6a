/**
 * The usage prior of skill search and suggestions: a multiplier on a hit's lexical score from how
 * well the skill did (runs and ratings). It is deliberately small. Relevance decides; usage only
 * reorders skills whose scores are close. See docs/search-and-catalog.md, "Usage prior".
 */

/** What the prior reads of a skill's usage (a SkillUsageEntry has these fields). */
export interface PriorSignals {
  readonly successes: number;
  readonly failures: number;
  readonly thumbsUp?: number;
  readonly thumbsDown?: number;
}

/**
 * Largest change of a score, either way: multipliers lie in [0.98, 1.02], so one skill can pass
 * another only when its lexical score is at least 0.98 / 1.02 ≈ 96 % of the other's. 0.05 (a
 * reach of ~10 %) let adversarial usage take first place from the expected skill in 2 of 35 dev
 * queries, where an unrelated skill scored 92–95 % of it (docs/search-and-catalog.md).
 */
export const PRIOR_STRENGTH = 0.02;
/** Pseudo-runs (half successes, half failures) the success rate is smoothed with. */
export const PRIOR_PSEUDO_RUNS = 3;
/** Pseudo-ratings (neutral) the net rating is smoothed with. */
export const PRIOR_PSEUDO_RATINGS = 3;

export const MIN_PRIOR = 1 - PRIOR_STRENGTH;
export const MAX_PRIOR = 1 + PRIOR_STRENGTH;

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * 1 for a skill without history. Otherwise 1 + 0.02 × the mean of two signals in (−1, 1): the
 * smoothed success rate (successes + 1.5) / (runs + 3), mapped from (0, 1) to (−1, 1), and the
 * smoothed net rating (up − down) / (up + down + 3).
 */
export function usagePrior(signals: PriorSignals | undefined): number {
  if (!signals) return 1;
  const smoothed = smoothedSignals(signals);
  if (smoothed.runs + smoothed.ratings === 0) return 1;
  return clampPrior(1 + PRIOR_STRENGTH * ((2 * smoothed.success - 1 + smoothed.rating) / 2));
}

/**
 * The smoothed success rate (successes + 1.5) / (runs + 3), in (0, 1), and net rating
 * (up − down) / (up + down + 3), in (−1, 1): what the prior and the catalog's need both weigh.
 */
export function smoothedSignals(signals: Partial<PriorSignals>): { success: number; rating: number; runs: number; ratings: number } {
  const successes = count(signals.successes);
  const failures = count(signals.failures);
  const up = count(signals.thumbsUp);
  const down = count(signals.thumbsDown);
  return {
    success: (successes + PRIOR_PSEUDO_RUNS / 2) / (successes + failures + PRIOR_PSEUDO_RUNS),
    rating: (up - down) / (up + down + PRIOR_PSEUDO_RATINGS),
    runs: successes + failures,
    ratings: up + down,
  };
}

/** Any multiplier a caller supplies is held to [MIN_PRIOR, MAX_PRIOR]; a non-number is neutral. */
export function clampPrior(value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 1;
  return Math.min(MAX_PRIOR, Math.max(MIN_PRIOR, value));
}
