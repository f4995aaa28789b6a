/**
 * The records of a session file, one JSON object per line, declared once as zod schemas from
 * which the types are derived, so what is written and what is read back cannot drift apart.
 *
 * Reading is as forgiving as it can be without lying: a line is dropped only when it is not a
 * record at all (not JSON, an unknown record type, or a required field missing or of the wrong
 * type), and then with a reason. An optional field with a value this version does not understand
 * (say a newer `status`) is left out and the record kept, because losing a message's text over
 * a detail would be worse. Fixtures of every written version: test/fixtures/formats/sessions/.
 */
import * as z from 'zod/mini';

/** Written into every header; readers accept any number, so a newer file still opens. */
export const SESSION_FORMAT_VERSION = 1;

const text = z.string();
/** An optional field: a value of the wrong shape is dropped, the record kept. */
const lenient = <T extends z.ZodMiniType>(schema: T) => z.optional(z.catch(z.optional(schema), undefined));
/** A token count: a missing or odd count reads as 0, which is what every sum of them assumes. */
const tokens = z.catch(z.number(), 0);

const toolCallSchema = z.object({ id: text, name: text, arguments: text });
const promptLayersSchema = z.object({ stable: text, context: text, volatile: text });
const roleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export const TITLE_SOURCES = ['draft', 'model', 'user'] as const;
export type TitleSource = (typeof TITLE_SOURCES)[number];

/** Line 1 of every session file. */
const headerSchema = z.object({
  type: z.literal('session'),
  v: lenient(z.number()),
  id: text,
  /** ISO 8601. */
  created: text,
  model: text,
  /** Sent byte for byte on every request of the session, including after a resume. */
  systemPrompt: text,
  promptLayers: lenient(promptLayersSchema),
  /** The workspace folder (or a name for it) the session ran in. */
  workspace: lenient(text),
  title: lenient(text),
});

/** A complete message. Tool results are messages with role `tool` and the `toolCallId` they answer. */
const messageSchema = z.object({
  type: z.literal('message'),
  id: text,
  role: roleSchema,
  content: text,
  // Strict, unlike the other optional fields: a reply without its calls would break the pairing with the results that follow.
  toolCalls: z.optional(z.readonly(z.array(toolCallSchema))),
  toolCallId: lenient(text),
  toolName: lenient(text),
  isError: lenient(z.boolean()),
  /** Set when the reply was cut short by Stop or a failure; the content is what had arrived. */
  status: lenient(z.enum(['stopped', 'failed'])),
  durationMs: lenient(z.number()),
  started: lenient(text),
  /** ISO 8601, when the message was appended. */
  at: text,
});

/** Token usage of one model request. */
const usageSchema = z.object({
  type: z.literal('usage'),
  at: text,
  usage: z.object({ promptTokens: tokens, completionTokens: tokens, cachedTokens: tokens }),
  model: lenient(text),
  messageId: lenient(text),
});

const titleSchema = z.object({
  type: z.literal('title'),
  at: text,
  title: text,
  source: lenient(z.enum(TITLE_SOURCES)),
});

export const COMPACTION_REASONS = ['threshold', 'manual', 'server'] as const;

/**
 * A compaction: from here on the model saw `messages` (the summary and the re-attached skills)
 * in place of the older conversation, then the last `kept` messages before this record verbatim,
 * then every message after it. The original messages stay in the file for the History tab and
 * search; only a resume reads this record (see compactedHistory.ts).
 */
const compactionSchema = z.object({
  type: z.literal('compaction'),
  id: text,
  at: text,
  reason: lenient(z.enum(COMPACTION_REASONS)),
  summary: text,
  // Strict: without them a resume cannot rebuild what the model saw, and falls back to the full history.
  messages: z.readonly(z.array(z.object({ role: z.enum(['user', 'assistant']), content: text }))),
  kept: z.number(),
  messagesCompacted: tokens,
  summaryTokens: tokens,
  tokensBefore: tokens,
  tokensAfter: tokens,
  skills: lenient(z.readonly(z.array(z.object({ name: text, attached: z.enum(['full', 'pointer']), reason: z.optional(text) })))),
  memoryWrites: lenient(z.readonly(z.array(text))),
  model: lenient(text),
});

const recordSchema = z.discriminatedUnion('type', [headerSchema, messageSchema, usageSchema, titleSchema, compactionSchema]);

export type SessionHeaderRecord = Readonly<z.infer<typeof headerSchema>>;
export type SessionMessageRecord = Readonly<z.infer<typeof messageSchema>>;
export type SessionUsageRecord = Readonly<z.infer<typeof usageSchema>>;
export type SessionTitleRecord = Readonly<z.infer<typeof titleSchema>>;
export type SessionCompactionRecord = Readonly<z.infer<typeof compactionSchema>>;
export type SessionRecord = SessionHeaderRecord | SessionMessageRecord | SessionUsageRecord | SessionTitleRecord | SessionCompactionRecord;
export type SessionRole = SessionMessageRecord['role'];

/** A record, or why the line is not one. Reasons name fields, never their values (lines hold prompts and files). */
export type RecordParse = { readonly record: SessionRecord; readonly reason?: undefined } | { readonly record?: undefined; readonly reason: string };

/** The types this version reads, from the schemas themselves. */
const RECORD_TYPES: readonly string[] = recordSchema.def.options.flatMap((option) => option.shape.type.def.values);

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) current = current !== null && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[key] : undefined;
  return current;
}

const kindOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const field = issue.path.length ? `"${issue.path.map(String).join('.')}"` : 'the line';
  const found = valueAt(input, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return found === undefined ? `${field} is missing` : `${field} should be ${issue.expected}, not ${kindOf(found)}`;
    case 'invalid_value':
      return `${field} should be one of ${issue.values.map(String).join(', ')}`;
    default:
      return `${field} is not valid (${issue.code})`;
  }
}

/** One line of a session file: the record, or the reason it was skipped. */
export function parseRecordLine(line: string): RecordParse {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // JSON.parse's message quotes the line, which may be a prompt: say only what is wrong.
    return { reason: 'not JSON (cut short by a crash, or damaged)' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { reason: `not a record (JSON ${kindOf(value)})` };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !RECORD_TYPES.includes(type)) {
    return { reason: typeof type === 'string' ? `a "${type.slice(0, 40)}" record, which this version does not read` : 'a record without a "type"' };
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return { reason: `${type} record: ${parsed.error.issues.map((issue) => describeIssue(issue, value)).join('; ')}` };
  return { record: withoutUndefined(parsed.data) };
}

/** An optional field dropped by `lenient` is left as an undefined key: without it the record is what a writer would write. */
function withoutUndefined<T extends object>(record: T): T {
  for (const value of Object.values(record)) {
    if (value === undefined) return Object.fromEntries(Object.entries(record).filter((entry) => entry[1] !== undefined)) as T;
  }
  return record;
}

/** One line of a session file, or undefined when it is not a record this version understands. */
export function parseRecord(line: string): SessionRecord | undefined {
  return parseRecordLine(line).record;
}

/** The line a record is stored as. JSON escapes newlines inside strings, so a record never spans lines. */
export function serializeRecord(record: SessionRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export interface SkippedLine {
  /** 1-based, counted from the start of the text parsed. */
  readonly line: number;
  readonly reason: string;
  /** The last line, without its newline: what a crash leaves, or a line still being appended. */
  readonly unfinished?: boolean;
}

/** The records of complete lines; blank lines are ignored, anything else unreadable is skipped with its reason. */
export function parseSessionLines(text: string): { records: SessionRecord[]; skipped: SkippedLine[] } {
  const records: SessionRecord[] = [];
  const skipped: SkippedLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    const parsed = parseRecordLine(line);
    if (parsed.record) records.push(parsed.record);
    // Only a line without its newline can be one the writer was still writing.
    else if (i === lines.length - 1) skipped.push({ line: i + 1, reason: `unfinished last line (a crash, or an append under way): ${parsed.reason}`, unfinished: true });
    else skipped.push({ line: i + 1, reason: parsed.reason });
  }
  return { records, skipped };
}
