import type { PreviewToHost, SkillPreview } from '../../shared/previewProtocol';
import { el } from '../dom';
import { interceptLinks, renderMarkdown } from '../markdown';
import type { PreviewFinding } from './findingList';
import { findingList } from './findingList';

/** The first line (in the SKILL.md) of a rendered top-level block, from markdown-it's positions. */
function blockLine(node: Element, bodyLine: number): number | undefined {
  const own = node.getAttribute('data-line') ?? node.querySelector(':scope > code[data-line]')?.getAttribute('data-line');
  return own ? bodyLine + Number(own) : undefined;
}

/**
 * The body rendered as Markdown (raw HTML off, sanitised), with each finding about a body line
 * placed right after the block that holds that line. Links go to the host, which checks them.
 */
export function renderBody(preview: SkillPreview, findings: readonly PreviewFinding[], send: (message: PreviewToHost) => void): HTMLElement {
  const article = el('article', { class: 'markdown-body', 'aria-label': 'Instructions (the body of SKILL.md)' });
  interceptLinks(article, (href) => send({ type: 'preview/openLink', href }));
  if (preview.body.trim() === '') {
    article.append(el('p', { class: 'muted' }, 'The body is empty: after the frontmatter, write what the agent should do.'));
    if (findings.length > 0) article.append(findingList(findings, send, 'Findings about the body'));
    return article;
  }
  const fragment = renderMarkdown(preview.body, { sourceLines: true });
  const blocks = [...fragment.children].map((node) => ({ node, line: blockLine(node, preview.bodyLine) }));
  article.append(fragment);

  // Findings before the first marked block go first; the rest after the last block starting at or before their line.
  const sorted = [...findings].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const placed = new Map<Element | null, PreviewFinding[]>();
  for (const finding of sorted) {
    let anchor: Element | null = null;
    for (const block of blocks) {
      if (block.line !== undefined && block.line <= (finding.line ?? 0)) anchor = block.node;
      else if (block.line !== undefined) break;
    }
    const group = placed.get(anchor) ?? [];
    group.push(finding);
    placed.set(anchor, group);
  }
  for (const [anchor, group] of placed) {
    const lines = [...new Set(group.map((finding) => (finding.line ?? 0) + 1))];
    const list = findingList(group, send, `Findings on line${lines.length > 1 ? 's' : ''} ${lines.join(', ')}`);
    if (anchor) anchor.after(list);
    else article.prepend(list);
  }
  return article;
}
