import type { AreaMessage, Highlighted, HostToWebview, SessionRow, SessionSearchResults } from '../shared/protocol';
import { parseHostMessage } from '../shared/protocol';
import { el } from './dom';
import { panelState, updatePanelState } from './panelState';
import { relativeTime } from './relativeTime';
import type { Send, TabView } from './tabView';

/** The host lists at most this many sessions (HISTORY_LIST_LIMIT in src/host/historyController.ts). */
const LIST_LIMIT = 200;
const MAX_QUERY = 1_000;
const ROLE_LABELS: Record<string, string> = { user: 'You', assistant: 'Assistant', tool: 'Tool', system: 'System' };

/** What the tab keeps across reloads of the webview. */
interface HistoryState {
  sessions?: SessionRow[];
  /** The query whose results are shown (or awaited). */
  searched?: string;
  results?: SessionSearchResults;
}

/** Restores the saved slice, validated like a host message: state written by an older version is dropped. */
function savedState(): HistoryState {
  const raw = panelState().history as Partial<Record<keyof HistoryState, unknown>> | undefined;
  if (!raw || typeof raw !== 'object') return {};
  const sessions = parseHostMessage({ type: 'history/sessions', sessions: raw.sessions });
  const results = parseHostMessage({ type: 'history/results', results: raw.results });
  return {
    ...(sessions.ok && sessions.value.type === 'history/sessions' ? { sessions: sessions.value.sessions } : {}),
    ...(typeof raw.searched === 'string' ? { searched: raw.searched } : {}),
    ...(results.ok && results.value.type === 'history/results' ? { results: results.value.results } : {}),
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function exactTime(iso: string): string {
  const time = Date.parse(iso);
  return Number.isFinite(time) ? new Date(time).toLocaleString() : iso;
}

function workspaceName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}

/** The snippet with its marked ranges as `<mark>` elements; ranges out of order or bounds are ignored. */
function highlighted(snippet: Highlighted): (Node | string)[] {
  const parts: (Node | string)[] = [];
  let at = 0;
  for (const [start, end] of [...snippet.marks].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start || end > snippet.text.length) continue;
    if (start > at) parts.push(snippet.text.slice(at, start));
    parts.push(el('mark', {}, snippet.text.slice(start, end)));
    at = end;
  }
  if (at < snippet.text.length) parts.push(snippet.text.slice(at));
  return parts;
}

/** Up/Down (and Home/End) move between the buttons of a list that do the same thing. */
function arrowKeys(list: HTMLElement, sameKind: (button: HTMLElement) => string): void {
  list.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement;
    if (target.tagName !== 'BUTTON' || !['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) return;
    const buttons = [...list.querySelectorAll<HTMLElement>('button')].filter((button) => sameKind(button) === sameKind(target));
    const index = buttons.indexOf(target);
    const next = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: buttons.length - 1 }[event.key] ?? index;
    const button = buttons[Math.max(0, Math.min(buttons.length - 1, next))];
    if (!button) return;
    event.preventDefault();
    button.focus();
  });
}

/**
 * The History tab: every session newest first with Resume, Export and Delete, and a full-text
 * search whose hits show the matched words highlighted and open the session at that message.
 */
export class HistoryView implements TabView<'history'> {
  readonly element: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly resultsBox: HTMLElement;
  private readonly listBox: HTMLElement;
  private state: HistoryState;

  constructor(private readonly send: Send) {
    this.state = savedState();
    this.input = el('input', {
      type: 'search',
      id: 'history-query',
      'aria-label': 'Search all sessions',
      placeholder: 'Search all messages',
      maxlength: String(MAX_QUERY),
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.input.value = this.state.searched ?? '';
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && (this.input.value || this.state.searched !== undefined)) {
        event.preventDefault();
        this.clearSearch();
      }
    });
    const form = el('form', { role: 'search', class: 'history-search', 'aria-label': 'Search sessions' }, this.input, el('button', { type: 'submit', class: 'secondary' }, 'Search'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.search(this.input.value);
    });
    this.resultsBox = el('div', { class: 'history-results' });
    this.listBox = el('div', { class: 'history-sessions', 'aria-busy': 'true' });
    this.element = el('div', { class: 'history' }, form, this.resultsBox, this.listBox);
    this.render();
    // Results kept from before the reload are shown at once and refreshed (sessions may have changed).
    if (this.state.searched !== undefined) this.send({ type: 'history/search', query: this.state.searched });
  }

  handle(message: AreaMessage<HostToWebview, 'history'>): void {
    switch (message.type) {
      case 'history/sessions':
        this.state = { ...this.state, sessions: message.sessions };
        this.save();
        this.renderList();
        return;
      case 'history/results':
        // An answer to an earlier query (typed over since) is not what the person asked for now.
        if (message.results.query !== this.state.searched) return;
        this.state = { ...this.state, results: message.results };
        this.save();
        this.renderResults();
        return;
    }
  }

  focus(target?: string): void {
    if (target === undefined || target === 'search') {
      this.input.focus();
      this.input.select();
    }
  }

  private search(value: string): void {
    const query = value.slice(0, MAX_QUERY);
    if (!query.trim()) {
      this.clearSearch();
      return;
    }
    this.state = { ...this.state, searched: query };
    delete this.state.results;
    this.save();
    this.render();
    this.send({ type: 'history/search', query });
  }

  private clearSearch(): void {
    this.input.value = '';
    this.state = { ...(this.state.sessions ? { sessions: this.state.sessions } : {}) };
    this.save();
    this.render();
    this.input.focus();
  }

  private save(): void {
    updatePanelState({ history: this.state });
  }

  private render(): void {
    this.renderResults();
    this.renderList();
  }

  private renderResults(): void {
    const { searched, results } = this.state;
    this.resultsBox.hidden = searched === undefined;
    this.listBox.hidden = searched !== undefined;
    if (searched === undefined) {
      this.resultsBox.replaceChildren();
      return;
    }
    const clear = el('button', { type: 'button', class: 'secondary small', 'data-action': 'clear' }, 'Show all sessions');
    clear.addEventListener('click', () => this.clearSearch());
    if (!results) {
      this.resultsBox.setAttribute('aria-busy', 'true');
      this.resultsBox.replaceChildren(el('div', { class: 'history-summary' }, el('p', { role: 'status', class: 'muted' }, 'Searching…'), clear));
      return;
    }
    this.resultsBox.setAttribute('aria-busy', 'false');
    const took = results.tookMs < 10 ? results.tookMs.toFixed(1) : String(Math.round(results.tookMs));
    const summary = results.error
      ? el('span', {})
      : results.sessions.length === 0
        ? el('p', { role: 'status', class: 'muted', 'data-testid': 'history-summary' }, `No session mentions “${results.query.trim()}” (searched in ${took} ms).`)
        : el('p', { role: 'status', 'data-testid': 'history-summary' }, `${plural(results.sessions.length, 'session')}, searched in ${took} ms`);
    const children: HTMLElement[] = [el('div', { class: 'history-summary' }, summary, clear)];
    if (results.indexing) {
      const { done, total } = results.indexing;
      children.push(el('p', { class: 'muted', role: 'status', 'data-testid': 'history-indexing' }, `Still reading past sessions (${done.toLocaleString()} of ${total.toLocaleString()}): these are the results so far; the list updates when all are read.`));
    }
    if (results.ignored?.length) children.push(el('p', { class: 'muted', 'data-testid': 'history-ignored' }, `Not searched (too common or too short): ${results.ignored.join(', ')}`));
    if (results.error) children.push(el('div', { class: 'notice warning', role: 'alert' }, el('span', {}, results.error)));
    if (results.sessions.length > 0) {
      const list = el('ol', { class: 'result-list', 'aria-label': 'Search results' });
      for (const session of results.sessions) list.append(this.resultItem(session));
      arrowKeys(list, (button) => button.dataset.action ?? '');
      children.push(list);
    }
    this.resultsBox.replaceChildren(...children);
  }

  private resultItem(session: SessionSearchResults['sessions'][number]): HTMLElement {
    const headingId = `result-${session.id}`;
    const hits = el('ul', { class: 'hit-list', 'aria-label': `Matches in ${session.title}` });
    for (const hit of session.hits) {
      const button = el(
        'button',
        { type: 'button', class: 'hit', 'data-action': 'hit' },
        el('span', { class: 'hit-role' }, `${ROLE_LABELS[hit.role] ?? hit.role}:`),
        ' ',
        el('span', { class: 'hit-text' }, ...highlighted(hit.snippet)),
      );
      button.addEventListener('click', () => this.send({ type: 'history/open', id: session.id, messageId: hit.messageId }));
      hits.append(el('li', {}, button));
    }
    const resume = el('button', { type: 'button', class: 'secondary small', 'data-action': 'resume', 'aria-label': `Resume: ${session.title}` }, 'Resume');
    resume.addEventListener('click', () => this.send({ type: 'history/open', id: session.id }));
    return el(
      'li',
      { class: 'card result', 'aria-labelledby': headingId },
      el('h3', { id: headingId, class: 'session-title' }, session.title),
      el(
        'div',
        { class: 'result-meta' },
        el('time', { class: 'muted', datetime: session.startedAt, title: `Started ${exactTime(session.startedAt)}` }, `started ${relativeTime(session.startedAt)}`),
        resume,
      ),
      hits,
    );
  }

  private renderList(): void {
    const sessions = this.state.sessions;
    if (!sessions) {
      this.listBox.replaceChildren(el('p', { class: 'muted', role: 'status' }, 'Loading sessions…'));
      return;
    }
    this.listBox.setAttribute('aria-busy', 'false');
    // Keep the keyboard where it was: the same button of the same session, else the one now in its place.
    const active = document.activeElement as HTMLElement | null;
    const wasHere = active !== null && this.listBox.contains(active) && active.tagName === 'BUTTON';
    const focusAction = wasHere ? active.dataset.action : undefined;
    const focusSession = wasHere ? active.dataset.session : undefined;
    const focusIndex = wasHere ? [...this.listBox.querySelectorAll('li.session')].findIndex((item) => item.contains(active)) : -1;

    const heading = el('div', { class: 'history-heading' }, el('h2', { id: 'history-sessions-title' }, 'Sessions'), el('span', { class: 'muted', 'data-testid': 'history-count' }, plural(sessions.length, 'session')));
    if (sessions.length === 0) {
      this.listBox.replaceChildren(
        heading,
        el('p', { class: 'muted empty', 'data-testid': 'history-empty' }, 'No sessions yet. Every chat is kept here, and you can find it again by any phrase from it.'),
      );
      return;
    }
    const list = el('ul', { class: 'session-list', 'aria-labelledby': 'history-sessions-title' });
    for (const session of sessions) list.append(this.sessionItem(session));
    arrowKeys(list, (button) => button.dataset.action ?? '');
    const children: HTMLElement[] = [heading, list];
    if (sessions.length >= LIST_LIMIT) children.push(el('p', { class: 'muted' }, `Showing the ${LIST_LIMIT} most recent sessions. Search finds older ones.`));
    this.listBox.replaceChildren(...children);

    if (focusAction === undefined || this.listBox.hidden) return;
    const items = [...list.querySelectorAll<HTMLElement>('li.session')];
    const item = items.find((node) => node.dataset.session === focusSession) ?? items[Math.min(focusIndex, items.length - 1)];
    const target = item?.querySelector<HTMLElement>(`button[data-action="${focusAction}"]`);
    if (target) target.focus();
    else this.input.focus();
  }

  private sessionItem(session: SessionRow): HTMLElement {
    const titleId = `session-${session.id}`;
    // Short visible labels fit a narrow sidebar; the accessible name starts with them and names the session.
    const action = (name: string, label: string, longLabel: string, message: () => void, extra = ''): HTMLButtonElement => {
      const button = el(
        'button',
        { type: 'button', class: `secondary small ${extra}`.trim(), 'data-action': name, 'data-session': session.id, 'aria-label': `${longLabel}: ${session.title}`, ...(longLabel !== label ? { title: longLabel } : {}) },
        label,
      );
      button.addEventListener('click', message);
      return button;
    };
    const meta = el(
      'div',
      { class: 'session-meta muted' },
      el('time', { datetime: session.updatedAt, title: `Last message ${exactTime(session.updatedAt)}\nStarted ${exactTime(session.startedAt)}` }, relativeTime(session.updatedAt)),
      ...(session.workspace ? [' · ', el('span', { class: 'session-workspace', title: session.workspace }, workspaceName(session.workspace))] : []),
      ' · ',
      el('span', {}, plural(session.messageCount, 'message')),
    );
    const item = el(
      'li',
      { class: `card session${session.current ? ' current' : ''}`, 'data-session': session.id, 'aria-labelledby': titleId },
      el(
        'div',
        { class: 'session-head' },
        el('span', { id: titleId, class: 'session-title' }, session.title),
        session.current ? el('span', { class: 'badge ok' }, 'Current') : undefined,
      ),
      meta,
      el(
        'div',
        { class: 'session-actions' },
        action('resume', 'Resume', 'Resume', () => this.send({ type: 'history/open', id: session.id })),
        action('export', 'Export', 'Export as Markdown', () => this.send({ type: 'history/export', id: session.id })),
        action('delete', 'Delete', 'Delete', () => this.send({ type: 'history/delete', id: session.id }), 'danger'),
      ),
    );
    if (session.current) item.setAttribute('aria-current', 'true');
    return item;
  }
}

export function createHistoryView(send: Send): HistoryView {
  return new HistoryView(send);
}
