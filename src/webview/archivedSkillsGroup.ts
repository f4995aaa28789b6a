import type { ArchivedSkillItem } from '../shared/protocol';
import { el } from './dom';
import { plural } from './skillsModel';

/** The `open` key of the archived skills' group: no category name holds a NUL. */
export const ARCHIVED_GROUP = '\u0000archived';

/**
 * The "Archived skills" group at the end of the Skills tab: a toggle like a category's, and per
 * skill a Restore button (a roving-focus entry of the list, keyed `r:<dir>`, so the keyboard
 * reaches it like any row). The view sends `skills/restore` for a click on `.restore`.
 */
export function renderArchivedGroup(items: readonly ArchivedSkillItem[], total: number, open: boolean): HTMLElement {
  const label = 'Archived skills';
  const toggle = el(
    'button',
    { type: 'button', class: 'group-toggle', 'aria-expanded': String(open), 'data-key': `g:${ARCHIVED_GROUP}`, 'aria-label': `${label}, ${plural(total, 'skill')}` },
    el('span', { class: 'chevron', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
    el('span', { class: 'group-name' }, label),
    el('span', { class: 'group-count badge dim', 'aria-hidden': 'true' }, total.toLocaleString('en-US')),
  );
  const section = el('section', { class: 'skill-group archived-group', 'data-testid': 'archived-skills' }, el('h3', {}, toggle));
  if (!open) return section;
  const rows = el('ul', { class: 'skill-rows', 'aria-label': label, 'data-list': 'archived' });
  for (const item of items) rows.append(archivedRow(item));
  section.append(rows);
  if (total > items.length) section.append(el('p', { class: 'muted' }, `${(total - items.length).toLocaleString('en-US')} more are in the .archive folders.`));
  return section;
}

function archivedRow(item: ArchivedSkillItem): HTMLElement {
  const where = `${item.rootLabel}${item.category ? `/${item.category}` : ''}`;
  const restore = el(
    'button',
    { type: 'button', class: 'secondary restore', tabindex: '-1', 'data-key': `r:${item.dir}`, 'data-dir': item.dir, 'aria-label': `Restore ${item.name} to ${where}` },
    'Restore',
  );
  return el(
    'li',
    { class: 'skill-row is-archived', 'data-archived': item.dir },
    el('div', { class: 'skill-head' }, el('span', { class: 'skill-archived-name' }, item.name), restore),
    el('div', { class: 'skill-desc', title: item.description }, item.description || 'No description.'),
    el('div', { class: 'skill-facts' }, `${item.version ? `v${item.version} · ` : ''}archived; restores to ${where}`),
  );
}
