import { lineAt } from '../../text/lines';
import { scanText } from '../../security/threatScanner';
import { STOP_WORDS } from '../search/searchText';
import { clipWords as clip, oneLine } from '../../text/clip';
import { codeSpan, fencedBlock, quoted } from './draftText';
import type { Resolution, ToolCallFact, TranscriptFacts } from './draftFacts';
import { isValidSkillName, slugifySkillName } from '../lint/identityRules';
import { yamlQuote } from '../model/textRanges';

/**
 * The deterministic draft of "Save this as a skill": a SKILL.md in the recommended shape (When to
 * use, Steps, Pitfalls, Verification) filled from a transcript's facts, with no model involved. It
 * is also the fallback when model drafting fails, so it must always lint without errors.
 */

export interface SkillDraftText {
  readonly name: string;
  readonly description: string;
  /** The whole SKILL.md. */
  readonly text: string;
}

export interface DraftOptions {
  /** Use this name instead of deriving one (must be a valid skill name; otherwise it is ignored). */
  readonly name?: string;
}

const MAX_STEPS = 15;
const MAX_PITFALLS = 8;
const MAX_NAME_WORDS = 5;
const MAX_NAME_CHARS = 48;
const GIST_CHARS = 160;
const SELECTION_EXCERPT_LINES = 60;
/** Words that start requests without saying what they are about. */
const FILLER_WORDS = new Set(['hi', 'hello', 'hey', 'ok', 'okay', 'pls', 'kindly', 'help', 'thanks', 'thank', 'like', 'quick', 'quickly', 'way', 'something']);
const LEADING_FILLER = /^(?:(?:hi|hello|hey|ok|okay|so)\b[\s,!.]*|(?:please|pls|kindly)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:need|want|would like)\s+(?:you\s+)?to\s+|help\s+me\s+(?:to\s+)?|let'?s\s+)/i;
const SUPPORT_PATH = /(?:^|[^\w./-])(?:references|scripts|templates|assets)\//;

/** The placeholder pitfall of a session without failures; a merge into an existing skill skips it. */
export const NO_PITFALLS = 'None came up in the session this was drafted from; add the ones you know of.';

/** The first sentence of a request, greetings and "please"/"can you" dropped, Markdown flattened. */
export function requestGist(text: string): string {
  const flat = text
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/<skill-suggestions>[\s\S]*$/, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/^[\s>#*+-]+/gm, '');
  for (const line of flat.split('\n')) {
    let sentence = oneLine(line);
    for (let i = 0; i < 4; i++) {
      const next = sentence.replace(LEADING_FILLER, '');
      if (next === sentence) break;
      sentence = next;
    }
    sentence = (sentence.split(/(?<=[.!?])\s+|(?<=[。！？])/u)[0] ?? '').replace(/[\s.?!:;,。！？]+$/u, '').trim();
    if (/[\p{L}\p{N}]/u.test(sentence)) return clip(sentence.charAt(0).toUpperCase() + sentence.slice(1), GIST_CHARS);
  }
  return '';
}

function slugFromWords(text: string): string {
  const words = text
    .split(/[^\p{L}\p{N}]+/u)
    .map((word) => word.toLowerCase())
    .filter((word) => word && !STOP_WORDS.has(word) && !FILLER_WORDS.has(word))
    .map((word) => slugifySkillName(word))
    .filter(Boolean);
  let slug = '';
  for (const word of words.slice(0, MAX_NAME_WORDS)) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > MAX_NAME_CHARS) break;
    slug = next;
  }
  return slug;
}

/** A valid skill name for the draft: the agent's suggestion, else words of the request, else of what was done. */
export function draftName(facts: TranscriptFacts): string {
  if (facts.suggestedName && isValidSkillName(facts.suggestedName)) return facts.suggestedName;
  const stem = (path: string) => path.split('/').pop()?.replace(/\.[^.]+$/, '') ?? '';
  const candidates = [
    ...facts.requests.slice(0, 1).map(requestGist),
    facts.title ?? '',
    ...(facts.selection?.file ? [stem(facts.selection.file)] : []),
    ...facts.commands.slice(0, 1).map((c) => c.command.split(/\s+/).slice(0, 2).join(' ')),
    ...facts.files.filter((f) => f.changed).slice(0, 1).map((f) => `${stem(f.path)} changes`),
  ];
  for (const text of candidates) {
    const slug = slugFromWords(text);
    if (slug.length >= 3 && isValidSkillName(slug)) return slug;
  }
  return facts.origin === 'selection' ? 'saved-selection' : 'saved-session';
}

function list(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max);
  const more = items.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}` : (shown[0] ?? '');
}

/** Workspace paths under folders named like a skill's support folders are not this skill's files; say so for the lint. */
function rooted(line: string): string {
  if (!SUPPORT_PATH.test(line)) return line;
  return line.endsWith('.') ? `${line.slice(0, -1)} (paths from the project root).` : `${line} (paths from the project root)`;
}

function stepOf(tool: string, details: readonly string[]): string {
  const spans = details.map(codeSpan);
  switch (tool) {
    case 'read_file':
      return `Read ${list(spans)}.`;
    case 'list_files':
      return `List ${list(spans)} to see what is there.`;
    case 'find_files':
      return `Find the files matching ${list(spans)}.`;
    case 'search_text':
      return `Search the code for ${list(spans)}.`;
    case 'edit_file':
      return `Edit ${list(spans)}.`;
    case 'write_file':
      return `Create or rewrite ${list(spans)}.`;
    case 'skills_list':
      return `Look for a skill about ${list(spans)}.`;
    case 'session_search':
      return `Look up earlier sessions about ${list(spans)}.`;
    case 'skill_view':
      return `Load the skill ${list(spans)} and follow it.`;
    case 'skill_manage':
      return `Update the skill (${list(spans)}).`;
    default:
      return `Use the ${codeSpan(tool)} tool${spans.length > 0 ? ` (${list(spans)})` : ''}.`;
  }
}

/** The actions in order, consecutive calls of one tool merged, failed ones left to Pitfalls, repeated commands once. */
function toolSteps(facts: TranscriptFacts): string[] {
  const steps: string[] = [];
  const commands = new Map(facts.commands.map((c) => [c.command, c]));
  const seenCommands = new Set<string>();
  // Reading a file again (before an edit, after a failed one) is not a step of its own.
  const seenReads = new Set<string>();
  let group: { tool: string; details: string[] } | undefined;
  const flush = () => {
    if (group) steps.push(rooted(stepOf(group.tool, group.details)));
    group = undefined;
  };
  for (const call of facts.toolCalls as readonly ToolCallFact[]) {
    if (call.tool === 'memory') continue;
    if (call.kind === 'command') {
      flush();
      if (!call.detail || seenCommands.has(call.detail)) continue;
      seenCommands.add(call.detail);
      const fact = commands.get(call.detail);
      const note = fact?.failedFirst ? ' It failed at first; see Pitfalls for what fixed it.' : fact?.ok === false ? ' It failed in the session; see Pitfalls.' : '';
      steps.push(rooted(`Run ${codeSpan(call.detail)}.${note}`));
      continue;
    }
    if (call.ok === false) continue;
    if (call.tool === 'read_file' && call.detail) {
      if (seenReads.has(call.detail)) continue;
      seenReads.add(call.detail);
    }
    if (group && group.tool === call.tool) {
      if (call.detail && !group.details.includes(call.detail)) group.details.push(call.detail);
      continue;
    }
    flush();
    group = { tool: call.tool, details: call.detail ? [call.detail] : [] };
  }
  flush();
  return steps;
}

function whenToUse(facts: TranscriptFacts): string[] {
  const lines = facts.requests.slice(0, 1).map((r) => rooted(`- The user asks for something like: ${quoted(clip(oneLine(r), 240))}`));
  const followUps = facts.requests.slice(1, 3).map((r) => quoted(clip(oneLine(r), 160)));
  if (followUps.length > 0) lines.push(rooted(`- Follow-up requests in the same vein: ${followUps.join('; ')}`));
  const files = facts.files.filter((f) => f.changed).map((f) => f.path);
  const involved = files.length > 0 ? files : facts.files.map((f) => f.path);
  if (involved.length > 0) lines.push(rooted(`- The work involves files such as ${list(involved.map(codeSpan), 6)}.`));
  if (facts.skillsUsed.length > 0) lines.push(`- Related skills: ${list(facts.skillsUsed.map(codeSpan))}.`);
  if (lines.length === 0) lines.push('- The same task comes up again.');
  return lines;
}

function stepsSection(facts: TranscriptFacts): string[] {
  let steps = toolSteps(facts);
  // A session without tool calls (a question answered in prose) often lists its steps in the reply.
  if (steps.length < 2 && facts.outcomeSteps.length > 0) steps = [...steps, ...facts.outcomeSteps.map((s) => rooted(s))];
  if (facts.origin === 'selection' && steps.length === 0) steps = facts.commands.map((c) => rooted(`Run ${codeSpan(c.command)}.`));
  const lines: string[] = [];
  const cut = steps.length > MAX_STEPS ? steps.length - MAX_STEPS + 1 : 0;
  const shown = cut > 0 ? [...steps.slice(0, MAX_STEPS - 1), `Then ${cut} more actions of the same kinds; keep the ones that matter.`] : steps;
  shown.forEach((step, i) => lines.push(`${i + 1}. ${step}`));
  if (facts.omitted.toolCalls > 0) lines.push('', `The session had ${facts.omitted.toolCalls} more tool calls in the middle that are not listed here.`);
  const attempted = facts.toolCalls.length > 0 && facts.toolCalls.every((c) => c.ok === false);
  if (attempted) lines.unshift('Every action in the session failed, so these steps are what was tried, not a proven path.', '');
  const selection = facts.selection;
  if (selection && (facts.origin === 'selection' || steps.length === 0)) {
    const excerpt = selection.text.split(/\r?\n/).slice(0, SELECTION_EXCERPT_LINES).join('\n').trimEnd();
    const from = selection.file ? ` (from ${codeSpan(selection.file)})` : '';
    if (lines.length === 0) lines.push(`1. Follow the text below${from}.`);
    lines.push('', rooted(`The selected text${from}:`), '', fencedBlock(excerpt, selection.languageId && /^[\w-]+$/.test(selection.languageId) ? selection.languageId : ''));
  }
  if (lines.length === 0) lines.push('1. Write the first step here: the session had no actions to draft from.');
  return lines;
}

function resolutionText(resolution: Resolution): string {
  const before =
    resolution.changed.length > 0
      ? `changing ${list(resolution.changed.map(codeSpan))}`
      : resolution.actions.length > 0
        ? list(resolution.actions.map(codeSpan))
        : 'simply trying again';
  return `It worked after ${before}: ${codeSpan(resolution.succeeded)} then succeeded.`;
}

function pitfalls(facts: TranscriptFacts): string[] {
  const lines = facts.errors.slice(0, MAX_PITFALLS).map((error) => {
    const why = error.explanation ? ` ${error.explanation}` : '';
    const fix = error.resolution ? ` ${resolutionText(error.resolution)}` : ' The session did not resolve this.';
    return rooted(`- ${codeSpan(clip(error.during, 120))} failed: ${clip(error.message, 240)}.${why}${fix}`);
  });
  const more = facts.errors.length - Math.min(facts.errors.length, MAX_PITFALLS) + facts.omitted.errors;
  if (more > 0) lines.push(`- ${more} more failures are not listed.`);
  if (lines.length === 0) lines.push(`- ${NO_PITFALLS}`);
  return lines;
}

function verification(facts: TranscriptFacts): string[] {
  const lastChange = facts.toolCalls.map((c) => c.kind).lastIndexOf('change');
  const checks = [...new Set(facts.toolCalls.filter((c, i) => i > lastChange && c.kind === 'command' && c.ok === true).map((c) => c.detail))].slice(-2);
  const lines = checks.map((command) => rooted(`- Run ${codeSpan(command)}; it should succeed (exit code 0).`));
  if (lines.length === 0 && facts.origin === 'selection' && facts.commands.length > 0) lines.push('- Each command above finishes without an error.');
  const changed = facts.files.filter((f) => f.changed).map((f) => codeSpan(f.path));
  if (lines.length === 0 && changed.length > 0) lines.push(rooted(`- Review the changes to ${list(changed)} against the request.`));
  const outcome = facts.outcome ? requestGist(facts.outcome) : '';
  if (outcome) lines.push(rooted(`- The session this was drafted from ended with: ${quoted(clip(outcome, 300))}`));
  if (lines.length === 0) lines.push('- Check the result against the request before finishing.');
  return lines;
}

/** What the skill does and when to use it; the how (files, checks) is left to the body, where it can be reviewed. */
function describe(facts: TranscriptFacts, gist: string): string {
  if (!gist) {
    const what = facts.origin === 'selection' ? 'Steps saved from a selected text' : 'Steps saved from an earlier chat session';
    return `${what}. Use when the same task comes up again.`;
  }
  return `${gist}. Use when the user asks for this again or for something similar.`;
}

const GENERIC_DESCRIPTION = 'Steps saved from an earlier chat session. Use when the same task comes up again.';

/**
 * The draft without the lines the threat scanner flags (the lint refuses them as SW901): a line of
 * the transcript that tells a model to ignore its instructions, or a command that sends a secret
 * away, must not become a skill. Each such line is replaced by a note naming the pattern.
 */
function withoutThreats(text: string, description: string): { text: string; description: string } {
  let lines = text.split('\n');
  let current = description;
  for (let round = 0; round < 3; round++) {
    const { findings } = scanText(lines.join('\n'), { context: 'skill' });
    if (findings.length === 0) break;
    // The lines were split on LF only, so their starts are counted the same way.
    const starts: number[] = [];
    let offset = 0;
    for (const line of lines) {
      starts.push(offset);
      offset += line.length + 1;
    }
    const flagged = new Map<number, string>();
    for (const finding of findings) {
      const line = lineAt(starts, finding.index);
      if (!flagged.has(line)) flagged.set(line, finding.id);
    }
    lines = lines.map((line, i) => {
      const id = flagged.get(i);
      if (id === undefined) return line;
      if (line.startsWith('description: ')) {
        current = GENERIC_DESCRIPTION;
        return `description: ${yamlQuote(GENERIC_DESCRIPTION)}`;
      }
      if (line.startsWith('# ')) return '# Saved session';
      const marker = /^(\s*(?:[-*+]|\d+[.)])\s+)/.exec(line)?.[1] ?? '';
      return `${marker}(Left out: this line matched the threat pattern "${id}"; see the session if it is needed.)`;
    });
  }
  return { text: lines.join('\n'), description: current };
}

/** A SKILL.md filled from the facts alone: the same facts always give the same text. */
export function draftSkill(facts: TranscriptFacts, options: DraftOptions = {}): SkillDraftText {
  const name = options.name && isValidSkillName(options.name) ? options.name : draftName(facts);
  const gist = facts.requests[0] ? requestGist(facts.requests[0]) : facts.title ? clip(oneLine(facts.title), GIST_CHARS) : '';
  const description = clip(describe(facts, gist), 1000);
  const title = gist ? clip(gist, 80) : name.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const text = [
    '---',
    `name: ${name}`,
    `description: ${yamlQuote(description)}`,
    'version: 0.1.0',
    '---',
    '',
    `# ${title}`,
    '',
    '## When to use',
    ...whenToUse(facts),
    '',
    '## Steps',
    ...stepsSection(facts),
    '',
    '## Pitfalls',
    ...pitfalls(facts),
    '',
    '## Verification',
    ...verification(facts),
    '',
  ].join('\n');
  const cleaned = withoutThreats(text, description);
  if (cleaned.description === description || (options.name && isValidSkillName(options.name))) return { name, ...cleaned };
  // The request itself was flagged: a name made of its words (or of a command) could carry it into the catalog.
  const safeName = facts.origin === 'selection' ? 'saved-selection' : 'saved-session';
  return { name: safeName, description: cleaned.description, text: cleaned.text.replace(/^name: .*$/m, `name: ${safeName}`) };
}
