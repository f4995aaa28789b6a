import { isPlainObject } from '../skills/model/skillParser';
import { lookupPath as lookupOwnPath } from '../skills/model/conditionExpression';

/** What `${input.x}`, `${steps.<id>.output.<path>}` and `${context.x}` read. */
export interface ReferenceScope {
  readonly input: Readonly<Record<string, unknown>>;
  readonly steps: Readonly<Record<string, { readonly status: string; readonly output?: unknown; readonly error?: string }>>;
  readonly context: Readonly<Record<string, unknown>>;
}

const REFERENCE = /\$\{([^}]*)\}/g;
const WHOLE = /^\$\{([^}]*)\}$/;
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);
/** Bound on values visited while resolving one `with` block: YAML aliases can describe huge trees. */
const WALK_BUDGET = 10_000;

export type Resolved = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** `steps.fetch.output.items.0` → ['steps','fetch','output','items','0']; brackets `[0]` work too. */
export function referencePath(inner: string): string[] {
  return inner
    .trim()
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** The value at a path, own properties only (the `if` language reads the same way). */
export function lookupPath(scope: ReferenceScope, path: readonly string[]): unknown {
  return path.some((part) => UNSAFE.has(part)) ? undefined : lookupOwnPath(scope, path);
}

function describeMissing(scope: ReferenceScope, path: readonly string[], written: string): string {
  const [root, id] = path;
  if (root !== 'input' && root !== 'steps' && root !== 'context') {
    return `${written} is not a reference Skillwright understands; use \${input.<name>}, \${steps.<id>.output…} or \${context.<name>}`;
  }
  if (root === 'steps' && id !== undefined) {
    const step = scope.steps[id];
    if (!step) return `${written} refers to step "${id}", which has not run (or does not exist in this workflow)`;
    if (step.status === 'failed' || step.status === 'skipped') return `${written} refers to step "${id}", which ${step.status === 'failed' ? `failed (${step.error ?? 'no message'})` : 'was skipped'}`;
  }
  // Say what the deepest existing value offers, so a typo is easy to spot.
  for (let depth = path.length - 1; depth > 0; depth--) {
    const parent = lookupPath(scope, path.slice(0, depth));
    if (parent !== undefined) {
      const keys = isPlainObject(parent) ? Object.keys(parent).slice(0, 10) : [];
      const has = keys.length > 0 ? ` (it has: ${keys.join(', ')})` : ` (it is ${parent === null ? 'null' : Array.isArray(parent) ? `a list of ${parent.length}` : typeof parent})`;
      return `${written}: ${path.slice(0, depth).join('.')} has no "${path[depth] ?? ''}"${has}`;
    }
  }
  return `${written} has no value`;
}

function resolveOne(inner: string, scope: ReferenceScope): Resolved {
  const path = referencePath(inner);
  const written = `\${${inner}}`;
  const value = lookupPath(scope, path);
  if (value === undefined) return { ok: false, error: describeMissing(scope, path, written) };
  return { ok: true, value };
}

function resolveString(text: string, scope: ReferenceScope): Resolved {
  const whole = WHOLE.exec(text);
  // A value that is one reference keeps its type (a number stays a number, a list a list).
  if (whole) return resolveOne(whole[1] ?? '', scope);
  let error: string | undefined;
  const out = text.replace(REFERENCE, (_match, inner: string) => {
    const resolved = resolveOne(inner, scope);
    if (!resolved.ok) {
      error ??= resolved.error;
      return '';
    }
    return typeof resolved.value === 'string' ? resolved.value : JSON.stringify(resolved.value);
  });
  return error !== undefined ? { ok: false, error } : { ok: true, value: out };
}

/** Replaces every reference in a `with` block (nested lists and mappings included). */
export function resolveReferences(value: unknown, scope: ReferenceScope): Resolved {
  const budget = { left: WALK_BUDGET };
  const walk = (item: unknown): Resolved => {
    if (budget.left-- <= 0) return { ok: false, error: `the step's arguments are too large to resolve (more than ${WALK_BUDGET} values)` };
    if (typeof item === 'string') return resolveString(item, scope);
    if (Array.isArray(item)) {
      const out: unknown[] = [];
      for (const entry of item) {
        const resolved = walk(entry);
        if (!resolved.ok) return resolved;
        out.push(resolved.value);
      }
      return { ok: true, value: out };
    }
    if (isPlainObject(item)) {
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(item)) {
        const resolved = walk(entry);
        if (!resolved.ok) return resolved;
        out[key] = resolved.value;
      }
      return { ok: true, value: out };
    }
    return { ok: true, value: item };
  };
  return walk(value);
}

/** The step ids a value refers to through `${steps.<id>…}`, for the dependency graph. */
export function referencedSteps(value: unknown, out = new Set<string>(), budget = { left: WALK_BUDGET }): Set<string> {
  if (budget.left-- <= 0) return out;
  if (typeof value === 'string') {
    for (const match of value.matchAll(REFERENCE)) {
      const [root, id] = referencePath(match[1] ?? '');
      if (root === 'steps' && id !== undefined) out.add(id);
    }
    for (const match of value.matchAll(/\bsteps\.([A-Za-z0-9_-]+)/g)) if (match[1] !== undefined) out.add(match[1]);
  } else if (Array.isArray(value)) {
    for (const item of value) referencedSteps(item, out, budget);
  } else if (isPlainObject(value)) {
    for (const item of Object.values(value)) referencedSteps(item, out, budget);
  }
  return out;
}
