import { clipLine } from '../text/clip';
import { coerceValue, resolveLocal } from './argumentBinding';
import type { RunContextVariables } from './executionTypes';
import type { ContextName } from '../skills/model/contextVariables';
import { CONTEXT_LABELS, CONTEXT_BY_SPELLING, CONTEXT_DEFAULT, ENV_DEFAULT, isPlaceholder } from '../skills/model/contextVariables';

/**
 * The Run Skill form as data: one field per `input_schema` property, in the order the form asks
 * them, each with what it shows first and how typed text becomes a value. Values go through
 * argumentBinding's coerceValue, so a value the form accepts is one the executor accepts; a field
 * left as it was is not sent at all, so binding fills it exactly as it would without the form
 * (context, then tuned value, then default).
 */

/** A form longer than this is not a form anyone fills in; the rest bind as they would without it. */
export const MAX_FORM_FIELDS = 50;
/** Context values longer than this (or with line breaks) are named in the placeholder, not put in the box. */
const MAX_PREFILL_CHARS = 500;
const MAX_DESCRIPTION_CHARS = 300;

export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';
export type FieldSource = 'context' | 'tuned' | 'default';

/** A choice of an enum or boolean step; `value` undefined is "not set" (the argument is left out). */
export interface FieldOption {
  readonly label: string;
  readonly value: unknown;
}

export interface FormField {
  readonly name: string;
  readonly kind: FieldKind;
  /** The schema's `title`, else the property name. */
  readonly label: string;
  readonly description?: string;
  readonly required: boolean;
  /** The value binding would use if the step is left as it is, and the text the step starts with. */
  readonly initial?: { readonly value: unknown; readonly text: string; readonly source: FieldSource };
  /** Enum and boolean steps: the choices, in order. */
  readonly options?: readonly FieldOption[];
  /** Bound from a context or environment variable (e.g. "the active file"): the step may be left as it is. */
  readonly boundFrom?: string;
  /** The property's schema with local `$ref`s followed: what coercion checks against. */
  readonly schema: unknown;
}

export interface InputForm {
  readonly fields: readonly FormField[];
  /** Said with the first step: properties left out, and why. */
  readonly notes: readonly string[];
  /** The schema cannot describe arguments at all; nothing is asked and the run would fail the same way. */
  readonly error?: string;
}

export interface InputFormOptions {
  readonly context: RunContextVariables;
  /** Level 2 values; they beat schema defaults, as in binding. */
  readonly tuned?: Readonly<Record<string, unknown>>;
  readonly maxFields?: number;
}


/** The form for a skill's `input_schema`: required fields first, then optional ones, then those bound from context. */
export function buildInputForm(inputSchema: unknown, options: InputFormOptions): InputForm {
  if (inputSchema === undefined || inputSchema === null) return { fields: [], notes: [] };
  const root = resolveLocal(inputSchema, inputSchema);
  if (typeof root === 'boolean') return { fields: [], notes: [] };
  if (!isRecord(root)) return { fields: [], notes: [], error: 'input_schema is not a JSON Schema object; write it as {"type": "object", "properties": {…}}.' };
  const types = typesOf(root);
  if (types.length > 0 && !types.includes('object')) {
    return { fields: [], notes: [], error: `input_schema must describe an object ("type": "object" with "properties"), not ${types.join(' or ')}; the arguments of a skill are always an object.` };
  }
  const properties = isRecord(root['properties']) ? root['properties'] : {};
  const required = new Set(Array.isArray(root['required']) ? root['required'].filter((r): r is string => typeof r === 'string') : []);
  const notes: string[] = [];
  const never: string[] = [];
  const fields: FormField[] = [];
  for (const [name, own] of Object.entries(properties)) {
    if (resolveLocal(own, inputSchema) === false) {
      never.push(name);
      continue;
    }
    fields.push(fieldOf(name, own, required.has(name), inputSchema, options));
  }
  if (never.length > 0) notes.push(`Not asked: ${never.map((n) => `"${n}"`).join(', ')} (the schema allows no value for ${never.length === 1 ? 'it' : 'them'}).`);
  const rank = (field: FormField): number => (field.boundFrom !== undefined ? 2 : field.required ? 0 : 1);
  // Array.prototype.sort is stable: schema order holds within each group.
  const ordered = fields.map((field, index) => ({ field, index })).sort((a, b) => rank(a.field) - rank(b.field) || a.index - b.index).map(({ field }) => field);
  const max = Math.max(1, options.maxFields ?? MAX_FORM_FIELDS);
  if (ordered.length > max) {
    const left = ordered.slice(max);
    const requiredLeft = left.filter((field) => field.required && field.initial === undefined).length;
    notes.push(
      `The input_schema has ${ordered.length} properties; the form asks for the first ${max} (required ones first). The other ${left.length} take their defaults or context values` +
        `${requiredLeft > 0 ? `, and ${requiredLeft} of them ${requiredLeft === 1 ? 'is' : 'are'} required with no default, so the run will say what is missing` : ''}. ` +
        'To set them, run the command with explicit arguments: skillwright.runSkill {"name": "…", "arguments": {…}}.',
    );
  }
  return { fields: ordered.slice(0, max), notes };
}

function fieldOf(name: string, own: unknown, required: boolean, root: unknown, options: InputFormOptions): FormField {
  const schema = resolveLocal(own, root);
  const title = keywordOf(own, 'title', root);
  const described = keywordOf(own, 'description', root);
  const description = typeof described === 'string' && described.trim() !== '' ? clipLine(described, MAX_DESCRIPTION_CHARS) : undefined;
  const kind = kindOf(schema);
  const bound = contextOf(name, own, schema, root, options.context);
  const tuned = options.tuned && Object.hasOwn(options.tuned, name) ? options.tuned[name] : undefined;
  const fallback = keywordOf(own, 'default', root);
  let initial: FormField['initial'];
  if (bound?.value !== undefined) {
    initial = { value: bound.value, text: prefillText(bound.value), source: 'context' };
  } else if (tuned !== undefined && tuned !== null && coerceValue(tuned, schema).ok) {
    initial = { value: tuned, text: textOf(tuned), source: 'tuned' };
  } else if (fallback !== undefined && fallback !== null && !isPlaceholder(fallback)) {
    initial = { value: fallback, text: textOf(fallback), source: 'default' };
  }
  const choices = optionsOf(kind, schema, required || initial !== undefined);
  return {
    name,
    kind,
    label: typeof title === 'string' && title.trim() !== '' ? clipLine(title, 80) : name,
    ...(description !== undefined ? { description } : {}),
    required,
    ...(initial !== undefined ? { initial } : {}),
    ...(choices !== undefined ? { options: choices } : {}),
    ...(bound !== undefined ? { boundFrom: bound.from } : {}),
    schema,
  };
}

function kindOf(schema: unknown): FieldKind {
  if (!isRecord(schema)) return 'text';
  if (Array.isArray(schema['enum']) || Object.hasOwn(schema, 'const')) return 'enum';
  const types = typesOf(schema).filter((type) => type !== 'null');
  if (types.length === 1) {
    const [type] = types;
    if (type === 'number' || type === 'integer' || type === 'boolean') return type;
    if (type === 'array' || type === 'object') return 'json';
    return 'text';
  }
  if (types.includes('string')) return 'text';
  if (types.length > 1) return 'json';
  // No type: a schema with structure (properties, items, combinators) takes JSON; a bare one takes text.
  return ['properties', 'items', 'anyOf', 'oneOf', 'allOf', 'prefixItems'].some((key) => Object.hasOwn(schema, key)) ? 'json' : 'text';
}

function optionsOf(kind: FieldKind, schema: unknown, mustHaveValue: boolean): FieldOption[] | undefined {
  const unset: FieldOption[] = mustHaveValue ? [] : [{ label: '(not set)', value: undefined }];
  if (kind === 'boolean') return [{ label: 'true', value: true }, { label: 'false', value: false }, ...unset];
  if (kind !== 'enum' || !isRecord(schema)) return undefined;
  const values: unknown[] = Array.isArray(schema['enum']) ? schema['enum'] : [schema['const']];
  const seen = new Set<string>();
  const choices: FieldOption[] = [];
  for (const value of values) {
    const label = textOf(value);
    if (seen.has(label)) continue;
    seen.add(label);
    choices.push({ label: clipLine(label, 200), value });
  }
  return [...choices, ...unset];
}

/** Which context variable a property is bound from, as binding decides it, and its value now. */
function contextOf(name: string, own: unknown, schema: unknown, root: unknown, context: RunContextVariables): { from: string; value?: unknown } | undefined {
  const valueOf = (wanted: ContextName): unknown => {
    const raw = context[wanted];
    if (raw === undefined || raw === '') return undefined;
    const coerced = coerceValue(raw, schema);
    return coerced.ok ? coerced.value : undefined;
  };
  const declared = keywordOf(own, 'x-context', root);
  const wantedByKey = typeof declared === 'string' ? CONTEXT_BY_SPELLING.get(declared) : undefined;
  if (wantedByKey) return withValue(CONTEXT_LABELS[wantedByKey], valueOf(wantedByKey));
  const fallback = keywordOf(own, 'default', root);
  const contextMatch = typeof fallback === 'string' ? CONTEXT_DEFAULT.exec(fallback) : null;
  const wantedByDefault = contextMatch ? CONTEXT_BY_SPELLING.get(contextMatch[1] ?? '') : undefined;
  if (wantedByDefault) return withValue(CONTEXT_LABELS[wantedByDefault], valueOf(wantedByDefault));
  const envMatch = typeof fallback === 'string' ? ENV_DEFAULT.exec(fallback) : null;
  // An environment value may be a secret: the form names the variable and never shows it.
  if (envMatch) return { from: `the environment variable ${envMatch[1] ?? ''}` };
  const conventional = CONTEXT_BY_SPELLING.get(name);
  if (conventional) {
    const value = valueOf(conventional);
    // A name that only happens to match binds nothing when the value is missing or of the wrong type.
    if (value !== undefined) return { from: CONTEXT_LABELS[conventional], value };
  }
  return undefined;
}

const withValue = (from: string, value: unknown): { from: string; value?: unknown } => (value === undefined ? { from } : { from, value });

// ---- Answers ------------------------------------------------------------------------------------

/** What a step gave: leave the argument to binding, or send this value. */
export type FieldAnswer = { readonly keep: true } | { readonly keep: false; readonly value: unknown };

/** The text typed into a step, read as the field's value; the error is what the input box shows. */
export function parseFieldText(field: FormField, text: string): { ok: true; answer: FieldAnswer } | { ok: false; error: string } {
  if (field.initial !== undefined && text === field.initial.text) return { ok: true, answer: { keep: true } };
  const trimmed = text.trim();
  if (trimmed === '') {
    if (field.required && field.initial === undefined && field.boundFrom === undefined) return { ok: false, error: `${field.label} is required; ${hintOf(field)}.` };
    return { ok: true, answer: { keep: true } };
  }
  let raw: unknown = field.kind === 'text' ? text : trimmed;
  if (field.kind === 'json') {
    try {
      raw = JSON.parse(trimmed) as unknown;
    } catch (error) {
      // One item of an array, unquoted, is accepted the way binding accepts it from a model.
      const single = coerceValue(trimmed, field.schema);
      if (!single.ok || typeof single.value === 'string') return { ok: false, error: `${field.label} is not valid JSON (${error instanceof Error ? error.message : String(error)}); ${hintOf(field)}.` };
      raw = single.value;
    }
  }
  const coerced = coerceValue(raw, field.schema);
  if (!coerced.ok) return { ok: false, error: `${field.label} ${coerced.error.replace(/^value /, '')}.` };
  const outOfRange = boundsProblem(field, coerced.value);
  if (outOfRange !== undefined) return { ok: false, error: `${field.label} ${outOfRange}.` };
  return { ok: true, answer: { keep: false, value: coerced.value } };
}

/** The choice made in an enum or boolean step; choosing what binding would use anyway sends nothing. */
export function pickAnswer(field: FormField, option: number): FieldAnswer | undefined {
  const choice = field.options?.[option];
  if (!choice) return undefined;
  if (choice.value === undefined) return { keep: true };
  if (field.initial !== undefined && sameValue(choice.value, field.initial.value)) return { keep: true };
  return { keep: false, value: choice.value };
}

/** The explicit arguments of the answered form: only the fields whose answer is a value. */
export function formArguments(fields: readonly FormField[], answers: ReadonlyMap<string, FieldAnswer>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const answer = answers.get(field.name);
    // Own data properties, so an argument named "__proto__" stays an argument.
    if (answer && !answer.keep) Object.defineProperty(out, field.name, { value: answer.value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** What to type, for the placeholder and for error messages. */
export function hintOf(field: FormField): string {
  const schema = isRecord(field.schema) ? field.schema : {};
  const range = rangeText(schema);
  switch (field.kind) {
    case 'integer':
      return `type a whole number${range}`;
    case 'number':
      return `type a number${range}`;
    case 'boolean':
      return 'pick true or false';
    case 'enum':
      return `pick one of ${(field.options ?? []).filter((o) => o.value !== undefined).map((o) => o.label).join(', ')}`;
    case 'json':
      return typesOf(schema).includes('object') ? 'type a JSON object, e.g. {"key": "value"}' : typesOf(schema).includes('array') ? 'type a JSON array, e.g. ["a", "b"]' : 'type a JSON value';
    case 'text':
      return 'type the text';
  }
}

/** The initial option of a pick step: the one binding would use, else the first. */
export function initialOption(field: FormField): number {
  const options = field.options ?? [];
  const found = field.initial !== undefined ? options.findIndex((o) => o.value !== undefined && sameValue(o.value, field.initial?.value)) : -1;
  if (found >= 0) return found;
  const unset = options.findIndex((o) => o.value === undefined);
  return unset >= 0 && !field.required ? unset : 0;
}

function boundsProblem(field: FormField, value: unknown): string | undefined {
  if (typeof value !== 'number' || !isRecord(field.schema)) return undefined;
  const s = field.schema;
  const num = (key: string): number | undefined => (typeof s[key] === 'number' ? s[key] : undefined);
  const min = num('minimum');
  const max = num('maximum');
  const xmin = num('exclusiveMinimum');
  const xmax = num('exclusiveMaximum');
  if (min !== undefined && value < min) return `must be at least ${min}`;
  if (max !== undefined && value > max) return `must be at most ${max}`;
  if (xmin !== undefined && value <= xmin) return `must be above ${xmin}`;
  if (xmax !== undefined && value >= xmax) return `must be below ${xmax}`;
  const multiple = num('multipleOf');
  if (multiple !== undefined && multiple > 0 && Math.abs(value / multiple - Math.round(value / multiple)) > 1e-9) return `must be a multiple of ${multiple}`;
  return undefined;
}

function rangeText(schema: Record<string, unknown>): string {
  const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : undefined;
  const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : undefined;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

// ---- Stepping through ----------------------------------------------------------------------------

/** One step as shown: an input box (text, numbers, JSON) or a pick (enum, boolean). */
export interface FormStep {
  readonly field: FormField;
  /** `Run <skill> (2/4)`. */
  readonly title: string;
  readonly index: number;
  readonly total: number;
  /** The description, or the field's name when there is none. */
  readonly prompt: string;
  /** What to type, and where a left-alone value comes from. */
  readonly placeholder: string;
  /** Input boxes: the text to start with (the earlier answer when coming back). */
  readonly value: string;
  /** Picks: the option selected first. */
  readonly activeOption: number;
  readonly canGoBack: boolean;
  /** The form's notes, with the first step only. */
  readonly notes: readonly string[];
  /** Why the last answer to this step was refused. */
  readonly error?: string;
  /** The input box's check of typed text: undefined when it would be accepted. */
  validate(text: string): string | undefined;
}

export type StepReply = { readonly type: 'text'; readonly text: string } | { readonly type: 'pick'; readonly option: number } | { readonly type: 'back' } | { readonly type: 'cancel' };

/** How steps reach a person: VS Code's quick input in the host, or a test's answers. */
export interface FormPrompter {
  ask(step: FormStep): Promise<StepReply>;
}

export type FormOutcome = { readonly ok: true; readonly arguments: Record<string, unknown> } | { readonly ok: false; readonly cancelled: true };

/** Asks each field in turn; Back returns to the previous step with its answer kept, cancel ends without arguments. */
export async function runInputForm(skill: string, form: InputForm, prompter: FormPrompter): Promise<FormOutcome> {
  const { fields } = form;
  const answers = new Map<string, FieldAnswer>();
  const typed = new Map<string, string>();
  const picked = new Map<string, number>();
  let index = 0;
  let error: string | undefined;
  while (index < fields.length) {
    const field = fields[index] as FormField;
    const isPick = field.options !== undefined;
    const step: FormStep = {
      field,
      title: `Run ${skill} (${index + 1}/${fields.length})`,
      index,
      total: fields.length,
      prompt: promptOf(field),
      placeholder: placeholderOf(field),
      value: typed.get(field.name) ?? field.initial?.text ?? '',
      activeOption: picked.get(field.name) ?? initialOption(field),
      canGoBack: index > 0,
      notes: index === 0 ? form.notes : [],
      ...(error !== undefined ? { error } : {}),
      validate: (text) => {
        const parsed = parseFieldText(field, text);
        return parsed.ok ? undefined : parsed.error;
      },
    };
    error = undefined;
    const reply = await prompter.ask(step);
    if (reply.type === 'cancel') return { ok: false, cancelled: true };
    if (reply.type === 'back') {
      index = Math.max(0, index - 1);
      continue;
    }
    let answer: FieldAnswer | undefined;
    if (reply.type === 'pick' && isPick) {
      answer = pickAnswer(field, reply.option);
      if (answer) picked.set(field.name, reply.option);
      else error = `Pick one of the ${field.options.length} choices.`;
    } else if (reply.type === 'text' && !isPick) {
      const parsed = parseFieldText(field, reply.text);
      if (parsed.ok) {
        answer = parsed.answer;
        typed.set(field.name, reply.text);
      } else {
        error = parsed.error;
      }
    } else {
      // A pick for an input box or text for a pick: a confused prompter; ask again, saying what fits.
      error = `${field.label}: ${hintOf(field)}.`;
    }
    if (!answer) continue;
    answers.set(field.name, answer);
    index += 1;
  }
  return { ok: true, arguments: formArguments(fields, answers) };
}

function promptOf(field: FormField): string {
  const base = field.description ?? field.label;
  const name = field.label !== field.name ? ` (${field.name})` : '';
  return `${base}${name}${field.required ? ' (required)' : ''}`;
}

function placeholderOf(field: FormField): string {
  const hint = hintOf(field);
  const what = hint.charAt(0).toUpperCase() + hint.slice(1);
  if (field.boundFrom !== undefined) {
    const now = field.initial?.source === 'context' ? '' : ' (none now)';
    return `${what}, or leave it to use ${field.boundFrom}${now}`;
  }
  if (field.initial?.source === 'tuned') return `${what}; the tuned value is ${clipLine(field.initial.text, 60)}`;
  if (field.initial?.source === 'default') return `${what}; the default is ${clipLine(field.initial.text, 60)}`;
  return field.required ? what : `${what}, or leave empty to leave it out`;
}

// ---- Schema helpers ------------------------------------------------------------------------------

function textOf(value: unknown): string {
  // JSON.stringify gives undefined for undefined and functions, whatever its declared type says.
  const json = JSON.stringify(value) as string | undefined;
  return typeof value === 'string' ? value : (json ?? String(value));
}

/** Short, single-line context values go into the box; others stay out of it (an input box drops line breaks). */
function prefillText(value: unknown): string {
  const text = textOf(value);
  return text.length > MAX_PREFILL_CHARS || /[\r\n]/.test(text) ? '' : text;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}


function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/** A keyword written beside a `$ref` wins over the referenced schema's, as in binding. */
function keywordOf(schema: unknown, keyword: string, root: unknown): unknown {
  if (isRecord(schema) && Object.hasOwn(schema, keyword)) return schema[keyword];
  const target = resolveLocal(schema, root);
  return isRecord(target) && target !== schema && Object.hasOwn(target, keyword) ? target[keyword] : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
