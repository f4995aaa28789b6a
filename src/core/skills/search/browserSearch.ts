import { queryTerms, searchTerms } from './searchText';
import type { SkillSearch } from './skillSearch';
import type { SkillRecord } from '../model/skillTypes';

/** More hits than anyone reads; the browser shows them in pages. */
export const BROWSER_SEARCH_LIMIT = 500;
const MAX_FALLBACK_TERMS = 12;

function isInactive(record: SkillRecord): boolean {
  return record.shadowedBy !== undefined || record.disabled === true || record.platformHidden === true || record.awaitingConsent === true;
}

/**
 * The skill browser's search: the skills the agent can use, ranked by the same search the agent
 * uses (SkillSearch indexes only those), then the shadowed, disabled and platform-hidden copies
 * whose name, description, tags or category hold every query term. Those are few, so a plain scan
 * is cheaper than a second index; they come last because the agent cannot use them.
 */
export function browserSearch(query: string, search: SkillSearch, records: readonly SkillRecord[], limit = BROWSER_SEARCH_LIMIT): string[] {
  if (query.trim() === '') return [];
  const files = search.search(query, { top: limit }).map((hit) => hit.record.file);
  const wanted = queryTerms(query, MAX_FALLBACK_TERMS);
  if (wanted.length === 0 || files.length >= limit) return files.slice(0, limit);
  const seen = new Set(files);
  for (const record of records) {
    if (!isInactive(record) || seen.has(record.file)) continue;
    const terms = new Set(searchTerms(`${record.name} ${record.description} ${record.tags.join(' ')} ${record.category}`));
    // Prefixes count, as in the ranked search: "deplo" finds "deploy".
    const matches = wanted.every((term) => terms.has(term) || [...terms].some((own) => own.startsWith(term)));
    if (!matches) continue;
    files.push(record.file);
    seen.add(record.file);
    if (files.length >= limit) break;
  }
  return files;
}
