import type { MissingLockedSkillItem } from '../shared/protocol';
import { el } from './dom';
import { plural } from './skillsModel';

/** The `open` key of the missing skills' group: no category name holds a NUL. */
export const MISSING_GROUP = '\u0000missing';

/**
 * "Missing from skills-lock.json": skills a folder's lock lists that are not on disk (a teammate's
 * import not restored yet, or a folder deleted). Open by default, since each one is a skill the
 * team expects; one Restore button per workspace folder fetches them all from their sources. The
 * view sends `skills/restoreLocked` for a click on `.restore-locked`.
 */
export function renderMissingGroup(items: readonly MissingLockedSkillItem[], open: boolean): HTMLElement {
  const label = 'Missing from skills-lock.json';
  const toggle = el(
    'button',
    { type: 'button', class: 'group-toggle', 'aria-expanded': String(open), 'data-key': `g:${MISSING_GROUP}`, 'aria-label': `${label}, ${plural(items.length, 'skill')}` },
    el('span', { class: 'chevron', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
    el('span', { class: 'group-name' }, label),
    el('span', { class: 'group-count badge dim', 'aria-hidden': 'true' }, items.length.toLocaleString('en-US')),
  );
  const section = el('section', { class: 'skill-group missing-group', 'data-testid': 'missing-skills' }, el('h3', {}, toggle));
  if (!open) return section;
  const rows = el('ul', { class: 'skill-rows', 'aria-label': label, 'data-list': 'missing' });
  const restoreShown = new Set<string>();
  for (const item of items) {
    // One button per folder: a restore fetches every missing skill of that folder's lock.
    const first = !restoreShown.has(item.folder);
    restoreShown.add(item.folder);
    rows.append(missingRow(item, first ? items.filter((other) => other.folder === item.folder).length : 0));
  }
  section.append(rows);
  return section;
}

function missingRow(item: MissingLockedSkillItem, restoreCount: number): HTMLElement {
  const restore =
    restoreCount > 0
      ? el(
          'button',
          {
            type: 'button',
            class: 'secondary restore-locked',
            tabindex: '-1',
            'data-key': `l:${item.folder}`,
            'data-folder': item.folder,
            'aria-label': restoreCount > 1 ? `Restore the ${restoreCount} missing skills of ${item.folder} from their sources` : `Restore ${item.name} from ${item.source}`,
          },
          restoreCount > 1 ? `Restore ${restoreCount}` : 'Restore',
        )
      : undefined;
  return el(
    'li',
    { class: 'skill-row is-missing', 'data-missing': item.name },
    el('div', { class: 'skill-head' }, el('span', { class: 'skill-archived-name' }, item.name), ...(restore ? [restore] : [])),
    el('div', { class: 'skill-facts' }, `from ${item.source} · in ${item.folder}/skills-lock.json, not on disk`),
  );
}
