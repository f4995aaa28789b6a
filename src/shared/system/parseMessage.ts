import type * as z from 'zod/mini';

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/**
 * Checks a message against its schema (a discriminated union on `type`) and says briefly what is
 * wrong: an unknown type, or the first field that does not fit. The panel, the preview and the
 * trace page all check messages this way, in both directions.
 */
export function parseMessage<T>(schema: z.ZodMiniType<T>, raw: unknown): ParseResult<T> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, error: 'message is not an object' };
  const type: unknown = (raw as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, error: 'message has no string "type"' };
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const name = type.slice(0, 60);
  if (!issue || (issue.code === 'invalid_union' && issue.path.join('.') === 'type')) return { ok: false, error: `unknown message type "${name}"` };
  const where = issue.path.length > 0 ? `${issue.path.map(String).join('.').slice(0, 80)}: ` : '';
  return { ok: false, error: `"${name}" ${where}${issue.message.slice(0, 100)}` };
}
