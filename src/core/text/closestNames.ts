/** Levenshtein distance, for "did you mean" suggestions on short strings such as skill names. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  // Rows have b.length + 1 cells, so every read below is in range; `?? 0` only satisfies the type checker.
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Up to `limit` candidates closest to `wanted`: substring matches first, then by edit distance. */
export function closestNames(wanted: string, candidates: readonly string[], limit = 5): string[] {
  const target = wanted.toLowerCase();
  const maxDistance = Math.max(2, Math.floor(target.length / 3));
  return [...new Set(candidates)]
    .map((name) => {
      const lower = name.toLowerCase();
      const contains = target.length >= 3 && (lower.includes(target) || target.includes(lower));
      return { name, contains, distance: editDistance(target, lower) };
    })
    .filter((c) => c.contains || c.distance <= maxDistance)
    .sort((a, b) => Number(b.contains) - Number(a.contains) || a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((c) => c.name);
}

/** How a record is named to the model when a bare name is not enough. */
