import type { PreviewToHost, SkillRuntimeView } from '../../shared/previewProtocol';
import { el } from '../dom';
import { relativeTime } from '../relativeTime';

type Send = (message: PreviewToHost) => void;
type TuningPart = NonNullable<SkillRuntimeView['tuning']>;

const KIND_LABEL: Record<SkillRuntimeView['kind'], string> = { instructions: 'instructions', script: 'script', http: 'HTTP endpoint', workflow: 'workflow' };
const ORIGIN_LABEL: Record<string, string> = { chat: 'from the chat', palette: 'from Run Skill', cli: 'from the command line', test: 'from a test' };

function section(id: string, title: string, ...content: (Node | undefined)[]): HTMLElement {
  return el('section', { class: 'card runtime', 'aria-labelledby': id }, el('h2', { id }, title), ...content);
}

function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

function code(text: string): HTMLElement {
  return el('code', {}, text);
}

/** Version, health and the newest runs, each with a button that opens its trace. */
function runsSection(runtime: SkillRuntimeView, send: Send): HTMLElement {
  const facts = el(
    'p',
    { class: 'runtime-facts' },
    el('span', { class: 'badge dim' }, KIND_LABEL[runtime.kind]),
    ' ',
    runtime.version !== undefined ? el('span', { class: 'badge dim' }, `v${runtime.version}`) : el('span', { class: 'muted' }, 'no version'),
    ' ',
    el('span', { class: runtime.health ? 'health' : 'health muted', 'data-testid': 'health-line' }, runtime.health || 'Not run yet.'),
  );
  if (runtime.runs.length === 0) return section('preview-runs', 'Runs', facts);
  const list = el('ol', { class: 'runs', 'aria-label': 'Last runs, newest first' });
  for (const run of runtime.runs) {
    const when = relativeTime(run.started);
    const status = run.success ? 'succeeded' : 'failed';
    const button = el('button', { type: 'button', class: 'link', 'aria-label': `Show the trace of the run ${when} (${status})` }, 'Show trace');
    button.addEventListener('click', () => send({ type: 'preview/showTrace', traceId: run.traceId }));
    list.append(
      el(
        'li',
        { class: `run ${run.success ? 'ok' : 'failed'}` },
        el('span', { class: 'run-status' }, run.success ? '✔ succeeded' : '✖ failed'),
        el('time', { datetime: run.started, title: run.started }, when),
        el('span', { class: 'muted' }, `${duration(run.durationMs)} · ${ORIGIN_LABEL[run.origin] ?? `from ${run.origin}`}`),
        button,
        run.error !== undefined ? el('span', { class: 'run-error' }, run.error) : undefined,
      ),
    );
  }
  return section('preview-runs', 'Runs', facts, list);
}

/** What the workflow declares against what its runs called: a call nobody declared is worth a look. */
function dependenciesSection(runtime: SkillRuntimeView): HTMLElement | undefined {
  if (runtime.kind !== 'workflow' && runtime.called.length === 0) return undefined;
  const content: HTMLElement[] = [];
  const names = (label: string, values: readonly string[]) =>
    el('p', {}, el('span', { class: 'muted' }, `${label}: `), ...(values.length > 0 ? values.flatMap((name, i) => [i > 0 ? ', ' : '', code(name)]) : [el('span', { class: 'muted' }, 'none')]));
  if (runtime.kind === 'workflow') content.push(names('Declared', runtime.declared));
  content.push(names('Called by the last runs', runtime.called));
  if (runtime.undeclared.length > 0) {
    const list = el('ul', { class: 'undeclared', 'aria-label': 'Calls not declared' });
    for (const name of runtime.undeclared) list.append(el('li', { class: 'notice warning' }, 'calls ', code(name), ', not declared'));
    content.push(list);
  }
  return section('preview-dependencies', 'Runtime dependencies', ...content);
}

function paramTable(tuning: TuningPart): HTMLElement {
  const table = el('table', { class: 'tuned-values' }, el('caption', { class: 'sr-only' }, 'Tunable parameters'));
  const head = el('tr', {});
  for (const title of ['Parameter', 'Default', 'Bounds', 'Current']) head.append(el('th', { scope: 'col' }, title));
  table.append(el('thead', {}, head));
  const body = el('tbody', {});
  for (const param of tuning.params) {
    body.append(
      el(
        'tr',
        { class: param.tuned ? 'tuned' : '' },
        el('th', { scope: 'row' }, code(param.name)),
        el('td', {}, code(param.default)),
        el('td', {}, param.bounds),
        el('td', {}, code(param.current), ' ', param.tuned ? el('span', { class: 'badge ok' }, 'tuned') : el('span', { class: 'muted' }, '(default)')),
      ),
    );
  }
  table.append(body);
  return table;
}

/** The change history, newest first; each active change has a Revert button. */
function changeList(tuning: TuningPart, send: Send): HTMLElement {
  if (tuning.changes.length === 0) return el('p', { class: 'muted' }, 'No changes yet: values change after enough runs point the same way.');
  const list = el('ol', { class: 'tuning-changes', 'aria-label': 'Tuning changes, newest first' });
  for (const change of tuning.changes) {
    const when = relativeTime(new Date(change.at).toISOString());
    const item = el(
      'li',
      { class: change.revertedAt !== undefined ? 'change reverted' : 'change' },
      el('span', { class: 'change-what' }, code(change.param), ': ', code(change.from), ' → ', code(change.to)),
      el('span', { class: 'muted' }, ` ${when} · ${change.source}`),
      el('span', { class: 'change-reason' }, change.reason),
    );
    if (change.revertedAt !== undefined) {
      item.append(el('span', { class: 'badge dim' }, `reverted ${relativeTime(new Date(change.revertedAt).toISOString())}`));
    } else {
      const also = change.alsoReverts > 0 ? ` and ${change.alsoReverts} later change${change.alsoReverts === 1 ? '' : 's'} of ${change.param}` : '';
      const button = el('button', { type: 'button', class: 'secondary', 'aria-label': `Revert ${change.param} from ${change.to} to ${change.from}${also}` }, 'Revert');
      if (also) button.title = `Also takes back${also}`;
      button.addEventListener('click', () => {
        button.disabled = true;
        send({ type: 'preview/revertTuning', changeId: change.id });
      });
      item.append(button);
    }
    list.append(el('li', {}, item));
  }
  return list;
}

function tuningSection(tuning: TuningPart, send: Send): HTMLElement {
  const errors = tuning.errors.length > 0 ? el('div', { class: 'notice error', role: 'note' }, `The adaptation block cannot be used: ${tuning.errors.join(' ')}`) : undefined;
  const hidden = tuning.hiddenChanges > 0 ? el('p', { class: 'muted' }, `${tuning.hiddenChanges} older changes are not listed.`) : undefined;
  return section(
    'preview-tuning',
    'Tuned values',
    errors,
    tuning.params.length > 0 ? paramTable(tuning) : undefined,
    el('h3', {}, 'Changes'),
    changeList(tuning, send),
    hidden,
  );
}

/** The cards for what running the skill has shown, in reading order. */
export function renderRuntime(runtime: SkillRuntimeView, send: Send): HTMLElement[] {
  return [runsSection(runtime, send), dependenciesSection(runtime), runtime.tuning ? tuningSection(runtime.tuning, send) : undefined].filter((node): node is HTMLElement => node !== undefined);
}
