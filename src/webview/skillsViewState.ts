import type { SkillsList } from '../shared/protocol';
import { parseHostMessage } from '../shared/protocol';
import { el } from './dom';
import { panelState } from './panelState';
import type { HealthFilter, ScopeFilter, SortOrder } from './skillsModel';
import { isHealthFilter, isScopeFilter, isSortOrder } from './skillsModel';

export const MAX_QUERY = 1_000;

/** What the Skills tab keeps across reloads of the webview. */
export interface SkillsState {
  query?: string;
  scope?: ScopeFilter;
  health?: HealthFilter;
  sort?: SortOrder;
  /** Groups the person opened (true) or closed (false); the others follow the view's default. */
  open?: Record<string, boolean>;
  list?: SkillsList;
}

/** The saved slice, checked like a host message: state from an older version is dropped. */
export function savedState(): SkillsState {
  const raw = panelState().skills as Partial<Record<keyof SkillsState, unknown>> | undefined;
  if (!raw || typeof raw !== 'object') return {};
  const list = raw.list === undefined ? undefined : parseHostMessage({ type: 'skills/list', list: raw.list });
  const open = raw.open && typeof raw.open === 'object' ? Object.fromEntries(Object.entries(raw.open).filter(([, v]) => typeof v === 'boolean')) : {};
  return {
    ...(typeof raw.query === 'string' ? { query: raw.query.slice(0, MAX_QUERY) } : {}),
    ...(isScopeFilter(raw.scope) ? { scope: raw.scope } : {}),
    ...(isHealthFilter(raw.health) ? { health: raw.health } : {}),
    ...(isSortOrder(raw.sort) ? { sort: raw.sort } : {}),
    open: open as Record<string, boolean>,
    ...(list?.ok && list.value.type === 'skills/list' ? { list: list.value.list } : {}),
  };
}

/** A native select (keyboard and screen readers for free), named by `label`. */
export function filterSelect<T extends string>(label: string, options: readonly { value: T; label: string }[], value: T, onChange: (value: T) => void): HTMLElement {
  const node = el('select', { class: 'filter', 'aria-label': label });
  for (const option of options) node.append(el('option', { value: option.value }, option.label));
  node.value = value;
  node.addEventListener('change', () => onChange(node.value as T));
  return el('label', { class: 'filter-label' }, node);
}
