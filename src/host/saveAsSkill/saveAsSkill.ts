import * as path from 'node:path';
import * as vscode from 'vscode';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import type { SessionData } from '../../core/sessions/sessionLog';
import type { SelectionInput } from '../../core/skills/draft/draftFacts';
import { transcriptFacts } from '../../core/skills/draft/skillDraftFacts';
import type { ChatSessions } from '../chat/chatSessions';
import type { ModelSetup } from '../models/modelSetup';
import type { SaveAsSkillArgs, SaveAsSkillResult } from './saveAsSkillArgs';
import { SaveAsSkillFlow } from './saveAsSkillFlow';
import { pickSession } from './saveAsSkillPicks';
import { SaveAsSkillReview } from './saveAsSkillReview';
import type { SessionService } from '../history/sessionService';
import type { SkillService } from '../skills/skillService';

export interface SaveAsSkillOptions {
  readonly skills: SkillService;
  readonly sessions: SessionService;
  readonly chat: ChatSessions;
  readonly models: ModelSetup;
  readonly logger: Logger;
}

const RECENT_SESSIONS = 50;

function cancelled(message: string): SaveAsSkillResult {
  return { outcome: 'cancelled', message };
}

/**
 * "Save This as a Skill" (the chat's session, or a past one) and "Save Selection as a Skill" (the
 * editor's selection): what to draft from; the flow does the rest. Nothing is written before the
 * person confirms the reviewed draft (or the patch of an existing skill).
 */
export class SaveAsSkill implements vscode.Disposable {
  readonly review: SaveAsSkillReview;
  private readonly flow: SaveAsSkillFlow;
  private readonly store: DisposableStore;

  constructor(private readonly options: SaveAsSkillOptions) {
    this.store = new DisposableStore(options.logger);
    this.review = this.store.add(new SaveAsSkillReview(options.logger));
    this.flow = new SaveAsSkillFlow({ skills: options.skills, models: options.models, review: this.review, logger: options.logger });
  }

  /** From `args.sessionId`, `args.selection`, the chat's current session, or a picked past one. */
  async fromSession(args: SaveAsSkillArgs = {}): Promise<SaveAsSkillResult> {
    if (args.selection !== undefined) return this.fromSelection(args);
    const session = await this.session(args.sessionId);
    if (typeof session === 'string') {
      void vscode.window.showInformationMessage(`Skillwright: ${session}`);
      return cancelled(session);
    }
    if (!session) return cancelled('No session was picked; nothing was saved.');
    return this.flow.run(transcriptFacts(session), args);
  }

  /** From `args.selection`, or the active editor's selection. */
  async fromSelection(args: SaveAsSkillArgs = {}): Promise<SaveAsSkillResult> {
    const selection = args.selection !== undefined ? (typeof args.selection === 'string' ? { text: args.selection } : args.selection) : this.editorSelection();
    if (!selection || selection.text.trim() === '') {
      const message = 'Select the text to turn into a skill first (a how-to, a list of steps, shell commands), then run "Save Selection as a Skill" again.';
      void vscode.window.showInformationMessage(`Skillwright: ${message}`);
      return cancelled(message);
    }
    return this.flow.run(transcriptFacts(undefined, selection), args);
  }

  dispose(): void {
    this.store.dispose();
  }

  /** The session to draft from, a message saying why there is none, or undefined when the pick was dismissed. */
  private async session(id: string | undefined): Promise<SessionData | string | undefined> {
    const { sessions, chat } = this.options;
    if (id !== undefined) {
      const session = await sessions.log.read(id);
      if (!session) throw new Error(`There is no session "${id.slice(0, 80)}"; pick one from the History tab.`);
      return session;
    }
    const current = await chat.currentSession();
    if (current && current.messages.length > 0) return current;
    const recent = await sessions.index.listSessions({ limit: RECENT_SESSIONS });
    if (recent.length === 0) {
      return 'There is no chat session to save yet. Chat with the agent first, or select text in an editor and run "Save Selection as a Skill".';
    }
    const picked = await pickSession(recent, 'Save as Skill: which session');
    if (!picked) return undefined;
    const session = await sessions.log.read(picked);
    if (!session) throw new Error('That session was deleted in the meantime; pick another one.');
    return session;
  }

  private editorSelection(): SelectionInput | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    const text = editor.selections
      .filter((selection) => !selection.isEmpty)
      .map((selection) => editor.document.getText(selection))
      .join('\n\n');
    const uri = editor.document.uri;
    // Only a workspace-relative path travels into the draft: an absolute one names this machine.
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const file = folder ? path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/') : uri.scheme === 'file' ? path.basename(uri.fsPath) : undefined;
    return { text, ...(file ? { file } : {}), languageId: editor.document.languageId };
  }
}
