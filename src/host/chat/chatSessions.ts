import type * as vscode from 'vscode';
import type { SessionData } from '../../core/sessions/sessionLog';

/**
 * What other parts of the host (History tab, "Save this as a skill") need from the chat: which
 * session is open, and opening another one. Implemented by the chat controller.
 */
export interface ChatSessions {
  /** The session shown in the chat, once its first message was sent (or one was resumed). */
  readonly currentSessionId: string | undefined;
  /** The open session's records as logged so far, or undefined when nothing was said yet. */
  currentSession(): Promise<SessionData | undefined>;
  /** Resumes a session in the chat tab, scrolled to `focusMessageId` when given. */
  openSession(id: string, focusMessageId?: string): Promise<void>;
  /** A session was deleted elsewhere: if it is open, the chat starts fresh. */
  forgetSession(id: string): void;
  readonly onDidChangeSession: vscode.Event<string | undefined>;
}
