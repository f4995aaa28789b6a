import * as vscode from 'vscode';

/** Folders the preview may load from; also its `localResourceRoots`. Skill folders are not among them. */
export function previewResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/**
 * The SKILL.md preview's HTML shell: the same policy as the panel (scripts only with a fresh nonce,
 * styles and images only from the extension or data: URIs, no network, no inline styles), its own
 * bundle and stylesheet. Everything it shows arrives by postMessage after `preview/ready`.
 */
export function renderPreviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'preview.js'));
  const styles = ['panel.css', 'preview.css'].map((name) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', name)));
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
<title>Skill preview</title>
</head>
<body class="skill-preview">
<main id="preview" aria-busy="true"><p class="muted">Loading the preview…</p></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
