import type { HostToWebview, PanelStatus, WebviewToHost } from '../shared/protocol';
import { assertNever, parseHostMessage } from '../shared/protocol';
import { el } from './dom';
import { renderStatus } from './statusView';
import { getVsCodeApi } from './vscodeApi';

interface PanelState {
  readonly status?: PanelStatus;
}

const vscode = getVsCodeApi<PanelState>();
const app = document.getElementById('app') as HTMLElement;

function send(message: WebviewToHost): void {
  vscode.postMessage(message);
}

function showError(message: string): void {
  const existing = document.getElementById('panel-error');
  const node = el('div', { id: 'panel-error', role: 'alert', class: 'error' }, message);
  if (existing) {
    existing.replaceWith(node);
  } else {
    app.prepend(node);
  }
}

function handle(message: HostToWebview): void {
  switch (message.type) {
    case 'status/update':
      vscode.setState({ status: message.status });
      renderStatus(app, message.status, send);
      return;
    case 'panel/error':
      showError(message.message);
      return;
    default:
      assertNever(message);
  }
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) {
    console.warn(`Skillwright panel dropped a message: ${parsed.error}`);
    return;
  }
  handle(parsed.value);
});

// Show the last known state at once after a reload, then ask the host for a fresh one.
const previous = vscode.getState()?.status;
if (previous) {
  renderStatus(app, previous, send);
}
send({ type: 'panel/ready' });
