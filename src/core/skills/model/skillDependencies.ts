import * as semver from 'semver';
import { isPlainObject } from './skillParser';
import type { SkillCall } from './skillTypes';


/** The cycles of the whole index, computed once, asked per skill by the lint. */
export interface SkillDependencies {
  /**
   * The cycles through `name`, each starting at it ([name, b, c]: name → b → c → name). `calls` is
   * what `name` calls now, which may differ from the graph (an unsaved editor buffer).
   */
  cyclesThrough(name: string, calls?: readonly SkillCall[]): readonly string[][];
}

export const MAX_CYCLES = 100;
export const MAX_EDGE_VISITS = 100_000;
/** Bound on steps read: YAML aliases let a small file write a list of many thousand items. */
const MAX_STEPS = 10_000;
const MAX_REACHABLE = 10_000; // skills checkRunnable walks through

/** `deploy@^1.2` → { name: 'deploy', range: '^1.2' }; an `@` at the start belongs to the name. */
export function splitSkillRef(ref: string): { name: string; range?: string } {
  const at = ref.lastIndexOf('@');
  return at > 0 ? { name: ref.slice(0, at).trim(), range: ref.slice(at + 1).trim() } : { name: ref.trim() };
}

/** The skills one workflow step calls, in the order the executor would try them. */
export function stepCalls(step: Readonly<Record<string, unknown>>, label: string): SkillCall[] {
  const calls: SkillCall[] = [];
  const skill = step['skill'];
  if (typeof skill === 'string' && skill.trim() !== '') {
    const { name, range } = splitSkillRef(skill);
    const version = step['version'];
    const pinned = range ?? (typeof version === 'string' ? version : undefined);
    calls.push({ skill: name, ...(pinned !== undefined ? { range: pinned } : {}), step: label, via: 'skill' });
  }
  const fallback = step['fallback_skill'];
  if (typeof fallback === 'string' && fallback.trim() !== '') {
    const { name, range } = splitSkillRef(fallback);
    calls.push({ skill: name, ...(range !== undefined ? { range } : {}), step: label, via: 'fallback' });
  }
  return calls;
}

/** The label a step goes by in messages: its id, or `#n` without one. */
export function stepLabel(step: Readonly<Record<string, unknown>>, index: number): string {
  const id = step['step'] ?? step['id'];
  return typeof id === 'string' && id !== '' ? id : `#${index + 1}`;
}

/** The skills a frontmatter's workflow calls (step `skill`, `fallback_skill`; `name@range` split). Bounded walk (YAML aliases). */
export function workflowCalls(frontmatter: Readonly<Record<string, unknown>>): SkillCall[] {
  if (!Object.prototype.hasOwnProperty.call(frontmatter, 'workflow')) return [];
  const raw = frontmatter['workflow'];
  const list: unknown[] = Array.isArray(raw) ? raw : isPlainObject(raw) && Array.isArray(raw['steps']) ? raw['steps'] : [];
  const calls: SkillCall[] = [];
  // An alias repeats the same step: one call per (skill, range, step, via) is enough.
  const seen = new Set<string>();
  const count = Math.min(list.length, MAX_STEPS);
  for (let index = 0; index < count; index++) {
    const item = list[index];
    if (!isPlainObject(item)) continue;
    for (const call of stepCalls(item, stepLabel(item, index))) {
      const key = JSON.stringify([call.skill, call.range, call.step, call.via]);
      if (seen.has(key)) continue;
      seen.add(key);
      calls.push(call);
    }
  }
  return calls;
}

/** Skills as numbers, edges deduplicated and in name order, so every walk below is deterministic. */
interface Graph {
  readonly names: string[];
  readonly ids: Map<string, number>;
  readonly out: number[][];
}

const NO_EDGES: readonly number[] = [];

function edgesOf(graph: Graph, v: number): readonly number[] {
  return graph.out[v] ?? NO_EDGES;
}

function namesOf(graph: Graph, cycle: readonly number[]): string[] {
  return cycle.map((id) => graph.names[id] ?? '');
}

function compareNames(names: readonly string[], a: number, b: number): number {
  const x = names[a] ?? '';
  const y = names[b] ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

function buildGraph(calls: ReadonlyMap<string, readonly SkillCall[]>): Graph {
  const names: string[] = [];
  const ids = new Map<string, number>();
  const out: number[][] = [];
  const idOf = (name: string): number => {
    let id = ids.get(name);
    if (id === undefined) {
      id = names.push(name) - 1;
      ids.set(name, id);
      out.push([]);
    }
    return id;
  };
  for (const [name, list] of calls) {
    // Each name is a key once, so this replaces the empty list a call to it may have left.
    const from = idOf(name);
    const edges = list.map((call) => idOf(call.skill));
    // Most skills call one skill or none: only longer lists need deduplicating and ordering.
    out[from] = edges.length > 1 ? [...new Set(edges)].sort((a, b) => compareNames(names, a, b)) : edges;
  }
  return { names, ids, out };
}

/** Tarjan's strongly connected components, with an explicit stack (10,000 chained skills must not overflow). */
function components(graph: Graph): Int32Array {
  const n = graph.out.length;
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const comp = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const frames: { v: number; i: number }[] = [];
  let counter = 0;
  let comps = 0;
  const enter = (v: number): void => {
    order[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    frames.push({ v, i: 0 });
  };
  for (let root = 0; root < n; root++) {
    if (order[root] !== -1) continue;
    enter(root);
    for (let frame = frames.at(-1); frame; frame = frames.at(-1)) {
      const { v } = frame;
      const edges = edgesOf(graph, v);
      if (frame.i < edges.length) {
        const w = edges[frame.i++] ?? v;
        if (order[w] === -1) enter(w);
        else if (onStack[w]) low[v] = Math.min(low[v] ?? 0, order[w] ?? 0);
        continue;
      }
      frames.pop();
      const parent = frames.at(-1);
      if (parent) low[parent.v] = Math.min(low[parent.v] ?? 0, low[v] ?? 0);
      if (low[v] === order[v]) {
        for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
          onStack[w] = 0;
          comp[w] = comps;
          if (w === v) break;
        }
        comps++;
      }
    }
  }
  return comp;
}

interface Budget {
  visits: number;
  readonly cycles: number[][];
}

/**
 * Johnson's circuit search for one start vertex: every elementary cycle through `start` among the
 * vertices `allowed` admits, found once each, until the budget runs out. Blocking keeps the work
 * proportional to the cycles found rather than to the paths tried.
 */
function circuitsThrough(start: number, succ: (v: number) => readonly number[], allowed: (v: number) => boolean, budget: Budget): void {
  const blocked = new Set<number>([start]);
  const blockers = new Map<number, Set<number>>();
  const unblock = (u: number): void => {
    blocked.delete(u);
    const work = [u];
    for (let x = work.pop(); x !== undefined; x = work.pop()) {
      const waiting = blockers.get(x);
      if (!waiting) continue;
      blockers.delete(x);
      for (const w of waiting) {
        if (blocked.delete(w)) work.push(w);
      }
    }
  };
  const path = [start];
  const frames = [{ v: start, i: 0, found: false }];
  for (let frame = frames.at(-1); frame; frame = frames.at(-1)) {
    const edges = succ(frame.v);
    if (frame.i < edges.length) {
      const w = edges[frame.i++] ?? start;
      if (++budget.visits > MAX_EDGE_VISITS) return;
      if (!allowed(w)) continue;
      if (w === start) {
        budget.cycles.push([...path]);
        frame.found = true;
        if (budget.cycles.length >= MAX_CYCLES) return;
      } else if (!blocked.has(w)) {
        blocked.add(w);
        path.push(w);
        frames.push({ v: w, i: 0, found: false });
      }
      continue;
    }
    if (frame.found) {
      unblock(frame.v);
    } else {
      for (const w of edges) {
        if (!allowed(w)) continue;
        const waiting = blockers.get(w) ?? new Set<number>();
        blockers.set(w, waiting.add(frame.v));
      }
    }
    frames.pop();
    path.pop();
    const parent = frames.at(-1);
    if (parent && frame.found) parent.found = true;
  }
}

/** The components of a graph, with what the cycle searches need to know of them. */
interface Components {
  readonly comp: Int32Array;
  /** Per component (Tarjan numbers them 0, 1, …): its size and its first vertex. */
  readonly size: Int32Array;
  readonly first: Int32Array;
}

function componentsOf(graph: Graph): Components {
  const comp = components(graph);
  const size = new Int32Array(comp.length);
  const first = new Int32Array(comp.length).fill(-1);
  comp.forEach((c, v) => {
    size[c] = (size[c] ?? 0) + 1;
    if (first[c] === -1) first[c] = v;
  });
  return { comp, size, first };
}

function onACycle(graph: Graph, parts: Components, v: number): boolean {
  return (parts.size[parts.comp[v] ?? 0] ?? 0) > 1 || edgesOf(graph, v).includes(v);
}

/** Ids of the skills in cycles, component by component, each component in name order. */
function cyclicComponents(graph: Graph, parts: Components): number[][] {
  const members = new Map<number, number[]>();
  parts.comp.forEach((c, v) => {
    if (!onACycle(graph, parts, v)) return;
    const list = members.get(c);
    if (list) list.push(v);
    else members.set(c, [v]);
  });
  const cyclic = [...members.values()].map((list) => list.sort((a, b) => compareNames(graph.names, a, b)));
  return cyclic.sort((a, b) => compareNames(graph.names, a[0] ?? 0, b[0] ?? 0));
}

function enumerate(graph: Graph, parts: Components): number[][] {
  const { comp } = parts;
  // Position in name order within the component: the only vertices ever compared share one.
  const rank = new Int32Array(comp.length);
  const budget: Budget = { visits: 0, cycles: [] };
  for (const members of cyclicComponents(graph, parts)) {
    members.forEach((v, position) => (rank[v] = position));
    const c = comp[members[0] ?? 0];
    for (const start of members) {
      const from = rank[start] ?? 0;
      // Only vertices after `start` in name order: a cycle is found from its smallest name, once.
      circuitsThrough(start, (v) => edgesOf(graph, v), (w) => comp[w] === c && (rank[w] ?? 0) >= from, budget);
      if (budget.visits > MAX_EDGE_VISITS || budget.cycles.length >= MAX_CYCLES) return budget.cycles;
    }
  }
  return budget.cycles;
}

/**
 * Every elementary cycle, each reported once, starting at its smallest name ([a, b, c] meaning
 * a → b → c → a; a skill whose workflow runs itself is [a]). Components first (Tarjan), then
 * Johnson's search inside each; the search stops after MAX_CYCLES cycles or MAX_EDGE_VISITS edges.
 */
export function findSkillCycles(calls: ReadonlyMap<string, readonly SkillCall[]>): string[][] {
  const graph = buildGraph(calls);
  return enumerate(graph, componentsOf(graph)).map((cycle) => namesOf(graph, cycle));
}

/** The cycle rotated to start at `first`, which it contains. */
function rotate(cycle: readonly number[], first: number): number[] {
  const at = cycle.indexOf(first);
  return [...cycle.slice(at), ...cycle.slice(0, at)];
}

function sortCycles(cycles: string[][]): string[][] {
  const key = (cycle: readonly string[]): string => cycle.join('\0');
  return cycles.sort((a, b) => a.length - b.length || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Breadth-first trees of one component from its first member: `from` leads from the root to each
 * member (parent pointers), `to` from each member back to the root (next hops).
 */
interface Trees {
  readonly root: number;
  readonly from: Map<number, number>;
  readonly to: Map<number, number>;
}

function treesOf(graph: Graph, comp: Int32Array, root: number): Trees {
  const c = comp[root];
  const reverse = new Map<number, number[]>();
  graph.out.forEach((edges, v) => {
    if (comp[v] !== c) return;
    for (const w of edges) {
      if (comp[w] !== c) continue;
      const list = reverse.get(w);
      if (list) list.push(v);
      else reverse.set(w, [v]);
    }
  });
  const bfs = (next: (v: number) => readonly number[]): Map<number, number> => {
    const parent = new Map<number, number>([[root, root]]);
    const queue = [root];
    // The iterator sees what the loop appends: a plain breadth-first queue.
    for (const v of queue) {
      for (const w of next(v)) {
        if (comp[w] === c && !parent.has(w)) {
          parent.set(w, v);
          queue.push(w);
        }
      }
    }
    return parent;
  };
  return { root, from: bfs((v) => edgesOf(graph, v)), to: bfs((v) => reverse.get(v) ?? NO_EDGES) };
}

/**
 * One elementary cycle through `v` in its component: root → … → v by the `from` tree, then from v
 * by the `to` tree until the walk meets that path again. Both trees span the component, so every
 * lookup below finds its vertex; the fallbacks only end the walks.
 */
function coveringCycle(graph: Graph, trees: Trees, v: number): number[] {
  const { root, from, to } = trees;
  const out = edgesOf(graph, v);
  if (out.includes(v)) return [v];
  const home = (x: number): number => to.get(x) ?? root;
  if (v === root) {
    // Leave the root by an edge inside the component (there is one: the root is in a cycle), then follow the tree home.
    const cycle = [v];
    for (let x = out.find((w) => to.has(w)) ?? root; x !== root; x = home(x)) cycle.push(x);
    return cycle;
  }
  const forward: number[] = [];
  for (let x = v; x !== root; x = from.get(x) ?? root) forward.push(x);
  forward.push(root);
  forward.reverse();
  const at = new Map(forward.map((x, i) => [x, i]));
  // The way back ends at the root, which is on the forward path; up to where it first meets that
  // path it shares no vertex with it, which keeps the cycle elementary.
  const back: number[] = [];
  let x = home(v);
  for (; !at.has(x); x = home(x)) back.push(x);
  return rotate([...forward.slice(at.get(x) ?? 0), ...back], v);
}

/**
 * The lint's view of the cycles of a whole index, computed once from every skill's calls. A skill
 * that the bounded enumeration did not reach (more than MAX_CYCLES cycles, or a huge component)
 * still gets one cycle through it, read off breadth-first trees of its component: every skill in a
 * cycle gets a finding, though past the bounds not every cycle is listed.
 */
export function skillDependencies(calls: ReadonlyMap<string, readonly SkillCall[]>): SkillDependencies {
  interface State {
    readonly graph: Graph;
    readonly parts: Components;
    readonly byMember: Map<number, number[][]>;
    readonly trees: Map<number, Trees>;
  }
  let state: State | undefined;
  // Built on the first question: a lint run that never meets a workflow never pays for it.
  const prepare = (): State => {
    if (state) return state;
    const graph = buildGraph(calls);
    const parts = componentsOf(graph);
    const byMember = new Map<number, number[][]>();
    for (const cycle of enumerate(graph, parts)) {
      for (const v of cycle) {
        const list = byMember.get(v);
        if (list) list.push(cycle);
        else byMember.set(v, [cycle]);
      }
    }
    state = { graph, parts, byMember, trees: new Map() };
    return state;
  };
  return {
    cyclesThrough(name, ownCalls) {
      const { graph, parts, byMember, trees } = prepare();
      const v = graph.ids.get(name);
      if (ownCalls !== undefined && !sameTargets(graph, v, ownCalls)) return cyclesWithCalls(graph, name, ownCalls);
      if (v === undefined) return [];
      const listed = byMember.get(v);
      if (listed) return sortCycles(listed.map((cycle) => namesOf(graph, rotate(cycle, v))));
      if (!onACycle(graph, parts, v)) return [];
      const c = parts.comp[v] ?? 0;
      let tree = trees.get(c);
      if (!tree) trees.set(c, (tree = treesOf(graph, parts.comp, parts.first[c] ?? v)));
      return [namesOf(graph, coveringCycle(graph, tree, v))];
    },
  };
}

function sameTargets(graph: Graph, v: number | undefined, calls: readonly SkillCall[]): boolean {
  const mine = new Set(calls.map((call) => call.skill));
  const theirs = v === undefined ? [] : namesOf(graph, edgesOf(graph, v));
  return mine.size === theirs.length && theirs.every((name) => mine.has(name));
}

/** The cycles through `name` when its calls are replaced by `calls`: Johnson's search from that one skill. */
function cyclesWithCalls(graph: Graph, name: string, calls: readonly SkillCall[]): string[][] {
  // Skills the index does not know yet (this one, unsaved, or one it now calls) get ids past the graph's.
  const names = [...graph.names];
  const extra = new Map<string, number>();
  const idOf = (skill: string): number => {
    const known = graph.ids.get(skill) ?? extra.get(skill);
    if (known !== undefined) return known;
    extra.set(skill, names.push(skill) - 1);
    return names.length - 1;
  };
  const start = idOf(name);
  const own = [...new Set(calls.map((call) => idOf(call.skill)))].sort((a, b) => compareNames(names, a, b));
  const budget: Budget = { visits: 0, cycles: [] };
  circuitsThrough(start, (v) => (v === start ? own : edgesOf(graph, v)), () => true, budget);
  return sortCycles(budget.cycles.map((cycle) => cycle.map((id) => names[id] ?? '')));
}

/** A cycle as people read it: a → b → a. */
export function cyclePath(cycle: readonly string[]): string {
  return [...cycle, cycle[0] ?? ''].join(' → ');
}

/**
 * Everything that stops `root` from running, for the whole tree of skills its workflow reaches:
 * skills that are not installed, version ranges no installed version satisfies, and workflows that
 * call each other in a cycle. `callsOf` answers undefined for a skill that is not installed.
 */
export function checkRunnable(
  root: string,
  callsOf: (name: string) => readonly SkillCall[] | undefined,
  versionOf: (name: string) => string | undefined,
): string[] {
  const rootCalls = callsOf(root);
  if (rootCalls === undefined) return [`The skill "${root}" is not installed, so it cannot run. Check the name or add the skill.`];
  const errors: string[] = [];
  const reached = new Map<string, readonly SkillCall[]>([[root, rootCalls]]);
  // Map iteration visits entries added during the loop: a breadth-first walk of the tree.
  for (const [name, calls] of reached) {
    for (const call of calls) {
      const where = `Step "${call.step}" of "${name}" ${call.via === 'fallback' ? 'falls back to' : 'runs'} "${call.skill}"`;
      const target = reached.get(call.skill) ?? callsOf(call.skill);
      if (target === undefined) {
        errors.push(`${where}, which is not installed. Fix the name in the workflow of "${name}" or add the skill.`);
        continue;
      }
      if (call.range !== undefined) {
        const problem = rangeProblem(call, versionOf(call.skill));
        if (problem) errors.push(`${where} ${problem}`);
      }
      if (reached.has(call.skill)) continue;
      if (reached.size >= MAX_REACHABLE) {
        errors.push(`The workflow of "${root}" reaches more than ${MAX_REACHABLE.toLocaleString('en-US')} skills through the workflows it runs; split it into smaller workflows.`);
        return errors;
      }
      reached.set(call.skill, target);
    }
  }
  for (const cycle of findSkillCycles(reached)) {
    errors.push(`Workflows call each other in a cycle: ${cyclePath(cycle)}, so running "${root}" would never finish. Change one of these workflows so that it no longer calls back into the cycle.`);
  }
  return errors;
}

function rangeProblem(call: SkillCall, installed: string | undefined): string | undefined {
  const range = call.range ?? '';
  if (semver.validRange(range) === null) return `at "${range}", which is not a valid version range; write one like ^1.2.0 or >=2.0.0.`;
  if (installed === undefined) return `at ${range}, but the installed "${call.skill}" declares no version. Add \`version:\` to its SKILL.md or drop the range.`;
  if (semver.valid(installed) === null) return `at ${range}, but the installed "${call.skill}" has version "${installed}", which is not a semver version. Fix its \`version:\`.`;
  if (!semver.satisfies(installed, range)) return `at ${range}, but version ${installed} is installed. Update "${call.skill}" or change the range.`;
  return undefined;
}
