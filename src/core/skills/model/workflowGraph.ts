import { isPlainObject } from './skillParser';

/** One step of a Level 1 workflow as the preview draws it (the shape of the protocol's WorkflowStepView). */
export interface WorkflowNode {
  /** Unique within the graph: the step id, made unique when the file repeats or omits one. */
  readonly id: string;
  /** The step id as written, or "step 3" when it has none. */
  readonly label: string;
  /** The skill the step runs, as written (a `@range` included). */
  readonly skill?: string;
  /** The skill is not in the index. */
  readonly unknown: boolean;
  /** The step's `if` expression. */
  readonly condition?: string;
  /** The `fallback_skill`, with " (not installed)" when the index does not have it. */
  readonly fallback?: string;
  /** Ids of the steps that wait for this one (through `depends_on` or a `steps.<id>` reference). */
  readonly next: string[];
}

/** A diagram of thousands of boxes helps nobody and costs the webview seconds; the lint still checks every step. */
export const MAX_DIAGRAM_STEPS = 200;
/** Bound on values visited per step: YAML aliases can make a small file describe a huge tree. */
const WALK_BUDGET = 10_000;
const MAX_TEXT = 500;
const STEP_REFERENCE = /\bsteps\.([A-Za-z0-9_-]+)/g;

export interface WorkflowGraph {
  readonly steps: WorkflowNode[];
  /** Steps in the file; more than `steps.length` when the diagram was capped. */
  readonly total: number;
}

/**
 * The steps of a `workflow` (a list, or a mapping with `steps`) in an order where every step comes
 * after the steps it waits for (file order among equals; steps caught in a cycle keep file order
 * at the end). Undefined when the frontmatter has no workflow; no steps when it is not a list.
 * Malformed steps are still drawn: the lint explains what is wrong with them.
 */
export function workflowGraph(frontmatter: Readonly<Record<string, unknown>>, isKnownSkill: (name: string) => boolean): WorkflowGraph | undefined {
  if (!Object.prototype.hasOwnProperty.call(frontmatter, 'workflow')) return undefined;
  const raw = frontmatter['workflow'];
  const list: unknown[] = Array.isArray(raw) ? raw : isPlainObject(raw) && Array.isArray(raw['steps']) ? raw['steps'] : [];
  const items = list.slice(0, MAX_DIAGRAM_STEPS).map((item) => (isPlainObject(item) ? item : {}));

  const steps = withUniqueIds(items);
  const byWrittenId = new Map<string, string>();
  for (const { item, id } of steps) {
    const written = writtenId(item);
    if (written !== undefined && !byWrittenId.has(written)) byWrittenId.set(written, id);
  }

  const linked = steps.map(({ item, id }) => {
    const predecessors = new Set<string>();
    for (const name of [...dependsOn(item['depends_on']), ...referencedSteps(item)]) {
      const target = byWrittenId.get(name);
      if (target !== undefined && target !== id) predecessors.add(target);
    }
    return { item, id, predecessors };
  });

  const next = new Map<string, string[]>(linked.map(({ id }) => [id, []]));
  for (const { id, predecessors } of linked) {
    for (const pred of predecessors) next.get(pred)!.push(id);
  }

  const nodes = linked.map(({ item, id }, index): WorkflowNode => {
    const skill = text(item['skill']);
    const fallbackName = text(item['fallback_skill']);
    const condition = text(item['if']);
    const known = (value: string): boolean => isKnownSkill(skillName(value));
    return {
      id,
      label: writtenId(item) ?? `step ${index + 1}`,
      ...(skill ? { skill } : {}),
      unknown: skill !== undefined && !known(skill),
      ...(condition ? { condition } : {}),
      ...(fallbackName ? { fallback: known(fallbackName) ? fallbackName : `${fallbackName} (not installed)` } : {}),
      next: next.get(id)!,
    };
  });
  return { steps: topologicalOrder(nodes, linked.map(({ predecessors }) => predecessors)), total: list.length };
}

/** The skill name of a `skill` value: `name@^1.2` names `name`. */
export function skillName(value: string): string {
  const at = value.lastIndexOf('@');
  return (at > 0 ? value.slice(0, at) : value).trim();
}

function writtenId(item: Readonly<Record<string, unknown>>): string | undefined {
  return text(item['step'] ?? item['id']);
}

/** Each step with an id of its own: the written one, `#n` without one, `id (2)` for a repeat. */
function withUniqueIds<T extends Readonly<Record<string, unknown>>>(items: readonly T[]): { item: T; id: string }[] {
  const used = new Set<string>();
  return items.map((item, index) => {
    const base = writtenId(item) ?? `#${index + 1}`;
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base} (${n})`;
    used.add(id);
    return { item, id };
  });
}

function dependsOn(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map(text).filter((item): item is string => item !== undefined);
}

/** Step ids named by `${steps.<id>…}` anywhere in the step, or by `steps.<id>` in its `if`. */
function referencedSteps(item: Readonly<Record<string, unknown>>): string[] {
  const strings: string[] = [];
  collectStrings(item, strings, { left: WALK_BUDGET });
  const names: string[] = [];
  for (const value of strings) {
    if (!value.includes('steps.')) continue;
    // The group always takes part in a match; the check only narrows the type.
    for (const match of value.matchAll(STEP_REFERENCE)) if (match[1] !== undefined) names.push(match[1]);
  }
  return names;
}

function collectStrings(value: unknown, out: string[], budget: { left: number }): void {
  if (budget.left-- <= 0) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out, budget);
  else if (isPlainObject(value)) for (const item of Object.values(value)) collectStrings(item, out, budget);
}

/** A scalar as one trimmed line of bounded length; undefined for empty values, lists and mappings. */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const line = String(value).replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  return line.length > MAX_TEXT ? `${line.slice(0, MAX_TEXT - 1)}…` : line;
}

/** Kahn's algorithm, taking the earliest ready step in file order each time. */
function topologicalOrder(nodes: readonly WorkflowNode[], predecessors: readonly ReadonlySet<string>[]): WorkflowNode[] {
  const waiting = predecessors.map((preds) => preds.size);
  const indexOf = new Map(nodes.map((node, index) => [node.id, index]));
  const placed = new Array<boolean>(nodes.length).fill(false);
  const order: WorkflowNode[] = [];
  // Step counts are capped at MAX_DIAGRAM_STEPS, so the quadratic scan for the next ready step is cheap.
  for (;;) {
    const ready = waiting.findIndex((count, index) => count === 0 && !placed[index]);
    // `waiting` has a count for each node, so a ready index always names one.
    const node = nodes[ready];
    if (!node) break;
    placed[ready] = true;
    order.push(node);
    for (const id of node.next) {
      const index = indexOf.get(id)!;
      const left = waiting[index];
      if (left !== undefined) waiting[index] = left - 1;
    }
  }
  nodes.forEach((node, index) => {
    if (!placed[index]) order.push(node);
  });
  return order;
}
