import { normaliseEntry } from '../shared/system/memoryEntry';
import type { MemoryTargetValue, MemoryView, WebviewToHost } from '../shared/protocol';
import { el } from './dom';

export type MemoryFileState = MemoryView['files'][number];

/** What the person is typing or confirming; kept across re-renders and webview reloads. */
export interface MemoryDrafts {
  /** The Add box of each file. */
  add: Partial<Record<MemoryTargetValue, string>>;
  /** The entry being edited, by its text as last shown, and the edited text. */
  editing?: { target: MemoryTargetValue; oldText: string; text: string };
  /** The entry awaiting "Delete this entry?". */
  deleting?: { target: MemoryTargetValue; oldText: string };
  /** Sent to the host and not yet seen in a state: the Save/Add button waits for it. */
  waiting?: { target: MemoryTargetValue; kind: 'add' | 'edit' | 'remove'; content?: string; oldText?: string };
}

export interface SectionContext {
  readonly drafts: MemoryDrafts;
  send(message: WebviewToHost): void;
  /** Drafts changed: save them and render again. */
  changed(rerender: boolean): void;
}

const FILE_NAMES: Record<MemoryTargetValue, string> = { memory: 'MEMORY.md', user: 'USER.md' };

export const formatCount = (n: number): string => n.toLocaleString('en-US');


function button(label: string, attrs: Record<string, string>, onClick: () => void, kind = 'secondary'): HTMLButtonElement {
  const node = el('button', { type: 'button', class: kind, ...attrs }, label);
  node.addEventListener('click', onClick);
  return node;
}

/** The usage bar: a meter with the count as text, so it reads the same to eyes and screen readers. */
function usageBar(file: MemoryFileState): HTMLElement {
  const name = FILE_NAMES[file.target];
  const text = `${formatCount(file.chars)} of ${formatCount(file.limit)} characters`;
  const ratio = file.limit > 0 ? file.chars / file.limit : 0;
  const level = ratio > 1 ? 'over' : ratio >= 0.9 ? 'high' : 'ok';
  const fill = el('div', { class: `meter-fill ${level}` });
  fill.style.width = `${Math.min(100, Math.round(ratio * 1000) / 10)}%`;
  return el(
    'div',
    { class: 'usage' },
    el(
      'div',
      {
        role: 'meter',
        class: 'meter',
        'aria-label': `${name} usage`,
        'aria-valuemin': '0',
        'aria-valuemax': String(file.limit),
        'aria-valuenow': String(Math.min(file.chars, file.limit)),
        'aria-valuetext': text,
        'data-testid': `usage-${file.target}`,
      },
      fill,
    ),
    el('span', { class: `usage-text ${level}`, 'aria-hidden': 'true' }, ratio > 1 ? `${text} (over the limit)` : text),
  );
}

function entryItem(file: MemoryFileState, entry: string, index: number, ctx: SectionContext): HTMLElement {
  const { drafts } = ctx;
  const target = file.target;
  const textId = `memory-${target}-entry-${index}`;
  const item = el('li', { class: 'entry', 'data-entry': String(index) });
  const editing = drafts.editing?.target === target && drafts.editing.oldText === entry ? drafts.editing : undefined;
  if (editing) {
    const box = el('textarea', { 'aria-label': `Edit entry ${index + 1} of ${FILE_NAMES[target]}`, rows: '3', 'data-key': `edit-${target}` });
    box.value = editing.text;
    const waiting = drafts.waiting?.kind === 'edit' && drafts.waiting.target === target && drafts.waiting.oldText === entry;
    const save = () => {
      if (normaliseEntry(box.value) === '') return;
      drafts.waiting = { target, kind: 'edit', oldText: entry, content: box.value };
      ctx.send({ type: 'memory/edit', target, oldText: entry, content: box.value });
      ctx.changed(true);
    };
    const cancel = () => {
      drafts.editing = undefined;
      ctx.changed(true);
      focusKey(`entry-edit-${target}-${index}`);
    };
    box.addEventListener('input', () => {
      editing.text = box.value;
      ctx.changed(false);
    });
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        cancel();
      } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        save();
      }
    });
    const saveButton = button(waiting ? 'Saving…' : 'Save', { 'data-key': `save-${target}` }, save, 'primary');
    if (waiting) saveButton.disabled = true;
    item.append(box, el('div', { class: 'row-actions' }, saveButton, button('Cancel', {}, cancel)));
    return item;
  }
  item.append(el('p', { class: 'entry-text', id: textId }, entry));
  const actions = el('div', { class: 'row-actions' });
  if (drafts.deleting?.target === target && drafts.deleting.oldText === entry) {
    const cancel = () => {
      drafts.deleting = undefined;
      ctx.changed(true);
      focusKey(`entry-delete-${target}-${index}`);
    };
    const confirm = button('Delete', { 'aria-describedby': textId, 'data-key': `confirm-${target}` }, () => {
      drafts.deleting = undefined;
      drafts.waiting = { target, kind: 'remove', oldText: entry };
      ctx.send({ type: 'memory/remove', target, oldText: entry });
      ctx.changed(true);
    }, 'primary danger');
    const group = el('div', { role: 'group', class: 'confirm', 'aria-label': 'Delete this entry?' }, el('span', {}, 'Delete this entry?'), confirm, button('Cancel', {}, cancel));
    group.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        cancel();
      }
    });
    actions.append(group);
  } else {
    const available = file.available;
    const edit = button('Edit', { 'aria-describedby': textId, 'data-key': `entry-edit-${target}-${index}` }, () => {
      drafts.editing = { target, oldText: entry, text: entry };
      drafts.deleting = undefined;
      ctx.changed(true);
      focusKey(`edit-${target}`);
    });
    const remove = button('Delete', { 'aria-describedby': textId, 'data-key': `entry-delete-${target}-${index}` }, () => {
      drafts.deleting = { target, oldText: entry };
      drafts.editing = undefined;
      ctx.changed(true);
      focusKey(`confirm-${target}`);
    });
    edit.disabled = !available;
    remove.disabled = !available;
    actions.append(edit, remove);
  }
  item.append(actions);
  return item;
}

function addBox(file: MemoryFileState, ctx: SectionContext): HTMLElement {
  const { drafts } = ctx;
  const target = file.target;
  const name = FILE_NAMES[target];
  const box = el('textarea', { 'aria-label': `New entry for ${name}`, rows: '2', placeholder: 'A short, lasting fact…', 'data-key': `add-${target}` });
  box.value = drafts.add[target] ?? '';
  const waiting = drafts.waiting?.kind === 'add' && drafts.waiting.target === target;
  const add = () => {
    if (normaliseEntry(box.value) === '') {
      box.focus();
      return;
    }
    drafts.waiting = { target, kind: 'add', content: box.value };
    ctx.send({ type: 'memory/add', target, content: box.value });
    ctx.changed(true);
  };
  box.addEventListener('input', () => {
    drafts.add[target] = box.value;
    ctx.changed(false);
  });
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      add();
    }
  });
  const addButton = button(waiting ? 'Adding…' : 'Add', { 'aria-label': `Add to ${name}`, 'data-key': `add-button-${target}` }, add, 'primary');
  addButton.disabled = waiting;
  return el('div', { class: 'add' }, box, el('div', { class: 'row-actions' }, addButton, el('span', { class: 'muted hint' }, 'Ctrl+Enter adds')));
}

/**
 * The entry being edited left the file meanwhile (the agent, another window or an editor changed
 * it): the edited text stays on screen, and can go to the Add box or be discarded.
 */
function orphanEditor(file: MemoryFileState, ctx: SectionContext): HTMLElement | undefined {
  const { drafts } = ctx;
  const editing = drafts.editing;
  if (!editing || editing.target !== file.target || file.entries.includes(editing.oldText)) return undefined;
  const target = file.target;
  const box = el('textarea', { 'aria-label': `Your edited text for ${FILE_NAMES[target]}`, rows: '3', 'data-key': `edit-${target}` });
  box.value = editing.text;
  box.addEventListener('input', () => {
    editing.text = box.value;
    ctx.changed(false);
  });
  const toAdd = button('Move to the Add box', {}, () => {
    const current = drafts.add[target];
    drafts.add[target] = current ? `${current}\n${editing.text}` : editing.text;
    drafts.editing = undefined;
    ctx.changed(true);
    focusKey(`add-${target}`);
  });
  const discard = button('Discard', {}, () => {
    drafts.editing = undefined;
    ctx.changed(true);
  });
  return el(
    'div',
    { class: 'orphan', role: 'group', 'aria-label': 'Entry changed while you edited it' },
    el('p', {}, 'The entry you were editing changed in the file meanwhile. Your text is kept here:'),
    box,
    el('div', { class: 'row-actions' }, toAdd, discard),
  );
}

/** One file: heading, usage bar, entries with Edit and Delete, and the Add box. */
export function fileSection(file: MemoryFileState, ctx: SectionContext): HTMLElement {
  const headingId = `memory-${file.target}-title`;
  const name = FILE_NAMES[file.target];
  // Without a path (no usable folder) there is nothing to open.
  const open = file.path ? button('Open file', { 'aria-label': `Open ${name}`, title: file.path }, () => ctx.send({ type: 'memory/openFile', target: file.target })) : undefined;
  const header = el('div', { class: 'file-header' }, el('h2', { id: headingId }, file.label), open);
  const section = el('section', { class: 'card memory-file', 'aria-labelledby': headingId, 'data-target': file.target }, header);
  if (file.path) section.append(el('p', { class: 'muted path' }, file.path));
  if (!file.available) {
    const reason = el('p', { class: 'unavailable', role: 'note' }, file.reason ?? 'Unavailable.');
    section.append(reason);
    if (/Restricted Mode/.test(file.reason ?? '')) {
      section.append(el('p', {}, button('Manage Workspace Trust', {}, () => ctx.send({ type: 'workspace/trust' }))));
    }
    if (file.entries.length === 0) return section;
  }
  section.append(usageBar(file));
  const orphan = orphanEditor(file, ctx);
  if (orphan) section.append(orphan);
  const list = el('ul', { class: 'entries', 'aria-label': `${name} entries` });
  file.entries.forEach((entry, i) => list.append(entryItem(file, entry, i, ctx)));
  if (file.entries.length === 0) list.append(el('li', { class: 'muted empty' }, 'No entries yet.'));
  section.append(list);
  if (file.available) section.append(addBox(file, ctx));
  return section;
}

/** Focuses the element with this data-key once the current render is in the document. */
export function focusKey(key: string): void {
  queueMicrotask(() => (document.querySelector(`[data-key="${CSS.escape(key)}"]`) as HTMLElement | null)?.focus());
}
