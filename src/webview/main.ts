import type { HostToWebview, PanelTab, WebviewToHost } from '../shared/protocol';
import { PANEL_TABS, assertNever, parseHostMessage } from '../shared/protocol';
import { createChatView } from './chatView';
import { ConsentCard } from './consentCard';
import { el } from './dom';
import { createHistoryView } from './historyView';
import { createMemoryView } from './memoryView';
import { panelState, postToHost, updatePanelState } from './panelState';
import { createSkillsView } from './skillsView';
import { renderStatus } from './statusView';
import { TabBar } from './tabBar';
import type { TabView, ViewArea } from './tabView';

const app = document.getElementById('app') as HTMLElement;

function send(message: WebviewToHost): void {
  postToHost(message);
}

const views: { [A in ViewArea]?: TabView<A> } = {};
const statusPanel = () => tabs.panel('status');

const tabs = new TabBar(PANEL_TABS, panelState().tab ?? 'chat', (tab: PanelTab) => {
  updatePanelState({ tab });
  send({ type: 'panel/tab', tab });
});

function mount<A extends ViewArea>(area: A, view: TabView<A>): void {
  (views as Record<A, TabView<A>>)[area] = view;
  tabs.panel(area).append(view.element);
}

function showNotice(level: 'info' | 'warning' | 'error', message: string): void {
  const existing = document.getElementById('panel-error');
  const node = el(
    'div',
    { id: 'panel-error', role: level === 'error' ? 'alert' : 'status', class: `notice ${level}` },
    el('span', {}, message),
  );
  const close = el('button', { type: 'button', class: 'icon', 'aria-label': 'Dismiss message' }, '×');
  close.addEventListener('click', () => node.remove());
  node.append(close);
  if (existing) existing.replaceWith(node);
  else app.prepend(node);
}

function route(message: HostToWebview): void {
  switch (message.type) {
    case 'status/update':
      updatePanelState({ status: message.status });
      renderStatus(statusPanel(), message.status, send);
      return;
    case 'panel/error':
      showNotice('error', message.message);
      return;
    case 'panel/notice':
      showNotice(message.level, message.message);
      return;
    case 'panel/showTab':
      tabs.select(message.tab, !message.focus);
      if (message.tab !== 'status') views[message.tab]?.focus(message.focus);
      return;
    case 'chat/snapshot':
    case 'chat/item':
    case 'chat/delta':
    case 'chat/busy':
    case 'chat/context':
    case 'chat/skillNames':
      views.chat?.handle(message);
      return;
    case 'skills/list':
    case 'skills/searchResult':
      views.skills?.handle(message);
      return;
    case 'consent/state':
      consentCard.render(message.consent);
      return;
    case 'memory/state':
      views.memory?.handle(message);
      return;
    case 'history/sessions':
    case 'history/results':
      views.history?.handle(message);
      return;
    default:
      assertNever(message);
  }
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    console.warn(`Skillwright panel dropped a message: ${parsed.error}`);
    return;
  }
  route(parsed.value);
});

app.replaceChildren(tabs.element, ...PANEL_TABS.map((tab) => tabs.panel(tab)));
app.setAttribute('aria-busy', 'false');
// Views mount here, one per area; each renders what it kept in panelState() until the host answers.
void mount;
mount('skills', createSkillsView(send));
const chatView = createChatView(send);
mount('chat', chatView);
const consentCard = new ConsentCard(send);
chatView.consentSlot.append(consentCard.element);
mount('memory', createMemoryView(send));
mount('history', createHistoryView(send));
tabs.select(tabs.selected);
// Show the last known status at once after a reload, then ask the host for a fresh one.
const previous = panelState().status;
if (previous) renderStatus(statusPanel(), previous, send);
send({ type: 'panel/ready' });
