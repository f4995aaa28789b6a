import type { AreaMessage, HostToWebview, WebviewToHost } from '../shared/protocol';

export type Send = (message: WebviewToHost) => void;

/** The tabs whose content comes from a host controller of the same area. */
export type ViewArea = 'chat' | 'skills' | 'memory' | 'history';

/** One tab's content: it owns its element and renders its area's messages. */
export interface TabView<A extends ViewArea> {
  readonly element: HTMLElement;
  handle(message: AreaMessage<HostToWebview, A>): void;
  /** Moves keyboard focus into the tab; `target` names a control (e.g. `search`). */
  focus(target?: string): void;
}
