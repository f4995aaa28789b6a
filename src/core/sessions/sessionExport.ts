/** A session as a Markdown transcript a person reads (its title comes from sessionTitle.ts). */
import { clipWithCount as clip } from '../text/clip';
import type { SessionData } from './sessionLog';
import type { SessionMessageRecord } from './sessionRecords';

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
