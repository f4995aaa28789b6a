import { clipWords as clip, oneLine } from '../../text/clip';
import { markdownListItems } from './draftText';
import type { CommandFact, FileFact, SelectionInput, TranscriptFacts } from './draftFacts';

/**
 * Facts of a text selected in an editor ("Save Selection as a Skill"): there is no conversation,
 * so the request is the selection's own first line, the steps are its list items or commands, and
 * the files are the paths it names. The selection arrives already redacted and capped.
 */

const SHELL_LANGUAGES = new Set(['shellscript', 'bash', 'sh', 'zsh', 'powershell', 'bat', 'dockerfile', 'makefile']);
const SHELL_FENCE = /^(?:sh|bash|zsh|shell|console|shellsession|powershell|pwsh|ps1|cmd|bat)$/i;
// A prompt marker at the start of a line: `$ npm test`, `> npm test`, `PS> npm test`.
const PROMPT = /^\s*(?:\$|PS>|>)\s+(\S.*)$/;
// Paths with a folder and an extension; bare words are rarely files.
const PATH = /(?<![\w./-])((?:\.{1,2}\/)?[\w@-][\w.@-]*(?:\/[\w.@-]+)+\.[A-Za-z0-9]{1,8})(?![\w/])/g;
const MAX_ITEMS = 12;

function commandsOf(selection: SelectionInput): string[] {
  const commands: string[] = [];
  const shellFile = SHELL_LANGUAGES.has((selection.languageId ?? '').toLowerCase());
  let fence: string | undefined;
  for (const raw of selection.text.split(/\r?\n/)) {
    const fenceMatch = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(raw);
    if (fenceMatch) {
      fence = fence === undefined ? (fenceMatch[2] ?? '') : undefined;
      continue;
    }
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('//') || line.startsWith('REM ')) continue;
    const prompted = PROMPT.exec(raw)?.[1];
    if (prompted) commands.push(prompted.trim());
    else if ((fence !== undefined && SHELL_FENCE.test(fence)) || (fence === undefined && shellFile)) commands.push(line);
  }
  return [...new Set(commands.map((command) => clip(oneLine(command), 160)))];
}

/** The first line that says something: a heading, a comment or a sentence, without its markers. */
function topicOf(selection: SelectionInput): string {
  for (const raw of selection.text.split(/\r?\n/)) {
    if (raw.startsWith('#!')) continue;
    const line = raw
      .replace(/^\s*(?:#+|\/\/+|--|;+|REM\b|\/\*+|\*+|[-*+>]|\d+[.)])\s*/i, '')
      .replace(/\*\/\s*$/, '')
      .trim();
    if (/[\p{L}]{2,}/u.test(line) && !/^[$>]/.test(raw.trim())) return clip(oneLine(line), 300);
  }
  return '';
}

export function selectionFacts(selection: SelectionInput): TranscriptFacts {
  const commands: CommandFact[] = commandsOf(selection)
    .slice(0, MAX_ITEMS)
    .map((command) => ({ command, ok: undefined, runs: 1, failedFirst: false }));
  // The group always takes part in a match; flatMap only narrows the type.
  const mentioned = [...new Set([...selection.text.matchAll(PATH)].flatMap((match) => match[1] ?? []))];
  const paths = [...(selection.file ? [selection.file] : []), ...mentioned.filter((p) => p !== selection.file)];
  const files: FileFact[] = paths.slice(0, MAX_ITEMS).map((path) => ({ path, changed: false }));
  const topic = topicOf(selection);
  return {
    origin: 'selection',
    requests: topic ? [topic] : [],
    toolCalls: [],
    files,
    commands,
    errors: [],
    skillsUsed: [],
    outcomeSteps: markdownListItems(selection.text, 240).slice(0, MAX_ITEMS),
    selection,
    omitted: { requests: 0, toolCalls: 0, files: Math.max(0, paths.length - MAX_ITEMS), commands: 0, errors: 0 },
  };
}
