import { el } from './dom';

export interface MenuEntry {
  readonly label: string;
  readonly run: () => void;
  /** Drawn after a separator (destructive actions go last). */
  readonly separated?: boolean;
  readonly danger?: boolean;
}

/**
 * One popup menu shared by every row (ARIA menu pattern): opens below its button with the first
 * item focused; arrows, Home and End move, Enter or Space runs an item, Escape closes and returns
 * focus to the button, Tab or a click elsewhere closes it.
 */
export class SkillMenu {
  readonly element: HTMLElement;
  private trigger: HTMLElement | undefined;
  private items: HTMLButtonElement[] = [];

  constructor(
    private readonly container: HTMLElement,
    private readonly onClose: () => void = () => undefined,
  ) {
    this.element = el('div', { role: 'menu', class: 'skill-menu', hidden: '' });
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.element.addEventListener('focusout', (event) => {
      const next = event.relatedTarget;
      if (!(next instanceof Node) || !this.element.contains(next)) this.close(false);
    });
    document.addEventListener('mousedown', (event) => {
      if (this.isOpen && event.target instanceof Node && !this.element.contains(event.target) && event.target !== this.trigger) this.close(false);
    });
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Toggles the menu for `trigger`; a second open for the same button closes it. */
  open(trigger: HTMLElement, label: string, entries: readonly MenuEntry[]): void {
    if (this.isOpen && this.trigger === trigger) {
      this.close(true);
      return;
    }
    this.close(false);
    this.trigger = trigger;
    this.element.setAttribute('aria-label', label);
    this.items = [];
    const children: HTMLElement[] = [];
    for (const entry of entries) {
      if (entry.separated) children.push(el('div', { role: 'separator', class: 'skill-menu-separator' }));
      const item = el('button', { type: 'button', role: 'menuitem', tabindex: '-1', class: entry.danger ? 'danger' : '' }, entry.label);
      item.addEventListener('click', () => {
        this.close(true);
        entry.run();
      });
      this.items.push(item);
      children.push(item);
    }
    this.element.replaceChildren(...children);
    trigger.setAttribute('aria-expanded', 'true');
    this.element.hidden = false;
    this.place(trigger);
    this.items[0]?.focus();
  }

  /** Closes the menu; `refocus` puts focus back on the button that opened it. */
  close(refocus: boolean): void {
    if (!this.isOpen) return;
    this.element.hidden = true;
    const trigger = this.trigger;
    trigger?.setAttribute('aria-expanded', 'false');
    this.trigger = undefined;
    if (refocus && trigger?.isConnected) trigger.focus();
    this.onClose();
  }

  private place(trigger: HTMLElement): void {
    const box = this.container.getBoundingClientRect();
    const at = trigger.getBoundingClientRect();
    const width = this.element.offsetWidth;
    const left = Math.max(0, Math.min(at.right - box.left - width, box.width - width));
    const below = at.bottom - box.top + this.container.scrollTop;
    // Near the bottom of the view, open upwards so the menu stays visible.
    const room = window.innerHeight - at.bottom;
    const top = room < this.element.offsetHeight + 8 ? below - at.height - this.element.offsetHeight : below;
    this.element.style.left = `${left}px`;
    this.element.style.top = `${Math.max(0, top)}px`;
  }

  private onKey(event: KeyboardEvent): void {
    const index = this.items.indexOf(document.activeElement as HTMLButtonElement);
    const last = this.items.length - 1;
    const moves: Record<string, number> = { ArrowDown: index >= last ? 0 : index + 1, ArrowUp: index <= 0 ? last : index - 1, Home: 0, End: last };
    const target = moves[event.key];
    if (target !== undefined) {
      event.preventDefault();
      this.items[target]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.close(true);
    } else if (event.key === 'Tab') {
      this.close(true);
    }
  }
}
