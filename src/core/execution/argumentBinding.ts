import { closestNames } from '../text/closestNames';
import { clipEnd, clipLine } from '../text/clip';
import type { RunContextVariables } from './executionTypes';
import type { SchemaIssue, SchemaValidator } from './schemaValidator';
import type { ContextName } from '../skills/model/contextVariables';
import { CONTEXT_NAMES, CONTEXT_LABELS, CONTEXT_BY_SPELLING, CONTEXT_DEFAULT, ENV_DEFAULT, isPlaceholder } from '../skills/model/contextVariables';

/**
 * Binds a skill's arguments: explicit values, then context variables (and declared environment
 * variables), then tuned values, then schema defaults; coerces what models send as strings; then
 * checks the result against `input_schema`. Coercion is deliberately stricter than a JSON Schema
 * validator's (see docs/decisions.md, "Argument coercion").
 */

export interface BindingInput {
  readonly skill: string;
  readonly inputSchema?: unknown;
  /** Usually an object; a JSON string is parsed. */
  readonly explicit: unknown;
  readonly context: RunContextVariables;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The names the skill declares under `env:`; only these may be read through `${env:NAME}`. */
  readonly declaredEnv: readonly string[];
  /** Values from Level 2 adaptation: they beat schema defaults, never explicit or context values. */
  readonly tuned?: Readonly<Record<string, unknown>>;
}

export type ArgumentSource = 'explicit' | 'context' | 'env' | 'tuned' | 'default';

export type BindingResult =
  | { readonly ok: true; readonly arguments: Record<string, unknown>; readonly sources: Record<string, ArgumentSource> }
  | { readonly ok: false; readonly error: string };

export type Coercion = { ok: true; value: unknown } | { ok: false; error: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const MAX_VALUE_DEPTH = 64;
const MAX_REF_HOPS = 32;

export function bindArguments(input: BindingInput, validator: SchemaValidator): BindingResult {
  const { skill } = input;
  let compiled: ReturnType<SchemaValidator['compile']> | undefined;
  let root: unknown;
  if (input.inputSchema !== undefined && input.inputSchema !== null) {
    compiled = validator.compile(skill, 'input', input.inputSchema);
    if (!compiled.ok) return { ok: false, error: compiled.error };
    // Compiling proved it serialises within the size cap: work on a plain copy, free of YAML aliases and dates.
    root = JSON.parse(JSON.stringify(input.inputSchema)) as unknown;
  }
  const shape = shapeOf(root);
  if (typeof shape === 'string') return { ok: false, error: `input_schema of skill "${skill}" ${shape}` };
  const sample = exampleObject(shape, shape.required.length > 0 ? shape.required : Object.keys(shape.properties).slice(0, 1), root);

  const given = parseExplicit(input.explicit);
  if (typeof given === 'string') return { ok: false, error: `arguments of skill "${skill}" ${given}; send an object such as ${sample}` };

  const values: Record<string, unknown> = {};
  const sources: Record<string, ArgumentSource> = {};
  const bind = (name: string, value: unknown, source: ArgumentSource): void => {
    // Own, enumerable data properties, so an argument named "__proto__" stays an argument.
    Object.defineProperty(values, name, { value, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(sources, name, { value: source, enumerable: true, writable: true, configurable: true });
  };
  const names = Object.keys(shape.properties);

  for (const [name, raw] of Object.entries(given)) {
    if (raw === null || raw === undefined) continue;
    const declared = propertyOf(shape, name);
    let schema: unknown = declared;
    if (declared === undefined) {
      const extra = extraSchemaOf(shape, name);
      if (extra === false) {
        const near = closestNames(name, names, 3);
        const hint = near.length > 0 ? ` Did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : '';
        return { ok: false, error: `skill "${skill}" has no argument "${name}".${hint} Its arguments are: ${names.length > 30 ? `${names.slice(0, 30).join(', ')}, …` : names.join(', ') || 'none'}.` };
      }
      schema = extra;
    }
    const coerced = coerceAt(raw, schema, root, [], 0);
    if (!coerced.ok) return { ok: false, error: `${argumentLabel(name, declared, root)}${coerced.at.length > 0 ? ` at ${pathText(coerced.at)}` : ''} ${coerced.message}` };
    bind(name, coerced.value, 'explicit');
  }

  const unresolved = new Map<string, string>();
  for (const name of names) {
    if (Object.hasOwn(values, name)) continue;
    const own = propertyOf(shape, name);
    const schema = resolveLocal(own, root);
    const found = fromContext(name, own, input, root);
    if (found && 'error' in found) return { ok: false, error: found.error };
    if (found && 'value' in found) {
      bind(name, found.value, found.source);
      continue;
    }
    if (found) unresolved.set(name, found.missing);
    const tuned = input.tuned && Object.hasOwn(input.tuned, name) ? input.tuned[name] : undefined;
    if (tuned !== undefined && tuned !== null) {
      // A tuned value of the wrong type is adaptation's bug, not the caller's: the default stands in for it.
      const coerced = coerceAt(tuned, schema, root, [], 0);
      if (coerced.ok) {
        bind(name, coerced.value, 'tuned');
        continue;
      }
    }
    const fallback = keywordOf(own, 'default', root);
    if (fallback !== undefined && fallback !== null && !isPlaceholder(fallback)) bind(name, structuredClone(fallback), 'default');
  }

  const missing = shape.required.filter((name) => !Object.hasOwn(values, name));
  if (missing.length > 0) {
    const listed = missing.map((name) => {
      const notes = [descriptionOf(propertyOf(shape, name), root), unresolved.get(name) ?? ''].filter((note) => note !== '');
      return `"${name}"${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
    });
    const plural = missing.length > 1;
    return {
      ok: false,
      error: `missing required argument${plural ? 's' : ''} ${joinAnd(listed)}. Pass ${plural ? 'them' : 'it'}, e.g. ${exampleObject(shape, missing, root)}`,
    };
  }

  if (compiled?.ok) {
    const checked = compiled.validate(values);
    if (!checked.ok) {
      const problems = checked.issues.slice(0, 10).map((issue) => describeIssue(issue, shape, root));
      return { ok: false, error: `arguments of skill "${skill}" do not match its input_schema: ${problems.join('; ')}` };
    }
  }
  return { ok: true, arguments: values, sources };
}

/** Coerces strings to numbers, booleans and one-item arrays where the schema asks for them; see docs/decisions.md. */
export function coerceValue(value: unknown, schema: unknown): Coercion {
  const coerced = coerceAt(value, schema, schema, [], 0);
  if (coerced.ok) return coerced;
  return { ok: false, error: `value${coerced.at.length > 0 ? ` at ${pathText(coerced.at)}` : ''} ${coerced.message}` };
}

// ---- Coercion -----------------------------------------------------------------------------------

type Segment = string | number;
type Coerced = { ok: true; value: unknown } | { ok: false; at: Segment[]; message: string };

function coerceAt(value: unknown, schemaIn: unknown, root: unknown, at: Segment[], depth: number): Coerced {
  const schema = resolveLocal(schemaIn, root);
  // Past this depth the validator still checks; coercion just stops converting.
  if (!isRecord(schema) || depth > MAX_VALUE_DEPTH) return { ok: true, value };
  const types = typesOf(schema);
  if (types.length === 0 || types.some((type) => matchesType(value, type))) return descend(value, schema, root, at, depth);
  if (typeof value === 'string') {
    const number = types.includes('number') || types.includes('integer') ? decimalOf(value) : undefined;
    if (number !== undefined && (types.includes('number') || Number.isInteger(number))) return { ok: true, value: number };
    const flag = types.includes('boolean') ? booleanOf(value) : undefined;
    if (flag !== undefined) return { ok: true, value: flag };
  }
  if (types.includes('array') && !Array.isArray(value)) {
    const item = coerceAt(value, itemSchemaOf(schema, 0), root, at, depth + 1);
    if (item.ok) return { ok: true, value: [item.value] };
    if (types.length === 1) return { ok: false, at, message: `must be an array, or one item of it, which ${item.message}` };
  }
  return { ok: false, at, message: `must be ${typesText(types)}, got ${shown(value)}` };
}

/** Coerces inside arrays and objects by `items` and `properties`. */
function descend(value: unknown, schema: Record<string, unknown>, root: unknown, at: Segment[], depth: number): Coerced {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const [i, item] of value.entries()) {
      const coerced = coerceAt(item, itemSchemaOf(schema, i), root, [...at, i], depth + 1);
      if (!coerced.ok) return coerced;
      out.push(coerced.value);
    }
    return { ok: true, value: out };
  }
  if (isRecord(value)) {
    const shape = shapeOf(schema);
    if (typeof shape === 'string') return { ok: true, value };
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const extra = extraSchemaOf(shape, key);
      const coerced = coerceAt(item, propertyOf(shape, key) ?? (extra === false ? undefined : extra), root, [...at, key], depth + 1);
      if (!coerced.ok) return coerced;
      Object.defineProperty(out, key, { value: coerced.value, enumerable: true, writable: true, configurable: true });
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}

function decimalOf(text: string): number | undefined {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return undefined;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : undefined;
}

/** Only true and false, in any letter case ("True" is how Python prints it); never yes/no/on/off/1/0. */
function booleanOf(text: string): boolean | undefined {
  const lower = text.trim().toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    case 'string':
    case 'boolean':
      return typeof value === type;
    default:
      // A type name JSON Schema does not have: the validator has already refused the schema.
      return true;
  }
}

function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

function itemSchemaOf(schema: Record<string, unknown>, index: number): unknown {
  const prefix = schema['prefixItems'];
  if (Array.isArray(prefix)) return index < prefix.length ? prefix[index] : schema['items'];
  const items = schema['items'];
  if (Array.isArray(items)) return index < items.length ? items[index] : schema['additionalItems'];
  return items;
}

const ARTICLES: Record<string, string> = { integer: 'an integer', number: 'a number', string: 'a string', boolean: 'true or false', array: 'an array', object: 'an object', null: 'null' };
const typesText = (types: readonly string[]): string => types.map((type) => ARTICLES[type] ?? type).join(' or ');

function shown(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return 'an object';
  // JSON text escapes line breaks itself; collapsing spaces would misreport a value such as "  ".
  return clipEnd(jsonText(value), 60);
}

function jsonText(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return typeof value;
  return JSON.stringify(value);
}

// ---- Schema shape -------------------------------------------------------------------------------

interface Shape {
  readonly properties: Record<string, unknown>;
  readonly required: string[];
  readonly additional: unknown;
  readonly patterns: readonly (readonly [RegExp, unknown])[];
}

/** The parts of an object schema binding needs, or why the schema cannot describe arguments. */
function shapeOf(schemaIn: unknown): Shape | string {
  const schema = resolveLocal(schemaIn, schemaIn);
  if (!isRecord(schema)) return { properties: {}, required: [], additional: schema === false ? false : undefined, patterns: [] };
  const types = typesOf(schema);
  if (types.length > 0 && !types.includes('object')) return `must describe an object ("type": "object" with "properties"), not ${typesText(types)}.`;
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [];
  const patterns: [RegExp, unknown][] = [];
  if (isRecord(schema['patternProperties'])) {
    for (const [pattern, sub] of Object.entries(schema['patternProperties'])) {
      try {
        patterns.push([new RegExp(pattern, 'u'), sub]);
      } catch {
        // The compiler has refused a bad pattern already; nothing to match with here.
      }
    }
  }
  return { properties, required, additional: schema['additionalProperties'], patterns };
}

const propertyOf = (shape: Shape, name: string): unknown => (Object.hasOwn(shape.properties, name) ? shape.properties[name] : undefined);

/** The schema an undeclared property is held to, or false when the schema allows none. */
function extraSchemaOf(shape: Shape, name: string): unknown {
  const pattern = shape.patterns.find(([regex]) => regex.test(name));
  if (pattern) return pattern[1];
  return shape.additional === false ? false : shape.additional;
}

/** Follows local `$ref`s ("#", "#/definitions/x"); anything else stays as written. The Run Skill form reads schemas the same way. */
export function resolveLocal(schemaIn: unknown, root: unknown): unknown {
  let schema = schemaIn;
  for (let hop = 0; hop < MAX_REF_HOPS && isRecord(schema) && typeof schema['$ref'] === 'string'; hop++) {
    const ref = schema['$ref'];
    if (ref !== '#' && !ref.startsWith('#/')) return schema;
    let target: unknown = root;
    for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
      const key = unescapePointer(safeDecode(raw));
      target = isRecord(target) && Object.hasOwn(target, key) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined;
    }
    if (target === undefined) return schema;
    schema = target;
  }
  return schema;
}

// ---- Context ------------------------------------------------------------------------------------

type Found = { value: unknown; source: ArgumentSource } | { error: string } | { missing: string };

/** The context or environment value a property asks for, why it asks in vain, or nothing when it asks for none. */
function fromContext(name: string, own: unknown, input: BindingInput, root: unknown): Found | undefined {
  const schema = resolveLocal(own, root);
  if (!isRecord(schema)) return undefined;
  const label = argumentLabel(name, own, root);
  const use = (value: unknown, source: ArgumentSource, origin: string): Found => {
    const coerced = coerceAt(value, schema, root, [], 0);
    return coerced.ok ? { value: coerced.value, source } : { error: `${label} takes its value from ${origin}, which ${coerced.message}; change the schema's type or pass the argument explicitly.` };
  };
  const contextValue = (wanted: ContextName): string | undefined => {
    const value = input.context[wanted];
    return value === undefined || value === '' ? undefined : value;
  };
  let missing: string | undefined;
  const declaredKey = keywordOf(own, 'x-context', root);
  if (declaredKey !== undefined) {
    const wanted = typeof declaredKey === 'string' ? CONTEXT_BY_SPELLING.get(declaredKey) : undefined;
    if (!wanted) return { error: `${label} has "x-context": ${JSON.stringify(declaredKey)}, which is not a context variable; use one of ${CONTEXT_NAMES.join(', ')}.` };
    const value = contextValue(wanted);
    if (value !== undefined) return use(value, 'context', CONTEXT_LABELS[wanted]);
    missing = `taken from ${CONTEXT_LABELS[wanted]}, and there is none`;
  }
  const fallback = keywordOf(own, 'default', root);
  const contextMatch = typeof fallback === 'string' ? CONTEXT_DEFAULT.exec(fallback) : null;
  if (contextMatch) {
    const wanted = CONTEXT_BY_SPELLING.get(contextMatch[1] ?? '');
    if (!wanted) return { error: `${label} has the default ${JSON.stringify(fallback)}, which names no context variable; use one of ${CONTEXT_NAMES.map((n) => `\${context.${n}}`).join(', ')}.` };
    const value = contextValue(wanted);
    if (value !== undefined) return use(value, 'context', CONTEXT_LABELS[wanted]);
    missing ??= `taken from ${CONTEXT_LABELS[wanted]}, and there is none`;
  }
  const envMatch = typeof fallback === 'string' ? ENV_DEFAULT.exec(fallback) : null;
  if (envMatch) {
    const variable = envMatch[1] ?? '';
    if (!ENV_NAME.test(variable)) return { error: `${label} has the default ${JSON.stringify(fallback)}, which is not an environment variable name; write \${env:NAME} with letters, digits and underscores.` };
    if (!input.declaredEnv.includes(variable)) {
      return { error: `${label} reads \${env:${variable}}, but skill "${input.skill}" does not declare ${variable}; add it under \`env:\` in the skill's frontmatter (env: [${variable}]) so it may be read.` };
    }
    const value = input.env[variable];
    if (value !== undefined && value !== '') return use(value, 'env', `the environment variable ${variable}`);
    missing ??= `read from the environment variable ${variable}, which is not set`;
  }
  const conventional = CONTEXT_BY_SPELLING.get(name);
  if (conventional) {
    const value = contextValue(conventional);
    // A name that only happens to match a context variable does not bind a value of the wrong type.
    const coerced = value === undefined ? undefined : coerceAt(value, schema, root, [], 0);
    if (coerced?.ok) return { value: coerced.value, source: 'context' };
  }
  return missing === undefined ? undefined : { missing };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const unescapePointer = (part: string): string => part.replace(/~1/g, '/').replace(/~0/g, '~');


// ---- Messages -----------------------------------------------------------------------------------

function parseExplicit(explicit: unknown): Record<string, unknown> | string {
  let value = explicit;
  if (typeof explicit === 'string') {
    if (explicit.trim() === '') return {};
    try {
      value = JSON.parse(explicit) as unknown;
    } catch (error) {
      return `are not valid JSON (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) return `must be a JSON object, not ${shown(value)}`;
  return value;
}

function descriptionOf(schema: unknown, root: unknown): string {
  const description = keywordOf(schema, 'description', root);
  const title = keywordOf(schema, 'title', root);
  const text = typeof description === 'string' ? description : typeof title === 'string' ? title : '';
  return text.trim() === '' ? '' : clipLine(text, 120);
}

/** A keyword written beside a `$ref` wins over the referenced schema's (how people write descriptions of shared types). */
function keywordOf(schema: unknown, keyword: string, root: unknown): unknown {
  if (isRecord(schema) && Object.hasOwn(schema, keyword)) return schema[keyword];
  const target = resolveLocal(schema, root);
  return isRecord(target) && target !== schema && Object.hasOwn(target, keyword) ? target[keyword] : undefined;
}

function argumentLabel(name: string, schema: unknown, root: unknown): string {
  const description = descriptionOf(schema, root);
  return `argument "${name}"${description === '' ? '' : ` (${description})`}`;
}

function describeIssue(issue: SchemaIssue, shape: Shape, root: unknown): string {
  const [first, ...rest] = issue.path.split('/').slice(1).map(unescapePointer);
  if (first === undefined) return `the arguments object ${issue.message}`;
  const inside = rest.length > 0 ? ` at ${rest.join('/')}` : '';
  return `${argumentLabel(first, propertyOf(shape, first), root)}${inside} ${issue.message}`;
}

function exampleObject(shape: Shape, names: readonly string[], root: unknown): string {
  const entries = names.map((name) => `${JSON.stringify(name)}: ${JSON.stringify(exampleOf(resolveLocal(propertyOf(shape, name), root)))}`);
  return `{${entries.join(', ')}}`;
}

function exampleOf(schema: unknown): unknown {
  if (!isRecord(schema)) return '…';
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0] as unknown;
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0] as unknown;
  const examples: Record<string, unknown> = { integer: 1, number: 1, boolean: true, array: [], object: {} };
  const type = typesOf(schema).find((t) => t !== 'null');
  return type !== undefined && type in examples ? examples[type] : '…';
}

function pathText(at: readonly Segment[]): string {
  return at.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
