import type { ContextMeter } from '../shared/protocol';
import { el } from './dom';
import { meterLevel, shortTokens } from './compactionText';

const WINDOW_SOURCES: Readonly<Record<string, string>> = {
  setting: 'from the skillwright.context.window setting',
  learned: 'learned from the server’s last “too long” answer',
  server: 'from the server’s model list',
  table: 'from Skillwright’s table of common models',
  default: 'assumed (the model is unknown; set skillwright.context.window)',
};

const tokens = (n: number): string => n.toLocaleString('en-US');

/**
 * The context meter of the chat header: how much of the model's window the next request fills,
 * as a bar with its figure, opening to the parts (system prompt, conversation, tools). A
 * disclosure rather than a tooltip, so keyboard and screen-reader users get the parts too.
 */
export function contextMeterNode(context: ContextMeter): HTMLElement {
  const level = meterLevel(context);
  const ratio = context.window > 0 ? context.total / context.window : 0;
  const estimate = context.exact ? '' : ' (estimated)';
  const summaryText = `Context ${shortTokens(context.total)} / ${shortTokens(context.window)}`;
  const fill = el('div', { class: `meter-fill ${level}` });
  fill.style.width = `${Math.min(100, Math.round(ratio * 1000) / 10)}%`;
  const valueText = `${tokens(context.total)} of ${tokens(context.window)} tokens${estimate}${level === 'ok' ? '' : level === 'high' ? ', compaction is due' : ', over the window'}`;
  const bar = el(
    'div',
    {
      role: 'meter',
      class: 'meter',
      'aria-label': 'Context window',
      'aria-valuemin': '0',
      'aria-valuemax': String(context.window),
      'aria-valuenow': String(Math.min(context.total, context.window)),
      'aria-valuetext': valueText,
      'data-testid': 'context-meter',
    },
    fill,
  );
  const parts = el(
    'ul',
    { class: 'context-parts' },
    el('li', {}, `System prompt: ${tokens(context.system)} tokens`),
    el('li', {}, `Conversation: ${tokens(context.conversation)} tokens`),
    el('li', {}, `Tools: ${tokens(context.tools)} tokens`),
    el('li', {}, `Compacts at ${tokens(context.threshold)} of ${tokens(context.window)} tokens (window ${WINDOW_SOURCES[context.source] ?? context.source})`),
    el('li', {}, context.exact ? 'Counted with the model’s tokenizer.' : 'Estimated: no tokenizer is known for this model.'),
  );
  return el(
    'details',
    { class: `context-meter ${level}` },
    el('summary', { 'aria-label': `Context: ${valueText}` }, bar, el('span', { class: `usage-text ${level}`, 'aria-hidden': 'true' }, summaryText)),
    parts,
  );
}
