import type { SessionData, SessionMessageRecord } from './sessionLog';

/** Sessions turned into text a person reads: a short title and a Markdown transcript. */

export const MAX_TITLE_CHARS = 60;
const FILLER = /^(?:(?:hi|hello|hey|ok|okay|so)\b[\s,!.]*|(?:please|pls|kindly)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:need|want|would like)\s+(?:you\s+)?to\s+|help\s+me\s+(?:to\s+)?)/i;

function plainFirstSentence(text: string, dropFiller: boolean): string {
  const flat = text
    .replace(/```[\s\S]*?(?:```|$)/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/^[\s>#*+-]+/gm, '');
  // Each line counts as a sentence of its own (a heading, a greeting), as do sentences within a line.
  for (const line of flat.split('\n')) {
    let sentence = line.replace(/\s+/g, ' ').trim();
    for (let i = 0; dropFiller && i < 4; i++) {
      const next = sentence.replace(FILLER, '');
      if (next === sentence) break;
      sentence = next;
    }
    sentence = (sentence.split(/(?<=[.!?])\s+/)[0] ?? '').replace(/[\s.?!:;,]+$/, '').trim();
    if (/[\p{L}\p{N}]/u.test(sentence)) return sentence;
  }
  return '';
}

/**
 * A short deterministic title from the first exchange: the gist of the user's first sentence
 * (greetings, "please", "can you" and Markdown dropped), else of the reply, cut on a word.
 */
export function draftTitle(firstUserMessage: string, firstReply = ''): string {
  let title = plainFirstSentence(firstUserMessage, true);
  if (title.replace(/[^\p{L}\p{N}]/gu, '').length < 3) title = plainFirstSentence(firstReply, false);
  if (title.replace(/[^\p{L}\p{N}]/gu, '').length < 3) return 'Untitled session';
  if (title.length > MAX_TITLE_CHARS) {
    const cut = title.slice(0, MAX_TITLE_CHARS - 1);
    const space = cut.lastIndexOf(' ');
    title = `${(space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:-]+$/, '')}…`;
  }
  return title.charAt(0).toUpperCase() + title.slice(1);
}

export interface MarkdownExportOptions {
  /** The stored system prompt, at the end (default false: it is long and the same for many sessions). */
  readonly includeSystemPrompt?: boolean;
  /** Tool results longer than this are cut (default 4,000 characters). */
  readonly maxToolResultChars?: number;
}

/** A fence longer than any run of backticks in the text, so the text cannot close it early. */
function fenced(text: string, info = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

function prettyArguments(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

const time = (iso: string | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : 'unknown time');
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

function renderMessage(message: SessionMessageRecord, options: MarkdownExportOptions): string {
  const parts: string[] = [];
  const status = message.status ? ` (${message.status})` : '';
  switch (message.role) {
    case 'user':
      parts.push(`### User · ${time(message.at)}`, '', message.content);
      break;
    case 'assistant':
      parts.push(`### Assistant · ${time(message.at)}${status}`);
      if (message.content.trim()) parts.push('', message.content);
      for (const call of message.toolCalls ?? []) {
        parts.push('', `**Tool call** \`${oneLine(call.name)}\``, '', fenced(prettyArguments(call.arguments), 'json'));
      }
      break;
    case 'tool': {
      const name = message.toolName ? ` \`${oneLine(message.toolName)}\`` : '';
      const error = message.isError ? ' (error)' : '';
      parts.push(`#### Tool result${name}${error}`, '', fenced(clip(message.content, options.maxToolResultChars ?? 4000), 'text'));
      break;
    }
    default:
      parts.push(`### System notice · ${time(message.at)}`, '', fenced(message.content, 'text'));
  }
  return parts.join('\n');
}

/** The whole session as Markdown: title, facts, then every message in order. */
export function renderSessionMarkdown(session: SessionData, options: MarkdownExportOptions = {}): string {
  const title = oneLine(session.title ?? '') || 'Untitled session';
  const usage = session.usage.reduce(
    (sum, record) => ({
      prompt: sum.prompt + (record.usage.promptTokens || 0),
      cached: sum.cached + (record.usage.cachedTokens || 0),
      completion: sum.completion + (record.usage.completionTokens || 0),
    }),
    { prompt: 0, cached: 0, completion: 0 },
  );
  const facts = [
    `- Session: \`${session.id}\``,
    `- Started: ${time(session.created)}`,
    ...(session.header?.workspace ? [`- Workspace: ${oneLine(session.header.workspace)}`] : []),
    ...(session.header?.model ? [`- Model: ${oneLine(session.header.model)}`] : []),
    `- Messages: ${session.messages.length}`,
    ...(session.usage.length
      ? [`- Tokens: ${usage.prompt.toLocaleString('en-US')} prompt (${usage.cached.toLocaleString('en-US')} cached), ${usage.completion.toLocaleString('en-US')} completion`]
      : []),
  ];
  const out = [`# ${title.replace(/^#+\s*/, '')}`, '', ...facts, '', '---'];
  for (const message of session.messages) out.push('', renderMessage(message, options));
  if (options.includeSystemPrompt && session.header) {
    out.push('', '---', '', '## System prompt', '', fenced(session.header.systemPrompt, 'text'));
  }
  return `${out.join('\n')}\n`;
}
