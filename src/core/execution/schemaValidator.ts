import { createHash } from 'node:crypto';
import Ajv, { MissingRefError } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import type AjvCore from 'ajv/dist/core';
import { clipEnd, clipLine } from '../text/clip';

/**
 * JSON Schema checks for skill arguments and outputs. Schemas come from SKILL.md frontmatter, so
 * they may be invalid, huge, self-referencing, full of YAML aliases or point at the network: each
 * of those is a clear error result, never a crash and never a fetch.
 */

/** One problem in a checked value: a JSON pointer into it and what is wrong there. */
export interface SchemaIssue {
  readonly path: string;
  readonly message: string;
}

export type SchemaCheck = { readonly ok: true } | { readonly ok: false; readonly errors: string[]; readonly issues: readonly SchemaIssue[] };

export type CompiledSchema =
  | { readonly ok: true; readonly validate: (value: unknown) => SchemaCheck }
  | { readonly ok: false; readonly error: string };

export interface SchemaValidatorOptions {
  readonly maxSchemaBytes?: number;
  readonly maxCached?: number;
}

const MAX_ERRORS = 10;
const MAX_SCHEMA_DEPTH = 128;

type Draft = 'draft-07' | '2019-09' | '2020-12';

// The data-valued keywords hold values, not schemas: a "$ref" inside an enum is not a reference.
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
// Keywords whose value maps names to schemas: "properties: {$ref: …}" names a property "$ref".
const MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']);
const REF_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef']);

export class SchemaValidator {
  private readonly maxSchemaBytes: number;
  private readonly maxCached: number;
  private readonly cache = new Map<string, CompiledSchema>();
  private readonly shared = new Map<Draft, AjvCore>();
  private compileCount = 0;

  constructor(options: SchemaValidatorOptions = {}) {
    this.maxSchemaBytes = options.maxSchemaBytes ?? 256 * 1024;
    this.maxCached = Math.max(1, options.maxCached ?? 500);
  }

  /** How many schemas were handed to the JSON Schema compiler; cache hits do not count. */
  get compilations(): number {
    return this.compileCount;
  }

  /** Compiled once per (skill, kind, content hash of the schema JSON); invalid schemas give a clear error that says which keyword. */
  compile(skill: string, kind: 'input' | 'output', schema: unknown): CompiledSchema {
    const label = `${kind}_schema of skill "${skill}"`;
    if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
      const got = Array.isArray(schema) ? 'a list' : schema === null ? 'empty' : `a ${typeof schema}`;
      return { ok: false, error: `${label} must be a JSON Schema object such as {"type": "object", "properties": {…}}, but it is ${got}.` };
    }
    const json = stableJson(schema, this.maxSchemaBytes);
    if (!json.ok) return { ok: false, error: `${label} ${json.error}` };
    const key = `${skill}\u0000${kind}\u0000${createHash('sha256').update(json.text).digest('hex')}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const compiled = this.build(label, JSON.parse(json.text) as unknown);
    this.cache.set(key, compiled);
    if (this.cache.size > this.maxCached) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    return compiled;
  }

  private build(label: string, schema: unknown): CompiledSchema {
    let draft: Draft = 'draft-07';
    let ids: string[] = [];
    if (isRecord(schema)) {
      const chosen = draftOf(schema['$schema']);
      if (typeof chosen !== 'string') return { ok: false, error: `${label} ${chosen.error}` };
      draft = chosen;
      const refs = referencesOf(schema);
      ids = refs.ids;
      const remote = refs.refs.find((ref) => !isLocalRef(ref.value, ids, typeof schema['$id'] === 'string' ? schema['$id'] : undefined));
      if (remote) {
        return {
          ok: false,
          error: `${label} has "${remote.keyword}": ${JSON.stringify(remote.value)} at ${remote.at || '/'}; only local references such as "#/definitions/<name>" or "#/$defs/<name>" are allowed, because schemas are never fetched. Copy the referenced schema into "definitions" and point at it there.`,
        };
      }
      if (schema['$async'] === true) return { ok: false, error: `${label} is marked "$async", which skills do not support; remove "$async".` };
      // The instance is chosen from "$schema" already; spelling variants of the URI must not matter.
      delete schema['$schema'];
    }
    // A schema with "$id"s registers them in its compiler; a compiler of its own keeps them from meeting another skill's.
    const ajv = ids.length > 0 ? createAjv(draft) : this.sharedAjv(draft);
    this.compileCount += 1;
    try {
      if (!ajv.validateSchema(schema as object | boolean)) return { ok: false, error: `${label} is not a valid JSON Schema: ${metaProblems(ajv.errors ?? [])}.` };
      const validate = ajv.compile(schema as object | boolean);
      return { ok: true, validate: (value) => check(validate, value) };
    } catch (error) {
      return { ok: false, error: `${label} ${compileProblem(error)}` };
    } finally {
      // Our cache owns compiled schemas; the compiler's own would grow with every version of every skill.
      // A schema without "$id" is registered under "" (so that "$ref": "#" finds it); that goes too.
      if (typeof schema === 'object') ajv.removeSchema(schema as object);
      ajv.removeSchema('');
    }
  }

  private sharedAjv(draft: Draft): AjvCore {
    let ajv = this.shared.get(draft);
    if (!ajv) {
      ajv = createAjv(draft);
      this.shared.set(draft, ajv);
    }
    return ajv;
  }
}

function createAjv(draft: Draft): AjvCore {
  // We coerce arguments ourselves (stricter than coerceTypes) and never fill defaults into outputs.
  const options = { strict: false, allErrors: true, verbose: true, validateSchema: true, logger: false as const, coerceTypes: false, useDefaults: false };
  if (draft === '2020-12') return new Ajv2020(options);
  if (draft === '2019-09') return new Ajv2019(options);
  return new Ajv(options);
}

function draftOf(declared: unknown): Draft | { error: string } {
  if (declared === undefined) return 'draft-07';
  const text = typeof declared === 'string' ? declared : '';
  if (/draft-07\/schema#?$/.test(text)) return 'draft-07';
  if (/draft\/2019-09\/schema#?$/.test(text)) return '2019-09';
  if (/draft\/2020-12\/schema#?$/.test(text)) return '2020-12';
  return {
    error: `declares "$schema": ${clipEnd(jsonText(declared), 100)}, which is not supported; use "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema" or "https://json-schema.org/draft/2020-12/schema", or leave "$schema" out (draft-07 is assumed).`,
  };
}

interface FoundRef {
  readonly keyword: string;
  readonly value: string;
  readonly at: string;
}

/** Every reference and every "$id" in a schema, walking only schema positions. */
function referencesOf(schema: Record<string, unknown>): { refs: FoundRef[]; ids: string[] } {
  const refs: FoundRef[] = [];
  const ids: string[] = [];
  const walk = (node: unknown, at: string, isMap: boolean): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${at}/${i}`, false));
      return;
    }
    if (!isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${at}/${escapePointer(key)}`;
      if (isMap) walk(value, here, false);
      else if (DATA_KEYWORDS.has(key)) continue;
      else if (REF_KEYWORDS.has(key) && typeof value === 'string') refs.push({ keyword: key, value, at: here });
      else if (key === '$id' && typeof value === 'string') ids.push(value);
      else walk(value, here, MAP_KEYWORDS.has(key));
    }
  };
  walk(schema, '', false);
  return { refs, ids };
}

function isLocalRef(ref: string, ids: readonly string[], rootId: string | undefined): boolean {
  if (ref.startsWith('#')) return true;
  // A reference to an "$id" the schema itself declares is local too, written relative to the root's id or not.
  const absolute = (uri: string): string => {
    try {
      return new URL(uri, rootId).href.replace(/#$/, '');
    } catch {
      return uri.replace(/#$/, '');
    }
  };
  return new Set(ids.map(absolute)).has(absolute(ref.split('#')[0] ?? ''));
}

function check(validate: ValidateFunction, value: unknown): SchemaCheck {
  let valid: boolean;
  try {
    valid = validate(value);
  } catch (error) {
    // A schema that refers to itself recurses with the value; a deep enough value exhausts the stack.
    const message = error instanceof RangeError ? 'is nested too deeply to check against a schema that refers to itself' : `could not be checked: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, errors: [`(root) ${message}`], issues: [{ path: '', message }] };
  }
  if (valid) return { ok: true };
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    const issue = issueOf(error);
    const text = `${issue.path || '(root)'} ${issue.message}`;
    if (seen.has(text)) continue;
    seen.add(text);
    issues.push(issue);
  }
  const errors = issues.map((issue) => `${issue.path || '(root)'} ${issue.message}`);
  if (errors.length > MAX_ERRORS) {
    const more = errors.length - (MAX_ERRORS - 1);
    errors.splice(MAX_ERRORS - 1, errors.length, `… and ${more} more problems`);
  }
  return { ok: false, errors, issues };
}

function issueOf(error: ErrorObject): SchemaIssue {
  const params = error.params as Record<string, unknown>;
  const path = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path: `${path}/${escapePointer(String(params['missingProperty']))}`, message: 'is required' };
    case 'additionalProperties':
      return { path: `${path}/${escapePointer(String(params['additionalProperty']))}`, message: 'is not allowed (the schema lists no such property)' };
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? params['allowedValues'] : [];
      return { path, message: `must be one of ${clipEnd(allowed.map((v) => JSON.stringify(v)).join(', '), 200)}, got ${preview(error.data)}` };
    }
    case 'type':
    case 'const':
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'multipleOf':
    case 'pattern':
      return { path, message: `${error.message ?? `fails "${error.keyword}"`}, got ${preview(error.data)}` };
    default:
      return { path, message: error.message ?? `fails "${error.keyword}"` };
  }
}

/** The problems of an invalid schema, each named by the keyword at fault and where it sits. */
function metaProblems(errors: readonly ErrorObject[]): string {
  const byPath = new Map<string, ErrorObject>();
  for (const error of errors) {
    const first = byPath.get(error.instancePath);
    // anyOf/oneOf only repeat that the branches failed; the branch's own message says what to write.
    if (!first || ((first.keyword === 'anyOf' || first.keyword === 'oneOf') && error.keyword !== first.keyword)) byPath.set(error.instancePath, error);
  }
  const parts = [...byPath.values()].slice(0, MAX_ERRORS).map((error) => {
    const segments = error.instancePath.split('/');
    const keyword = unescapePointer(segments[segments.length - 1] ?? '');
    const params = error.params as Record<string, unknown>;
    const allowed = error.keyword === 'enum' && Array.isArray(params['allowedValues']) ? ` (${params['allowedValues'].join(', ')})` : '';
    const where = error.instancePath === '' ? 'the schema' : `"${keyword}" at ${error.instancePath}`;
    return `${where} ${error.message ?? `fails "${error.keyword}"`}${allowed}`;
  });
  return parts.join('; ');
}

function compileProblem(error: unknown): string {
  if (error instanceof MissingRefError) {
    return `has a reference ${JSON.stringify(error.missingRef)} that points at nothing in the schema; add the definition it names or fix the reference.`;
  }
  if (error instanceof RangeError) return `nests or refers to itself too deeply to compile; write recursion as "$ref": "#/definitions/<name>".`;
  const message = error instanceof Error ? error.message : String(error);
  return `cannot be compiled: ${clipLine(message, 300)}.`;
}

type StableJson = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

class JsonStop extends Error {}

/**
 * JSON with sorted keys, so equal content hashes equally. Stops at `maxBytes`: objects shared through
 * YAML aliases are written out once per use, and a few levels of aliases can stand for gigabytes.
 */
function stableJson(value: unknown, maxBytes: number): StableJson {
  const parts: string[] = [];
  let length = 0;
  const onPath = new Set<object>();
  const emit = (text: string): void => {
    length += text.length;
    if (length > maxBytes) throw new JsonStop(`is larger than ${formatBytes(maxBytes)} written as JSON (YAML aliases count once per use); make it smaller, or define repeated parts once under "definitions" and point at them with "$ref".`);
    parts.push(text);
  };
  const write = (node: unknown, depth: number): void => {
    if (depth > MAX_SCHEMA_DEPTH) throw new JsonStop(`nests deeper than ${MAX_SCHEMA_DEPTH} levels; flatten it or use "$ref" to named definitions.`);
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return emit(JSON.stringify(node));
    if (typeof node === 'number') return emit(Number.isFinite(node) ? JSON.stringify(node) : 'null');
    if (typeof node !== 'object') throw new JsonStop(`holds a value JSON cannot represent (a ${typeof node}); use strings, numbers, booleans, lists and mappings only.`);
    if (onPath.has(node)) throw new JsonStop(`contains itself (a YAML alias inside its own anchor?); write recursion as "$ref": "#/definitions/<name>".`);
    const toJSON = (node as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return write((toJSON as () => unknown).call(node), depth);
    onPath.add(node);
    if (Array.isArray(node)) {
      emit('[');
      node.forEach((item: unknown, i) => {
        if (i > 0) emit(',');
        write(item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : item, depth + 1);
      });
      emit(']');
    } else {
      emit('{');
      let first = true;
      for (const key of Object.keys(node).sort()) {
        const item = (node as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        emit(`${first ? '' : ','}${JSON.stringify(key)}:`);
        first = false;
        write(item, depth + 1);
      }
      emit('}');
    }
    onPath.delete(node);
  };
  try {
    write(value, 0);
  } catch (error) {
    if (error instanceof JsonStop) return { ok: false, error: error.message };
    throw error;
  }
  const text = parts.join('');
  if (Buffer.byteLength(text) > maxBytes) return { ok: false, error: `is larger than ${formatBytes(maxBytes)} written as JSON; make it smaller.` };
  return { ok: true, text };
}

function jsonText(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return typeof value;
  return JSON.stringify(value);
}

function preview(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return 'an object';
  // JSON text escapes line breaks itself; collapsing spaces would misreport a value such as "  ".
  return clipEnd(jsonText(value), 60);
}

const formatBytes = (bytes: number): string => (bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`);
const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (key: string): string => key.replace(/~1/g, '/').replace(/~0/g, '~');

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
