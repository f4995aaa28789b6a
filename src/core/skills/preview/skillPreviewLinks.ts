import { clipEnd } from '../../text/clip';
/**
 * What a link clicked in the SKILL.md preview may do. Skill text is untrusted, so the webview never
 * follows a link itself: it sends the href to the host, which asks this function. Only web and mail
 * links leave VS Code; relative links open files of the skill (the host then checks, through real
 * paths, that they stay inside the skill folder); every other scheme is refused with a reason.
 */
export type PreviewLink =
  | { readonly kind: 'external'; readonly url: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'anchor'; readonly fragment: string }
  | { readonly kind: 'refused'; readonly reason: string };

const EXTERNAL_SCHEMES = new Set(['http', 'https', 'mailto']);
const MAX_HREF = 4_000;

export function classifyPreviewLink(href: string): PreviewLink {
  // Browsers drop tabs and line breaks inside URLs and leading control characters and spaces
  // (the URL standard), so "java\tscript:" is javascript: to them: normalise the same way first.
  const cleaned = href.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  if (cleaned === '') return { kind: 'refused', reason: 'The link is empty.' };
  if (cleaned.length > MAX_HREF) return { kind: 'refused', reason: `The link is ${cleaned.length} characters long; links over ${MAX_HREF} are not opened.` };
  if (cleaned.startsWith('#')) return { kind: 'anchor', fragment: cleaned.slice(1) };
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(cleaned)?.[1]?.toLowerCase();
  if (scheme !== undefined && !/^[a-zA-Z]:[\\/]/.test(cleaned)) {
    if (!EXTERNAL_SCHEMES.has(scheme)) {
      return { kind: 'refused', reason: `Links with "${scheme}:" are not opened from a skill preview; only http, https and mailto links and files of the skill are.` };
    }
    let url: URL;
    try {
      url = new URL(cleaned);
    } catch {
      return { kind: 'refused', reason: `"${shorten(cleaned)}" is not a valid URL.` };
    }
    if (scheme !== 'mailto' && url.hostname === '') return { kind: 'refused', reason: `"${shorten(cleaned)}" names no host.` };
    return { kind: 'external', url: url.href };
  }
  if (/^(?:[\\/]|~|[a-zA-Z]:)/.test(cleaned)) {
    return { kind: 'refused', reason: `"${shorten(cleaned)}" is an absolute path; a skill links to its own files with paths relative to its folder, e.g. "references/guide.md".` };
  }
  let target = cleaned.replace(/[?#].*$/s, '');
  try {
    target = decodeURIComponent(target);
  } catch {
    // A stray % stays as written; the file check reports the path if it does not exist.
  }
  if (target === '') return { kind: 'anchor', fragment: '' };
  return { kind: 'file', path: target };
}

const shorten = (text: string): string => clipEnd(text, 80);
