import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

/**
 * Markdown from skills, models and tools, rendered for the webview. Two layers: markdown-it with
 * raw HTML off (so `<script>` stays text), then DOMPurify over its output with a short allowlist
 * (no styles, no forms, no frames, no SVG). Links are inert here: the caller sends them to the
 * host, which checks them before opening anything.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

/** What renderMarkdown can add for its caller. */
export interface MarkdownOptions {
  /**
   * Mark each top-level block with `data-line`: its first line in `source` (0-based), so a caller
   * can place things next to the text they concern (the SKILL.md preview's lint findings). A fenced
   * code block carries it on its `<code>`, the element markdown-it puts attributes on.
   */
  readonly sourceLines?: boolean;
}

// Markdown-it's own token positions, so the line numbers are exactly the parser's.
md.core.ruler.push('source_lines', (state) => {
  if (!(state.env as { sourceLines?: boolean } | undefined)?.sourceLines) return;
  for (const token of state.tokens) {
    if (token.map && token.level === 0 && token.nesting >= 0) token.attrSet('data-line', String(token.map[0]));
  }
});

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'em', 'strong', 's', 'del', 'code', 'pre', 'blockquote', 'a', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'img', 'span',
];
const ALLOWED_ATTR = ['href', 'title', 'alt', 'src', 'class', 'start', 'colspan', 'rowspan', 'align'];
/** Only with MarkdownOptions.sourceLines; the hook below keeps it to digits. */
const LINE_ATTR = 'data-line';

let hooked = false;

function installHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      // The href is kept for the host's check; the element never navigates by itself.
      node.setAttribute('data-href', href);
      node.setAttribute('href', '#');
      node.setAttribute('role', 'link');
      if (!node.getAttribute('title') && href) node.setAttribute('title', href);
    }
    if (node.tagName === 'IMG') {
      // Only images the CSP allows anyway (the extension's own files and data: URIs) keep a source.
      const src = node.getAttribute('src') ?? '';
      if (!/^data:image\/(png|gif|jpeg|webp);/i.test(src)) node.removeAttribute('src');
    }
    if (node.hasAttribute(LINE_ATTR) && !/^\d{1,9}$/.test(node.getAttribute(LINE_ATTR) ?? '')) node.removeAttribute(LINE_ATTR);
    if (node.hasAttribute('class')) {
      const kept = (node.getAttribute('class') ?? '').split(/\s+/).filter((name) => /^language-[\w+#.-]{1,40}$/.test(name));
      if (kept.length) node.setAttribute('class', kept.join(' '));
      else node.removeAttribute('class');
    }
  });
}

/** Renders Markdown to a sanitised fragment; never assigns the result to innerHTML of a live node. */
export function renderMarkdown(source: string, options: MarkdownOptions = {}): DocumentFragment {
  installHooks();
  const html = md.render(source, { sourceLines: options.sourceLines === true });
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: options.sourceLines ? [...ALLOWED_ATTR, LINE_ATTR] : ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}

/** Calls `open` with the original href of a rendered link when it is activated. */
export function interceptLinks(root: HTMLElement, open: (href: string) => void): void {
  root.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('a[data-href]') : null;
    if (!target) return;
    event.preventDefault();
    const href = target.getAttribute('data-href');
    if (href) open(href);
  });
}
