import type * as vscode from 'vscode';
import { panelResourceRoots, renderWebviewHtml } from '../panel/panelHtml';

/** Folders the preview may load from: the same as the panel's. Skill folders are not among them. */
export function previewResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return panelResourceRoots(extensionUri);
}

/**
 * The SKILL.md preview's page: the panel's policy with its own bundle and stylesheet. `file` is the
 * SKILL.md shown first; the webview keeps it with setState at once, so the panel can be restored
 * after a window reload even if no preview model had arrived yet.
 */
export function renderPreviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string, file: string): string {
  return renderWebviewHtml(webview, extensionUri, nonce, {
    script: 'preview.js',
    styles: ['panel.css', 'preview.css'],
    title: 'Skill preview',
    bodyClass: 'skill-preview',
    main: { id: 'preview', loading: 'Loading the preview…', data: { file } },
  });
}
