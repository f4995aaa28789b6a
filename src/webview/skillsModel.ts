import { TOP_LEVEL_CATEGORY_LABEL } from '../shared/system/categoryLabel';
import type { ArchivedSkillItem, CatalogSummary, Scope, SkillListItem } from '../shared/protocol';

/**
 * What the skills tab shows, as plain functions of the host's list (no DOM here, so unit tests
 * can run it in Node): filters, grouping by category, and the words of each row.
 */

export type ScopeFilter = 'all' | Scope;
export type HealthFilter = 'all' | 'errors' | 'warnings' | 'ok' | 'disabled' | 'shadowed';

export interface Filters {
  readonly scope: ScopeFilter;
  readonly health: HealthFilter;
}

export const SCOPE_FILTERS: readonly { value: ScopeFilter; label: string }[] = [
  { value: 'all', label: 'All scopes' },
  { value: 'project', label: 'Project' },
  { value: 'user', label: 'User' },
  { value: 'other', label: 'Other tools' },
];

export const HEALTH_FILTERS: readonly { value: HealthFilter; label: string }[] = [
  { value: 'all', label: 'Any health' },
  { value: 'errors', label: 'With errors' },
  { value: 'warnings', label: 'With warnings' },
  { value: 'ok', label: 'No problems' },
  { value: 'disabled', label: 'Disabled' },
  { value: 'shadowed', label: 'Shadowed' },
];

export const TOP_LEVEL = TOP_LEVEL_CATEGORY_LABEL;

/** How the list (not search results, which keep their ranking) is ordered. */
export type SortOrder = 'category' | 'usefulness';

export const SORT_ORDERS: readonly { value: SortOrder; label: string }[] = [
  { value: 'category', label: 'By category' },
  { value: 'usefulness', label: 'By usefulness' },
];

export function isSortOrder(value: unknown): value is SortOrder {
  return SORT_ORDERS.some((order) => order.value === value);
}

/**
 * Most useful first (the host's usefulness: uses, smoothed success rate and ratings); skills never
 * used follow by name, and shadowed copies, whose usage belongs to the copy in use, come last.
 */
export function byUsefulness(items: readonly SkillListItem[]): SkillListItem[] {
  const value = (item: SkillListItem) => (item.shadowedBy ? -1 : (item.health?.usefulness ?? 0));
  return [...items].sort((a, b) => value(b) - value(a) || compare(a.name, b.name) || compare(a.file, b.file));
}

/** The archived skills a scope filter lets through, by name. */
export function archivedInScope(archived: readonly ArchivedSkillItem[], scope: ScopeFilter): ArchivedSkillItem[] {
  return archived.filter((item) => scope === 'all' || item.scope === scope).sort((a, b) => compare(a.name, b.name) || compare(a.dir, b.dir));
}

export function isScopeFilter(value: unknown): value is ScopeFilter {
  return SCOPE_FILTERS.some((filter) => filter.value === value);
}

export function isHealthFilter(value: unknown): value is HealthFilter {
  return HEALTH_FILTERS.some((filter) => filter.value === value);
}

export function matchesFilters(item: SkillListItem, filters: Filters): boolean {
  if (filters.scope !== 'all' && item.scope !== filters.scope) return false;
  switch (filters.health) {
    case 'all':
      return true;
    case 'errors':
      return item.errors > 0;
    case 'warnings':
      return item.warnings > 0;
    case 'ok':
      return item.errors === 0 && item.warnings === 0;
    case 'disabled':
      return item.disabled;
    case 'shadowed':
      return item.shadowedBy !== undefined;
  }
}

export interface SkillGroup {
  readonly category: string;
  readonly items: SkillListItem[];
}

/** Groups in category order (top level first), skills by name within each, shadowed copies after the one in use. */
export function groupByCategory(items: readonly SkillListItem[]): SkillGroup[] {
  const groups = new Map<string, SkillListItem[]>();
  for (const item of items) {
    const group = groups.get(item.category);
    if (group) group.push(item);
    else groups.set(item.category, [item]);
  }
  const byName = (a: SkillListItem, b: SkillListItem) =>
    compare(a.name, b.name) || Number(a.shadowedBy !== undefined) - Number(b.shadowedBy !== undefined) || compare(a.file, b.file);
  return [...groups.entries()]
    .sort(([a], [b]) => compare(a, b))
    .map(([category, list]) => ({ category, items: list.sort(byName) }));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function categoryLabel(category: string): string {
  return category === '' ? TOP_LEVEL : category;
}

export function plural(count: number, word: string, words = `${word}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? word : words}`;
}

/** The lint status of a row: an icon (decoration only) and the words that say the same. */
export function lintStatus(item: SkillListItem): { icon: string; text: string; kind: 'error' | 'warning' | 'ok' } {
  if (item.errors > 0) {
    const warnings = item.warnings > 0 ? `, ${plural(item.warnings, 'warning')}` : '';
    return { icon: '✖', text: `${plural(item.errors, 'error')}${warnings}`, kind: 'error' };
  }
  if (item.warnings > 0) return { icon: '⚠', text: plural(item.warnings, 'warning'), kind: 'warning' };
  return { icon: '✓', text: 'no problems', kind: 'ok' };
}

export function scopeLabel(scope: Scope): string {
  return scope === 'other' ? 'other tool' : scope;
}

export function catalogStateText(item: SkillListItem): string | undefined {
  switch (item.inCatalog) {
    case 'full':
      return 'in catalog';
    case 'shortened':
      return 'shortened in catalog';
    case 'collapsed':
      return 'name only in catalog';
    case 'omitted':
      return 'left out of catalog';
    case undefined:
      return undefined;
  }
}

/** "used 3 days ago · 2 runs · 5 views", or "never used". `ago` turns an ISO time into words. */
export function usageText(item: SkillListItem, ago: (iso: string) => string): string {
  const usage = item.usage;
  if (!usage || (usage.runs === 0 && usage.views === 0 && !usage.lastUsed)) return 'never used';
  const parts = [usage.lastUsed ? `used ${ago(usage.lastUsed)}` : 'used', plural(usage.runs, 'run'), plural(usage.views, 'view')];
  return parts.join(' · ');
}

/** One line on what the catalog (the skills part of the system prompt) holds and what it left out. */
export function catalogText(catalog: CatalogSummary): string {
  const parts = [`Catalog: ${catalog.tokens.toLocaleString('en-US')} of ${catalog.budget.toLocaleString('en-US')} tokens`, `${plural(catalog.included, 'skill')} listed`];
  if (catalog.shortened > 0) parts.push(`${catalog.shortened.toLocaleString('en-US')} shortened`);
  if (catalog.collapsed > 0) parts.push(`${plural(catalog.collapsed, 'category', 'categories')} as names only`);
  parts.push(catalog.omitted.length > 0 ? `${catalog.omitted.length.toLocaleString('en-US')} left out` : 'nothing left out');
  return parts.join(' · ');
}

/** The items of `files` (a search's order) that the list knows, filtered. */
export function rankedItems(files: readonly string[], byFile: ReadonlyMap<string, SkillListItem>, filters: Filters): SkillListItem[] {
  const out: SkillListItem[] = [];
  for (const file of files) {
    const item = byFile.get(file);
    if (item && matchesFilters(item, filters)) out.push(item);
  }
  return out;
}
