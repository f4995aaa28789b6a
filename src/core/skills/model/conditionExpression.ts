/**
 * The evaluator of the `if:` language of workflow steps (the parser is conditionParser.ts). Values
 * are JSON: `==` is strict and structural, ordering only compares two numbers or two strings, and
 * a missing reference is `undefined` rather than an error, so `exists(x)` and `not x` can ask
 * about it. Nothing here runs code from the condition; the only calls out are to `resolve`.
 */
import type { CompareOperator, ConditionAst, SourcePosition } from './conditionParser';
import { describePosition, parseCondition } from './conditionParser';

export type EvalResult = { readonly ok: true; readonly value: boolean } | { readonly ok: false; readonly error: string };

/** Deeper than any sensible output, shallow enough that a cyclic value cannot exhaust the stack. */
const MAX_COMPARE_DEPTH = 64;

class ConditionEvaluationError extends Error {}

/** resolve(path) returns the value at the path, e.g. ['steps','fetch','output','count'], or undefined. */
export function evaluateCondition(ast: ConditionAst, resolve: (path: readonly string[]) => unknown): EvalResult {
  try {
    return { ok: true, value: isTruthy(evaluate(ast, resolve)) };
  } catch (error) {
    if (error instanceof ConditionEvaluationError) return { ok: false, error: error.message };
    throw error;
  }
}

/** parse + evaluate; for the one-off caller. */
export function checkCondition(text: string, resolve: (path: readonly string[]) => unknown): EvalResult {
  const parsed = parseCondition(text);
  return parsed.ok ? evaluateCondition(parsed.ast, resolve) : parsed;
}

/**
 * A `resolve` for evaluateCondition over plain data, e.g. `{ input, steps, context }`. It reads own
 * properties only, so `input.toString` is undefined rather than a function of Object.prototype,
 * and an array has its indexes (`items.0`) and nothing else.
 */
export function lookupPath(scope: unknown, path: readonly string[]): unknown {
  let value = scope;
  for (const segment of path) {
    if (Array.isArray(value)) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(segment)) return undefined;
      value = Number(segment) < value.length ? (value as unknown[])[Number(segment)] : undefined;
    } else if (typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, segment)) {
      value = (value as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return value;
}

/** False for undefined, null, false, 0, NaN, '' and an empty array; true for anything else. */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

function evaluate(node: ConditionAst, resolve: (path: readonly string[]) => unknown): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'reference':
      return read(node.path, node, resolve);
    case 'exists':
      return read(node.path, node, resolve) !== undefined;
    case 'not':
      return !isTruthy(evaluate(node.operand, resolve));
    case 'and':
      return node.operands.every((operand) => isTruthy(evaluate(operand, resolve)));
    case 'or':
      return node.operands.some((operand) => isTruthy(evaluate(operand, resolve)));
    case 'compare':
      return compare(node, evaluate(node.left, resolve), evaluate(node.right, resolve));
  }
}

function read(path: readonly string[], at: SourcePosition, resolve: (path: readonly string[]) => unknown): unknown {
  try {
    return resolve(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConditionEvaluationError(`could not read ${path.join('.')} at ${describePosition(at)}: ${reason}`);
  }
}

function compare(node: ConditionAst & { readonly kind: 'compare' }, left: unknown, right: unknown): boolean {
  const operator: CompareOperator = node.operator;
  if (operator === '==' || operator === '!=') {
    // A missing value equals nothing, not even another missing value; `!=` is its negation.
    const equal = left !== undefined && right !== undefined && jsonEqual(left, right, 0, node);
    return operator === '==' ? equal : !equal;
  }
  const bothNumbers = typeof left === 'number' && typeof right === 'number';
  const bothStrings = typeof left === 'string' && typeof right === 'string';
  if (!bothNumbers && !bothStrings) {
    const missing = left === undefined || right === undefined ? '; check it with exists() first' : '';
    throw new ConditionEvaluationError(
      `cannot compare ${describeOperand(node.left, left)} with ${describeOperand(node.right, right)} using "${operator}" at ${describePosition(node)}; ` +
        `both sides must be numbers or both strings${missing}`,
    );
  }
  // Strings compare by UTF-16 code units: the same answer on every machine, whatever its locale.
  const [a, b] = [left, right] as [number | string, number | string];
  switch (operator) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

function typeName(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function describeOperand(node: ConditionAst, value: unknown): string {
  if (node.kind === 'reference') return `${node.path.join('.')} (${typeName(value)})`;
  return value === undefined ? 'a missing value' : typeName(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

function jsonEqual(a: unknown, b: unknown, depth: number, at: SourcePosition): boolean {
  if (a === b) return true;
  if (depth > MAX_COMPARE_DEPTH) {
    throw new ConditionEvaluationError(`values compared at ${describePosition(at)} nest deeper than ${MAX_COMPARE_DEPTH} levels`);
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item: unknown, index) => jsonEqual(item, b[index], depth + 1, at));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key], depth + 1, at));
  }
  return false;
}
