import type { z } from 'zod';

/** Every tool's arguments are one strict zod object. */
export type ToolArgsSchema = z.ZodObject;

/**
 * The one argument check of every tool: the raw JSON text a provider hands over (or an object),
 * checked against the tool's zod schema, with messages that name the field and say what to send.
 * Models send numbers and booleans as strings now and then ("20", "true"): those are accepted.
 * `null` counts as "not given".
 */

export type ParsedArgs<S extends ToolArgsSchema> = { readonly ok: true; readonly args: z.infer<S> } | { readonly ok: false; readonly error: string };

type Field = { readonly kind: string; readonly min?: number; readonly max?: number; readonly int: boolean };

const kindOf = (value: unknown): string => (Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value);
const article = (type: string): string => (type === 'array' || type === 'object' || type === 'integer' ? `an ${type}` : `a ${type}`);

/** The base type of a field, through `optional`/`default`/`nullable` wrappers. */
function fieldOf(schema: z.ZodType): Field {
  let current = schema as unknown as { def: { type: string; innerType?: unknown }; minValue?: number | null; maxValue?: number | null; isInt?: boolean };
  while (current.def.innerType && ['optional', 'default', 'nullable', 'prefault'].includes(current.def.type)) {
    current = current.def.innerType as typeof current;
  }
  const bound = (value: number | null | undefined) => (value === null || value === undefined || Math.abs(value) >= Number.MAX_SAFE_INTEGER ? undefined : value);
  const min = bound(current.minValue);
  const max = bound(current.maxValue);
  return { kind: current.def.type, int: current.isInt === true, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

function wholeNumber(field: Field): string {
  if (field.min !== undefined && field.max !== undefined) return `a whole number from ${field.min} to ${field.max}`;
  if (field.min !== undefined) return `a whole number from ${field.min}`;
  if (field.max !== undefined) return `a whole number up to ${field.max}`;
  return 'a whole number';
}

/** Turns what models commonly send as strings into the type the field wants. */
function coerce(field: Field, given: unknown): unknown {
  if (field.kind === 'number' && typeof given === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(given)) return Number(given);
  if (field.kind === 'boolean' && (given === 'true' || given === 'false')) return given === 'true';
  return given;
}

const pathText = (path: readonly PropertyKey[]): string =>
  path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('');

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const part of path) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

export function parseToolArgs<S extends ToolArgsSchema>(name: string, schema: S, raw: unknown, example?: string): ParsedArgs<S> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const keys = Object.keys(shape);
  const required = keys.filter((key) => !shape[key]?.safeParse(undefined).success);
  const sample = example ?? `{"${required[0] ?? keys[0] ?? 'path'}": "..."}`;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, error: `${name} arguments are not valid JSON; send an object such as ${sample}` };
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `${name} arguments must be a JSON object such as ${sample}, not ${kindOf(value)}` };
  }
  const given: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const schemaOfKey = shape[key];
    if (!schemaOfKey) return { ok: false, error: `${name} has no argument "${key}"; its arguments are ${keys.join(', ')}` };
    if (field === null || field === undefined) continue;
    given[key] = coerce(fieldOf(schemaOfKey), field);
  }
  const missing = required.filter((key) => given[key] === undefined);
  const parsed = schema.safeParse(given);
  if (parsed.success) return { ok: true, args: parsed.data };
  for (const issue of parsed.error.issues) {
    const [top] = issue.path;
    if (issue.path.length === 1 && typeof top === 'string' && missing.includes(top)) continue;
    return { ok: false, error: describeIssue(name, issue, shape, given) };
  }
  return { ok: false, error: `${name} needs ${missing.map((key) => `"${key}"`).join(' and ')}` };
}

function describeIssue(name: string, issue: z.core.$ZodIssue, shape: Record<string, z.ZodType>, given: Record<string, unknown>): string {
  const at = pathText(issue.path);
  const input = valueAt(given, issue.path);
  const top = issue.path[0];
  const field = issue.path.length === 1 && typeof top === 'string' && shape[top] ? fieldOf(shape[top]) : undefined;
  const shown = typeof input === 'string' ? JSON.stringify(input) : kindOf(input);
  switch (issue.code) {
    case 'invalid_type':
      if (field?.int || issue.expected === 'int') return `${name}: "${at}" must be ${field ? wholeNumber(field) : 'a whole number'}, not ${shown}`;
      return `${name}: "${at}" must be ${article(issue.expected)}, not ${kindOf(input)}`;
    case 'too_small':
      if (issue.origin === 'number') return `${name}: "${at}" must be at least ${String(issue.minimum)}, not ${JSON.stringify(input)}`;
      return `${name}: "${at}" needs at least ${String(issue.minimum)} ${issue.origin === 'string' ? 'characters' : 'items'}`;
    case 'too_big':
      if (issue.origin === 'number') return `${name}: "${at}" must be at most ${String(issue.maximum)}, not ${JSON.stringify(input)}`;
      return `${name}: "${at}" takes at most ${String(issue.maximum)} ${issue.origin === 'string' ? 'characters' : 'items'}`;
    case 'invalid_value':
      return `${name}: "${at}" must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(input)}`;
    case 'unrecognized_keys':
      return `${name}: "${at}" has no field ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    default:
      return at ? `${at}: ${issue.message}` : issue.message;
  }
}
