/** The slice of the webview API the panel uses; typed here because DOM lib has no declaration. */
export interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare function acquireVsCodeApi<State>(): VsCodeApi<State>;

export function getVsCodeApi<State>(): VsCodeApi<State> {
  return acquireVsCodeApi<State>();
}
