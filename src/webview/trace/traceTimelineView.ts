import type { TraceModel, TraceToHost } from '../../shared/traceProtocol';
import { formatDuration } from '../../shared/traceProtocol';
import { el } from '../dom';
import type { TimelineRow } from './traceTimeline';
import { countsText, layoutTimeline } from './traceTimeline';

export interface TraceTimelineView {
  readonly element: HTMLElement;
  render(trace: TraceModel): void;
  showError(message: string): void;
}

const ORIGINS: Record<TraceModel['origin'], string> = { chat: 'the chat', palette: 'Run Skill…', cli: 'the command line', test: 'a test example' };
/** Indent per nesting level, in `em`, of a step's name. */
const INDENT_EM = 1.2;

/** A bar placed by CSSOM (the page's policy allows no inline style attributes, only scripted ones). */
function bar(className: string, leftPct: number, widthPct: number): HTMLElement {
  const node = el('span', { class: className, 'aria-hidden': 'true' });
  node.style.left = `${leftPct}%`;
  node.style.width = `${widthPct}%`;
  return node;
}

function rowNode(row: TimelineRow, index: number, expanded: boolean, onToggle: (id: string, open: boolean) => void): HTMLElement {
  const detailId = `step-detail-${index}`;
  const name = el('span', { class: 'step-name' }, el('span', { class: 'step-glyph', 'aria-hidden': 'true' }, row.glyph), ' ', el('span', { class: 'step-label' }, row.label));
  if (row.label !== row.skill) name.append(' ', el('span', { class: 'muted step-skill' }, row.skill));
  name.style.paddingLeft = `${row.depth * INDENT_EM}em`;
  const track = el('span', { class: 'step-track', 'aria-hidden': 'true' }, bar('step-bar', row.leftPct, row.widthPct));
  // Retries show as marks inside the step's span, so a reader sees where the time went.
  if (row.attempts.length > 1) for (const attempt of row.attempts) track.append(bar(`attempt-mark${attempt.error !== undefined ? ' failed' : ''}`, attempt.leftPct, attempt.widthPct));
  const button = el(
    'button',
    { type: 'button', class: 'step-row', 'aria-expanded': String(expanded), 'aria-controls': detailId, 'aria-label': row.ariaLabel, 'data-step': row.id },
    name,
    el('span', { class: 'step-status' }, row.statusLabel),
    track,
    el('span', { class: 'step-time' }, formatDuration(row.durationMs)),
  );
  const detail = el('div', { id: detailId, class: 'step-detail', role: 'region', 'aria-label': `Details of step ${row.label}` });
  detail.style.marginLeft = `${row.depth * INDENT_EM}em`;
  const attempts = el('ol', { class: 'attempts', 'aria-label': 'Attempts' });
  for (const attempt of row.attempts) attempts.append(el('li', { class: attempt.error !== undefined ? 'attempt failed' : 'attempt' }, attempt.text));
  if (row.attempts.length === 0) attempts.append(el('li', { class: 'attempt muted' }, 'Not attempted'));
  detail.append(attempts);
  for (const line of row.details) detail.append(el('p', { class: line.startsWith('Error') || line.startsWith('First error') ? 'step-error' : 'muted' }, line));
  detail.hidden = !expanded;
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    button.setAttribute('aria-expanded', String(open));
    detail.hidden = !open;
    onToggle(row.id, open);
  });
  return el('li', { class: `step status-${row.status}` }, button, detail);
}

/** Up, Down, Home and End move between the rows; Tab leaves the list. */
function listKeys(list: HTMLElement): void {
  list.addEventListener('keydown', (event) => {
    const rows = [...list.querySelectorAll<HTMLButtonElement>('button.step-row')];
    const at = rows.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const next = event.key === 'ArrowDown' ? at + 1 : event.key === 'ArrowUp' ? at - 1 : event.key === 'Home' ? 0 : event.key === 'End' ? rows.length - 1 : undefined;
    if (next === undefined) return;
    event.preventDefault();
    rows[Math.max(0, Math.min(rows.length - 1, next))]?.focus();
  });
}

/**
 * The run's timeline: a header (skill, outcome, when, how long), then one row per step with its
 * bar on the run's time axis. Rows are buttons that open the step's attempts and errors.
 */
export function createTraceTimelineView(send: (message: TraceToHost) => void, expanded: Set<string>, onExpandedChange: () => void): TraceTimelineView {
  const element = el('div', { class: 'trace' });
  return {
    element,
    render(trace) {
      const layout = layoutTimeline(trace);
      const outcome = trace.success ? 'Succeeded' : 'Failed';
      const started = new Date(trace.started);
      const header = el(
        'header',
        { class: 'trace-header' },
        el('h1', {}, trace.skill, trace.version !== undefined ? el('span', { class: 'muted' }, ` ${trace.version}`) : undefined),
        el('span', { class: `run-status ${trace.success ? 'status-success' : 'status-failed'}`, 'data-testid': 'run-status' }, `${trace.success ? '✓' : '✕'} ${outcome}`),
      );
      const facts = el(
        'p',
        { class: 'muted trace-facts' },
        `${trace.kind} run from ${ORIGINS[trace.origin]}, started ${Number.isNaN(started.getTime()) ? trace.started : started.toLocaleString()}, took ${formatDuration(trace.durationMs)}; ${countsText(layout.counts)}.`,
      );
      const actions = el('div', { class: 'actions', role: 'toolbar', 'aria-label': 'Trace actions' });
      const other = el('button', { type: 'button', class: 'secondary' }, `Other runs of ${trace.skill}…`);
      other.addEventListener('click', () => send({ type: 'trace/pickRun', skill: trace.skill }));
      const open = el('button', { type: 'button', class: 'secondary' }, 'Open Skill');
      open.addEventListener('click', () => send({ type: 'trace/openSkill', skill: trace.skill }));
      actions.append(other, open);
      const notes: HTMLElement[] = [];
      if (trace.error !== undefined) notes.push(el('div', { class: 'notice error', role: 'alert' }, el('span', {}, trace.error)));
      if (trace.drift !== undefined) notes.push(el('div', { class: 'notice warning', role: 'note' }, el('span', {}, `Drift: ${trace.drift}`)));

      const axis = el('div', { class: 'trace-axis', 'aria-hidden': 'true' }, el('span', { class: 'axis-spacer' }));
      const scale = el('span', { class: 'axis-scale' });
      for (const tick of layout.ticks) {
        const mark = el('span', { class: 'axis-tick' }, tick.label);
        mark.style.left = `${tick.leftPct}%`;
        scale.append(mark);
      }
      axis.append(scale);
      const list = el('ol', { class: 'timeline', 'aria-label': `Steps of ${trace.skill} on a time axis of ${formatDuration(layout.totalMs)}` });
      layout.rows.forEach((row, i) =>
        list.append(
          rowNode(row, i, expanded.has(row.id), (id, isOpen) => {
            if (isOpen) expanded.add(id);
            else expanded.delete(id);
            onExpandedChange();
          }),
        ),
      );
      listKeys(list);
      const footer = el('p', { class: 'muted trace-id' }, `Trace ${trace.traceId}${trace.calledSkills.length > 0 ? ` · called ${trace.calledSkills.join(', ')}` : ''}`);
      element.replaceChildren(header, facts, actions, ...notes, el('section', { class: 'card timeline-card', 'aria-label': 'Timeline' }, axis, list), footer);
      document.title = `Trace: ${trace.skill}`;
    },
    showError(message) {
      element.replaceChildren(el('div', { class: 'notice error', role: 'alert' }, el('span', {}, message)));
    },
  };
}
