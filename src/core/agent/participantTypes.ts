import type { CommandId } from '../base/contributions';
import type { Logger } from '../base/logger';
import type { ChatMessage, ChatModel } from '../llm/chatTypes';
import type { EditorChatContext } from './editorChatTools';

/**
 * The `@skillwright` participant of VS Code's chat, as the core sees it: a request, a history, a
 * model and a stream to write to. The host backs these ports with VS Code's chat API
 * (src/host/vscodeChat/); tests back them with the scripted model server and a recording stream.
 */

/** Contributed in package.json `chatParticipants` (a unit test compares them). */
export const PARTICIPANT_ID = 'skillwright-chat';
export const PARTICIPANT_NAME = 'skillwright';
export const PARTICIPANT_COMMANDS = [
  { name: 'skills', description: 'List the Skillwright skills (add words to rank them for a task)' },
  { name: 'save', description: 'Save this conversation as a Skillwright skill' },
  { name: 'search', description: 'Search earlier Skillwright sessions' },
] as const;
export type ParticipantCommand = (typeof PARTICIPANT_COMMANDS)[number]['name'];

export interface ParticipantButton {
  readonly title: string;
  readonly command: CommandId;
  /** An absolute path the host passes to the command as its URI. */
  readonly file?: string;
}

/** What a turn writes to the chat view. */
export interface ParticipantStream {
  markdown(text: string): void;
  progress(text: string): void;
  /** A file the answer drew on (an absolute path), shown in the reply's references. */
  reference(file: string): void;
  button(button: ParticipantButton): void;
}

/** One earlier turn of this participant, as VS Code hands it back. */
export type ParticipantHistoryTurn =
  | { readonly kind: 'request'; readonly prompt: string; readonly command?: string }
  /** `metadata`: what the turn returned (ParticipantMetadata when it was ours and VS Code kept it). */
  | { readonly kind: 'response'; readonly text: string; readonly metadata?: unknown };

export interface ParticipantRequest {
  readonly prompt: string;
  readonly command?: string;
  readonly history: readonly ParticipantHistoryTurn[];
}

/** Kept by VS Code with the reply and handed back with the history and to the follow-ups. */
export interface ParticipantMetadata {
  readonly command?: string;
  /** Skills the turn loaded with skill_view. */
  readonly skills?: readonly string[];
  /** Skills suggested for the message that the model did not load. */
  readonly suggested?: readonly string[];
  /** Skills a /skills reply listed first. */
  readonly listed?: readonly string[];
  readonly query?: string;
  readonly hits?: number;
  readonly toolCalls?: number;
  /** The reply offered to save the approach as a skill (or the task took five or more tool calls). */
  readonly saveOffer?: boolean;
  /** The messages the turn added (tool calls and clipped results), so the next turn and /save see them. */
  readonly messages?: readonly ChatMessage[];
  readonly saved?: string;
  readonly cancelled?: boolean;
  readonly failed?: boolean;
}

export interface ParticipantResult {
  readonly metadata: ParticipantMetadata;
  /** Shown by VS Code as the turn's error. */
  readonly errorDetails?: { readonly message: string };
}

/** A follow-up; `command: undefined` means plain chat with the participant, not the turn's command. */
export interface ParticipantFollowup {
  readonly prompt: string;
  readonly label: string;
  readonly command?: ParticipantCommand;
}

export interface ParticipantSaveOutcome {
  readonly outcome: 'saved' | 'patched' | 'cancelled' | 'refused';
  readonly message: string;
  readonly name?: string;
  readonly file?: string;
}

export interface ParticipantDeps {
  /** The model picked in the chat view (`request.model`); undefined when there is none. */
  readonly model: ChatModel | undefined;
  readonly tools: EditorChatContext;
  /** The layered system prompt (catalog, instruction files, memory snapshot) for these tool names. */
  systemPrompt(toolNames: readonly string[]): Promise<string>;
  /** Skills that may fit the message (sent with it, after the prompt). */
  suggest?(text: string, signal: AbortSignal): Promise<readonly { name: string; description: string }[]> | readonly { name: string; description: string }[];
  /** Save This as a Skill from these messages (the host's review flow); nothing is written unless the person confirms. */
  save(messages: readonly ChatMessage[]): Promise<ParticipantSaveOutcome>;
  /** A link target for a file in the chat's markdown. */
  linkOf(file: string): string;
  /** Restricted Mode: project skills, instruction files and project memory are held back. */
  readonly trusted: boolean;
  readonly maxSteps?: number;
  readonly logger?: Logger;
}
