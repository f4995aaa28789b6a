import type { AreaMessage, HostToWebview, SkillListItem, SkillsList } from '../shared/protocol';
import { ARCHIVED_GROUP, renderArchivedGroup } from './archivedSkillsGroup';
import { MISSING_GROUP, renderMissingGroup } from './missingSkillsGroup';
import { el } from './dom';
import { updatePanelState } from './panelState';
import { RovingFocus } from './rovingFocus';
import { SkillMenu } from './skillMenu';
import { renderSkillRow, skillMenuEntries } from './skillRow';
import type { Filters, HealthFilter, ScopeFilter, SortOrder } from './skillsModel';
import {
  HEALTH_FILTERS,
  SCOPE_FILTERS,
  SORT_ORDERS,
  archivedInScope,
  byUsefulness,
  catalogText,
  categoryLabel,
  groupByCategory,
  matchesFilters,
  plural,
  rankedItems,
} from './skillsModel';
import type { SkillsState } from './skillsViewState';
import { MAX_QUERY, filterSelect, savedState } from './skillsViewState';
import type { Send, TabView } from './tabView';

/** Rows rendered per group (and per result list) before a "Show more" button. */
const PAGE = 200;
/** Up to this many matching skills, groups start expanded; beyond it they start collapsed. */
const AUTO_EXPAND_LIMIT = 300;
const SEARCH_DEBOUNCE_MS = 200;
/** Bigger lists are not kept in the webview's state (setState copies it on every call). */
const MAX_SAVED_SKILLS = 1_500;
const NAVIGABLE = '.group-toggle, .skill-name, .more, .restore, .restore-locked';

export function createSkillsView(send: Send): TabView<'skills'> {
  return new SkillsView(send);
}

/** The Skills tab: search, filters, the catalog line, and every skill grouped by category. */
class SkillsView implements TabView<'skills'> {
  readonly element: HTMLElement;
  private list: SkillsList | undefined;
  private byFile = new Map<string, SkillListItem>();
  private query: string;
  private results: { query: string; files: string[]; tookMs: number } | undefined;
  private scope: ScopeFilter;
  private health: HealthFilter;
  private sort: SortOrder;
  private readonly open: Record<string, boolean>;
  private readonly shown = new Map<string, number>();
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  /** The list's one tab stop, remembered as "g:<category>", "f:<file>" or "more:<key>". */
  private readonly roving: RovingFocus;
  private renders = 0;
  /** A list arrived while the actions menu was open: it is rendered once the menu closes. */
  private pendingRender = false;
  private readonly menu: SkillMenu;
  private readonly searchBox: HTMLInputElement;
  private readonly trustNotice: HTMLElement;
  /** Shown when a workspace folder's skills-lock.json lists skills. */
  private readonly updatesButton: HTMLElement;
  private readonly catalogLine: HTMLElement;
  private readonly countLine: HTMLElement;
  private readonly body: HTMLElement;

  constructor(private readonly send: Send) {
    const saved = savedState();
    this.query = saved.query ?? '';
    this.scope = saved.scope ?? 'all';
    this.health = saved.health ?? 'all';
    this.sort = saved.sort ?? 'category';
    this.open = saved.open ?? {};

    this.searchBox = el('input', { type: 'search', class: 'skills-search', placeholder: 'Search skills', 'aria-label': 'Search skills', maxlength: String(MAX_QUERY) });
    this.searchBox.value = this.query;
    this.searchBox.addEventListener('input', () => this.scheduleSearch());
    this.searchBox.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.searchBox.value !== '') {
        event.preventDefault();
        this.searchBox.value = '';
        this.runSearch();
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        this.roving.entries()[0]?.focus();
      }
    });
    const newSkill = el('button', { type: 'button', class: 'secondary' }, 'New Skill…');
    newSkill.addEventListener('click', () => this.send({ type: 'skills/new' }));
    const importSkills = el('button', { type: 'button', class: 'secondary', title: 'Import skills from a folder, a .zip or a git repository, with a review before anything is installed' }, 'Import…');
    importSkills.addEventListener('click', () => this.send({ type: 'skills/import' }));
    this.updatesButton = el('button', { type: 'button', class: 'secondary', hidden: '', title: 'Fetch the sources in skills-lock.json and show what changed' }, 'Check Updates');
    this.updatesButton.addEventListener('click', () => this.send({ type: 'skills/checkUpdates' }));
    const filters = el(
      'div',
      { class: 'skills-filters', role: 'group', 'aria-label': 'Filters' },
      filterSelect('Scope', SCOPE_FILTERS, this.scope, (value) => this.setFilters({ scope: value })),
      filterSelect('Health', HEALTH_FILTERS, this.health, (value) => this.setFilters({ health: value })),
      filterSelect('Order', SORT_ORDERS, this.sort, (value) => this.setSort(value)),
    );
    this.trustNotice = el('div', { class: 'notice warning', hidden: '' });
    this.catalogLine = el('div', { class: 'catalog-line muted', 'data-testid': 'catalog-line' });
    this.countLine = el('p', { class: 'skills-count muted', role: 'status', 'data-testid': 'skills-count' });
    this.body = el('div', { class: 'skills-body' });
    this.body.addEventListener('click', (event) => this.onClick(event));
    this.body.addEventListener('keydown', (event) => this.onKey(event));
    this.roving = new RovingFocus(
      this.body,
      NAVIGABLE,
      (node) => (node.classList.contains('skill-name') ? `f:${node.closest<HTMLElement>('.skill-row')?.dataset.file ?? ''}` : node.dataset.key),
      (node) => node.closest('.skill-row')?.querySelector<HTMLElement>('.skill-menu-button'),
      '.skill-menu-button',
    );
    this.element = el(
      'div',
      { class: 'skills' },
      el('div', { class: 'skills-toolbar' }, this.searchBox, newSkill, importSkills, this.updatesButton),
      filters,
      this.trustNotice,
      this.catalogLine,
      this.countLine,
      this.body,
    );
    this.menu = new SkillMenu(this.element, () => {
      if (!this.pendingRender) return;
      this.pendingRender = false;
      this.render();
    });
    this.element.append(this.menu.element);
    if (saved.list) this.setList(saved.list);
    this.render();
  }

  handle(message: AreaMessage<HostToWebview, 'skills'>): void {
    if (message.type === 'skills/list') {
      this.setList(message.list);
      this.save();
      // What matches may have changed (a skill created, renamed or deleted): ask again.
      if (this.query.trim() !== '' && !message.list.loading) this.send({ type: 'skills/search', query: this.query.trim() });
      this.refresh();
      return;
    }
    if (message.query !== this.query.trim()) return;
    this.results = { query: message.query, files: message.files, tookMs: message.tookMs };
    this.refresh();
  }

  /** Renders what the host sent, unless the actions menu is open: rebuilding the rows would pull it away from the person using it. */
  private refresh(): void {
    if (this.menu.isOpen) this.pendingRender = true;
    else this.render();
  }

  focus(target?: string): void {
    if (target === 'search' || this.roving.entries().length === 0) {
      this.searchBox.focus();
      return;
    }
    (this.roving.current() ?? this.searchBox).focus();
  }

  private setList(list: SkillsList): void {
    this.list = list;
    this.byFile = new Map(list.skills.map((item) => [item.file, item]));
  }

  private save(): void {
    const list = this.list && this.list.skills.length <= MAX_SAVED_SKILLS ? this.list : undefined;
    updatePanelState({ skills: { query: this.query, scope: this.scope, health: this.health, sort: this.sort, open: this.open, ...(list ? { list } : {}) } satisfies SkillsState });
  }

  private get filters(): Filters {
    return { scope: this.scope, health: this.health };
  }

  private setFilters(change: { scope?: ScopeFilter; health?: HealthFilter }): void {
    this.scope = change.scope ?? this.scope;
    this.health = change.health ?? this.health;
    this.shown.clear();
    this.save();
    this.render();
  }

  private setSort(sort: SortOrder): void {
    this.sort = sort;
    this.shown.delete('useful');
    this.save();
    this.render();
  }

  private scheduleSearch(): void {
    if (this.searchTimer) clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => this.runSearch(), SEARCH_DEBOUNCE_MS);
  }

  private runSearch(): void {
    if (this.searchTimer) clearTimeout(this.searchTimer);
    this.searchTimer = undefined;
    this.query = this.searchBox.value.slice(0, MAX_QUERY);
    this.shown.delete('results');
    this.save();
    if (this.query.trim() !== '') this.send({ type: 'skills/search', query: this.query.trim() });
    this.render();
  }

  private clearSearchAndFilters(): void {
    this.searchBox.value = '';
    this.scope = 'all';
    this.health = 'all';
    for (const node of this.element.querySelectorAll<HTMLSelectElement>('select.filter')) if (node.getAttribute('aria-label') !== 'Order') node.value = 'all';
    this.runSearch();
    this.searchBox.focus();
  }

  // ------------------------------------------------------------------ rendering

  private render(): void {
    const started = performance.now();
    const active = document.activeElement instanceof HTMLElement && this.body.contains(document.activeElement) ? document.activeElement : undefined;
    const onMenuOf = active?.classList.contains('skill-menu-button') ? active.closest<HTMLElement>('.skill-row')?.dataset.file : undefined;
    this.pendingRender = false;
    this.menu.close(false);
    this.renderHeader();
    this.body.replaceChildren(...this.renderBody());
    this.roving.restore(active !== undefined);
    if (onMenuOf !== undefined) {
      const row = [...this.body.querySelectorAll<HTMLElement>('.skill-row')].find((node) => node.dataset.file === onMenuOf);
      row?.querySelector<HTMLElement>('.skill-menu-button')?.focus();
    }
    this.body.dataset.renders = String(++this.renders);
    this.body.dataset.renderMs = (performance.now() - started).toFixed(1);
  }

  private renderHeader(): void {
    const list = this.list;
    this.trustNotice.hidden = !list || list.trusted;
    this.updatesButton.hidden = !list || !(list.skills.some((item) => item.lock) || (list.missing?.length ?? 0) > 0);
    if (list && !list.trusted) {
      const trust = el('button', { type: 'button', class: 'secondary' }, 'Manage Workspace Trust');
      trust.addEventListener('click', () => this.send({ type: 'workspace/trust' }));
      this.trustNotice.replaceChildren(el('span', {}, 'Restricted Mode: this folder’s project skills are hidden until you trust it.'), trust);
    }
    const catalog = list?.catalog;
    this.catalogLine.hidden = !catalog || list.skills.length === 0;
    if (catalog) {
      const parts: Node[] = [el('span', {}, catalogText(catalog))];
      if (catalog.omitted.length > 0) {
        const names = catalog.omitted.slice(0, 100).join(', ') + (catalog.omitted.length > 100 ? `, and ${catalog.omitted.length - 100} more` : '');
        parts.push(el('details', {}, el('summary', {}, 'What was left out'), el('p', {}, names, '. The agent finds them with skills_list.')));
      }
      this.catalogLine.replaceChildren(...parts);
    }
  }

  private renderBody(): Node[] {
    const list = this.list;
    if (!list || list.loading) {
      this.countLine.textContent = 'Indexing skills…';
      return [];
    }
    if (list.skills.length === 0) {
      this.countLine.textContent = 'No skills yet.';
      const create = el('button', { type: 'button', class: 'primary' }, 'New Skill from Template…');
      create.addEventListener('click', () => this.send({ type: 'skills/new' }));
      const where = list.trusted ? '' : ' (project skills appear once you trust this folder)';
      return [
        el(
          'div',
          { class: 'empty' },
          el('p', {}, `Skills are folders with a SKILL.md in .agents/skills of this project or in ~/.agents/skills${where}. Other tools’ folders (~/.claude/skills, .github/skills) are read too.`),
          create,
        ),
        ...this.renderArchived(list),
      ];
    }
    const query = this.query.trim();
    if (query !== '') return this.renderResults(query, list);
    const filtered = list.skills.filter((item) => matchesFilters(item, this.filters));
    const filtering = this.scope !== 'all' || this.health !== 'all';
    if (filtered.length === 0) {
      this.countLine.textContent = `None of ${plural(list.skills.length, 'skill')} match the filters.`;
      return [this.noMatches('No skills match these filters.'), ...this.renderArchived(list)];
    }
    const now = Date.now();
    if (this.sort === 'usefulness') {
      this.countLine.textContent = filtering
        ? `${filtered.length.toLocaleString('en-US')} of ${plural(list.skills.length, 'skill')} match the filters, most useful first.`
        : `${plural(list.skills.length, 'skill')}, most useful first.`;
      return [...this.renderRows(byUsefulness(filtered), 'useful', 'Skills, most useful first', now), ...this.renderArchived(list)];
    }
    const groups = groupByCategory(filtered);
    this.countLine.textContent = filtering
      ? `${filtered.length.toLocaleString('en-US')} of ${plural(list.skills.length, 'skill')} match the filters, in ${plural(groups.length, 'category', 'categories')}.`
      : `${plural(list.skills.length, 'skill')} in ${plural(groups.length, 'category', 'categories')}.`;
    const autoOpen = filtered.length <= AUTO_EXPAND_LIMIT;
    const sections = groups.map((group) => {
      const key = `g:${group.category}`;
      const open = this.open[group.category] ?? autoOpen;
      const label = categoryLabel(group.category);
      const toggle = el(
        'button',
        { type: 'button', class: 'group-toggle', 'aria-expanded': String(open), 'data-key': key, 'aria-label': `${label}, ${plural(group.items.length, 'skill')}` },
        el('span', { class: 'chevron', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
        el('span', { class: 'group-name' }, label),
        el('span', { class: 'group-count badge dim', 'aria-hidden': 'true' }, group.items.length.toLocaleString('en-US')),
      );
      const section = el('section', { class: 'skill-group' }, el('h3', {}, toggle));
      if (open) section.append(...this.renderRows(group.items, key, `Skills in ${label}`, now));
      return section;
    });
    return [...sections, ...this.renderArchived(list)];
  }

  /** The archived skills (unfiltered by health: they have none), as a closed group with a Restore button per skill. */
  private renderArchived(list: SkillsList): Node[] {
    // Missing locked skills go before the archived ones: each is one the team expects here. Health filters hide them, as they have none.
    const missing = (list.missing ?? []).filter(() => this.scope === 'all' || this.scope === 'project');
    const missingGroup = missing.length > 0 && this.health === 'all' ? [renderMissingGroup(missing, this.open[MISSING_GROUP] ?? true)] : [];
    return [...missingGroup, ...this.archivedGroup(list)];
  }

  private archivedGroup(list: SkillsList): Node[] {
    const archived = archivedInScope(list.archived ?? [], this.scope);
    if (archived.length === 0 || this.health !== 'all') return [];
    return [renderArchivedGroup(archived.slice(0, PAGE), archived.length, this.open[ARCHIVED_GROUP] ?? false)];
  }

  private renderResults(query: string, list: SkillsList): Node[] {
    const results = this.results;
    if (!results || results.query !== query) {
      this.countLine.textContent = `Searching for “${query}”…`;
      return [];
    }
    const ranked = rankedItems(results.files, this.byFile, this.filters);
    const filtered = results.files.length - ranked.length;
    const note = filtered > 0 ? ` (${filtered.toLocaleString('en-US')} more hidden by the filters)` : '';
    this.countLine.textContent = `${plural(ranked.length, 'match', 'matches')} for “${query}” among ${plural(list.skills.length, 'skill')}${note}, ${Math.max(0, results.tookMs).toFixed(0)} ms.`;
    if (ranked.length === 0) return [this.noMatches(`No skills match “${query}”${filtered > 0 ? ' with these filters' : ''}.`)];
    return this.renderRows(ranked, 'results', `Search results for ${query}`, Date.now());
  }

  private renderRows(items: readonly SkillListItem[], key: string, label: string, now: number): Node[] {
    const count = Math.min(items.length, this.shown.get(key) ?? PAGE);
    const rows = el('ul', { class: 'skill-rows', 'aria-label': label, 'data-list': key });
    for (const item of items.slice(0, count)) rows.append(renderSkillRow(item, now));
    if (count >= items.length) return [rows];
    const more = Math.min(PAGE, items.length - count);
    const button = el('button', { type: 'button', class: 'secondary more', 'data-key': `more:${key}`, 'data-group': key }, `Show ${more} more (${count.toLocaleString('en-US')} of ${items.length.toLocaleString('en-US')} shown)`);
    return [rows, button];
  }

  private noMatches(text: string): HTMLElement {
    const clear = el('button', { type: 'button', class: 'secondary' }, 'Clear search and filters');
    clear.addEventListener('click', () => this.clearSearchAndFilters());
    return el('div', { class: 'empty' }, el('p', {}, text), clear);
  }

  // ------------------------------------------------------------------ keyboard and mouse

  private itemOf(node: Element): SkillListItem | undefined {
    const file = node.closest<HTMLElement>('.skill-row')?.dataset.file;
    return file === undefined ? undefined : this.byFile.get(file);
  }

  private onClick(event: MouseEvent): void {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const toggle = target.closest<HTMLElement>('.group-toggle');
    if (toggle) return this.toggleGroup(toggle, toggle.getAttribute('aria-expanded') !== 'true');
    const more = target.closest<HTMLElement>('.more');
    if (more) return this.showMore(more);
    const restoreLocked = target.closest<HTMLElement>('.restore-locked');
    if (restoreLocked?.dataset.folder) {
      this.send({ type: 'skills/restoreLocked', folder: restoreLocked.dataset.folder });
      return;
    }
    const restore = target.closest<HTMLElement>('.restore');
    if (restore?.dataset.dir) {
      this.send({ type: 'skills/restore', dir: restore.dataset.dir });
      return;
    }
    const item = this.itemOf(target);
    if (!item) return;
    if (target.closest('.skill-menu-button')) return this.openMenu(target.closest('.skill-menu-button') as HTMLElement, item);
    if (target.closest('.skill-name')) this.send({ type: 'skills/open', file: item.file });
  }

  private toggleGroup(toggle: HTMLElement, open: boolean): void {
    const key = toggle.dataset.key ?? '';
    this.open[key.slice(2)] = open;
    this.roving.key = key;
    this.save();
    this.render();
    if (!this.body.contains(document.activeElement)) this.roving.current()?.focus();
  }

  private showMore(button: HTMLElement): void {
    const key = button.dataset.group ?? '';
    const before = this.shown.get(key) ?? PAGE;
    this.shown.set(key, before + PAGE);
    this.roving.key = undefined;
    this.render();
    // Keep the keyboard where the new rows begin.
    const list = [...this.body.querySelectorAll<HTMLElement>('ul.skill-rows')].find((node) => node.dataset.list === key);
    (list?.children[before]?.querySelector<HTMLElement>('.skill-name') ?? this.roving.current())?.focus();
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target instanceof HTMLElement ? event.target : null;
    if (!target) return;
    if (this.roving.move(event)) return;
    const item = this.itemOf(target);
    if (target.classList.contains('group-toggle') && (event.key === 'ArrowRight' || event.key === 'ArrowLeft')) {
      event.preventDefault();
      this.toggleGroup(target, event.key === 'ArrowRight');
      return;
    }
    if (!item || !target.classList.contains('skill-name')) return;
    if ((event.key === 'F10' && event.shiftKey) || event.key === 'ContextMenu' || event.key === 'ArrowRight') {
      event.preventDefault();
      const button = target.closest('.skill-row')?.querySelector<HTMLElement>('.skill-menu-button');
      if (button && event.key === 'ArrowRight') button.focus();
      else if (button) this.openMenu(button, item);
    } else if (event.key === 'ArrowLeft') {
      event.preventDefault();
      target.closest('.skill-group')?.querySelector<HTMLElement>('.group-toggle')?.focus();
    } else if (event.key === 'F2') {
      event.preventDefault();
      this.send({ type: 'skills/rename', file: item.file });
    } else if (event.key === 'Delete') {
      event.preventDefault();
      this.send({ type: 'skills/delete', file: item.file });
    }
  }

  private openMenu(button: HTMLElement, item: SkillListItem): void {
    this.menu.open(button, `Actions for ${item.name}`, skillMenuEntries(item, this.send));
  }
}
