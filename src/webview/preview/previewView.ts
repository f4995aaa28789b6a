import type { PreviewToHost, SkillPreview } from '../../shared/previewProtocol';
import { el } from '../dom';
import { renderFileTree } from './fileTree';
import { findingList, findingSummary } from './findingList';
import type { PreviewFinding } from './findingList';
import { renderBody } from './previewBody';
import { renderRuntime } from './runtimeSection';
import { renderTriggering } from './triggeringSection';
import { renderWorkflowDiagram } from './workflowDiagram';

export interface PreviewView {
  readonly element: HTMLElement;
  render(preview: SkillPreview): void;
  /** The file cannot be previewed (binary, unreadable): the message replaces the preview. */
  showError(message: string): void;
}

const LEVELS = ['0 · one job', '1 · workflow of skills', '2 · adapts its parameters'];

function section(id: string, title: string, ...content: (Node | undefined)[]): HTMLElement {
  return el('section', { class: 'card', 'aria-labelledby': id }, el('h2', { id }, title), ...content);
}

function none(text = 'none'): HTMLElement {
  return el('span', { class: 'muted' }, text);
}

function badges(values: readonly string[], kind: string): HTMLElement {
  if (values.length === 0) return none();
  const list = el('ul', { class: `badges ${kind}` });
  for (const value of values) list.append(el('li', { class: 'badge dim' }, value));
  return list;
}

function frontmatterCard(preview: SkillPreview, findings: readonly PreviewFinding[], send: (message: PreviewToHost) => void): HTMLElement {
  const { card } = preview;
  const rows: [string, Node][] = [
    ['Name', card.name ? el('span', { class: 'fm-name' }, card.name) : none('missing')],
    ['Description', card.description ? el('span', { class: 'fm-description' }, card.description) : none('missing')],
    ['Tags', badges(card.tags, 'tags')],
    ['Level', card.level !== undefined ? el('span', {}, LEVELS[card.level] ?? String(card.level)) : none('not 0, 1 or 2')],
    ['Version', card.version ? el('span', {}, card.version) : none()],
    ['Permissions', badges(card.permissions, 'permissions')],
    ['Platforms', card.platforms.length > 0 ? badges(card.platforms, 'platforms') : none('all')],
  ];
  const list = el('dl', { class: 'frontmatter' });
  for (const [term, value] of rows) list.append(el('dt', {}, term), el('dd', {}, value));
  return section('preview-frontmatter', 'Frontmatter', list, findings.length > 0 ? findingList(findings, send, 'Findings about the frontmatter') : undefined);
}

/** The catalog text is literal when it starts like a catalog line ("- " or "### "); otherwise it says why there is none. */
function catalogSection(line: string, listed: boolean): HTMLElement {
  const content = listed
    ? [el('p', { class: 'muted' }, 'The model sees this in the skills catalog of its system prompt:'), el('pre', { class: 'catalog-line' }, el('code', {}, line))]
    : [el('p', { class: 'catalog-reason' }, line)];
  return section('preview-catalog', 'In the catalog', ...content);
}

export function createPreviewView(send: (message: PreviewToHost) => void): PreviewView {
  const element = el('div', { class: 'preview' });
  let shownFile: string | undefined;

  return {
    element,
    render(preview) {
      const name = preview.card.name ?? preview.file.split(/[\\/]/).slice(-2, -1)[0] ?? 'SKILL.md';
      const shortPath = preview.file.split(/[\\/]/).slice(-2).join('/');
      const top = preview.findings.filter((finding) => finding.line === undefined || finding.line < preview.bodyLine);
      const inBody = preview.findings.filter((finding) => finding.line !== undefined && finding.line >= preview.bodyLine);
      const header = el(
        'header',
        { class: 'preview-header' },
        el('h1', {}, name),
        el('span', { class: 'muted path', title: preview.file }, shortPath),
        el('span', { class: `badge ${preview.findings.some((f) => f.severity === 'error') ? 'warn' : 'dim'}`, 'data-testid': 'finding-summary' }, findingSummary(preview.findings)),
      );
      const parseError = preview.parseError
        ? el('div', { class: 'notice error parse-error', role: 'alert' }, el('span', {}, `The frontmatter could not be read: ${preview.parseError} The body is shown below.`))
        : undefined;
      const workflow = preview.workflow ? section('preview-workflow', 'Workflow', renderWorkflowDiagram(preview.workflow)) : undefined;
      const body = el('section', { class: 'body', 'aria-labelledby': 'preview-body' }, el('h2', { id: 'preview-body', class: 'sr-only' }, 'Instructions'), renderBody(preview, inBody, send));
      const children = [
        header,
        parseError,
        frontmatterCard(preview, top, send),
        catalogSection(preview.catalogLine, preview.catalogListed),
        preview.triggering ? renderTriggering(preview.triggering, send) : undefined,
        workflow,
        ...(preview.runtime ? renderRuntime(preview.runtime, send) : []),
        section('preview-files', 'Files', renderFileTree(preview.files, send)),
        body,
      ].filter((node): node is HTMLElement => node !== undefined);
      element.replaceChildren(...children);
      document.title = `Preview ${name}`;
      // Typing keeps the reader's place; another skill starts at its top.
      if (shownFile !== undefined && shownFile !== preview.file) window.scrollTo(0, 0);
      shownFile = preview.file;
    },
    showError(message) {
      shownFile = undefined;
      element.replaceChildren(el('div', { class: 'notice error', role: 'alert' }, el('span', {}, message)));
    },
  };
}
