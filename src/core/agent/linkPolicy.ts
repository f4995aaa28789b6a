import * as path from 'node:path';

/**
 * What a link clicked in model output may open. Web and mail links go to the editor's external
 * link handling (which asks about untrusted domains); relative and `file:` links open only when
 * they resolve inside a workspace folder; everything else (javascript:, data:, command:, vscode:,
 * file paths outside) is refused with a reason a person can read.
 */
export type LinkDecision =
  | { readonly kind: 'external'; readonly url: string }
  | { readonly kind: 'file'; readonly path: string; readonly line?: number }
  | { readonly kind: 'refuse'; readonly reason: string };

const EXTERNAL = new Set(['http:', 'https:', 'mailto:']);

function inside(folders: readonly string[], target: string): boolean {
  return folders.some((folder) => {
    const relative = path.relative(folder, target);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  });
}

function fileDecision(target: string, folders: readonly string[], line?: number): LinkDecision {
  if (!inside(folders, target)) return { kind: 'refuse', reason: `Skillwright only opens files inside the workspace from the chat; "${path.basename(target)}" is outside.` };
  return line !== undefined && line > 0 ? { kind: 'file', path: target, line } : { kind: 'file', path: target };
}

export function decideLink(href: string, folders: readonly string[]): LinkDecision {
  const trimmed = href.trim();
  if (!trimmed) return { kind: 'refuse', reason: 'The link is empty.' };
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (url) {
    if (EXTERNAL.has(url.protocol)) return { kind: 'external', url: url.toString() };
    if (url.protocol === 'file:') return fileDecision(path.resolve(decodeURIComponent(url.pathname)), folders);
    return { kind: 'refuse', reason: `Skillwright does not open ${url.protocol} links from the chat.` };
  }
  const first = folders[0];
  if (!first) return { kind: 'refuse', reason: `"${trimmed.slice(0, 80)}" is a relative link, and no folder is open to resolve it in.` };
  const [file = '', anchor] = trimmed.split('#');
  const line = anchor && /^L\d+$/.test(anchor) ? Number.parseInt(anchor.slice(1), 10) : undefined;
  let decoded = file;
  try {
    decoded = decodeURIComponent(file);
  } catch {
    return { kind: 'refuse', reason: 'The link is not a valid path.' };
  }
  return fileDecision(path.resolve(first, decoded), folders, line);
}
