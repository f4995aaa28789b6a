import type { Logger } from '../base/logger';
import { describeError } from '../base/logger';
import type { MemoryReadContext } from '../memory/memoryReadTool';
import { MEMORY_READ_TOOL } from '../memory/memoryReadTool';
import type { SessionSearchContext } from '../sessions/sessionSearchTool';
import { SESSION_SEARCH_TOOL } from '../sessions/sessionSearchTool';
import type { SkillToolContext } from '../skills/tools/skillToolContext';
import { SKILL_VIEW_TOOL, SKILLS_LIST_TOOL } from '../skills/tools/skillTools';
import { clipLine } from '../text/clip';
import type { AnyToolDefinition } from '../toolkit/toolDefinition';
import { isReadOnly, jsonSchemaOf, runToolDefinition } from '../toolkit/toolDefinition';
import type { ToolResult } from '../toolkit/toolResult';

/**
 * Skillwright's read tools offered to VS Code's own chat as language-model tools: the same
 * definitions (arguments, checks, results) our agent uses, under prefixed names so they cannot
 * clash with other extensions' tools. package.json's `languageModelTools` must equal
 * `languageModelToolContribution` of each (a unit test compares them).
 */
export interface EditorChatContext {
  readonly skills: SkillToolContext;
  readonly sessions: SessionSearchContext;
  readonly memory: MemoryReadContext;
  readonly logger?: Logger;
}

type Family = 'skills' | 'sessions' | 'memory';

export interface EditorChatTool {
  /** The name VS Code and its models know (`skillwright_…`). */
  readonly name: string;
  /** What a user types after `#` to attach the tool to a prompt. */
  readonly toolReferenceName: string;
  readonly displayName: string;
  readonly userDescription: string;
  readonly tags: readonly string[];
  readonly family: Family;
  readonly definition: AnyToolDefinition<never>;
  /** What the model reads instead of the definition's description, where that one assumes our own agent's prompt. */
  readonly modelDescription?: string;
  /** The progress line while it runs, from its (unchecked) input. */
  invocationMessage(input: Record<string, unknown>): string;
}

const text = (input: Record<string, unknown>, key: string): string | undefined => {
  const value = input[key];
  return typeof value === 'string' && value.trim() !== '' ? clipLine(value.trim(), 80) : undefined;
};

export const EDITOR_CHAT_TOOLS: readonly EditorChatTool[] = [
  {
    name: 'skillwright_skills_list',
    toolReferenceName: 'skillwrightSkills',
    displayName: 'Skillwright Skills',
    userDescription: 'List the team\'s Skillwright skills (SKILL.md folders), optionally ranked for a task.',
    tags: ['skillwright', 'skills'],
    family: 'skills',
    definition: SKILLS_LIST_TOOL as AnyToolDefinition<never>,
    // Our agent's description points at the catalog in its prompt; VS Code's chat has no such catalog.
    modelDescription:
      'List the Skillwright skills of this workspace and user: the team\'s reusable instructions (SKILL.md folders) for recurring tasks, with name and short description, grouped by category. Call it before a task the team may have a skill for; pass query (words describing the task) to rank skills by relevance, or category to narrow the list. Then load the one that fits with skillwright_skill_view and follow it.',
    invocationMessage: (input) => {
      const query = text(input, 'query');
      return query ? `Finding Skillwright skills for "${query}"` : 'Listing Skillwright skills';
    },
  },
  {
    name: 'skillwright_skill_view',
    toolReferenceName: 'skillwrightSkill',
    displayName: 'Skillwright Skill',
    userDescription: 'Read a Skillwright skill\'s SKILL.md, or one of its linked files.',
    tags: ['skillwright', 'skills'],
    family: 'skills',
    definition: SKILL_VIEW_TOOL as AnyToolDefinition<never>,
    invocationMessage: (input) => {
      const name = text(input, 'name') ?? 'a skill';
      const file = text(input, 'file_path');
      return file ? `Reading ${file} of the skill ${name}` : `Reading the skill ${name}`;
    },
  },
  {
    name: 'skillwright_session_search',
    toolReferenceName: 'skillwrightSessions',
    displayName: 'Skillwright Session Search',
    userDescription: 'Search earlier Skillwright chat sessions, or read one.',
    tags: ['skillwright', 'sessions', 'search'],
    family: 'sessions',
    definition: SESSION_SEARCH_TOOL as AnyToolDefinition<never>,
    invocationMessage: (input) => {
      const query = text(input, 'query');
      if (text(input, 'session_id')) return 'Reading an earlier Skillwright session';
      return query ? `Searching earlier sessions for "${query}"` : 'Listing recent Skillwright sessions';
    },
  },
  {
    name: 'skillwright_memory_read',
    toolReferenceName: 'skillwrightMemory',
    displayName: 'Skillwright Memory',
    userDescription: 'Read Skillwright\'s saved notes about this project (MEMORY.md) and you (USER.md).',
    tags: ['skillwright', 'memory'],
    family: 'memory',
    definition: MEMORY_READ_TOOL as AnyToolDefinition<never>,
    invocationMessage: (input) => {
      const target = input['target'];
      return target === 'user' ? 'Reading the Skillwright user profile' : target === 'memory' ? 'Reading Skillwright project memory' : 'Reading Skillwright memory';
    },
  },
];

const SHORT_NAMES = new Map(EDITOR_CHAT_TOOLS.map((tool) => [tool.definition.name, tool.name]));
const SHORT_NAME_PATTERN = new RegExp(`\\b(${[...SHORT_NAMES.keys()].join('|')})\\b`, 'g');

/** The definitions speak of each other by their short names; in VS Code's chat they go by the prefixed ones. */
export function withEditorNames(value: string): string {
  return value.replace(SHORT_NAME_PATTERN, (name) => SHORT_NAMES.get(name) ?? name);
}

/** What package.json's `contributes.languageModelTools` lists for a tool. */
export function languageModelToolContribution(tool: EditorChatTool): Record<string, unknown> {
  return {
    name: tool.name,
    toolReferenceName: tool.toolReferenceName,
    displayName: tool.displayName,
    canBeReferencedInPrompt: true,
    icon: '$(book)',
    userDescription: tool.userDescription,
    modelDescription: tool.modelDescription ?? withEditorNames(tool.definition.description),
    tags: [...tool.tags],
    inputSchema: jsonSchemaOf(tool.definition),
  };
}

export function editorChatTool(name: string): EditorChatTool | undefined {
  return EDITOR_CHAT_TOOLS.find((tool) => tool.name === name);
}

/** Every one only reads; VS Code asks for confirmation only for tools that write, and these do not. */
export const EDITOR_CHAT_TOOLS_READ_ONLY = EDITOR_CHAT_TOOLS.every((tool) => isReadOnly(tool.definition));

const HINT_KEYS = ['hint', 'more', 'note', 'how_to_open', 'error', 'query_note'] as const;

/**
 * Runs one tool for VS Code's chat and returns the JSON text the model reads. Every outcome (a
 * bad argument, an unknown name, a bug, a stop) is such a text, never a throw: VS Code shows a
 * throw as a failed tool and the model learns nothing from it.
 */
export async function runEditorChatTool(name: string, input: unknown, ctx: EditorChatContext, signal: AbortSignal): Promise<string> {
  const tool = editorChatTool(name);
  if (!tool) return JSON.stringify({ success: false, error: `unknown tool "${name}"; Skillwright's tools are ${EDITOR_CHAT_TOOLS.map((t) => t.name).join(', ')}` });
  if (signal.aborted) return JSON.stringify({ success: false, error: 'stopped before the tool ran' });
  const context = tool.family === 'skills' ? ctx.skills : tool.family === 'sessions' ? { ...ctx.sessions, signal } : ctx.memory;
  const result: ToolResult = await runToolDefinition(tool.definition as AnyToolDefinition<unknown>, input, context, { signal, turnId: '' }, (error) =>
    ctx.logger?.error(`${tool.name} failed: ${describeError(error)}`),
  );
  const shown: Record<string, unknown> = { ...result };
  for (const key of HINT_KEYS) {
    const value = shown[key];
    if (typeof value === 'string') shown[key] = withEditorNames(value);
  }
  return JSON.stringify(shown);
}
