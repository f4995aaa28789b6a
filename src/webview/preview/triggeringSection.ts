import type { PreviewToHost, SkillTriggeringView } from '../../shared/previewProtocol';
import { el } from '../dom';

type Send = (message: PreviewToHost) => void;

function queryTable(triggering: SkillTriggeringView): HTMLElement {
  const table = el('table', { class: 'trigger-queries', 'data-testid': 'trigger-queries' }, el('caption', { class: 'sr-only' }, 'Runs that loaded the skill, per query'));
  const head = el('tr', {});
  for (const title of ['Loaded', 'Query', 'Loaded instead']) head.append(el('th', { scope: 'col' }, title));
  table.append(el('thead', {}, head));
  const body = el('tbody', {});
  for (const query of triggering.queries) {
    const missed = query.loaded < query.runs;
    const instead = query.others.map((other) => `${other.name} ${other.runs}×`).join(', ');
    body.append(
      el(
        'tr',
        { class: missed ? 'missed' : '' },
        el('td', { class: 'trigger-rate' }, `${query.loaded}/${query.runs}`),
        el('th', { scope: 'row', class: 'trigger-query' }, query.query),
        el('td', { class: instead ? '' : 'muted' }, instead || (missed ? 'no skill' : '—')),
      ),
    );
  }
  table.append(body);
  return table;
}

/**
 * How the skill gets chosen: chat turns that suggested and loaded it, the latest Test Triggering
 * (per query k/n and what loaded instead), and the button that runs a new test.
 */
export function renderTriggering(triggering: SkillTriggeringView, send: Send): HTMLElement {
  const button = el('button', { type: 'button', class: 'secondary', 'data-testid': 'test-triggering' }, triggering.line ? 'Test Again' : 'Test Triggering');
  button.title = triggering.exampleQueries > 0
    ? `Sends its ${triggering.exampleQueries} example ${triggering.exampleQueries === 1 ? 'query' : 'queries'} to the model a few times; nothing runs or is written`
    : 'Asks for a few requests this skill should handle, sends them to the model a few times; nothing runs or is written';
  button.addEventListener('click', () => send({ type: 'preview/testTriggering' }));
  const stats = el('p', { class: triggering.stats ? 'trigger-stats' : 'trigger-stats muted', 'data-testid': 'trigger-stats' }, triggering.stats || 'No chat turn has suggested or loaded it yet.');
  const line = triggering.line
    ? el('p', { class: triggering.outdated ? 'trigger-line notice warning' : 'trigger-line', 'data-testid': 'trigger-line' }, triggering.line, triggering.model ? el('span', { class: 'muted' }, ` · ${triggering.model}`) : '')
    : el('p', { class: 'muted' }, 'Not tested yet: Test Triggering shows how often the model loads it for the requests it is meant for.');
  return el(
    'section',
    { class: 'card triggering', 'aria-labelledby': 'preview-triggering' },
    el('h2', { id: 'preview-triggering' }, 'Triggering'),
    stats,
    line,
    triggering.queries.length > 0 ? queryTable(triggering) : undefined,
    el('p', {}, button),
  );
}
