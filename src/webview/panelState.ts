import type { PanelStatus, PanelTab } from '../shared/protocol';
import { getVsCodeApi } from './vscodeApi';

/**
 * What the panel keeps across reloads (the webview is rebuilt whenever it is hidden). Each tab
 * stores its own slice under its name; values must be plain JSON.
 */
export interface PanelState {
  tab?: PanelTab;
  status?: PanelStatus;
  [slice: string]: unknown;
}

const api = getVsCodeApi<PanelState>();
let state: PanelState = api.getState() ?? {};

export function panelState(): Readonly<PanelState> {
  return state;
}

export function updatePanelState(patch: Partial<PanelState>): void {
  state = { ...state, ...patch };
  api.setState(state);
}

export function postToHost(message: unknown): void {
  api.postMessage(message);
}
