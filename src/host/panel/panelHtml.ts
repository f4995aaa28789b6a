import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** A fresh CSP nonce per render; 128 bits from the OS CSPRNG. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Folders our webviews may load files from; also their `localResourceRoots`. Skill folders are not among them. */
export function panelResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

export interface WebviewShell {
  /** The bundle in `dist/`. */
  readonly script: string;
  /** Stylesheets in `media/`, in order. */
  readonly styles: readonly string[];
  readonly title: string;
  readonly bodyClass?: string;
  /**
   * The element the script renders into, what it shows until then, and `data-*` values the script
   * reads before any message arrives (e.g. the preview's file, so it can be restored from the start).
   */
  readonly main: { readonly id: string; readonly loading: string; readonly data?: Readonly<Record<string, string>> };
  /** Announce changes of the whole page to screen readers (the panel; not the preview, which re-renders as you type). */
  readonly live?: boolean;
}

/**
 * The HTML shell of every Skillwright webview. Scripts run only with the nonce, styles, fonts and
 * images come only from the extension (images also from data: URIs), and there is no network,
 * no frames, no forms and no `<base>`: everything a page shows arrives by postMessage.
 */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string, shell: WebviewShell): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', shell.script));
  const styles = shell.styles.map((name) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', name)));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "form-action 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles.map((style) => `<link rel="stylesheet" href="${style.toString()}">`).join('\n')}
<title>${shell.title}</title>
</head>
<body${shell.bodyClass ? ` class="${shell.bodyClass}"` : ''}>
<main id="${shell.main.id}"${dataAttributes(shell.main.data)}${shell.live ? ' aria-live="polite"' : ''} aria-busy="true"><p class="muted">${shell.main.loading}</p></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

/** `data-*` attributes; names are ours (lower case), values are escaped because they may be paths. */
function dataAttributes(data: Readonly<Record<string, string>> | undefined): string {
  if (!data) return '';
  return Object.entries(data)
    .map(([name, value]) => ` data-${name}="${escapeAttribute(value)}"`)
    .join('');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The sidebar panel: one stylesheet per tab, so each tab's styles live beside its view. */
export function renderPanelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string): string {
  return renderWebviewHtml(webview, extensionUri, nonce, {
    script: 'webview.js',
    styles: ['panel.css', 'chat.css', 'skills.css', 'memory.css', 'history.css'],
    title: 'Skillwright',
    main: { id: 'app', loading: 'Loading Skillwright…' },
    live: true,
  });
}
