import type { AreaMessage, HostToWebview, MemoryTargetValue, MemoryView } from '../shared/protocol';
import { parseHostMessage } from '../shared/protocol';
import { el } from './dom';
import type { MemoryDrafts, SectionContext } from './memoryFileSection';
import { normaliseEntry } from '../shared/system/memoryEntry';
import { fileSection } from './memoryFileSection';
import { panelState, updatePanelState } from './panelState';
import { relativeTime } from './relativeTime';
import type { Send, TabView } from './tabView';

const FILE_NAMES: Record<MemoryTargetValue, string> = { memory: 'MEMORY.md', user: 'USER.md' };
const SHOWN_BLOCKED = 5;

/** What the tab keeps across reloads: the last state and whatever the person was typing. */
interface MemoryTabState {
  view?: MemoryView;
  drafts: MemoryDrafts;
}

/** Restores the saved slice; the view is validated like a host message, so stale shapes are dropped. */
function savedState(): MemoryTabState {
  const raw = panelState().memory as { view?: unknown; drafts?: unknown } | undefined;
  if (!raw || typeof raw !== 'object') return { drafts: { add: {} } };
  const parsed = parseHostMessage({ type: 'memory/state', memory: raw.view });
  const drafts = raw.drafts && typeof raw.drafts === 'object' ? (raw.drafts as MemoryDrafts) : { add: {} };
  // A request in flight when the webview was rebuilt has been answered by now; the next state says how.
  const { waiting: _dropped, ...kept } = drafts;
  return {
    ...(parsed.ok && parsed.value.type === 'memory/state' ? { view: parsed.value.memory } : {}),
    drafts: { ...kept, add: typeof kept.add === 'object' && kept.add ? kept.add : {} },
  };
}

/** The diff of a proposal, one element per line, added and removed lines marked (not by colour alone: the +/- stay). */
function diffBlock(diff: string): HTMLElement {
  const pre = el('pre', { class: 'diff', 'aria-label': 'Proposed change' });
  for (const line of diff.split('\n')) {
    const kind = line.startsWith('--- ') ? 'hdr' : line.startsWith('+ ') ? 'add' : line.startsWith('- ') ? 'del' : 'ctx';
    pre.append(el('span', { class: `line ${kind}` }, line), '\n');
  }
  return pre;
}

export function createMemoryView(send: Send): TabView<'memory'> {
  const element = el('div', { class: 'memory-tab', 'aria-busy': 'true' });
  const state = savedState();

  const save = () => updatePanelState({ memory: state });
  const ctx: SectionContext = {
    drafts: state.drafts,
    send,
    changed: (rerender) => {
      save();
      if (rerender) render();
    },
  };

  function reviewLine(view: MemoryView): HTMLElement {
    const text =
      view.reviewMode === 'ask'
        ? 'Review: the agent’s memory writes wait here for you to accept or reject.'
        : 'Review: the agent writes memory directly (still checked by the threat scanner and the limits).';
    const change = el('button', { type: 'button', class: 'link' }, 'Change review setting');
    change.addEventListener('click', () => send({ type: 'settings/open', query: 'skillwright.memory' }));
    return el('p', { class: 'review muted', 'data-testid': 'memory-review' }, text, ' ', change);
  }

  function blockedNotice(view: MemoryView): HTMLElement | undefined {
    if (view.blocked.length === 0) return undefined;
    const list = el('ul', { 'aria-label': 'Blocked writes' });
    for (const item of view.blocked.slice(0, SHOWN_BLOCKED)) {
      const when = el('time', { datetime: item.at, title: new Date(item.at).toLocaleString() }, relativeTime(item.at));
      const ids = item.patternIds.length ? item.patternIds.join(', ') : 'no pattern id';
      list.append(
        el(
          'li',
          {},
          el('strong', {}, FILE_NAMES[item.target]),
          ' · ',
          when,
          ' · ',
          `${item.patternIds.length === 1 ? 'pattern' : 'patterns'} `,
          el('code', {}, ids),
          item.preview ? el('div', { class: 'preview' }, el('code', {}, item.preview)) : undefined,
        ),
      );
    }
    const more = view.blocked.length - SHOWN_BLOCKED;
    return el(
      'section',
      { class: 'notice warning blocked', 'aria-labelledby': 'memory-blocked-title' },
      el(
        'div',
        {},
        el('h2', { id: 'memory-blocked-title' }, 'Blocked by the threat scanner'),
        el('p', { class: 'muted' }, 'These writes were refused and nothing was saved: memory goes into the agent’s prompt, so instructions to the model, secrets and hidden characters are kept out.'),
        list,
        more > 0 ? el('p', { class: 'muted' }, `and ${more} earlier`) : undefined,
      ),
    );
  }

  function proposalsSection(view: MemoryView): HTMLElement | undefined {
    if (view.proposals.length === 0) return undefined;
    const section = el(
      'section',
      { class: 'proposals', 'aria-labelledby': 'memory-proposals-title' },
      el('h2', { id: 'memory-proposals-title' }, `Pending changes from the agent (${view.proposals.length})`),
    );
    for (const proposal of view.proposals) {
      const summaryId = `proposal-${proposal.id}-summary`;
      const accept = el('button', { type: 'button', class: 'primary', 'aria-describedby': summaryId, 'data-key': `accept-${proposal.id}` }, 'Accept');
      const reject = el('button', { type: 'button', class: 'secondary', 'aria-describedby': summaryId, 'data-key': `reject-${proposal.id}` }, 'Reject');
      accept.addEventListener('click', () => send({ type: 'memory/accept', id: proposal.id }));
      reject.addEventListener('click', () => send({ type: 'memory/reject', id: proposal.id }));
      const failed = proposal.lastError !== undefined;
      section.append(
        el(
          'article',
          { class: `card proposal${failed ? ' failed' : ''}`, 'aria-labelledby': summaryId },
          el('p', { id: summaryId, class: 'summary' }, proposal.summary, failed ? ` Not applied: ${proposal.lastError}` : ''),
          el('p', { class: 'muted' }, el('time', { datetime: proposal.createdAt }, `Proposed ${relativeTime(proposal.createdAt)}`)),
          diffBlock(proposal.diff),
          el('div', { class: 'row-actions' }, accept, reject),
        ),
      );
    }
    return section;
  }

  /** Drops requests the host has answered: an add or edit that now shows, a removal that is gone. */
  function settle(view: MemoryView): void {
    const drafts = state.drafts;
    const editing = drafts.editing;
    if (editing) {
      // Saved already (its state may have come before this one): the file holds the new text in place of the old.
      const entries = view.files.find((f) => f.target === editing.target)?.entries ?? [];
      if (!entries.includes(editing.oldText) && entries.includes(normaliseEntry(editing.text))) drafts.editing = undefined;
    }
    const waiting = drafts.waiting;
    drafts.waiting = undefined;
    if (!waiting) return;
    const entries = view.files.find((f) => f.target === waiting.target)?.entries ?? [];
    const saved = waiting.content !== undefined && entries.includes(normaliseEntry(waiting.content));
    if (waiting.kind === 'add' && saved && normaliseEntry(drafts.add[waiting.target] ?? '') === normaliseEntry(waiting.content ?? '')) {
      delete drafts.add[waiting.target];
    }
    if (waiting.kind === 'edit' && saved && drafts.editing?.target === waiting.target && drafts.editing.oldText === waiting.oldText) {
      drafts.editing = undefined;
    }
  }

  function render(): void {
    const view = state.view;
    const active = document.activeElement as HTMLElement | null;
    const key = active && element.contains(active) ? active.getAttribute('data-key') : null;
    const selection = active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : undefined;
    if (!view) {
      element.replaceChildren(el('p', { class: 'muted' }, 'Loading memory…'));
      return;
    }
    element.replaceChildren(
      reviewLine(view),
      ...[blockedNotice(view), proposalsSection(view)].filter((n): n is HTMLElement => n !== undefined),
      ...view.files.map((file) => fileSection(file, ctx)),
    );
    element.setAttribute('aria-busy', 'false');
    if (key) {
      const again = element.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
      again?.focus();
      if (again instanceof HTMLTextAreaElement && selection) again.setSelectionRange(selection[0] ?? 0, selection[1] ?? 0);
    }
  }

  render();

  return {
    element,
    handle(message: AreaMessage<HostToWebview, 'memory'>): void {
      switch (message.type) {
        case 'memory/state':
          state.view = message.memory;
          settle(message.memory);
          save();
          render();
          return;
      }
    },
    focus(target?: string): void {
      // `memory` / `user` focus that file's Add box; with no target the tab button keeps the focus.
      if (target !== 'memory' && target !== 'user') return;
      element.querySelector<HTMLElement>(`[data-key="add-${target}"]`)?.focus();
    },
  };
}
