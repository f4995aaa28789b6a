import type { ChatMessage, ToolCall } from '../llm/chatTypes';
import type { TokenCounter } from '../llm/tokenCounter';
import { clipEnd } from '../text/clip';
import type { CompactionInfo } from './compactionInfo';
import { parseJsonObject } from '../../shared/system/jsonObject';

export const SKILL_VIEW_TOOL = 'skill_view';
export const SKILL_RUN_TOOL_NAME = 'skill_run';
export const MEMORY_TOOL_NAME = 'memory';
const MAX_MEMORY_LINE = 200;

/** What the compacted part of a conversation did that must outlive it. */
export interface CompactedFacts {
  /** Skills loaded (skill_view of SKILL.md) or run (skill_run), first use first. */
  readonly skills: readonly string[];
  /** The SKILL.md text a skill_view result carried, by skill: the fallback when the skill cannot be read again. */
  readonly viewed: ReadonlyMap<string, string>;
  /** Memory writes that succeeded, one line each ("add memory: …"). */
  readonly memoryWrites: readonly string[];
}


const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** The skills and memory writes in `messages`, after those `prior` compactions carried. */
export function compactedFacts(messages: readonly ChatMessage[], prior: { readonly skills: readonly string[]; readonly memoryWrites: readonly string[] }): CompactedFacts {
  const results = new Map<string, Record<string, unknown> | undefined>();
  for (const message of messages) if (message.role === 'tool') results.set(message.toolCallId, parseJsonObject(message.content));
  const skills: string[] = [...prior.skills];
  const viewed = new Map<string, string>();
  const memoryWrites: string[] = [...prior.memoryWrites];
  const addSkill = (name: string) => {
    if (!skills.includes(name)) skills.push(name);
  };
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const result = results.get(call.id);
      // A call whose result says it failed loaded nothing and wrote nothing.
      if (result?.['success'] === false) continue;
      const args = parseJsonObject(call.arguments) ?? {};
      if (call.name === SKILL_VIEW_TOOL || call.name === SKILL_RUN_TOOL_NAME) {
        const name = str(args['name']);
        const file = str(args['file_path'])?.replace(/^\.?\//, '');
        if (name === undefined || (file !== undefined && file !== 'SKILL.md')) continue;
        addSkill(name);
        const content = str(result?.['content']);
        if (call.name === SKILL_VIEW_TOOL && content !== undefined) viewed.set(name, content);
      } else if (call.name === MEMORY_TOOL_NAME) {
        memoryWrites.push(...memoryLines(call, args, result));
      }
    }
  }
  return { skills, viewed, memoryWrites };
}

function memoryLines(call: ToolCall, args: Record<string, unknown>, result: Record<string, unknown> | undefined): string[] {
  const actions = Array.isArray(args['actions']) ? (args['actions'] as unknown[]) : [args];
  const lines: string[] = [];
  const proposed = result !== undefined && /propos/i.test(JSON.stringify(result).slice(0, 2_000)) ? ' (proposed, waiting for review)' : '';
  for (const item of actions) {
    if (item === null || typeof item !== 'object') continue;
    const record = item as Record<string, unknown>;
    const action = str(record['action']);
    if (action !== 'add' && action !== 'replace' && action !== 'remove') continue;
    const target = str(record['target']) ?? 'memory';
    const what = action === 'remove' ? str(record['old_text']) : str(record['content']);
    lines.push(`${action} ${target}: ${clipEnd((what ?? '').replace(/\s+/g, ' ').trim(), MAX_MEMORY_LINE)}${proposed}`);
  }
  if (lines.length === 0 && call.arguments.trim() !== '') lines.push(`${call.name}: ${clipEnd(call.arguments.replace(/\s+/g, ' '), MAX_MEMORY_LINE)}`);
  return lines;
}

export interface ReattachedSkills {
  readonly skills: CompactionInfo['skills'];
  /** The section appended after the summary; '' when no skill was used. */
  readonly text: string;
}

/**
 * Re-attaches the skills: each SKILL.md in full while the budget lasts (read again through
 * `readSkill`, else the text its skill_view returned), else a pointer that says to load it again
 * and why it is only a pointer.
 */
export async function reattachSkills(
  facts: CompactedFacts,
  options: { readonly counter: TokenCounter; readonly budget: number; readonly readSkill?: (name: string) => Promise<string | undefined> },
): Promise<ReattachedSkills> {
  if (facts.skills.length === 0) return { skills: [], text: '' };
  let left = options.budget;
  const skills: { name: string; attached: 'full' | 'pointer'; reason?: string }[] = [];
  const bodies: string[] = [];
  for (const name of facts.skills) {
    let text: string | undefined;
    try {
      text = (await options.readSkill?.(name)) ?? undefined;
    } catch {
      text = undefined;
    }
    text ??= facts.viewed.get(name);
    if (text === undefined) {
      skills.push({ name, attached: 'pointer', reason: 'its SKILL.md could not be read (moved, renamed or deleted?)' });
      continue;
    }
    const body = `<skill name="${name}">\n${text.trim()}\n</skill>`;
    const cost = options.counter.count(body);
    if (cost > left) {
      skills.push({ name, attached: 'pointer', reason: `SKILL.md is ${cost} tokens, over the ${Math.max(0, left)} tokens left for re-attached skills` });
      continue;
    }
    left -= cost;
    skills.push({ name, attached: 'full' });
    bodies.push(body);
  }
  const list = skills.map((skill) =>
    skill.attached === 'full' ? `- ${skill.name}: attached in full below` : `- ${skill.name}: load it again with skill_view(name="${skill.name}") before following it (${skill.reason ?? 'not attached'})`,
  );
  const text = [
    '<skills-reattached>',
    'Skills loaded or run earlier in this conversation. Keep following them as before:',
    ...list,
    ...bodies,
    '</skills-reattached>',
  ].join('\n');
  return { skills, text };
}

/** The memory section after the summary; '' when this session wrote no memory. */
export function memorySection(writes: readonly string[]): string {
  if (writes.length === 0) return '';
  return ['<memory-writes>', 'Memory written in this session (already saved; do not write it again):', ...writes.map((line) => `- ${line}`), '</memory-writes>'].join('\n');
}
