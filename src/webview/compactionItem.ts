import type { ChatItem } from '../shared/protocol';
import { el } from './dom';
import { compactionTitle } from './compactionText';
import type { Send } from './tabView';

type CompactionItem = Extract<ChatItem, { kind: 'compaction' }>;

/**
 * Where older messages gave way to a summary. It opens to show the summary (rendered like a reply:
 * sanitized Markdown, it is model output), the skills attached again after it and the memory writes it lists.
 */
export function compactionItem(item: CompactionItem, render: (text: string, send: Send) => HTMLElement, send: Send): HTMLElement {
  const title = compactionTitle(item);
  if (item.state !== 'done') {
    return el('div', { class: `compaction-divider ${item.state}`, role: item.state === 'failed' ? 'alert' : 'status' }, el('span', {}, title));
  }
  const body = el('div', { class: 'compaction-body' });
  if (item.summary) body.append(el('h4', {}, 'Summary'), render(item.summary, send));
  body.append(el('p', { class: 'muted' }, item.skills.length > 0 ? `Skills attached again: ${item.skills.join(', ')}` : 'No skills were loaded before this point.'));
  if (item.memoryWrites.length > 0) body.append(el('p', { class: 'muted' }, `Memory written in this session: ${item.memoryWrites.join('; ')}`));
  body.append(el('p', { class: 'muted' }, 'The full conversation stays in the session log: History and search still find every message.'));
  return el('details', { class: 'compaction-divider done', 'data-testid': 'compaction-divider' }, el('summary', {}, title), body);
}
