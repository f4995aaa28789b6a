import type { ConsentCardView, ConsentSkillView, WebviewToHost } from '../shared/protocol';
import { el } from './dom';
import type { ConsentAction, ConsentFocus } from './consentOutcome';
import { consentOutcome } from './consentOutcome';

type Send = (message: WebviewToHost) => void;

export interface ConsentCardOptions {
  /** Where focus goes when the card closes; by default the next control after the card. */
  readonly after?: () => HTMLElement | null | undefined;
}

const VERDICT_TEXT: Readonly<Record<ConsentSkillView['verdict'], string>> = {
  safe: 'Scanner: nothing found',
  caution: 'Scanner: caution',
  dangerous: 'Scanner: dangerous',
};

const FOCUSABLE = 'button, [href], input, select, textarea, [tabindex]';

/** Buttons carry a key so focus is found again on the card the host sends next. */
function button(label: string, ariaLabel: string, key: string, onClick: () => void, primary = false): HTMLButtonElement {
  const node = el('button', { type: 'button', class: primary ? 'primary' : 'secondary', 'aria-label': ariaLabel, 'data-focus-key': key }, label);
  node.addEventListener('click', onClick);
  return node;
}

/** One "label: a, b" line, or nothing when the list is empty. */
function facts(label: string, values: readonly string[], none?: string): HTMLElement | undefined {
  if (values.length === 0 && none === undefined) return undefined;
  return el('div', { class: 'consent-fact' }, el('span', { class: 'consent-label' }, `${label}: `), el('span', {}, values.length > 0 ? values.join(', ') : (none ?? '')));
}

function skillItem(skill: ConsentSkillView, decide: (skill: ConsentSkillView, decision: 'approve' | 'decline') => void): HTMLElement {
  const heading = el('div', { class: 'consent-title' }, el('strong', {}, skill.name), el('span', { class: 'muted' }, ` ${skill.location}`));
  if (skill.reason === 'changed') heading.append(el('span', { class: 'badge warn' }, 'changed since approved'));
  if (skill.state === 'declined') heading.append(el('span', { class: 'badge' }, 'kept out'));
  const verdict = el('div', { class: `consent-verdict ${skill.verdict}`, 'data-verdict': skill.verdict }, VERDICT_TEXT[skill.verdict]);
  const findings = el('ul', { class: 'consent-findings', 'aria-label': `Scanner findings for ${skill.name}` });
  for (const finding of skill.findings) {
    findings.append(el('li', { class: `severity-${finding.severity}` }, `${finding.severity}: ${finding.message}${finding.where ? ` (${finding.where})` : ''}`));
  }
  if (skill.moreFindings > 0) findings.append(el('li', { class: 'muted' }, `and ${skill.moreFindings} more (skillwright scan lists them all)`));
  const actions = el(
    'div',
    { class: 'actions', role: 'group', 'aria-label': `Decide on ${skill.name}` },
    button('Approve', `Approve the project skill ${skill.name}`, `approve:${skill.file}`, () => decide(skill, 'approve'), true),
    ...(skill.state === 'declined' ? [] : [button('Keep Out', `Keep the project skill ${skill.name} out of the catalog`, `decline:${skill.file}`, () => decide(skill, 'decline'))]),
  );
  return el(
    'li',
    { class: 'consent-skill', 'data-file': skill.file, 'aria-label': `${skill.name}, ${VERDICT_TEXT[skill.verdict].toLowerCase()}` },
    heading,
    skill.description ? el('p', { class: 'consent-description' }, skill.description) : undefined,
    facts('Scripts', skill.scripts, 'none'),
    facts('Endpoints', skill.endpoints, 'none'),
    facts('Tools', skill.tools),
    facts('Permissions', skill.permissions),
    facts('Files', [String(skill.fileCount)]),
    verdict,
    skill.findings.length > 0 ? findings : undefined,
    actions,
  );
}

/**
 * The Chat tab's consent card: the project skills that came with the repository and wait for a
 * decision, each with what it runs, reaches and asks for, and the scanner's verdict. Nothing here
 * decides: the buttons send the content hash shown, and the host approves exactly that content.
 *
 * Every host answer replaces the card, which would drop focus to the page body; so the card keeps
 * what was just done (consentOutcome.ts) and, when the answer shows its outcome, moves focus on
 * (the next pending skill's first button, the heading, or the control after the card) and says the
 * outcome in a live region that outlives the card.
 */
export class ConsentCard {
  readonly element: HTMLElement;
  private readonly cardHost: HTMLElement;
  private readonly live: HTMLElement;
  private hiddenFor: string | undefined;
  private action: ConsentAction | undefined;
  private order: readonly string[] = [];
  private reviewing = false;

  constructor(
    private readonly send: Send,
    private readonly options: ConsentCardOptions = {},
  ) {
    this.cardHost = el('div', { class: 'consent-card-host' });
    this.live = el('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite', 'data-testid': 'consent-status' });
    this.element = el('div', { class: 'consent-slot' }, this.cardHost, this.live);
  }

  render(view: ConsentCardView): void {
    // Taken before the card is replaced: afterwards the focused button is gone.
    const focused = this.focusedKey();
    const focusIsOurs = focused !== undefined || this.focusIsLost();
    const key = view.skills.map((skill) => skill.hash).join(',');
    const shown = view.skills.length > 0 && !(this.hiddenFor === key && !view.review);
    if (shown) {
      this.hiddenFor = undefined;
      this.cardHost.replaceChildren(this.card(view, key));
    } else {
      this.cardHost.replaceChildren();
    }
    this.order = shown ? view.skills.map((skill) => skill.file) : [];
    // "Review Project Skills…" opened the card: it takes focus once, not on every update after.
    const opened = view.review && !this.reviewing;
    this.reviewing = view.review;
    const outcome = this.action ? consentOutcome(this.action, view) : undefined;
    if (outcome) {
      this.action = undefined;
      this.say(outcome.message);
      if (focusIsOurs) this.focus(outcome.focus);
    } else if (opened && shown) {
      this.heading()?.focus();
    } else if (focused !== undefined) {
      // An update that is not the answer (a watcher, another window): stay on the same control.
      this.focusKey(focused);
    }
  }

  private card(view: ConsentCardView, key: string): HTMLElement {
    const pending = view.skills.filter((skill) => skill.state === 'pending').length;
    const count = view.skills.length;
    const title = pending === count ? `${count} project skill${count === 1 ? '' : 's'} came with this repository` : `${count} project skill${count === 1 ? '' : 's'} to review`;
    const list = el('ul', { class: 'consent-list', 'aria-label': 'Project skills awaiting consent' });
    for (const skill of view.skills) list.append(skillItem(skill, (decided, decision) => this.decide(decided, decision)));
    const later = button('Later', 'Hide this card; the skills stay out until you decide', 'later', () => this.later(key));
    const approveAll = button('Approve All', `Approve all ${count} listed project skills`, 'approveAll', () => {
      const hashes = view.skills.map((skill) => skill.hash);
      this.action = { kind: 'approveAll', hashes };
      this.send({ type: 'consent/approveAll', hashes });
    });
    return el(
      'section',
      { class: 'card consent', role: 'region', 'aria-labelledby': 'consent-title', 'data-testid': 'consent-card' },
      el('h3', { id: 'consent-title', tabindex: '-1', 'data-focus-key': 'heading' }, title),
      el('p', {}, 'They stay out of the catalog, the suggestions and the skill tools until you approve them. Approval is kept for this content; a change asks again.'),
      list,
      el('div', { class: 'actions', role: 'group', 'aria-label': 'All listed skills' }, approveAll, later),
    );
  }

  private decide(skill: ConsentSkillView, decision: 'approve' | 'decline'): void {
    // A second press before the host answered would only be refused as stale.
    if (this.action?.kind === 'decide' && this.action.file === skill.file && this.action.hash === skill.hash) return;
    this.action = { kind: 'decide', file: skill.file, hash: skill.hash, name: skill.name, decision, was: skill.state, order: this.order };
    this.send({ type: 'consent/decide', file: skill.file, hash: skill.hash, decision });
  }

  private later(key: string): void {
    this.hiddenFor = key;
    this.cardHost.replaceChildren();
    this.order = [];
    const outcome = consentOutcome({ kind: 'later' }, { skills: [], review: false });
    this.action = undefined;
    if (outcome) {
      this.say(outcome.message);
      this.focus(outcome.focus);
    }
  }

  private heading(): HTMLElement | null {
    return this.cardHost.querySelector<HTMLElement>('#consent-title');
  }

  private focusedKey(): string | undefined {
    const active = document.activeElement;
    return active instanceof HTMLElement && this.cardHost.contains(active) ? (active.getAttribute('data-focus-key') ?? undefined) : undefined;
  }

  /** Focus on the page itself: what removing the focused button leaves behind. */
  private focusIsLost(): boolean {
    const active = document.activeElement;
    return active === null || active === document.body || active === document.documentElement;
  }

  private focusKey(key: string): void {
    const node = [...this.cardHost.querySelectorAll<HTMLElement>('[data-focus-key]')].find((candidate) => candidate.getAttribute('data-focus-key') === key);
    if (node) {
      node.focus();
      return;
    }
    // The control went with its skill (decided in another window): the heading, or past the card.
    this.focus(this.heading() ? { kind: 'heading' } : { kind: 'after' });
  }

  private focus(target: ConsentFocus): void {
    if (target.kind === 'skill') {
      const item = [...this.cardHost.querySelectorAll<HTMLElement>('li.consent-skill')].find((node) => node.getAttribute('data-file') === target.file);
      const first = item?.querySelector<HTMLElement>('.actions button');
      if (first) {
        first.focus();
        return;
      }
    }
    const heading = target.kind !== 'after' ? this.heading() : null;
    if (heading) {
      heading.focus();
      return;
    }
    const next = this.options.after?.() ?? this.nextControl();
    if (next) {
      next.focus();
      return;
    }
    // Nothing follows the card: the slot itself, so focus never falls to the page.
    this.element.tabIndex = -1;
    this.element.focus();
  }

  /** The first control after the card in document order that Tab would reach. */
  private nextControl(): HTMLElement | undefined {
    for (const node of document.querySelectorAll<HTMLElement>(FOCUSABLE)) {
      if (this.element.contains(node) || !(this.element.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      if (node.tabIndex < 0 || node.closest('[hidden]') || (node as HTMLButtonElement).disabled) continue;
      return node;
    }
    return undefined;
  }

  /** The same text twice in a row is still announced: the live region only speaks on a change. */
  private say(message: string): void {
    this.live.textContent = this.live.textContent === message ? `${message}\u00a0` : message;
  }
}
