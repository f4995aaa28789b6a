import type { HostToPreview, PreviewToHost } from '../../shared/previewProtocol';
import { assertNever } from '../../shared/protocol';
import { parseHostPreviewMessage } from '../../shared/previewProtocol';
import { getVsCodeApi } from '../vscodeApi';
import type { PreviewState } from './previewState';
import { stateAfter, stateOnLoad } from './previewState';
import { createPreviewView } from './previewView';

const api = getVsCodeApi<PreviewState>();
const root = document.getElementById('preview') as HTMLElement;
let state = stateOnLoad(api.getState(), root.dataset['file']);

function send(message: PreviewToHost): void {
  api.postMessage(message);
}

const view = createPreviewView(send);
root.replaceChildren(view.element);

function route(message: HostToPreview): void {
  state = stateAfter(state, message);
  api.setState(state);
  switch (message.type) {
    case 'preview/update':
      view.render(message.preview);
      return;
    case 'preview/error':
      view.showError(message.message);
      return;
    default:
      assertNever(message);
  }
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseHostPreviewMessage(event.data);
  if (!parsed.ok) {
    console.warn(`Skillwright preview dropped a message: ${parsed.error}`);
    return;
  }
  route(parsed.value);
});

// Show the last preview at once after a reload, then ask the host for a fresh one. The state is
// kept before `preview/ready`, so the file is in it by the time the host hears from this webview.
if (state.preview) view.render(state.preview);
api.setState(state);
root.setAttribute('aria-busy', 'false');
send({ type: 'preview/ready' });
