import { TOP_LEVEL_CATEGORY_LABEL } from '../../shared/system/categoryLabel';
import { COMMANDS } from '../base/contributions';
import type { ChatMessage } from '../llm/chatTypes';
import { SESSION_SEARCH_TOOL } from '../sessions/sessionSearchTool';
import { SKILLS_LIST_TOOL } from '../skills/tools/skillTools';
import { clipLine, oneLine } from '../text/clip';
import type { AnyToolDefinition } from '../toolkit/toolDefinition';
import { runToolDefinition } from '../toolkit/toolDefinition';
import type { ParticipantDeps, ParticipantMetadata, ParticipantResult, ParticipantStream } from './participantTypes';

/** Skills a /skills reply offers follow-ups for. */
const FOLLOWUP_SKILLS = 2;
const SEARCH_HITS = 5;

/** Text from skills and sessions shown as text: nothing in it may turn into links, HTML or formatting. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~]/g, (char) => `\\${char}`);
}

type Listed = { readonly name: string; readonly category?: string; readonly description: string };

function skillLine(skill: Listed, category: string, deps: ParticipantDeps): string {
  const record = deps.tools.skills.index.active().find((candidate) => candidate.name === skill.name && candidate.category === category) ?? deps.tools.skills.index.get(skill.name);
  const name = record ? `[${escapeMarkdown(skill.name)}](${deps.linkOf(record.file)})` : `**${escapeMarkdown(skill.name)}**`;
  return `- ${name}: ${escapeMarkdown(oneLine(skill.description))}`;
}

const run = (definition: AnyToolDefinition<never>, args: unknown, ctx: unknown, signal = new AbortController().signal) =>
  runToolDefinition(definition as AnyToolDefinition<unknown>, args, ctx, { signal, turnId: '' });

/** `/skills [words]`: the skills, grouped by category, or ranked for the words; names link to their SKILL.md. */
export async function listSkillsCommand(prompt: string, deps: ParticipantDeps, stream: ParticipantStream): Promise<ParticipantResult> {
  const query = prompt.trim();
  const result = await run(SKILLS_LIST_TOOL, query ? { query } : {}, deps.tools.skills);
  const restricted = deps.trusted ? '' : '\n\n_This folder is in Restricted Mode: its project skills stay out until you trust it._';
  if (!result.success) {
    stream.markdown(`Could not list the skills: ${escapeMarkdown(result.error)}${restricted}`);
    return { metadata: { command: 'skills', failed: true } };
  }
  const listed: string[] = [];
  const lines: string[] = [];
  if (query) {
    const skills = (result['skills'] as Listed[] | undefined) ?? [];
    lines.push(skills.length === 0 ? `No skill matches "${escapeMarkdown(query)}". Try other words, or \`/skills\` alone for all of them.` : `Skills for "${escapeMarkdown(query)}", best first:`, '');
    for (const skill of skills) {
      lines.push(skillLine(skill, skill.category ?? '', deps));
      listed.push(skill.name);
    }
  } else {
    const groups = (result['categories'] as { category: string; skills: Listed[] }[] | undefined) ?? [];
    const total = typeof result['total'] === 'number' ? result['total'] : 0;
    if (total === 0) {
      lines.push('There are no skills yet. Create one with **Skillwright: New Skill from Template**, or chat with me about a task and then run `/save`.');
    } else {
      lines.push(`${total} skill${total === 1 ? '' : 's'}:`);
    }
    for (const group of groups) {
      // The tool labels the top level for the model; its records have the empty category.
      const category = group.category === TOP_LEVEL_CATEGORY_LABEL ? '' : group.category;
      lines.push('', `**${escapeMarkdown(group.category)}**`, '');
      for (const skill of group.skills) {
        lines.push(skillLine(skill, category, deps));
        listed.push(skill.name);
      }
    }
  }
  if (typeof result['more'] === 'string') lines.push('', `_${escapeMarkdown(result['more'].replace(/\bcategory or query\b/, 'words after /skills'))}_`);
  stream.markdown(lines.join('\n') + restricted);
  if (listed.length === 0 && !query) stream.button({ title: 'New Skill from Template', command: COMMANDS.newSkillFromTemplate });
  return { metadata: { command: 'skills', ...(query ? { query } : {}), listed: listed.slice(0, FOLLOWUP_SKILLS) } };
}

/** `/search words`: earlier Skillwright sessions that mention them (the recent ones without words). */
export async function searchCommand(prompt: string, deps: ParticipantDeps, stream: ParticipantStream, signal: AbortSignal): Promise<ParticipantResult> {
  const query = prompt.trim();
  stream.progress(query ? `Searching earlier sessions for "${clipLine(query, 80)}"…` : 'Listing recent sessions…');
  const result = await run(SESSION_SEARCH_TOOL, query ? { query, limit: SEARCH_HITS } : { limit: 10 }, { ...deps.tools.sessions, signal }, signal);
  if (!result.success) {
    stream.markdown(`The search did not run: ${escapeMarkdown(result.error)}`);
    return { metadata: { command: 'search', query, hits: 0, failed: true } };
  }
  const sessions = (result['sessions'] as Record<string, unknown>[] | undefined) ?? [];
  const lines: string[] = [];
  if (sessions.length === 0) {
    lines.push(query ? `No earlier session mentions "${escapeMarkdown(query)}". Try other or fewer words.` : 'There are no earlier Skillwright sessions yet.');
  } else {
    lines.push(query ? `Earlier sessions about "${escapeMarkdown(query)}"${result['matched'] === 'all' ? '' : ` (${escapeMarkdown(String(result['matched']))})`}:` : 'Recent sessions:');
    for (const session of sessions) {
      const title = escapeMarkdown(clipLine(String(session['title'] ?? 'Untitled session'), 120));
      const when = String(session['updated'] ?? session['created'] ?? '').slice(0, 10);
      lines.push('', `**${title}**${when ? ` · ${when}` : ''}`);
      const hit = session['hit'] as { excerpt?: unknown } | undefined;
      const summary = typeof session['summary'] === 'string' ? session['summary'] : undefined;
      const excerpt = summary ?? (typeof hit?.excerpt === 'string' ? hit.excerpt : undefined);
      if (excerpt) lines.push(`> ${escapeMarkdown(oneLine(excerpt))}`);
    }
  }
  stream.markdown(lines.join('\n'));
  if (sessions.length > 0) stream.button({ title: 'Open in Skillwright History', command: COMMANDS.searchSessions });
  return { metadata: { command: 'search', query, hits: sessions.length } };
}

/** `/save`: Save This as a Skill from this conversation; the host's flow drafts, shows and asks before writing. */
export async function saveCommand(messages: readonly ChatMessage[], deps: ParticipantDeps, stream: ParticipantStream): Promise<ParticipantResult> {
  if (!messages.some((message) => message.role === 'user' && !message.content.startsWith('/'))) {
    stream.markdown('There is nothing to save yet: ask me about a task first, then run `/save` to turn the conversation into a skill.');
    return { metadata: { command: 'save', saved: 'nothing' } };
  }
  stream.progress('Drafting a skill from this conversation…');
  const outcome = await deps.save(messages);
  stream.markdown(escapeMarkdown(outcome.message));
  if (outcome.file && (outcome.outcome === 'saved' || outcome.outcome === 'patched')) {
    stream.reference(outcome.file);
    stream.button({ title: 'Open Skill Preview', command: COMMANDS.openSkillPreview, file: outcome.file });
  }
  const metadata: ParticipantMetadata = { command: 'save', saved: outcome.outcome, ...(outcome.name ? { listed: [outcome.name] } : {}) };
  return { metadata };
}
