import type { SkillListItem } from '../shared/protocol';
import { el } from './dom';
import type { MenuEntry } from './skillMenu';
import { relativeTime } from './relativeTime';
import { catalogStateText, lintStatus, scopeLabel, usageText } from './skillsModel';
import type { Send } from './tabView';

let nextId = 0;

function badge(text: string, kind: string, title?: string): HTMLElement {
  return el('span', { class: `badge ${kind}`, ...(title ? { title } : {}) }, text);
}

function shortPath(file: string): string {
  const parts = file.split(/[\\/]/).filter(Boolean);
  return parts.slice(-4).join('/');
}

/**
 * One skill: its name (a button that opens SKILL.md), its markers, one line of description and
 * one line of facts (level, version, lint, usage, catalog), and a button for the actions menu.
 * Rows carry `data-file`; the view handles their keys and clicks by delegation.
 */
export function renderSkillRow(item: SkillListItem, now: number): HTMLLIElement {
  const id = `skill-${++nextId}`;
  const lint = lintStatus(item);
  const markers: HTMLElement[] = [badge(scopeLabel(item.scope), `scope scope-${item.scope}`, `from ${item.rootLabel}`)];
  if (item.disabled) markers.push(badge('disabled', 'marker disabled', 'Disabled in skillwright.skills.disabled: not in the catalog or the agent’s tools'));
  if (item.shadowedBy) markers.push(badge('shadowed', 'marker shadowed', `Not used: the copy in ${shortPath(item.shadowedBy)} wins`));
  if (item.platformHidden) markers.push(badge('other platform', 'marker hidden', 'Its platforms exclude this machine'));
  if (item.lock?.status === 'changed') {
    markers.push(
      badge('changed locally', 'marker hidden lock-changed', `Its files no longer match the hash in skills-lock.json (from ${item.lock.source}); Check for Skill Updates shows the difference`),
    );
  }
  if (item.awaitingConsent) markers.push(badge('awaiting consent', 'marker hidden consent', 'Came with the repository: not in the catalog or the agent’s tools until you approve it (Skillwright: Review Project Skills…)'));
  if (item.health?.stale) {
    const archive = item.health.archivable ? 'it can be archived from the actions menu' : 'after 90 days it can be archived';
    // Drawn like the other attention markers (skills.css styles `.marker.hidden` as a warning).
    markers.push(badge('stale', 'marker hidden stale', `Created by the assistant and not used for 30 days or more; ${archive} (restorable)`));
  }

  const facts = [
    el('span', {}, `L${item.level ?? 0}`),
    item.version ? el('span', {}, `v${item.version}`) : undefined,
    el('span', { class: `lint lint-${lint.kind}` }, el('span', { 'aria-hidden': 'true', class: 'lint-icon' }, lint.icon), ` ${lint.text}`),
    el('span', {}, usageText(item, (iso) => relativeTime(iso, now))),
    catalogStateText(item) ? el('span', { class: item.inCatalog === 'full' ? '' : 'catalog-note' }, catalogStateText(item) as string) : undefined,
  ].filter((part): part is HTMLElement => part !== undefined);
  const factLine = el('div', { class: 'skill-facts', id: `${id}-facts` });
  facts.forEach((part, index) => {
    if (index > 0) factLine.append(el('span', { class: 'sep', 'aria-hidden': 'true' }, ' · '));
    factLine.append(part);
  });

  const healthLine = item.health?.line ? el('div', { class: 'skill-facts skill-health', id: `${id}-health`, 'data-testid': 'skill-health' }, item.health.line) : undefined;
  const described = `${id}-desc ${id}-marks ${id}-facts${healthLine ? ` ${id}-health` : ''}`;
  const name = el('button', { type: 'button', class: 'skill-name', tabindex: '-1', title: `Open ${item.file}`, 'aria-describedby': described }, item.name);
  const menu = el('button', {
    type: 'button',
    class: 'icon skill-menu-button',
    tabindex: '-1',
    'aria-haspopup': 'menu',
    'aria-expanded': 'false',
    'aria-label': `Actions for ${item.name}`,
    title: 'Actions (Shift+F10)',
  }, '⋯');
  const classes = ['skill-row', item.disabled ? 'is-disabled' : '', item.shadowedBy ? 'is-shadowed' : '', item.platformHidden ? 'is-hidden' : '', item.awaitingConsent ? 'is-awaiting-consent' : ''];
  return el(
    'li',
    { class: classes.filter(Boolean).join(' '), 'data-file': item.file },
    el('div', { class: 'skill-head' }, name, el('span', { class: 'skill-marks', id: `${id}-marks` }, ...markers), menu),
    el('div', { class: 'skill-desc', id: `${id}-desc`, title: item.description }, item.description || 'No description.'),
    factLine,
    ...(healthLine ? [healthLine] : []),
  );
}

/** What the actions menu of a row offers; the host asks for names and confirmations. */
export function skillMenuEntries(item: SkillListItem, send: Send): MenuEntry[] {
  const file = item.file;
  return [
    { label: 'Open', run: () => send({ type: 'skills/open', file }) },
    { label: 'Open Preview', run: () => send({ type: 'skills/preview', file }) },
    ...(item.disabled || item.shadowedBy || item.platformHidden || item.awaitingConsent
      ? []
      : [
          { label: 'Run in Chat…', run: () => send({ type: 'skills/run', file }) },
          { label: 'Test Triggering…', run: () => send({ type: 'skills/testTriggering', file }) },
        ]),
    ...((item.usage?.runs ?? 0) > 0 ? [{ label: 'Last Runs…', run: () => send({ type: 'skills/lastRuns', file }) }] : []),
    // A held-back skill is approved on the consent card first: a copy or rename would count as written here.
    ...(item.awaitingConsent
      ? []
      : [
          { label: 'Duplicate…', run: () => send({ type: 'skills/duplicate', file }) },
          { label: 'Rename…', run: () => send({ type: 'skills/rename', file }) },
        ]),
    { label: item.disabled ? 'Enable' : 'Disable', run: () => send({ type: 'skills/setEnabled', file, enabled: item.disabled }) },
    { label: 'Reveal in Explorer', run: () => send({ type: 'skills/reveal', file }) },
    ...(item.relocatable && !item.awaitingConsent
      ? [
          { label: 'Copy to .agents/skills', run: () => send({ type: 'skills/relocate', file, move: false }) },
          { label: 'Move to .agents/skills…', run: () => send({ type: 'skills/relocate', file, move: true }) },
        ]
      : []),
    ...(item.lock ? [{ label: 'Check for Updates…', run: () => send({ type: 'skills/checkUpdates', file }) }] : []),
    ...(item.health?.archivable && !item.shadowedBy ? [{ label: 'Archive', run: () => send({ type: 'skills/archive', file }) }] : []),
    { label: 'Delete…', run: () => send({ type: 'skills/delete', file }), separated: true, danger: true },
  ];
}
