import type { PanelStatus, WebviewToHost } from '../shared/protocol';
import { el } from './dom';

export type Send = (message: WebviewToHost) => void;

function section(title: string, id: string, ...content: (Node | undefined)[]): HTMLElement {
  return el('section', { 'aria-labelledby': id, class: 'card' }, el('h2', { id }, title), ...content);
}

function button(label: string, onClick: () => void, primary = false): HTMLButtonElement {
  const node = el('button', { type: 'button', class: primary ? 'primary' : 'secondary' }, label);
  node.addEventListener('click', onClick);
  return node;
}

function workspaceSection(status: PanelStatus): HTMLElement {
  if (status.workspaceFolders.length === 0) {
    return section(
      'Workspace',
      'ws-title',
      el('p', { class: 'muted', 'data-testid': 'workspace-none' }, 'No folder is open. Open a folder to use project skills and project memory.'),
    );
  }
  const list = el('ul', { 'aria-label': 'Workspace folders' });
  for (const folder of status.workspaceFolders) {
    list.append(el('li', { title: folder.path }, el('strong', {}, folder.name), ' ', el('span', { class: 'muted path' }, folder.path)));
  }
  return section('Workspace', 'ws-title', list);
}

function trustSection(status: PanelStatus): HTMLElement {
  const text = status.trusted
    ? el('p', { 'data-testid': 'trust-state' }, el('span', { class: 'badge ok' }, 'Trusted'), ' Project skills, memory and instruction files can be used.')
    : el(
        'p',
        { 'data-testid': 'trust-state' },
        el('span', { class: 'badge warn' }, 'Restricted Mode'),
        ' Nothing runs, and project skills, project memory and instruction files stay out of the prompt until you trust this folder.',
      );
  return section('Workspace trust', 'trust-title', text);
}

function rootsSection(status: PanelStatus): HTMLElement {
  const list = el('ul', { 'aria-label': 'Skill folders', class: 'roots' });
  for (const root of status.skillRoots) {
    const state = root.exists ? 'found' : 'not found';
    list.append(
      el(
        'li',
        { class: root.exists ? 'exists' : 'missing', title: root.path },
        el('span', { class: `badge ${root.exists ? 'ok' : 'dim'}` }, state),
        ' ',
        el('code', {}, root.label),
        ' ',
        el('span', { class: 'muted' }, `(${root.scope}${root.exists && root.skillCount !== undefined ? `, ${plural(root.skillCount, 'skill')}` : ''})`),
      ),
    );
  }
  const found = status.skillRoots.filter((root) => root.exists).length;
  return section(
    'Skill folders',
    'roots-title',
    el('p', { class: 'muted' }, `${found} of ${status.skillRoots.length} folders exist.`),
    list,
    skillsSummary(status),
    status.retrieval ? el('p', { 'data-testid': 'retrieval-state' }, `Skill retrieval: ${status.retrieval.text}`) : undefined,
  );
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function skillsSummary(status: PanelStatus): HTMLElement {
  const skills = status.skills;
  if (!skills) {
    return el('p', { class: 'muted', 'data-testid': 'skills-summary' }, 'Indexing skills…');
  }
  const marks = [
    skills.shadowed ? `${skills.shadowed} shadowed` : '',
    skills.hidden ? `${skills.hidden} for other platforms` : '',
    skills.disabled ? `${skills.disabled} disabled` : '',
  ].filter(Boolean);
  const catalog = skills.catalog;
  const cut = [
    catalog.shortened ? `${catalog.shortened} shortened` : '',
    catalog.collapsed ? `${plural(catalog.collapsed, 'category')} collapsed to names`.replace('categorys', 'categories') : '',
    catalog.omitted.length ? `${catalog.omitted.length} left out (${catalog.omitted.slice(0, 8).join(', ')}${catalog.omitted.length > 8 ? ', …' : ''})` : '',
  ].filter(Boolean);
  const problems = skills.problems.length
    ? el('ul', { class: 'problems', 'aria-label': 'Skill index problems' }, ...skills.problems.map((p) => el('li', { role: 'note' }, p)))
    : undefined;
  return el(
    'div',
    { 'data-testid': 'skills-summary' },
    el('p', {}, `${plural(skills.total, 'skill')}, ${skills.active} active${marks.length ? ` · ${marks.join(' · ')}` : ''}.`),
    el(
      'p',
      { 'data-testid': 'catalog-summary' },
      `Catalog: ${catalog.tokens} of ${catalog.budget} tokens, ${plural(catalog.included, 'skill')} listed${cut.length ? `; ${cut.join('; ')}` : ''}.`,
    ),
    problems,
  );
}

function modelSection(status: PanelStatus, send: Send): HTMLElement {
  const model = status.model;
  const summary = model.configured
    ? el('p', { 'data-testid': 'model-state' }, el('span', { class: 'badge ok' }, 'Configured'), ' ', model.advice)
    : el('p', { 'data-testid': 'model-state' }, el('span', { class: 'badge warn' }, 'Not configured'), ' ', model.advice);
  const provider = model.provider ? el('p', { class: 'muted' }, `Provider: ${model.provider}`) : undefined;
  const action = model.configured
    ? el('p', { class: 'actions' }, button('Test Connection', () => send({ type: 'model/test' })), button('Configure Model', () => send({ type: 'model/configure' })))
    : el('p', { class: 'actions' }, button('Configure Model', () => send({ type: 'model/configure' }), true));
  return section('Model', 'model-title', summary, provider, action);
}

function approvalsSection(status: PanelStatus, send: Send): HTMLElement | undefined {
  const approvals = status.approvals;
  if (!approvals) return undefined;
  const switches = [approvals.autoEdits ? 'edits' : '', approvals.autoCommands ? 'commands' : ''].filter(Boolean);
  const auto = el(
    'p',
    { 'data-testid': 'auto-approve' },
    switches.length > 0 ? `Auto-approved by your user settings: ${switches.join(' and ')}.` : 'Edits, writes and commands ask first (reads never ask).',
  );
  const list =
    approvals.always.length > 0
      ? el('ul', { 'aria-label': 'Always allowed in this workspace' }, ...approvals.always.map((entry) => el('li', {}, entry)))
      : el('p', { class: 'muted' }, 'Nothing is always allowed in this workspace.');
  const manage = approvals.always.length > 0 ? el('p', { class: 'actions' }, button('Manage Approvals…', () => send({ type: 'approvals/manage' }))) : undefined;
  return section('Approvals', 'approvals-title', auto, list, manage);
}

/** Renders the status page; pure function of the snapshot plus a sender for the buttons. */
export function renderStatus(root: HTMLElement, status: PanelStatus, send: Send): void {
  const header = el(
    'header',
    { class: 'header' },
    el('h1', {}, 'Skillwright'),
    el('span', { class: 'muted', 'data-testid': 'version' }, `v${status.extensionVersion} · VS Code ${status.vscodeVersion}`),
  );
  const actions = el(
    'div',
    { class: 'actions', role: 'toolbar', 'aria-label': 'Panel actions' },
    button('Show Logs', () => send({ type: 'logs/show' })),
    button('Open Settings', () => send({ type: 'settings/open' })),
    button('Refresh', () => send({ type: 'status/refresh' })),
  );
  root.replaceChildren(
    header,
    actions,
    workspaceSection(status),
    trustSection(status),
    rootsSection(status),
    modelSection(status, send),
    ...(status.approvals ? [approvalsSection(status, send) as HTMLElement] : []),
  );
  root.setAttribute('aria-busy', 'false');
}
