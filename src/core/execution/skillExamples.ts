import * as path from 'node:path';
import type { FileSystemPort } from '../base/fileSystemPort';
import { describeError } from '../base/logger';
import { closestNames } from '../text/closestNames';
import { clipLine } from '../text/clip';
import { isPlainObject } from '../skills/model/skillParser';
import type { SkillRecord } from '../skills/model/skillTypes';
import type { SkillSearch } from '../skills/search/skillSearch';
import type { RunResult, SkillKind } from './executionTypes';
import { parseJsonText } from './jsonText';
import type { SchemaValidator } from './schemaValidator';

/**
 * The trial runs of a skill before it is published (`skillwright test-skill`): the examples it
 * ships in `examples/*.json`, each `{arguments, expect?}`, and its `example_queries`, which must
 * find the skill in the top results of the skill search.
 */

export const EXAMPLES_FOLDER = 'examples';
/** An example is a few arguments and an expectation; anything bigger is not an example. */
const MAX_EXAMPLE_BYTES = 1024 * 1024;
/** Where an example query must rank the skill. */
export const QUERY_TOP = 3;
const EXAMPLE_KEYS = ['arguments', 'expect', 'description'];
const EXPECT_KEYS = ['output', 'schema', 'success', 'error'];

export interface ExampleExpectation {
  /** False for an example that must fail (`{success: false}` or `{error: "…"}`). */
  readonly success: boolean;
  /** A subset the output must contain. */
  readonly output?: unknown;
  /** A JSON Schema the output must match. */
  readonly schema?: unknown;
  /** Text the error must contain. */
  readonly error?: string;
}

export interface SkillExample {
  /** Relative to the skill folder, `/`-separated: `examples/adds.json`. */
  readonly file: string;
  readonly description?: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly expect: ExampleExpectation;
}

export type LoadedExample = { readonly ok: true; readonly example: SkillExample } | { readonly ok: false; readonly file: string; readonly error: string };

/** The examples of the skill in dir, sorted by file name; a folder without `examples/` has none. */
export async function loadSkillExamples(fs: FileSystemPort, dir: string): Promise<LoadedExample[]> {
  const folder = path.join(dir, EXAMPLES_FOLDER);
  const entries = await fs.readDirectory(folder).catch(() => []);
  const names = entries
    .filter((entry) => (entry.type === 'file' || entry.type === 'symlink') && entry.name.toLowerCase().endsWith('.json'))
    .map((entry) => entry.name)
    .sort();
  const loaded: LoadedExample[] = [];
  for (const name of names) {
    const file = `${EXAMPLES_FOLDER}/${name}`;
    const full = path.join(folder, name);
    const stat = await fs.stat(full);
    if (stat?.type !== 'file') continue;
    if (stat.size > MAX_EXAMPLE_BYTES) {
      loaded.push({ ok: false, file, error: `${file} is ${stat.size} bytes; an example is at most ${MAX_EXAMPLE_BYTES} bytes of arguments and expectations` });
      continue;
    }
    try {
      loaded.push(readExample(file, Buffer.from(await fs.readFile(full)).toString('utf8')));
    } catch (error) {
      loaded.push({ ok: false, file, error: `${file} cannot be read: ${describeError(error)}` });
    }
  }
  return loaded;
}

/** One example file's text as an example, or what is wrong with it (with the line and column for bad JSON). */
export function readExample(file: string, text: string): LoadedExample {
  const bad = (error: string): LoadedExample => ({ ok: false, file, error: `${file}: ${error}` });
  const parsed = parseJsonText(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) return bad(`not valid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.message}`);
  const value = parsed.value;
  const shape = 'write it as {"arguments": {…}, "expect": {"output": {…}}}';
  if (!isPlainObject(value)) return bad(`an example is a JSON object; ${shape}`);
  const unknown = unknownKey(value, EXAMPLE_KEYS, 'an example');
  if (unknown) return bad(unknown);
  const args = value['arguments'] ?? {};
  if (!isPlainObject(args)) return bad(`"arguments" must be an object of the skill's arguments, e.g. {"path": "data.json"}`);
  const description = value['description'];
  if (description !== undefined && typeof description !== 'string') return bad('"description" must be a string');
  const expect = value['expect'] ?? {};
  if (!isPlainObject(expect)) return bad(`"expect" must be an object: {"output": {…}}, {"schema": {…}}, {"success": false} or {"error": "text"}`);
  const unknownExpect = unknownKey(expect, EXPECT_KEYS, '"expect"');
  if (unknownExpect) return bad(unknownExpect);
  const success = expect['success'];
  const error = expect['error'];
  if (success !== undefined && typeof success !== 'boolean') return bad('"expect.success" must be true or false');
  if (error !== undefined && typeof error !== 'string') return bad('"expect.error" must be a piece of the error text, as a string');
  const mustFail = success === false || error !== undefined;
  if (success === true && error !== undefined) return bad('"expect" asks for success and for an error; keep one of them');
  if (mustFail && (expect['output'] !== undefined || expect['schema'] !== undefined)) {
    return bad('"expect" checks the output of a run that must fail; drop "output"/"schema" or the failure');
  }
  return {
    ok: true,
    example: {
      file,
      ...(description !== undefined ? { description } : {}),
      arguments: args,
      expect: {
        success: !mustFail,
        ...(expect['output'] !== undefined ? { output: expect['output'] } : {}),
        ...(expect['schema'] !== undefined ? { schema: expect['schema'] } : {}),
        ...(typeof error === 'string' ? { error } : {}),
      },
    },
  };
}

function unknownKey(value: Record<string, unknown>, allowed: readonly string[], what: string): string | undefined {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra === undefined) return undefined;
  const close = closestNames(extra, allowed, 1)[0];
  return `${what} has no key ${JSON.stringify(extra)}${close ? ` (did you mean "${close}"?)` : ''}; it takes ${allowed.map((key) => `"${key}"`).join(', ')}`;
}

const show = (value: unknown): string => (value === undefined ? 'nothing' : clipLine(JSON.stringify(value), 120));
const step = (at: string, key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`);

/**
 * Where actual does not contain expected, or undefined when it does: every key of an expected
 * object must be there with a matching value (other keys may exist), lists match item by item and
 * must be as long, anything else must be equal.
 */
export function subsetMismatch(expected: unknown, actual: unknown, at = 'output'): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected a list, got ${show(actual)}`;
    if (actual.length !== expected.length) return `${at}: expected ${expected.length} item(s), got ${actual.length}: ${show(actual)}`;
    for (const [i, item] of expected.entries()) {
      const mismatch = subsetMismatch(item, actual[i], `${at}[${i}]`);
      if (mismatch !== undefined) return mismatch;
    }
    return undefined;
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return `${at}: expected an object, got ${show(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.prototype.hasOwnProperty.call(actual, key)) return `${step(at, key)}: missing (the output has ${Object.keys(actual).map((k) => JSON.stringify(k)).join(', ') || 'no keys'})`;
      const mismatch = subsetMismatch(value, actual[key], step(at, key));
      if (mismatch !== undefined) return mismatch;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${at}: expected ${show(expected)}, got ${show(actual)}`;
}

/** Whether a run did what its example expects; the message says what differs. */
export function checkExample(skill: string, example: SkillExample, result: Pick<RunResult, 'success' | 'output' | 'error'>, validator: SchemaValidator): { readonly passed: boolean; readonly message?: string } {
  const { expect } = example;
  if (!expect.success) {
    const wanted = expect.error !== undefined ? `to fail with an error containing ${JSON.stringify(expect.error)}` : 'to fail';
    if (result.success) return { passed: false, message: `expected the run ${wanted}, but it succeeded with ${show(result.output)}` };
    if (expect.error !== undefined && !(result.error ?? '').includes(expect.error)) return { passed: false, message: `expected the run ${wanted}, but it failed with: ${result.error ?? 'no error text'}` };
    return { passed: true };
  }
  if (!result.success) return { passed: false, message: `the run failed: ${result.error ?? 'no error text'}` };
  if (expect.output !== undefined) {
    const mismatch = subsetMismatch(expect.output, result.output);
    if (mismatch !== undefined) return { passed: false, message: `the output does not match expect.output: ${mismatch}` };
  }
  if (expect.schema !== undefined) {
    const compiled = validator.compile(`${skill} (${example.file})`, 'output', expect.schema);
    if (!compiled.ok) return { passed: false, message: `expect.schema cannot be used: ${compiled.error}` };
    const checked = compiled.validate(result.output);
    if (!checked.ok) return { passed: false, message: `the output does not match expect.schema: ${checked.errors.join('; ')}` };
  }
  return { passed: true };
}

export interface ExampleResult {
  /** `example` for a file, `binding` for an instruction skill run without arguments, `query` for an example query. */
  readonly kind: 'example' | 'binding' | 'query';
  /** The file, `binding`, or the query text. */
  readonly name: string;
  readonly passed: boolean;
  readonly message?: string;
  readonly description?: string;
  readonly trace_id?: string;
  /** For a query: where the search ranked the skill (1 = first), when it was found at all. */
  readonly rank?: number;
  readonly durationMs: number;
}

export interface SkillTestReport {
  readonly skill: string;
  readonly passed: number;
  readonly failed: number;
  readonly results: readonly ExampleResult[];
}

export interface SkillTestOptions {
  readonly record: SkillRecord;
  readonly kind: SkillKind;
  readonly fs: FileSystemPort;
  readonly validator: SchemaValidator;
  /** Over the active skills: where each example query must rank the skill in the top QUERY_TOP. */
  readonly search: SkillSearch;
  /** Runs the skill with the given arguments through the executor. */
  readonly run: (args: Readonly<Record<string, unknown>>) => Promise<RunResult>;
  /** Told each result as it is known, for progress on a terminal. */
  readonly onResult?: (result: ExampleResult) => void;
  readonly now?: () => number;
}

/** Runs every example of a skill one after the other; a broken example fails alone, the others still run. */
export async function testSkillExamples(options: SkillTestOptions): Promise<SkillTestReport> {
  const now = options.now ?? Date.now;
  const { record } = options;
  const results: ExampleResult[] = [];
  const report = (result: ExampleResult): void => {
    results.push(result);
    options.onResult?.(result);
  };
  for (const loaded of await loadSkillExamples(options.fs, record.dir)) {
    if (!loaded.ok) {
      report({ kind: 'example', name: loaded.file, passed: false, message: loaded.error, durationMs: 0 });
      continue;
    }
    const { example } = loaded;
    const started = now();
    const result = await options.run(example.arguments);
    const checked = checkExample(record.name, example, result, options.validator);
    report({
      kind: 'example',
      name: example.file,
      passed: checked.passed,
      ...(checked.message !== undefined ? { message: checked.message } : {}),
      ...(example.description !== undefined ? { description: example.description } : {}),
      trace_id: result.trace_id,
      durationMs: now() - started,
    });
  }
  const queries = record.exampleQueries.filter((query) => query.trim() !== '');
  if (queries.length > 0 && options.kind === 'instructions') {
    const started = now();
    const result = await options.run({});
    const output = result.output as { instructions?: unknown } | null;
    const bound = result.success && typeof output?.instructions === 'string';
    report({
      kind: 'binding',
      name: 'binding',
      passed: bound,
      ...(bound ? {} : { message: `the skill does not run as instructions without arguments, as the model would first call it: ${result.error ?? 'the output has no instructions'}` }),
      trace_id: result.trace_id,
      durationMs: now() - started,
    });
  }
  for (const query of queries) {
    const started = now();
    const hits = options.search.search(query, { top: 10 });
    const at = hits.findIndex((hit) => hit.record.file === record.file);
    const rank = at >= 0 ? at + 1 : undefined;
    const passed = rank !== undefined && rank <= QUERY_TOP;
    const ahead = hits.slice(0, QUERY_TOP).filter((hit) => hit.record.file !== record.file).map((hit) => hit.record.name);
    const message = passed
      ? undefined
      : `the search ranks "${record.name}" ${rank === undefined ? 'below the first 10' : `#${rank}`} for this query; it must be in the top ${QUERY_TOP}` +
        (ahead.length > 0 ? ` (ahead of it: ${ahead.join(', ')}). Make the description or example_queries say what sets it apart` : '. Put the words of the query in its description');
    report({ kind: 'query', name: query, passed, ...(message !== undefined ? { message } : {}), ...(rank !== undefined ? { rank } : {}), durationMs: now() - started });
  }
  const passed = results.filter((result) => result.passed).length;
  return { skill: record.name, passed, failed: results.length - passed, results };
}
