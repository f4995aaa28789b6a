import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** A fresh CSP nonce per render; 128 bits from the OS CSPRNG. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/** Folders the panel may load files from; also used for `localResourceRoots`. */
export function panelResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** One stylesheet per tab, so each tab's styles live beside its view. */
const PANEL_STYLES = ['panel.css', 'chat.css', 'skills.css', 'memory.css', 'history.css'];

/**
 * The panel's HTML shell. Scripts run only with the nonce, styles only from the extension, and
 * there is no network access: everything the page shows arrives by postMessage.
 */
export function renderPanelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const styles = PANEL_STYLES.map((name) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', name)));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles.map((style) => `<link rel="stylesheet" href="${style.toString()}">`).join('\n')}
<title>Skillwright</title>
</head>
<body>
<main id="app" aria-live="polite" aria-busy="true"><p class="muted">Loading Skillwright…</p></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
