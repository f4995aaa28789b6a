import type { HostToPreview, PreviewToHost, SkillPreview } from '../../shared/protocol';
import { assertNever, parseHostPreviewMessage } from '../../shared/protocol';
import { getVsCodeApi } from '../vscodeApi';
import { createPreviewView } from './previewView';

/** What the preview keeps across reloads (VS Code rebuilds a hidden webview panel). */
interface PreviewState {
  preview?: SkillPreview;
}

const api = getVsCodeApi<PreviewState>();
const root = document.getElementById('preview') as HTMLElement;

function send(message: PreviewToHost): void {
  api.postMessage(message);
}

const view = createPreviewView(send);
root.replaceChildren(view.element);

function route(message: HostToPreview): void {
  switch (message.type) {
    case 'preview/update':
      api.setState({ preview: message.preview });
      view.render(message.preview);
      return;
    case 'preview/error':
      api.setState({});
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

// Show the last preview at once after a reload, then ask the host for a fresh one.
// The state is our own, but it is checked like a message so a stale shape from an older version is dropped.
const saved = api.getState()?.preview;
const restored = saved ? parseHostPreviewMessage({ type: 'preview/update', preview: saved }) : undefined;
if (restored?.ok && restored.value.type === 'preview/update') view.render(restored.value.preview);
root.setAttribute('aria-busy', 'false');
send({ type: 'preview/ready' });
