import type { PanelTab } from '../shared/protocol';
import { el } from './dom';

const LABELS: Record<PanelTab, string> = { chat: 'Chat', skills: 'Skills', memory: 'Memory', history: 'History', status: 'Status' };

/**
 * An ARIA tab list: arrow keys, Home and End move between tabs (and select them), Tab moves into
 * the selected panel. Panels not selected are `hidden`, so screen readers skip them.
 */
export class TabBar {
  readonly element: HTMLElement;
  private readonly tabs = new Map<PanelTab, HTMLButtonElement>();
  private readonly panels = new Map<PanelTab, HTMLElement>();
  private current: PanelTab;

  constructor(
    order: readonly PanelTab[],
    initial: PanelTab,
    private readonly onSelect: (tab: PanelTab) => void,
  ) {
    this.current = initial;
    this.element = el('div', { role: 'tablist', 'aria-label': 'Skillwright', class: 'tabbar' });
    for (const tab of order) {
      const button = el('button', { type: 'button', role: 'tab', id: `tab-${tab}`, 'aria-controls': `panel-${tab}`, class: 'tab' }, LABELS[tab]);
      button.addEventListener('click', () => this.select(tab));
      button.addEventListener('keydown', (event) => this.onKey(event, order));
      this.tabs.set(tab, button);
      this.element.append(button);
    }
  }

  /** The container for one tab's content. */
  panel(tab: PanelTab): HTMLElement {
    let node = this.panels.get(tab);
    if (!node) {
      node = el('section', { role: 'tabpanel', id: `panel-${tab}`, 'aria-labelledby': `tab-${tab}`, class: `tabpanel tabpanel-${tab}` });
      this.panels.set(tab, node);
    }
    return node;
  }

  get selected(): PanelTab {
    return this.current;
  }

  select(tab: PanelTab, focusTab = false): void {
    this.current = tab;
    for (const [name, button] of this.tabs) {
      const on = name === tab;
      button.setAttribute('aria-selected', String(on));
      button.tabIndex = on ? 0 : -1;
      this.panel(name).hidden = !on;
    }
    if (focusTab) this.tabs.get(tab)?.focus();
    this.onSelect(tab);
  }

  private onKey(event: KeyboardEvent, order: readonly PanelTab[]): void {
    const index = order.indexOf(this.current);
    const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: order.length - 1 };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = order[(target + order.length) % order.length];
    if (next) this.select(next, true);
  }
}
