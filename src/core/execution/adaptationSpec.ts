import * as path from 'node:path';
import { isPlainObject } from '../skills/model/skillParser';

/**
 * The `adaptation` block of a level-2 skill: which input parameters may be tuned, inside which
 * bounds, and how. The rules that keep tuning safe (see adaptation.ts) read their limits from here,
 * so everything that would make those limits meaningless is refused at parse time.
 */

export type TunableParam =
  | {
      readonly name: string;
      readonly type: 'integer' | 'number';
      readonly min: number;
      readonly max: number;
      readonly default: number;
      /** Values sit on the grid `default + k·step`; integers without a step use 1. */
      readonly step?: number;
    }
  | { readonly name: string; readonly type: 'string'; readonly enum: readonly string[]; readonly default: string }
  | { readonly name: string; readonly type: 'boolean'; readonly default: boolean };

export type NumericParam = Extract<TunableParam, { type: 'integer' | 'number' }>;

export interface AdaptationSpec {
  readonly strategy: 'heuristic' | 'script';
  /** The tuning script, relative to the skill folder; only with `strategy: script`. */
  readonly entry?: string;
  readonly windowDays: number;
  readonly minSignals: number;
  readonly params: readonly TunableParam[];
}

export type AdaptationParse = { readonly ok: true; readonly spec: AdaptationSpec } | { readonly ok: false; readonly errors: string[] };

/** One accepted change moves a numeric value by at most this share of |default|. */
export const MAX_CHANGE_RATIO = 0.2;
export const DEFAULT_WINDOW_DAYS = 14;
export const DEFAULT_MIN_SIGNALS = 3;
const MAX_WINDOW_DAYS = 365;
const MAX_MIN_SIGNALS = 100;
const MAX_PARAMS = 20;
/** Beyond this, integer arithmetic stops being exact. */
const MAX_MAGNITUDE = 1e15;

const TOP_KEYS = ['strategy', 'entry', 'feedback_window_days', 'min_signals', 'tunable_params'];
const PARAM_KEYS: Record<TunableParam['type'], readonly string[]> = {
  integer: ['type', 'min', 'max', 'default', 'step', 'description'],
  number: ['type', 'min', 'max', 'default', 'step', 'description'],
  string: ['type', 'enum', 'default', 'description'],
  boolean: ['type', 'default', 'description'],
};

/**
 * The largest move one accepted change may make: 20 % of |default|, or of (max − min) when the
 * default is 0 (20 % of nothing would freeze the value for ever).
 */
export function maxChange(param: NumericParam): number {
  return MAX_CHANGE_RATIO * (param.default !== 0 ? Math.abs(param.default) : param.max - param.min);
}

/** The grid a numeric value snaps to, or undefined for a free number. */
export function gridStep(param: NumericParam): number | undefined {
  return param.step ?? (param.type === 'integer' ? 1 : undefined);
}

/**
 * A stored or proposed value made legal for the param: clamped into [min, max] and snapped onto the
 * step grid (staying inside the bounds); undefined when it is not a value of the param's type at all.
 */
export function normalizeValue(param: TunableParam, value: unknown): number | string | boolean | undefined {
  switch (param.type) {
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'string':
      return typeof value === 'string' && param.enum.includes(value) ? value : undefined;
    default: {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
      const clamped = Math.min(param.max, Math.max(param.min, value));
      const step = gridStep(param);
      return step === undefined ? clamped : snapToGrid(param, clamped, step);
    }
  }
}

/** The grid point nearest to `value` that lies inside [min, max]. */
export function snapToGrid(param: NumericParam, value: number, step: number): number {
  const lowest = Math.ceil((param.min - param.default) / step - 1e-9);
  const highest = Math.floor((param.max - param.default) / step + 1e-9);
  const k = Math.min(highest, Math.max(lowest, Math.round((value - param.default) / step)));
  return gridPoint(param, k, step);
}

export function gridPoint(param: NumericParam, k: number, step: number): number {
  if (k === 0) return param.default;
  // Rounding to 12 significant digits keeps 0.3 + 2 × 0.1 from showing as 0.5000000000000001.
  const raw = Number((param.default + k * step).toPrecision(12));
  return Math.min(param.max, Math.max(param.min, raw));
}

export function parseAdaptation(frontmatter: Readonly<Record<string, unknown>>): AdaptationParse | undefined {
  if (!Object.prototype.hasOwnProperty.call(frontmatter, 'adaptation')) return undefined;
  const raw = frontmatter['adaptation'];
  if (!isPlainObject(raw)) {
    return { ok: false, errors: ['`adaptation` must be a mapping with `strategy`, `feedback_window_days`, `min_signals` and `tunable_params`.'] };
  }
  const errors: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!TOP_KEYS.includes(key)) errors.push(`\`adaptation.${key}\` is not a known field; the fields are ${TOP_KEYS.join(', ')}.`);
  }

  const strategy = raw['strategy'] ?? 'heuristic';
  if (strategy !== 'heuristic' && strategy !== 'script') {
    errors.push(`\`adaptation.strategy\` is ${JSON.stringify(strategy)}; use \`heuristic\` (built in) or \`script\` (with \`entry: scripts/tune.py\`).`);
  }
  const entry = parseEntry(raw['entry'], strategy, errors);
  const windowDays = parseCount(raw['feedback_window_days'], 'feedback_window_days', DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, false, errors);
  const minSignals = parseCount(raw['min_signals'], 'min_signals', DEFAULT_MIN_SIGNALS, MAX_MIN_SIGNALS, true, errors);
  const params = parseParams(raw['tunable_params'], errors);
  checkAgainstInputSchema(params, frontmatter['input_schema'], errors);

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    spec: { strategy: strategy as AdaptationSpec['strategy'], ...(entry !== undefined ? { entry } : {}), windowDays, minSignals, params },
  };
}

function parseEntry(entry: unknown, strategy: unknown, errors: string[]): string | undefined {
  if (strategy !== 'script') {
    if (entry !== undefined) errors.push('`adaptation.entry` is only used with `strategy: script`; remove it or set the strategy to script.');
    return undefined;
  }
  if (typeof entry !== 'string' || entry.trim() === '') {
    errors.push('`adaptation.strategy: script` needs `entry`: the tuning script in the skill folder, e.g. `entry: scripts/tune.py`.');
    return undefined;
  }
  const normalized = path.posix.normalize(entry.trim().replace(/\\/g, '/'));
  if (path.posix.isAbsolute(normalized) || /^[a-z]:/i.test(normalized) || normalized === '..' || normalized.startsWith('../')) {
    errors.push(`\`adaptation.entry\` "${entry}" points outside the skill folder; the script must live inside it, e.g. \`scripts/tune.py\`.`);
    return undefined;
  }
  return normalized;
}

function parseCount(value: unknown, key: string, fallback: number, limit: number, integer: boolean, errors: string[]): number {
  if (value === undefined) return fallback;
  const valid = typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= limit && (!integer || Number.isInteger(value));
  if (!valid) {
    errors.push(`\`adaptation.${key}\` is ${JSON.stringify(value)}; it must be a ${integer ? 'whole number' : 'number'} from ${integer ? 1 : 'above 0'} to ${limit} (default ${fallback}).`);
    return fallback;
  }
  return value;
}

function parseParams(raw: unknown, errors: string[]): TunableParam[] {
  const entries: { name: unknown; body: unknown; where: string }[] = [];
  if (isPlainObject(raw)) {
    for (const [name, body] of Object.entries(raw)) entries.push({ name, body, where: `tunable_params.${name}` });
  } else if (Array.isArray(raw)) {
    raw.forEach((item, index) => {
      const where = `tunable_params[${index}]`;
      if (!isPlainObject(item)) {
        entries.push({ name: undefined, body: item, where });
        return;
      }
      const { name, ...body } = item;
      entries.push({ name, body, where });
    });
  } else {
    errors.push('`adaptation.tunable_params` is missing or not a mapping; list each parameter, e.g. `batch_size: { type: integer, min: 10, max: 500, default: 100 }`.');
    return [];
  }
  if (entries.length === 0) errors.push('`adaptation.tunable_params` is empty; declare at least one parameter to tune.');
  if (entries.length > MAX_PARAMS) errors.push(`\`adaptation.tunable_params\` declares ${entries.length} parameters; at most ${MAX_PARAMS} can be tuned.`);

  const params: TunableParam[] = [];
  const seen = new Set<string>();
  for (const { name, body, where } of entries) {
    if (typeof name !== 'string' || name.trim() === '') {
      errors.push(`\`adaptation.${where}\` needs a \`name\`: the input_schema property it tunes.`);
      continue;
    }
    if (name === '__proto__' || name === 'constructor' || name === 'prototype') {
      errors.push(`\`adaptation.${where}\`: "${name}" cannot be tuned (the name is reserved); rename the input.`);
      continue;
    }
    if (seen.has(name)) {
      errors.push(`\`adaptation.${where}\`: "${name}" is declared twice; keep one.`);
      continue;
    }
    seen.add(name);
    const param = parseParam(name, body, `adaptation.${where}`, errors);
    if (param) params.push(param);
  }
  return params;
}

function parseParam(name: string, body: unknown, where: string, errors: string[]): TunableParam | undefined {
  if (!isPlainObject(body)) {
    errors.push(`\`${where}\` must be a mapping with \`type\`, bounds and \`default\`.`);
    return undefined;
  }
  const type = body['type'];
  if (type !== 'integer' && type !== 'number' && type !== 'string' && type !== 'boolean') {
    errors.push(`\`${where}.type\` is ${JSON.stringify(type)}; use integer, number, string (with \`enum\`) or boolean.`);
    return undefined;
  }
  const before = errors.length;
  for (const key of Object.keys(body)) {
    if (!PARAM_KEYS[type].includes(key)) errors.push(`\`${where}.${key}\` is not a field of a ${type} parameter; its fields are ${PARAM_KEYS[type].join(', ')}.`);
  }
  const value = body['default'];
  if (type === 'boolean') {
    if (typeof value !== 'boolean') errors.push(`\`${where}.default\` must be true or false.`);
    return errors.length === before ? { name, type, default: value as boolean } : undefined;
  }
  if (type === 'string') {
    const choices = body['enum'];
    if (!Array.isArray(choices) || choices.length < 2 || !choices.every((item) => typeof item === 'string')) {
      errors.push(`\`${where}.enum\` must list at least two strings to choose between, e.g. \`enum: [fast, thorough]\`.`);
    } else if (new Set(choices).size !== choices.length) {
      errors.push(`\`${where}.enum\` lists a value twice; list each once.`);
    } else if (typeof value !== 'string' || !choices.includes(value)) {
      errors.push(`\`${where}.default\` is ${JSON.stringify(value)}, which is not in its enum (${choices.join(', ')}); set it to one of them.`);
    }
    return errors.length === before ? { name, type, enum: [...(choices as string[])], default: value as string } : undefined;
  }
  return parseNumeric(name, type, body, where, errors, before);
}

function parseNumeric(name: string, type: 'integer' | 'number', body: Record<string, unknown>, where: string, errors: string[], before: number): NumericParam | undefined {
  const read = (key: string, required: boolean): number | undefined => {
    const value = body[key];
    if (value === undefined && !required) return undefined;
    const whole = type === 'integer';
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > MAX_MAGNITUDE || (whole && !Number.isInteger(value))) {
      errors.push(
        value === undefined
          ? `\`${where}\` needs \`${key}\`: tuning is bounded, so every number parameter declares min, max and default.`
          : `\`${where}.${key}\` is ${JSON.stringify(value)}; it must be a${whole ? ' whole' : ''} number.`,
      );
      return undefined;
    }
    return value;
  };
  const min = read('min', true);
  const max = read('max', true);
  const value = read('default', true);
  const step = read('step', false);
  if (errors.length > before || min === undefined || max === undefined || value === undefined) return undefined;
  if (min >= max) {
    errors.push(`\`${where}\` has min ${min} and max ${max}; min must be below max (swap them, or widen the range).`);
    return undefined;
  }
  if (value < min || value > max) {
    errors.push(`\`${where}.default\` ${value} lies outside [${min}, ${max}]; move the default inside the bounds or widen them.`);
    return undefined;
  }
  const param: NumericParam = { name, type, min, max, default: value, ...(step !== undefined ? { step } : {}) };
  if (step !== undefined && (step <= 0 || step > max - min)) {
    errors.push(`\`${where}.step\` ${step} must be above 0 and at most the range (${max - min}).`);
    return undefined;
  }
  const unit = gridStep(param);
  const limit = maxChange(param);
  if (unit !== undefined && unit > limit + 1e-9) {
    errors.push(
      `\`${where}\`: one change may move at most 20 % of the default (${Number(limit.toPrecision(6))}), less than one ${step !== undefined ? 'step' : 'integer step'} (${unit}), so it could never be tuned. ` +
        (step !== undefined
          ? `Use a step of at most ${Number(limit.toPrecision(6))}.`
          : value === 0
            ? `Widen the range to at least ${Math.ceil(1 / MAX_CHANGE_RATIO)}, or make it a number.`
            : `Use a default of at least ${Math.ceil(1 / MAX_CHANGE_RATIO)} (in size), or make it a number.`),
    );
    return undefined;
  }
  return param;
}

const SCHEMA_TYPES: Record<TunableParam['type'], readonly string[]> = {
  integer: ['integer', 'number'],
  number: ['number'],
  string: ['string'],
  boolean: ['boolean'],
};

/** A tuned value replaces the input_schema default at binding, so it must be a value that schema accepts. */
function checkAgainstInputSchema(params: readonly TunableParam[], schema: unknown, errors: string[]): void {
  if (params.length === 0) return;
  const properties = isPlainObject(schema) && isPlainObject(schema['properties']) ? schema['properties'] : undefined;
  for (const param of params) {
    const property = properties?.[param.name];
    if (!isPlainObject(property)) {
      errors.push(`\`adaptation.tunable_params.${param.name}\` tunes an input that \`input_schema.properties\` does not declare; add "${param.name}" there or fix the name.`);
      continue;
    }
    const where = `input_schema.properties.${param.name}`;
    const type = property['type'];
    if (typeof type === 'string' && !SCHEMA_TYPES[param.type].includes(type)) {
      errors.push(`\`adaptation.tunable_params.${param.name}\` is tuned as ${param.type}, but \`${where}.type\` is ${type}; make them agree.`);
    }
    if (property['default'] !== undefined && property['default'] !== param.default) {
      errors.push(`\`${where}.default\` (${JSON.stringify(property['default'])}) differs from the adaptation default (${JSON.stringify(param.default)}); the tuned value replaces it, so keep one default: remove it from input_schema or make them equal.`);
    }
    if (param.type === 'string' && Array.isArray(property['enum'])) {
      const allowed = property['enum'];
      const extra = param.enum.filter((item) => !allowed.includes(item));
      if (extra.length > 0) errors.push(`\`adaptation.tunable_params.${param.name}.enum\` has ${extra.join(', ')}, which \`${where}.enum\` does not allow; remove them.`);
    }
    if (param.type === 'integer' || param.type === 'number') {
      const minimum = property['minimum'];
      const maximum = property['maximum'];
      if (typeof minimum === 'number' && param.min < minimum) errors.push(`\`adaptation.tunable_params.${param.name}.min\` ${param.min} is below \`${where}.minimum\` ${minimum}; raise it.`);
      if (typeof maximum === 'number' && param.max > maximum) errors.push(`\`adaptation.tunable_params.${param.name}.max\` ${param.max} is above \`${where}.maximum\` ${maximum}; lower it.`);
    }
  }
}
