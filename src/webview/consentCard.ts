import type { ConsentCardView, ConsentSkillView, WebviewToHost } from '../shared/protocol';
import { el } from './dom';

type Send = (message: WebviewToHost) => void;

const VERDICT_TEXT: Readonly<Record<ConsentSkillView['verdict'], string>> = {
  safe: 'Scanner: nothing found',
  caution: 'Scanner: caution',
  dangerous: 'Scanner: dangerous',
};

function button(label: string, ariaLabel: string, onClick: () => void, primary = false): HTMLButtonElement {
  const node = el('button', { type: 'button', class: primary ? 'primary' : 'secondary', 'aria-label': ariaLabel }, label);
  node.addEventListener('click', onClick);
  return node;
}

/** One "label: a, b" line, or nothing when the list is empty. */
function facts(label: string, values: readonly string[], none?: string): HTMLElement | undefined {
  if (values.length === 0 && none === undefined) return undefined;
  return el('div', { class: 'consent-fact' }, el('span', { class: 'consent-label' }, `${label}: `), el('span', {}, values.length > 0 ? values.join(', ') : (none ?? '')));
}

function skillItem(skill: ConsentSkillView, send: Send): HTMLElement {
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
    button('Approve', `Approve the project skill ${skill.name}`, () => send({ type: 'consent/decide', file: skill.file, hash: skill.hash, decision: 'approve' }), true),
    ...(skill.state === 'declined' ? [] : [button('Keep Out', `Keep the project skill ${skill.name} out of the catalog`, () => send({ type: 'consent/decide', file: skill.file, hash: skill.hash, decision: 'decline' }))]),
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
 */
export class ConsentCard {
  readonly element: HTMLElement;
  private hiddenFor: string | undefined;

  constructor(private readonly send: Send) {
    this.element = el('div', { class: 'consent-slot' });
  }

  render(view: ConsentCardView): void {
    const key = view.skills.map((skill) => skill.hash).join(',');
    if (view.skills.length === 0 || (this.hiddenFor === key && !view.review)) {
      this.element.replaceChildren();
      return;
    }
    this.hiddenFor = undefined;
    const pending = view.skills.filter((skill) => skill.state === 'pending').length;
    const count = view.skills.length;
    const title = pending === count ? `${count} project skill${count === 1 ? '' : 's'} came with this repository` : `${count} project skill${count === 1 ? '' : 's'} to review`;
    const list = el('ul', { class: 'consent-list', 'aria-label': 'Project skills awaiting consent' });
    for (const skill of view.skills) list.append(skillItem(skill, this.send));
    const later = button('Later', 'Hide this card; the skills stay out until you decide', () => {
      this.hiddenFor = key;
      this.element.replaceChildren();
    });
    const card = el(
      'section',
      { class: 'card consent', role: 'region', 'aria-labelledby': 'consent-title', 'data-testid': 'consent-card' },
      el('h3', { id: 'consent-title', tabindex: '-1' }, title),
      el('p', {}, 'They stay out of the catalog, the suggestions and the skill tools until you approve them. Approval is kept for this content; a change asks again.'),
      list,
      el(
        'div',
        { class: 'actions', role: 'group', 'aria-label': 'All listed skills' },
        button('Approve All', `Approve all ${count} listed project skills`, () => this.send({ type: 'consent/approveAll', hashes: view.skills.map((skill) => skill.hash) })),
        later,
      ),
    );
    this.element.replaceChildren(card);
    if (view.review) card.querySelector<HTMLElement>('#consent-title')?.focus();
  }
}
