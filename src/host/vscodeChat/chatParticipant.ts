import * as vscode from 'vscode';
import { participantFollowups } from '../../core/agent/participantFollowups';
import { runParticipantTurn } from '../../core/agent/participantTurn';
import type { ParticipantDeps, ParticipantHistoryTurn, ParticipantStream } from '../../core/agent/participantTypes';
import { PARTICIPANT_ID } from '../../core/agent/participantTypes';
import type { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { VscodeLmChatModel } from '../models/vscodeLmChatModel';
import { signalOf } from './languageModelTools';

/** Everything but the request's own model: the host's services behind the core's ports. */
export type ParticipantServices = Omit<ParticipantDeps, 'model'>;

/** The turns VS Code hands back (only this participant's), as the core reads them. */
export function historyOf(context: vscode.ChatContext): ParticipantHistoryTurn[] {
  return context.history.map((turn): ParticipantHistoryTurn => {
    if (turn instanceof vscode.ChatRequestTurn) return { kind: 'request', prompt: turn.prompt, ...(turn.command ? { command: turn.command } : {}) };
    const text = turn.response
      .map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : ''))
      .join('');
    return { kind: 'response', text, metadata: turn.result.metadata };
  });
}

export function streamOf(response: vscode.ChatResponseStream): ParticipantStream {
  return {
    markdown: (text) => response.markdown(text),
    progress: (text) => response.progress(text),
    reference: (file) => response.reference(vscode.Uri.file(file)),
    button: (button) => response.button({ title: button.title, command: button.command, arguments: button.file ? [vscode.Uri.file(button.file)] : [] }),
  };
}

/** The `@skillwright` request handler: VS Code's request and stream mapped onto the core's turn. */
export function participantHandler(services: () => Promise<ParticipantServices>, logger: Logger): vscode.ChatRequestHandler {
  return async (request, context, response, token) => {
    const cancel = signalOf(token);
    try {
      const deps: ParticipantDeps = { ...(await services()), model: request.model ? new VscodeLmChatModel(request.model) : undefined };
      const result = await runParticipantTurn({ prompt: request.prompt, ...(request.command ? { command: request.command } : {}), history: historyOf(context) }, deps, streamOf(response), cancel.signal);
      return { metadata: result.metadata, ...(result.errorDetails ? { errorDetails: { message: result.errorDetails.message } } : {}) };
    } catch (error) {
      logger.error(`@skillwright failed: ${describeError(error)}`);
      return { errorDetails: { message: `Skillwright could not answer: ${describeError(error)}` } };
    } finally {
      cancel.dispose();
    }
  };
}

/**
 * Creates the participant contributed in package.json. A follow-up without a command goes to
 * plain chat with `@skillwright`: VS Code sends a follow-up to the turn's own command unless its
 * `command` is set, and an empty one means none.
 */
export function registerChatParticipant(store: DisposableStore, extensionUri: vscode.Uri, handler: vscode.ChatRequestHandler): vscode.ChatParticipant {
  const participant = store.add(vscode.chat.createChatParticipant(PARTICIPANT_ID, handler));
  participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
  participant.followupProvider = {
    provideFollowups: (result) => participantFollowups(result.metadata).map((followup) => ({ prompt: followup.prompt, label: followup.label, command: followup.command ?? '' })),
  };
  return participant;
}
