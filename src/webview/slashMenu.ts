import { el } from './dom';

interface SkillName {
  readonly name: string;
  readonly description: string;
}

const MAX_SHOWN = 8;

/**
 * Autocomplete of skill names after a leading `/` in the message box, as an ARIA combobox: the
 * textarea keeps focus, arrow keys move the active option, Enter or Tab accepts, Escape closes.
 */
export class SlashMenu {
  readonly element: HTMLElement;
  private skills: readonly SkillName[] = [];
  private shown: SkillName[] = [];
  private active = 0;

  constructor(private readonly input: HTMLTextAreaElement) {
    this.element = el('ul', { id: 'slash-menu', role: 'listbox', 'aria-label': 'Skills', class: 'slash-menu' });
    this.element.hidden = true;
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', 'slash-menu');
    input.setAttribute('aria-expanded', 'false');
  }

  setSkills(skills: readonly SkillName[]): void {
    this.skills = [...skills].sort((a, b) => a.name.localeCompare(b.name));
    if (!this.element.hidden) this.update();
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  /** Re-filters after each keystroke: only while the text is `/` plus a partial name. */
  update(): void {
    const match = /^\/([a-z0-9-]*)$/.exec(this.input.value);
    if (!match) return this.close();
    const prefix = match[1] ?? '';
    const starts = this.skills.filter((s) => s.name.startsWith(prefix));
    const contains = this.skills.filter((s) => !s.name.startsWith(prefix) && s.name.includes(prefix));
    this.shown = [...starts, ...contains].slice(0, MAX_SHOWN);
    if (this.shown.length === 0) return this.close();
    this.active = Math.min(this.active, this.shown.length - 1);
    this.render();
  }

  /** Handles a key while open; true when the key was used. */
  onKey(event: KeyboardEvent): boolean {
    if (!this.open) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.active = (this.active + step + this.shown.length) % this.shown.length;
      this.render();
      return true;
    }
    if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      this.accept(this.active);
      return true;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      this.close();
      return true;
    }
    return false;
  }

  private accept(index: number): void {
    const skill = this.shown[index];
    if (!skill) return;
    this.input.value = `/${skill.name} `;
    this.input.setSelectionRange(this.input.value.length, this.input.value.length);
    this.input.dispatchEvent(new Event('input'));
    this.close();
    this.input.focus();
  }

  private render(): void {
    const options = this.shown.map((skill, i) => {
      const option = el(
        'li',
        { id: `slash-option-${i}`, role: 'option', 'aria-selected': String(i === this.active), class: i === this.active ? 'active' : '' },
        el('strong', {}, `/${skill.name}`),
        ' ',
        el('span', { class: 'muted' }, skill.description),
      );
      option.addEventListener('mousedown', (event) => {
        event.preventDefault();
        this.accept(i);
      });
      return option;
    });
    this.element.replaceChildren(...options);
    this.element.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.input.setAttribute('aria-activedescendant', `slash-option-${this.active}`);
  }

  private close(): void {
    this.element.hidden = true;
    this.shown = [];
    this.active = 0;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }
}
