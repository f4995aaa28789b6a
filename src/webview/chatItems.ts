import type { ApprovalAnswerValue, ChatAction, ChatItem, RunStepView, WebviewToHost } from '../shared/protocol';
import { formatDuration, STEP_STATE_TEXT } from '../shared/traceProtocol';
import { el } from './dom';
import { compactionItem } from './compactionItem';
import { renderMarkdown } from './markdown';

type Send = (message: WebviewToHost) => void;
type Of<K extends ChatItem['kind']> = Extract<ChatItem, { kind: K }>;

function button(label: string, onClick: () => void, options: { primary?: boolean; ariaLabel?: string; className?: string } = {}): HTMLButtonElement {
  const node = el('button', { type: 'button', class: options.className ?? (options.primary ? 'primary' : 'secondary') }, label);
  if (options.ariaLabel) node.setAttribute('aria-label', options.ariaLabel);
  node.addEventListener('click', onClick);
  return node;
}

/** Markdown with a Copy and an Insert at Cursor button on every code block. */
export function renderRichText(text: string, send: Send): HTMLElement {
  const body = el('div', { class: 'markdown' });
  body.append(renderMarkdown(text));
  for (const pre of Array.from(body.querySelectorAll('pre'))) {
    const code = pre.textContent ?? '';
    const language = /language-([\w+#.-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1];
    const bar = el(
      'div',
      { class: 'code-actions', role: 'toolbar', 'aria-label': `Code block${language ? ` (${language})` : ''}` },
      button('Copy', () => send({ type: 'chat/copyCode', code }), { ariaLabel: 'Copy code' }),
      button('Insert', () => send({ type: 'chat/insertCode', code }), { ariaLabel: 'Insert code at cursor' }),
    );
    const wrapper = el('div', { class: 'code-block' });
    pre.replaceWith(wrapper);
    wrapper.append(bar, pre);
  }
  return body;
}

function userItem(item: Of<'user'>): HTMLElement {
  return el('article', { class: 'msg user', 'aria-label': 'You said' }, el('div', { class: 'msg-text' }, item.text));
}

export function assistantItem(item: Of<'assistant'>, send: Send): HTMLElement {
  const node = el('article', { class: 'msg assistant', 'aria-label': 'Skillwright said' });
  node.append(renderRichText(item.text, send));
  return node;
}

const SKILL_VERBS = { loaded: 'loaded skill', ran: 'ran skill', changed: 'changed skill' } as const;

/** Deeper nesting is drawn at this depth: a narrow sidebar keeps room for the names. */
const MAX_STEP_DEPTH = 6;

/** How deep each step nests, from its parent chain (a loop in a broken trace stops at the bound). */
function stepDepths(steps: readonly RunStepView[]): Map<string, number> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const depths = new Map<string, number>();
  for (const step of steps) {
    let depth = 0;
    let parent = step.parent;
    while (parent !== undefined && byId.has(parent) && depth < MAX_STEP_DEPTH) {
      depth++;
      parent = byId.get(parent)?.parent;
    }
    depths.set(step.id, depth);
  }
  return depths;
}

/** A workflow's steps as nested cards under the skill_run card, each with its state in words, and "Show trace". */
function runSteps(item: Of<'tool'>, send: Send): HTMLElement | undefined {
  const steps = item.steps ?? [];
  if (steps.length === 0 && item.traceId === undefined) return undefined;
  const skill = item.skill?.name ?? item.summary;
  const wrap = el('div', { class: 'run-steps' });
  if (steps.length > 0) {
    const depths = stepDepths(steps);
    const list = el('ol', { class: 'run-step-list', 'aria-label': `Steps of ${skill}` });
    for (const step of steps) {
      const text = STEP_STATE_TEXT[step.state];
      const label = step.id.slice(step.id.lastIndexOf('/') + 1) || step.id;
      const card = el(
        'li',
        { class: `run-step status-${step.state} depth-${depths.get(step.id) ?? 0}`, 'data-step': step.id },
        el('span', { class: 'run-step-glyph', 'aria-hidden': 'true' }, text.glyph),
        ' ',
        el('span', { class: 'run-step-name' }, label),
        label !== step.skill ? el('span', { class: 'muted run-step-skill' }, ` ${step.skill}`) : undefined,
        el('span', { class: 'run-step-state' }, ` ${text.label}`),
        step.durationMs !== undefined ? el('span', { class: 'muted run-step-time' }, ` ${formatDuration(step.durationMs)}`) : undefined,
      );
      if (step.error !== undefined) card.append(el('div', { class: 'run-step-error' }, step.error));
      list.append(card);
    }
    wrap.append(list);
  }
  if (item.moreSteps !== undefined && item.moreSteps > 0) wrap.append(el('p', { class: 'muted run-steps-more' }, `… and ${item.moreSteps} more step${item.moreSteps === 1 ? '' : 's'}; the trace shows them all.`));
  const traceId = item.traceId;
  if (traceId !== undefined) {
    wrap.append(el('div', { class: 'actions run-actions' }, button('Show trace', () => send({ type: 'chat/showTrace', traceId }), { ariaLabel: `Show the trace of ${skill}` })));
  }
  return wrap;
}

function toolItem(item: Of<'tool'>, send: Send): HTMLElement {
  const steps = runSteps(item, send);
  const details = toolDetails(item);
  return steps ? el('section', { class: 'tool-run', 'aria-label': `Skill run ${item.skill?.name ?? item.summary}` }, details, steps) : details;
}

function toolDetails(item: Of<'tool'>): HTMLDetailsElement {
  const details = el('details', { class: `tool ${item.state}` });
  const state = item.state === 'running' ? 'running…' : item.state === 'failed' ? 'failed' : 'done';
  const summary = el(
    'summary',
    { 'aria-label': `Tool ${item.name}, ${state}${item.durationMs !== undefined ? `, ${item.durationMs} ms` : ''}: ${item.summary}` },
    el('span', { class: `tool-state ${item.state}`, 'aria-hidden': 'true' }, item.state === 'running' ? '◌' : item.state === 'failed' ? '✕' : '✓'),
    ' ',
    item.skill ? el('span', { class: 'skill-mark' }, `${SKILL_VERBS[item.skill.action]} `, el('code', {}, item.skill.name)) : el('span', { class: 'tool-summary' }, item.summary),
    item.durationMs !== undefined ? el('span', { class: 'muted tool-time' }, ` ${item.durationMs} ms`) : undefined,
  );
  details.append(summary, el('div', { class: 'tool-label muted' }, 'Arguments'), el('pre', { class: 'tool-args' }, item.args));
  if (item.result !== undefined) details.append(el('div', { class: 'tool-label muted' }, 'Result'), el('pre', { class: 'tool-result' }, item.result));
  return details;
}

const ANSWER_TEXT: Record<Of<'approval'>['state'], string> = {
  pending: 'Waiting for your answer',
  allow_once: 'Allowed once',
  allow_session: 'Allowed for this session',
  allow_always: 'Always allowed in this workspace',
  deny: 'Denied',
  expired: 'No longer waiting (the turn ended)',
};

const APPROVAL_HEADINGS: Readonly<Record<string, string>> = {
  run_command: 'Run this command?',
  edit_file: 'Change this file?',
  write_file: 'Change this file?',
  // skill_run asks for a skill's script or endpoint (core/agent/runApproval.ts).
  run_skill: "Run this skill's script or endpoint?",
};

function approvalItem(item: Of<'approval'>, send: Send): HTMLElement {
  const heading = APPROVAL_HEADINGS[item.tool] ?? `Allow ${item.tool}?`;
  const card = el('section', { class: `card approval ${item.state}`, role: 'group', 'aria-label': `Approval: ${item.summary}` }, el('h3', {}, heading), el('p', { class: 'approval-summary' }, item.summary));
  if (item.detail) card.append(el('pre', { class: item.hasDiff ? 'diff' : 'command' }, ...diffLines(item.detail, item.hasDiff)));
  if (item.state !== 'pending') {
    card.append(el('p', { class: 'muted approval-state', role: 'status' }, ANSWER_TEXT[item.state]));
    return card;
  }
  const answer = (value: ApprovalAnswerValue) => () => send({ type: 'chat/approve', id: item.id, answer: value });
  const always = item.commandPrefix ? `Always allow “${item.commandPrefix}…” here` : 'Always here';
  const actions = el(
    'div',
    { class: 'actions', role: 'toolbar', 'aria-label': 'Answer' },
    button('Allow once', answer('allow_once'), { primary: true }),
    button('For this session', answer('allow_session'), { ariaLabel: 'Allow for this session' }),
    button(always, answer('allow_always'), { ariaLabel: 'Always allow in this workspace' }),
    button('Deny', answer('deny')),
  );
  if (item.hasDiff) actions.append(button('Open Diff', () => send({ type: 'chat/openDiff', id: item.id }), { ariaLabel: 'Open diff in editor' }));
  card.append(actions);
  return card;
}

function diffLines(text: string, isDiff: boolean): Node[] {
  if (!isDiff) return [document.createTextNode(text)];
  return text.split('\n').map((line) => {
    const kind = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    return el('span', { class: `diff-line ${kind}` }, `${line}\n`);
  });
}

const ACTION_LABELS: Record<ChatAction, string> = {
  configureModel: 'Configure Model',
  testConnection: 'Test Connection',
  retry: 'Retry',
  openLogs: 'Open Logs',
  trustWorkspace: 'Manage Workspace Trust',
};

function actionMessage(action: ChatAction): WebviewToHost {
  switch (action) {
    case 'configureModel':
      return { type: 'model/configure' };
    case 'testConnection':
      return { type: 'model/test' };
    case 'retry':
      return { type: 'chat/retry' };
    case 'openLogs':
      return { type: 'logs/show' };
    case 'trustWorkspace':
      return { type: 'workspace/trust' };
  }
}

const REASONS: Record<Of<'turn'>['reason'], string> = { stop: '', max_steps: 'Stopped at the step limit. ', aborted: 'Stopped. ', error: '' };

function turnItem(item: Of<'turn'>, send: Send): HTMLElement {
  const wrap = el('div', { class: 'turn-end' });
  if (item.error) {
    const card = el(
      'section',
      { class: 'card error-card', role: 'alert', 'aria-label': 'Error' },
      el('h3', {}, item.error.message),
      el('p', {}, item.error.advice),
    );
    const actions = el('div', { class: 'actions', role: 'toolbar', 'aria-label': 'Fix' });
    item.error.actions.forEach((action, i) => actions.append(button(ACTION_LABELS[action], () => send(actionMessage(action)), { primary: i === 0 })));
    card.append(actions);
    wrap.append(card);
  }
  if (item.offerSkill) {
    wrap.append(
      el(
        'section',
        { class: 'card offer', 'aria-label': 'Save as skill' },
        el('p', {}, `This took ${item.toolCalls} tool calls. Save the approach as a skill so next time is quicker?`),
        button('Save as Skill', () => send({ type: 'chat/saveAsSkill' }), { primary: true }),
      ),
    );
  }
  const u = item.usage;
  const tokens = u.requests > 0 ? `${u.promptTokens.toLocaleString('en-US')} prompt (${u.cachedTokens.toLocaleString('en-US')} cached, ${(u.promptTokens - u.cachedTokens).toLocaleString('en-US')} new) · ${u.completionTokens.toLocaleString('en-US')} out · ${u.requests} request${u.requests === 1 ? '' : 's'}` : 'no usage reported';
  wrap.append(el('div', { class: 'muted token-line', 'data-testid': 'token-line' }, `${REASONS[item.reason]}${tokens}`));
  const offered = item.offered.suggestions.length > 0 ? `, suggested ${item.offered.suggestions.join(', ')}` : '';
  const loaded = item.loaded.length > 0 ? `loaded ${item.loaded.join(', ')}` : 'none loaded';
  const skills = el('details', { class: 'skills-line muted' }, el('summary', {}, `Skills: ${item.offered.catalog} in catalog${offered}; ${loaded}`));
  skills.append(
    el('ul', {}, el('li', {}, `Catalog: ${item.offered.catalog} skills listed in the prompt`), el('li', {}, `Suggested for this message: ${item.offered.suggestions.join(', ') || 'none'}`), el('li', {}, `Loaded with skill_view: ${item.loaded.join(', ') || 'none'}`)),
  );
  wrap.append(skills);
  const rated = [...new Set([...item.loaded, ...(item.ran ?? [])])];
  if (rated.length > 0 && item.reason !== 'error') wrap.append(ratingBar(item, rated, send));
  return wrap;
}

/** Thumbs up or down for the skills a turn used: counted in their health, once per turn. */
function ratingBar(item: Of<'turn'>, skills: readonly string[], send: Send): HTMLElement {
  const bar = el('div', { class: 'rating', role: 'group', 'aria-label': `Rate how ${skills.join(', ')} helped` });
  const label = item.rating === undefined ? `Did ${skills.join(', ')} help?` : item.rating === 1 ? 'Thanks: counted as helpful.' : 'Thanks: counted as not helpful.';
  bar.append(el('span', { class: 'muted' }, label));
  for (const [rating, text] of [[1, 'Helpful'], [-1, 'Not helpful']] as const) {
    const choice = button(text, () => send({ type: 'chat/rate', id: item.id, rating }));
    choice.setAttribute('aria-pressed', String(item.rating === rating));
    if (item.rating !== undefined) choice.disabled = true;
    bar.append(choice);
  }
  return bar;
}

function noticeItem(item: Of<'notice'>): HTMLElement {
  return el('div', { class: `notice ${item.level}`, role: item.level === 'error' ? 'alert' : 'note' }, item.text);
}

/** One transcript item as DOM; the caller keys nodes by item id and replaces them on update. */
export function renderChatItem(item: ChatItem, send: Send): HTMLElement {
  switch (item.kind) {
    case 'user':
      return userItem(item);
    case 'assistant':
      return assistantItem(item, send);
    case 'tool':
      return toolItem(item, send);
    case 'approval':
      return approvalItem(item, send);
    case 'turn':
      return turnItem(item, send);
    case 'notice':
      return noticeItem(item);
    case 'compaction':
      return compactionItem(item, renderRichText, send);
  }
}
