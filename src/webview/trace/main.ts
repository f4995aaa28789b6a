import type { HostToTrace, TraceModel, TraceToHost } from '../../shared/traceProtocol';
import { parseHostTraceMessage } from '../../shared/traceProtocol';
import { getVsCodeApi } from '../vscodeApi';
import { createTraceTimelineView } from './traceTimelineView';

/** What the page keeps across being hidden (it is torn down then): the trace and the rows opened. */
interface TraceState {
  readonly trace?: TraceModel;
  readonly expanded?: readonly string[];
}

const api = getVsCodeApi<TraceState>();
const root = document.getElementById('trace') as HTMLElement;
const kept = api.getState();
let trace: TraceModel | undefined = kept?.trace;
const expanded = new Set<string>(Array.isArray(kept?.expanded) ? kept.expanded.filter((id): id is string => typeof id === 'string') : []);

function save(): void {
  api.setState({ ...(trace ? { trace } : {}), expanded: [...expanded] });
}

function send(message: TraceToHost): void {
  api.postMessage(message);
}

const view = createTraceTimelineView(send, expanded, save);
root.replaceChildren(view.element);

function route(message: HostToTrace): void {
  switch (message.type) {
    case 'trace/show':
      // Another run: its rows start closed.
      if (trace?.traceId !== message.trace.traceId) expanded.clear();
      trace = message.trace;
      view.render(message.trace);
      save();
      return;
    case 'trace/error':
      view.showError(message.message);
      return;
    default: {
      const never: never = message;
      throw new Error(`Unhandled message: ${JSON.stringify(never)}`);
    }
  }
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseHostTraceMessage(event.data);
  if (!parsed.ok) {
    console.warn(`Skillwright trace dropped a message: ${parsed.error}`);
    return;
  }
  route(parsed.value);
});

if (trace) view.render(trace);
root.setAttribute('aria-busy', 'false');
send({ type: 'trace/ready' });
