import type * as vscode from 'vscode';
import { panelResourceRoots, renderWebviewHtml } from '../panel/panelHtml';

/** Folders the trace panel may load from: the same as the panel's. */
export function traceResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return panelResourceRoots(extensionUri);
}

/** The Skill Run Trace page: the panel's policy (nonce scripts, no inline styles, no network) with its own bundle. */
export function renderTraceHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string): string {
  return renderWebviewHtml(webview, extensionUri, nonce, {
    script: 'trace.js',
    styles: ['panel.css', 'trace.css'],
    title: 'Skill Run Trace',
    bodyClass: 'skill-trace',
    main: { id: 'trace', loading: 'Loading the trace…' },
  });
}
