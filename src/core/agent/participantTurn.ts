import * as path from 'node:path';
import { describeError } from '../base/logger';
import type { ChatMessage, ToolCall } from '../llm/chatTypes';
import { MEMORY_READ_TOOL } from '../memory/memoryReadTool';
import { SESSION_SEARCH_TOOL } from '../sessions/sessionSearchTool';
import { SKILL_VIEW_TOOL, SKILLS_LIST_TOOL } from '../skills/tools/skillTools';
import type { AgentTool } from '../toolkit/agentTool';
import { agentToolsOf } from '../toolkit/toolDefinition';
import type { AgentEvent } from './agentLoop';
import { runAgentTurn } from './agentLoop';
import type { EditorChatContext } from './editorChatTools';
import { EDITOR_CHAT_TOOLS } from './editorChatTools';
import { keptMessages, historyMessages } from './participantHistory';
import { listSkillsCommand, saveCommand, searchCommand } from './participantCommands';
import type { ParticipantDeps, ParticipantMetadata, ParticipantRequest, ParticipantResult, ParticipantStream } from './participantTypes';
import { PARTICIPANT_COMMANDS } from './participantTypes';
import { withSkillSuggestions } from './systemPrompt';

/** Model requests in one participant turn at most; VS Code's chat is for questions, not long runs. */
export const PARTICIPANT_MAX_STEPS = 10;
const SAVE_OFFER = /save as skill:/i;
/** Tool calls after which the reply offers Save as Skill, as our own agent's guidance does. */
const SAVE_OFFER_CALLS = 5;

/**
 * The participant's tools: the read tools of our agent (skills, session search, memory) under
 * their own names, so the system prompt's guidance applies as written. It has no tool that
 * writes: edits in VS Code's chat belong to its agent mode, and /save has its own review.
 */
export function participantTools(ctx: EditorChatContext): AgentTool[] {
  const onError = (tool: string, error: unknown) => ctx.logger?.error(`${tool} failed: ${describeError(error)}`);
  return [
    ...agentToolsOf([SKILLS_LIST_TOOL, SKILL_VIEW_TOOL], () => ctx.skills, onError),
    ...agentToolsOf([SESSION_SEARCH_TOOL], () => ctx.sessions, onError),
    ...agentToolsOf([MEMORY_READ_TOOL], () => ctx.memory, onError),
  ];
}

const HELP = [
  'Ask me about a task and I answer with your team\'s Skillwright skills, memory and past sessions at hand.',
  '',
  ...PARTICIPANT_COMMANDS.map((command) => `- \`/${command.name}\`: ${command.description}`),
].join('\n');

/** Runs one request to `@skillwright`; every failure becomes an error the chat view shows, never a throw. */
export async function runParticipantTurn(request: ParticipantRequest, deps: ParticipantDeps, stream: ParticipantStream, signal: AbortSignal): Promise<ParticipantResult> {
  const command = request.command?.trim() || undefined;
  try {
    if (signal.aborted) return { metadata: { ...(command ? { command } : {}), cancelled: true } };
    switch (command) {
      case undefined:
        return await chatTurn(request, deps, stream, signal);
      case 'skills':
        return await listSkillsCommand(request.prompt, deps, stream);
      case 'search':
        return await searchCommand(request.prompt, deps, stream, signal);
      case 'save':
        return await saveCommand(historyMessages(request.history), deps, stream);
      default: {
        const known = PARTICIPANT_COMMANDS.map((c) => `/${c.name}`).join(', ');
        stream.markdown(`There is no command \`/${command}\` here; the commands are ${known}, or ask without one.`);
        return { metadata: { command }, errorDetails: { message: `Unknown command /${command}.` } };
      }
    }
  } catch (error) {
    deps.logger?.error(`@skillwright ${command ? `/${command}` : 'chat'} failed: ${describeError(error)}`);
    return {
      metadata: { ...(command ? { command } : {}), failed: true },
      errorDetails: { message: `Skillwright could not answer: ${describeError(error)}. The Skillwright output channel (Skillwright: Show Logs) has details.` },
    };
  }
}

function progressLine(call: ToolCall): string {
  const tool = EDITOR_CHAT_TOOLS.find((candidate) => candidate.definition.name === call.name);
  let input: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    if (parsed && typeof parsed === 'object') input = parsed as Record<string, unknown>;
  } catch {
    // the loop reports malformed arguments to the model; the progress line needs none
  }
  return tool ? `${tool.invocationMessage(input)}…` : `Running ${call.name}…`;
}

/** The files a successful skill_view read, from the index (its result names the skill, not the path). */
function viewedFiles(result: string, deps: ParticipantDeps): { name: string; files: string[] } | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(result) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (value['success'] !== true || typeof value['name'] !== 'string') return undefined;
  const name = value['name'];
  const index = deps.tools.skills.index;
  const record = index.active().find((candidate) => candidate.name === name && candidate.category === value['category']) ?? index.get(name);
  if (!record) return { name, files: [] };
  const relative = typeof value['file_path'] === 'string' ? value['file_path'] : undefined;
  return { name, files: [relative && value['folder'] !== true ? path.join(record.dir, ...relative.split('/')) : record.file] };
}

async function chatTurn(request: ParticipantRequest, deps: ParticipantDeps, stream: ParticipantStream, signal: AbortSignal): Promise<ParticipantResult> {
  const prompt = request.prompt.trim();
  if (prompt === '') {
    stream.markdown(HELP);
    return { metadata: {} };
  }
  const model = deps.model;
  if (!model) {
    return { metadata: { failed: true }, errorDetails: { message: 'No language model is available to the chat. Pick a model in the chat view\'s model picker and ask again.' } };
  }
  const tools = participantTools(deps.tools);
  const system = await deps.systemPrompt(tools.map((tool) => tool.spec.name));
  const suggestions = (await deps.suggest?.(prompt, signal)) ?? [];
  const messages: ChatMessage[] = [{ role: 'system', content: system }, ...historyMessages(request.history), { role: 'user', content: withSkillSuggestions(prompt, suggestions) }];
  const loaded: string[] = [];
  const referenced = new Set<string>();
  let text = '';
  const onEvent = (event: AgentEvent): void => {
    if (event.type === 'text') {
      text += event.delta;
      stream.markdown(event.delta);
    } else if (event.type === 'tool_start') {
      stream.progress(progressLine(event.call));
    } else if (event.type === 'tool_end' && event.ok && event.call.name === SKILL_VIEW_TOOL.name) {
      const viewed = viewedFiles(event.result, deps);
      if (!viewed) return;
      if (!loaded.includes(viewed.name)) loaded.push(viewed.name);
      for (const file of viewed.files.filter((f) => !referenced.has(f))) {
        referenced.add(file);
        stream.reference(file);
      }
    }
  };
  const result = await runAgentTurn({ model, messages, tools, maxSteps: deps.maxSteps ?? PARTICIPANT_MAX_STEPS, signal, onEvent });
  const metadata: ParticipantMetadata = {
    skills: loaded,
    suggested: suggestions.map((s) => s.name).filter((name) => !loaded.includes(name)),
    toolCalls: result.toolCalls,
    saveOffer: SAVE_OFFER.test(text) || result.toolCalls >= SAVE_OFFER_CALLS,
    messages: keptMessages(result.added),
  };
  if (result.reason === 'aborted') return { metadata: { ...metadata, saveOffer: false, cancelled: true } };
  if (result.reason === 'error') {
    const error = result.error;
    return { metadata: { ...metadata, saveOffer: false, failed: true }, errorDetails: { message: error ? `${error.message} ${error.advice}`.trim() : 'The model failed; try again.' } };
  }
  if (result.reason === 'max_steps') stream.markdown(`\n\n_Stopped after ${deps.maxSteps ?? PARTICIPANT_MAX_STEPS} model requests; ask me to go on if there is more to do._`);
  else if (text.trim() === '') stream.markdown('_The model gave no answer; try asking again or pick another model._');
  return { metadata };
}
