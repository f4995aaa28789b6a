import * as vscode from 'vscode';
import type { EditorChatContext } from '../../core/agent/editorChatTools';
import { participantSystemPrompt } from '../../core/agent/participantPrompt';
import { DisposableStore } from '../../core/base/disposableStore';
import type { Logger } from '../../core/base/logger';
import { describeError } from '../../core/base/logger';
import { transcriptFacts } from '../../core/skills/draft/skillDraftFacts';
import type { SessionService } from '../history/sessionService';
import type { MemoryService } from '../memory/memoryService';
import type { ModelSetup } from '../models/modelSetup';
import type { SaveAsSkill } from '../saveAsSkill/saveAsSkill';
import { SaveAsSkillFlow } from '../saveAsSkill/saveAsSkillFlow';
import type { SkillService } from '../skills/skillService';
import type { ParticipantServices } from './chatParticipant';
import { participantHandler, registerChatParticipant } from './chatParticipant';
import { registerLanguageModelTools } from './languageModelTools';

export interface VscodeChatDeps {
  readonly extensionUri: vscode.Uri;
  readonly skills: SkillService;
  readonly memory: MemoryService;
  readonly sessions: SessionService;
  readonly saveAsSkill: SaveAsSkill;
  readonly models: ModelSetup;
  readonly logger: Logger;
}

const SUGGESTIONS = 3;

/**
 * Skillwright inside VS Code's own chat: the language-model tools and the `@skillwright`
 * participant, both over the window's services and the core's logic. Registered at activation;
 * nothing is read until a tool or the participant is used.
 */
export class VscodeChat implements vscode.Disposable {
  /** The tools registered with `vscode.lm` (all four unless the editor refused one). */
  readonly tools: readonly string[];
  /** The participant, or undefined in an editor without the chat API. */
  readonly participant: vscode.ChatParticipant | undefined;
  /** The participant's handler (also reachable as `participant.requestHandler`). */
  readonly handler: vscode.ChatRequestHandler;
  private readonly store: DisposableStore;
  private readonly saveFlow: SaveAsSkillFlow;

  constructor(private readonly deps: VscodeChatDeps) {
    this.store = new DisposableStore(deps.logger);
    this.saveFlow = new SaveAsSkillFlow({ skills: deps.skills, models: deps.models, review: deps.saveAsSkill.review, logger: deps.logger });
    this.tools = registerLanguageModelTools(this.store, () => this.toolContext(), deps.logger);
    this.handler = participantHandler(() => this.services(), deps.logger);
    let participant: vscode.ChatParticipant | undefined;
    try {
      participant = registerChatParticipant(this.store, deps.extensionUri, this.handler);
    } catch (error) {
      deps.logger.warn(`The @skillwright chat participant could not be registered: ${describeError(error)}`);
    }
    this.participant = participant;
  }

  dispose(): void {
    this.store.dispose();
  }

  /** What the tools work on now; the skill service holds project skills back in Restricted Mode and without consent. */
  async toolContext(): Promise<EditorChatContext> {
    const { skills, sessions, memory, logger } = this.deps;
    await skills.ready;
    return {
      skills: { fs: skills.fs, index: skills.skillIndex, search: skills.search, usage: skills.usage, logger },
      sessions: { index: sessions.index, logger },
      memory: { takeMemorySnapshot: () => memory.store.takeMemorySnapshot(), projectUnavailableReason: () => memory.projectUnavailableReason() },
      logger,
    };
  }

  private async services(): Promise<ParticipantServices> {
    const { skills, memory, logger } = this.deps;
    const tools = await this.toolContext();
    const trusted = vscode.workspace.isTrusted;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ name: folder.name, fsPath: folder.uri.fsPath }));
    return {
      tools,
      trusted,
      logger,
      systemPrompt: async (toolNames) => {
        const snapshot = await memory.store.takeMemorySnapshot();
        const prompt = await participantSystemPrompt({ fs: skills.fs, folders, catalog: skills.catalog().text, toolNames, memory: snapshot.text, date: new Date().toISOString().slice(0, 10), trusted });
        return prompt.text;
      },
      suggest: (text) => skills.search.suggest(text, { top: SUGGESTIONS }).map((hit) => ({ name: hit.record.name, description: hit.record.description })),
      save: (messages) => this.saveFlow.run(transcriptFacts(messages), {}),
      linkOf: (file) => vscode.Uri.file(file).toString(),
    };
  }
}
