import type { PreviewToHost, SkillPreview } from '../../shared/previewProtocol';
import { el } from '../dom';

export type PreviewFinding = SkillPreview['findings'][number];

const SEVERITY_LABEL: Record<PreviewFinding['severity'], string> = { error: 'Error', warning: 'Warning', info: 'Info' };
const SEVERITY_MARK: Record<PreviewFinding['severity'], string> = { error: '✖', warning: '⚠', info: 'ℹ' };

/**
 * Lint findings as a list placed next to the text they concern. A finding with a line is a button
 * that shows that line in the editor; its accessible name is its text, so screen readers and tests
 * find it by code and message.
 */
export function findingList(findings: readonly PreviewFinding[], send: (message: PreviewToHost) => void, label: string): HTMLElement {
  const list = el('ul', { class: 'findings', 'aria-label': label });
  for (const finding of findings) {
    const mark = el('span', { class: 'severity', 'aria-hidden': 'true' }, SEVERITY_MARK[finding.severity]);
    const where = finding.line !== undefined ? ` · line ${finding.line + 1}` : '';
    const head = el('span', { class: 'finding-head' }, `${SEVERITY_LABEL[finding.severity]} ${finding.code}${where}`);
    const message = el('span', { class: 'finding-message' }, finding.message);
    let item: HTMLElement;
    if (finding.line !== undefined) {
      const line = finding.line;
      item = el('button', { type: 'button', class: `finding ${finding.severity}`, title: `Show line ${line + 1} in the editor` }, mark, head, ' ', message);
      item.addEventListener('click', () => send({ type: 'preview/revealLine', line }));
    } else {
      item = el('div', { class: `finding ${finding.severity}` }, mark, head, ' ', message);
    }
    list.append(el('li', {}, item));
  }
  return list;
}

/** "2 errors, 1 warning", or "No problems". */
export function findingSummary(findings: readonly PreviewFinding[]): string {
  const count = (severity: PreviewFinding['severity']) => findings.filter((finding) => finding.severity === severity && finding.code !== 'preview').length;
  const parts = [
    [count('error'), 'error', 'errors'],
    [count('warning'), 'warning', 'warnings'],
    [count('info'), 'note', 'notes'],
  ] as const;
  const text = parts.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
  return text.length > 0 ? text.join(', ') : 'No problems';
}
