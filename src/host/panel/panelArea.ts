import type { AreaMessage, HostToWebview, WebviewToHost } from '../../shared/protocol';

/** The areas of the panel that a controller of their own serves (chat, skills, memory, history, consent). */
export type ControllerArea = 'chat' | 'skills' | 'memory' | 'history' | 'consent';

/** How a controller talks to the panel; messages are dropped while no webview is showing. */
export interface PanelPort {
  post(message: HostToWebview): void;
  /** A webview is resolved and has said `panel/ready`. */
  readonly isReady: boolean;
}

/** A controller for one area: it receives that area's validated messages. */
export interface PanelArea<A extends ControllerArea> {
  handle(message: AreaMessage<WebviewToHost, A>): Promise<void>;
  /** Called after every `panel/ready` (first load and reloads): push the area's current state. */
  sync(): Promise<void> | void;
}

export function isAreaMessage<A extends ControllerArea>(message: WebviewToHost, area: A): message is AreaMessage<WebviewToHost, A> {
  return message.type.startsWith(`${area}/`);
}
