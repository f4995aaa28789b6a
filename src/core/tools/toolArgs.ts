import type { ToolSchema } from '../skills/tools/skillTools';

/**
 * Argument checks driven by a tool's own JSON schema, so what the model is shown and what is
 * enforced cannot drift apart. Models send numbers as strings now and then ("20"); those are
 * accepted. `null` counts as "not given".
 */

type FieldType = 'string' | 'boolean' | 'integer';

interface Field {
  readonly type: FieldType;
  readonly minimum?: number;
  readonly maximum?: number;
}

export type Args = Readonly<Record<string, string | boolean | number>>;

function fieldsOf(tool: ToolSchema): { fields: Map<string, Field>; required: readonly string[] } {
  const parameters = tool.function.parameters as { properties: Record<string, Field>; required?: readonly string[] };
  return { fields: new Map(Object.entries(parameters.properties)), required: parameters.required ?? [] };
}

const kindOf = (value: unknown): string => (Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value);

export function checkToolArgs(tool: ToolSchema, raw: unknown): { ok: true; args: Args } | { ok: false; error: string } {
  const name = tool.function.name;
  const { fields, required } = fieldsOf(tool);
  const example = `{"${required[0] ?? [...fields.keys()][0] ?? 'path'}": "..."}`;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, error: `${name} arguments are not valid JSON; send an object such as ${example}` };
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `${name} arguments must be a JSON object such as ${example}, not ${kindOf(value)}` };
  }
  const args: Record<string, string | boolean | number> = {};
  for (const [key, given] of Object.entries(value as Record<string, unknown>)) {
    const field = fields.get(key);
    if (!field) return { ok: false, error: `${name} has no argument "${key}"; its arguments are ${[...fields.keys()].join(', ')}` };
    if (given === null || given === undefined) continue;
    if (field.type === 'integer') {
      const number = typeof given === 'string' && /^\s*-?\d+\s*$/.test(given) ? Number(given) : given;
      if (typeof number !== 'number' || !Number.isInteger(number)) {
        return { ok: false, error: `${name}: "${key}" must be a whole number, not ${typeof given === 'string' ? JSON.stringify(given) : kindOf(given)}` };
      }
      if (field.minimum !== undefined && number < field.minimum) {
        return { ok: false, error: `${name}: "${key}" must be at least ${field.minimum}, not ${number}` };
      }
      if (field.maximum !== undefined && number > field.maximum) {
        return { ok: false, error: `${name}: "${key}" must be at most ${field.maximum}, not ${number}` };
      }
      args[key] = number;
      continue;
    }
    if (field.type === 'boolean' && (given === 'true' || given === 'false')) {
      args[key] = given === 'true';
      continue;
    }
    if (typeof given !== field.type) return { ok: false, error: `${name}: "${key}" must be a ${field.type}, not ${kindOf(given)}` };
    args[key] = given as string | boolean;
  }
  const missing = required.filter((key) => args[key] === undefined);
  if (missing.length > 0) return { ok: false, error: `${name} needs ${missing.map((key) => `"${key}"`).join(' and ')}` };
  return { ok: true, args };
}

export const stringArg = (args: Args, key: string): string | undefined => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
export const numberArg = (args: Args, key: string): number | undefined => (typeof args[key] === 'number' ? (args[key] as number) : undefined);
export const booleanArg = (args: Args, key: string): boolean | undefined => (typeof args[key] === 'boolean' ? (args[key] as boolean) : undefined);
