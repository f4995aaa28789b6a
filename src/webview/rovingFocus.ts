/**
 * Roving tabindex over the focusable entries of a list: the list is one tab stop, arrows, Home and
 * End move between entries, and the entry that last had focus stays the tab stop across re-renders
 * (found again by its key). A row's `companion` (its actions button) is the next tab stop.
 */
export class RovingFocus {
  /** Key of the entry that is the tab stop. */
  key: string | undefined;

  constructor(
    private readonly container: HTMLElement,
    private readonly selector: string,
    private readonly keyOf: (node: HTMLElement) => string | undefined,
    private readonly companion: (node: HTMLElement) => HTMLElement | null | undefined,
    private readonly companionSelector: string,
  ) {
    container.addEventListener('focusin', (event) => {
      const node = event.target instanceof HTMLElement ? event.target.closest<HTMLElement>(selector) : null;
      if (node && container.contains(node)) this.makeCurrent(node);
    });
  }

  entries(): HTMLElement[] {
    return [...this.container.querySelectorAll<HTMLElement>(this.selector)];
  }

  current(): HTMLElement | undefined {
    return this.entries().find((node) => node.tabIndex === 0);
  }

  /** After a render: the remembered entry (or the first) becomes the tab stop, focused if asked. */
  restore(refocus: boolean): void {
    const nodes = this.entries();
    const target = nodes.find((node) => this.keyOf(node) === this.key) ?? nodes[0];
    this.makeCurrent(target, nodes);
    if (refocus) target?.focus();
  }

  /** Handles ↑, ↓, Home and End on an entry; true when the key was one of them. */
  move(event: KeyboardEvent): boolean {
    const nodes = this.entries();
    const index = event.target instanceof HTMLElement ? nodes.indexOf(event.target) : -1;
    const moves: Record<string, number> = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: nodes.length - 1 };
    const target = moves[event.key];
    if (index < 0 || target === undefined) return false;
    event.preventDefault();
    nodes[Math.max(0, Math.min(nodes.length - 1, target))]?.focus();
    return true;
  }

  private makeCurrent(target: HTMLElement | undefined, nodes = this.entries()): void {
    for (const node of nodes) node.tabIndex = node === target ? 0 : -1;
    for (const node of this.container.querySelectorAll<HTMLElement>(this.companionSelector)) node.tabIndex = -1;
    if (!target) return;
    this.key = this.keyOf(target);
    const companion = this.companion(target);
    if (companion) companion.tabIndex = 0;
  }
}
