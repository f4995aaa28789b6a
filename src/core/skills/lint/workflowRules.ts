import * as semver from 'semver';
import { isPlainObject } from '../model/skillParser';
import { parseCondition } from '../model/conditionParser';
import { CONTEXT_NAMES } from '../model/contextVariables';
import type { LintFinding, SkillCall, TextRange } from '../model/skillTypes';
import { finding } from '../model/lintRules';
import type { RuleInput } from './ruleInput';
import { blockEnd, findText, keyRange, lineRange, range } from '../model/textRanges';
import { cyclePath, stepCalls, workflowCalls } from '../model/skillDependencies';

export const ERROR_STRATEGIES = ['fail_fast', 'retry', 'fallback', 'continue'] as const;
const STEP_ID = /^[A-Za-z0-9_-]+$/;
const REFERENCE = /\$\{([^}]*)\}?/g;
/** Bound on values visited per step: YAML aliases can make a small file describe a huge tree. */
const WALK_BUDGET = 10_000;

interface Step {
  readonly index: number;
  readonly id?: string;
  readonly data: Record<string, unknown>;
  /** Lines [start, end) of this step in the file; both -1 when the list is written inline. */
  readonly start: number;
  readonly end: number;
}

interface Located {
  readonly input: RuleInput;
  readonly workflowRange: TextRange;
}

function stepRange(ctx: Located, step: Step, needle?: string): TextRange {
  if (step.start < 0) {
    return ctx.workflowRange;
  }
  const found = needle === undefined ? undefined : findText(ctx.input.lines, step.start, step.end, needle);
  return found ?? lineRange(ctx.input.lines, step.start);
}

/** Start lines of the items of the list under `workflow:` (or under its `steps:`), in order. */
function itemLines(lines: readonly string[], from: number, to: number): number[] {
  const starts: number[] = [];
  let indent = -1;
  for (let i = from; i < to; i++) {
    // The group always takes part in a match: `lead` is undefined only on lines that are no item.
    const lead = /^([ \t]*)-(?:[ \t]|$)/.exec(lines[i] ?? '')?.[1];
    if (lead === undefined) continue;
    if (indent < 0) indent = lead.length;
    if (lead.length === indent) starts.push(i);
  }
  return starts;
}

function collectStrings(value: unknown, out: string[], budget: { left: number }): void {
  if (budget.left-- <= 0) return;
  if (typeof value === 'string') {
    out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, out, budget);
  } else if (isPlainObject(value)) {
    for (const item of Object.values(value)) collectStrings(item, out, budget);
  }
}

export function checkWorkflow(input: RuleInput): LintFinding[] {
  const { frontmatter, lines, parsed, context } = input;
  if (!Object.prototype.hasOwnProperty.call(frontmatter, 'workflow')) {
    return [];
  }
  const ctx: Located = { input, workflowRange: keyRange(lines, parsed.keyLines, 'workflow', input.anchorLine) };
  const raw = frontmatter['workflow'];
  const list = Array.isArray(raw) ? raw : isPlainObject(raw) && Array.isArray(raw['steps']) ? raw['steps'] : undefined;
  if (!list || list.length === 0) {
    return [finding('SW701', '`workflow` must be a non-empty list of steps, each with `step` (its id) and `skill`, e.g. `- step: fetch` / `  skill: http-get`.', ctx.workflowRange)];
  }
  const findings: LintFinding[] = [];
  const keyLine = parsed.keyLines['workflow'];
  const fmEnd = parsed.frontmatterEndLine >= 0 ? parsed.frontmatterEndLine : parsed.bodyStartLine;
  const blockTo = keyLine === undefined ? -1 : blockEnd(lines, keyLine + 1, fmEnd);
  const starts = keyLine === undefined ? [] : itemLines(lines, keyLine + 1, blockTo);
  const located = starts.length === list.length;

  const steps: Step[] = list.map((item, index) => {
    const data = isPlainObject(item) ? item : {};
    const rawId = data['step'] ?? data['id'];
    return {
      index,
      data,
      ...(typeof rawId === 'string' && rawId !== '' ? { id: rawId } : {}),
      // `located` means one start per step, so `?? -1` (not located) is never used.
      start: located ? (starts[index] ?? -1) : -1,
      end: located ? (starts[index + 1] ?? blockTo) : -1,
    };
  });

  const ids = new Map<string, Step>();
  for (const step of steps) {
    const label = step.id ?? `#${step.index + 1}`;
    if (!isPlainObject(list[step.index])) {
      findings.push(finding('SW701', `Workflow step ${label} is not a mapping; write each step as \`- step: <id>\` with \`skill: <name>\` below it.`, stepRange(ctx, step)));
      continue;
    }
    if (step.id === undefined) {
      findings.push(finding('SW701', `Workflow step ${label} has no \`step\` id; give it one (letters, digits, _ or -) so other steps and the trace can name it.`, stepRange(ctx, step)));
    } else if (!STEP_ID.test(step.id)) {
      findings.push(finding('SW701', `The step id "${step.id}" may only use letters, digits, _ and -, so that \`\${steps.${step.id}.output}\` can name it.`, stepRange(ctx, step, step.id)));
    } else if (ids.has(step.id)) {
      findings.push(finding('SW702', `The step id "${step.id}" is used twice (steps ${ids.get(step.id)!.index + 1} and ${step.index + 1}); give each step its own id.`, stepRange(ctx, step, step.id)));
    } else {
      ids.set(step.id, step);
    }
    findings.push(...checkStepSkill(ctx, step, context.skills));
    findings.push(...checkErrorHandling(ctx, step, context.skills));
  }

  const properties = isPlainObject(frontmatter['input_schema']) ? frontmatter['input_schema']['properties'] : undefined;
  const inputNames = isPlainObject(properties) ? new Set(Object.keys(properties)) : undefined;
  const edges = new Map<string, Set<string>>();
  for (const step of steps) {
    const deps = new Set<string>();
    const dependsOn = step.data['depends_on'];
    const declared = typeof dependsOn === 'string' ? [dependsOn] : Array.isArray(dependsOn) ? dependsOn : dependsOn === undefined ? [] : undefined;
    if (!declared || declared.some((item) => typeof item !== 'string')) {
      findings.push(finding('SW701', '`depends_on` must be a step id or a list of step ids.', stepRange(ctx, step, 'depends_on')));
    } else {
      for (const dep of declared as string[]) {
        if (!ids.has(dep)) {
          findings.push(finding('SW707', `\`depends_on\` names "${dep}", which is not a step of this workflow (steps: ${[...ids.keys()].join(', ') || 'none'}).`, stepRange(ctx, step, dep)));
        } else {
          deps.add(dep);
        }
      }
    }
    const strings: string[] = [];
    collectStrings(step.data, strings, { left: WALK_BUDGET });
    for (const text of strings) {
      for (const match of text.matchAll(REFERENCE)) {
        const problem = referenceProblem(match, step, ids, inputNames);
        if (problem) {
          findings.push(finding('SW704', problem, stepRange(ctx, step, match[0])));
        } else {
          // Both groups always take part in their matches; the checks only narrow the types.
          const dependency = /^\s*steps\.([A-Za-z0-9_-]+)\./.exec(match[1] ?? '')?.[1];
          if (dependency !== undefined) deps.add(dependency);
        }
      }
    }
    findings.push(...checkCondition(ctx, step, ids, inputNames, deps));
    if (step.id !== undefined) edges.set(step.id, deps);
  }
  findings.push(...findCycles(ctx, edges, ids));
  findings.push(...findSkillCycles(ctx, steps));
  return findings;
}

/** The name the index files this skill under: `name` from the frontmatter, else the folder's. */
function indexedName(input: RuleInput): string {
  const name = input.frontmatter['name'];
  const text = typeof name === 'string' || typeof name === 'number' || typeof name === 'boolean' ? String(name).trim() : '';
  return text === '' ? input.context.folderName : text;
}

/**
 * Workflows that run each other without end (SW709). Every skill of a cycle reports it, at its own
 * step that runs the next skill, so whichever one the author opens shows where to break it. The
 * cycles come from the index's dependency graph when the context has one; without it only a
 * workflow that runs itself can be seen.
 */
function findSkillCycles(ctx: Located, steps: readonly Step[]): LintFinding[] {
  const calls = workflowCalls(ctx.input.frontmatter);
  if (calls.length === 0) return [];
  const name = indexedName(ctx.input);
  const dependencies = ctx.input.context.dependencies;
  const cycles = dependencies ? dependencies.cyclesThrough(name, calls) : calls.some((call) => call.skill === name) ? [[name]] : [];
  const findings: LintFinding[] = [];
  for (const cycle of cycles) {
    // A cycle through this skill starts at it; `?? name` is the cycle of one.
    const next = cycle[1] ?? name;
    const found = callingStep(steps, next);
    if (!found) continue;
    const { step, call } = found;
    const how = call.via === 'fallback' ? `falls back to "${next}"` : `runs "${next}"`;
    const others = cycle.slice(1).filter((other) => other !== name);
    const message =
      others.length === 0
        ? `Workflows call each other in a cycle: ${cyclePath(cycle)}. Step "${call.step}" ${how}, its own skill, so running it would start itself again without end. Have that step run another skill, or remove it.`
        : `Workflows call each other in a cycle: ${cyclePath(cycle)}. Step "${call.step}" ${how}, and running any skill of the cycle would start the others again without end. Break it here by having that step run a skill outside the cycle, or in the workflow of ${others.map((other) => `"${other}"`).join(', ')} so that none of them calls back.`;
    findings.push(finding('SW709', message, valueRange(ctx, step, call.via === 'fallback' ? 'fallback_skill' : 'skill', next)));
  }
  return findings;
}

/** Where `name` is written as the value of `key` in the step; the whole step when it cannot be found. */
function valueRange(ctx: Located, step: Step, key: string, name: string): TextRange {
  const keyPattern = new RegExp(`^[\\s-]*${key}[ \\t]*:`);
  for (let i = Math.max(0, step.start); i < step.end; i++) {
    const line = ctx.input.lines[i] ?? '';
    const written = keyPattern.exec(line);
    const at = written ? line.indexOf(name, written[0].length) : -1;
    if (at >= 0) return range(i, at, i, at + name.length);
  }
  return stepRange(ctx, step, name);
}

function callingStep(steps: readonly Step[], skill: string): { step: Step; call: SkillCall } | undefined {
  for (const step of steps) {
    const call = stepCalls(step.data, step.id ?? `#${step.index + 1}`).find((candidate) => candidate.skill === skill);
    if (call) return { step, call };
  }
  return undefined;
}

function referenceProblem(match: RegExpMatchArray, step: Step, ids: ReadonlyMap<string, Step>, inputNames: ReadonlySet<string> | undefined): string | undefined {
  const whole = match[0];
  // The groups below always take part in their matches; the fallbacks and checks only narrow the types.
  const inner = (match[1] ?? '').trim();
  const forms = 'Valid forms are ${input.<parameter>}, ${steps.<step id>.output…} and ${context.<name>}.';
  if (!whole.endsWith('}')) {
    return `The reference "${whole}" is not closed with "}". ${forms}`;
  }
  const inputName = /^input\.([A-Za-z_][\w-]*)(?:[.[].*)?$/.exec(inner)?.[1];
  if (inputName !== undefined) {
    if (inputNames && !inputNames.has(inputName)) {
      return `${whole} names the input "${inputName}", which \`input_schema\` does not declare (it has: ${[...inputNames].join(', ') || 'nothing'}). Add it to input_schema.properties or fix the name.`;
    }
    return undefined;
  }
  const contextName = /^context\.([^.\s[]*)/.exec(inner)?.[1];
  if (contextName !== undefined) return contextProblem(whole, contextName);
  const stepRef = /^steps\.([^.\s[]+)(\..*)?$/.exec(inner);
  const id = stepRef?.[1];
  if (stepRef && id !== undefined) {
    if (!ids.has(id)) {
      return `${whole} refers to step "${id}", which this workflow does not declare. ${forms}`;
    }
    if (id === step.id) {
      return `${whole} refers to its own step; a step can only use the output of another step.`;
    }
    if (!/^\.output(?:[.[].*)?$/.test(stepRef[2] ?? '')) {
      return `${whole} must read the step's output: write \${steps.${id}.output} or \${steps.${id}.output.<field>}.`;
    }
    return undefined;
  }
  return `"${whole}" is not a reference Skillwright understands. ${forms}`;
}

function checkStepSkill(ctx: Located, step: Step, skills: RuleInput['context']['skills']): LintFinding[] {
  const value = step.data['skill'];
  if (typeof value !== 'string' || value.trim() === '') {
    return [finding('SW701', `Workflow step ${step.id ?? `#${step.index + 1}`} has no \`skill\`; name the skill it runs.`, stepRange(ctx, step))];
  }
  const at = value.lastIndexOf('@');
  const name = at > 0 ? value.slice(0, at) : value;
  const pinned = at > 0 ? value.slice(at + 1) : typeof step.data['version'] === 'string' ? (step.data['version'] as string) : undefined;
  if (!skills) {
    return [];
  }
  const candidates = skills.get(name);
  if (!candidates || candidates.length === 0) {
    return [finding('SW703', `The workflow runs skill "${name}", but no skill of that name is installed. Fix the name or add the skill.`, stepRange(ctx, step, name))];
  }
  if (pinned === undefined) {
    return [];
  }
  if (semver.validRange(pinned) === null) {
    return [finding('SW705', `"${pinned}" is not a valid version range for "${name}"; write one like ^1.2.0 or >=2.0.0.`, stepRange(ctx, step, pinned))];
  }
  const versions = candidates.map((candidate) => candidate.version).filter((v): v is string => typeof v === 'string' && semver.valid(v) !== null);
  if (!versions.some((version) => semver.satisfies(version, pinned))) {
    const have = versions.length > 0 ? `installed: ${versions.join(', ')}` : 'the installed copy declares no version';
    return [finding('SW705', `No installed version of "${name}" matches ${pinned} (${have}). Update that skill or change the range.`, stepRange(ctx, step, pinned))];
  }
  return [];
}

function checkErrorHandling(ctx: Located, step: Step, skills: RuleInput['context']['skills']): LintFinding[] {
  const findings: LintFinding[] = [];
  const strategy = step.data['error_strategy'];
  if (strategy !== undefined && !(ERROR_STRATEGIES as readonly unknown[]).includes(strategy)) {
    findings.push(finding('SW708', `\`error_strategy\` is ${JSON.stringify(strategy)}; use one of ${ERROR_STRATEGIES.join(', ')}.`, stepRange(ctx, step, 'error_strategy')));
  }
  const fallback = step.data['fallback_skill'];
  if (strategy === 'fallback' && (typeof fallback !== 'string' || fallback.trim() === '')) {
    findings.push(finding('SW708', '`error_strategy: fallback` needs `fallback_skill`: the skill to run when this step fails.', stepRange(ctx, step, 'error_strategy')));
  } else if (typeof fallback === 'string' && skills && !(skills.get(fallback)?.length)) {
    findings.push(finding('SW703', `The fallback skill "${fallback}" is not installed. Fix the name or add the skill.`, stepRange(ctx, step, fallback)));
  }
  const retries = step.data['max_retries'];
  if (retries !== undefined && !(Number.isInteger(retries) && (retries as number) >= 0)) {
    findings.push(finding('SW708', `\`max_retries\` is ${JSON.stringify(retries)}; use a whole number of 0 or more.`, stepRange(ctx, step, 'max_retries')));
  }
  const backoff = step.data['retry_backoff_seconds'];
  if (backoff !== undefined && !(typeof backoff === 'number' && Number.isFinite(backoff) && backoff >= 0)) {
    findings.push(finding('SW708', `\`retry_backoff_seconds\` is ${JSON.stringify(backoff)}; use a number of seconds, 0 or more.`, stepRange(ctx, step, 'retry_backoff_seconds')));
  }
  return findings;
}

/** Reports each cycle once, at the step where the search entered it. */
function findCycles(ctx: Located, edges: ReadonlyMap<string, ReadonlySet<string>>, ids: ReadonlyMap<string, Step>): LintFinding[] {
  const findings: LintFinding[] = [];
  const state = new Map<string, 'active' | 'done'>();
  // Iterative depth-first search: a generated workflow with thousands of chained steps must not
  // overflow the stack.
  for (const root of edges.keys()) {
    if (state.has(root)) continue;
    const stack: { id: string; next: Iterator<string> }[] = [{ id: root, next: (edges.get(root) ?? new Set<string>()).values() }];
    state.set(root, 'active');
    for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
      const step = top.next.next();
      if (step.done) {
        state.set(top.id, 'done');
        stack.pop();
        continue;
      }
      const next = step.value;
      const seen = state.get(next);
      if (seen === 'active') {
        const trail = stack.map((entry) => entry.id);
        const cycle = [...trail.slice(trail.indexOf(next)), next];
        const target = ids.get(next)!;
        findings.push(finding('SW706', `The steps depend on each other in a cycle: ${cycle.join(' → ')} (through depends_on and \${steps.…} references). Break it so that each step only uses earlier results.`, stepRange(ctx, target, target.id)));
      } else if (seen === undefined) {
        state.set(next, 'active');
        stack.push({ id: next, next: (edges.get(next) ?? new Set<string>()).values() });
      }
    }
  }
  return findings;
}

function contextProblem(whole: string, name: string): string | undefined {
  if ((CONTEXT_NAMES as readonly string[]).includes(name)) return undefined;
  return `${whole} names the context variable "${name}", which runs do not have; use one of ${CONTEXT_NAMES.join(', ')}.`;
}

/** The step's `if`: it must parse, and what it reads must exist (SW710, SW704); its step references are dependencies. */
function checkCondition(ctx: Located, step: Step, ids: ReadonlyMap<string, Step>, inputNames: ReadonlySet<string> | undefined, deps: Set<string>): LintFinding[] {
  const raw = step.data['if'];
  if (raw === undefined || raw === null || typeof raw === 'boolean') return [];
  if (typeof raw !== 'string') return [finding('SW710', `The \`if\` of step ${step.id ?? `#${step.index + 1}`} must be text, e.g. \`if: "steps.check.output.ok == true"\`.`, stepRange(ctx, step, 'if'))];
  const parsed = parseCondition(raw);
  if (!parsed.ok) return [finding('SW710', `The \`if\` of step ${step.id ?? `#${step.index + 1}`} cannot be read: ${parsed.error}`, stepRange(ctx, step, 'if'))];
  const findings: LintFinding[] = [];
  for (const path of parsed.references) {
    const [root, name, field] = path;
    const written = path.join('.');
    let problem: string | undefined;
    if (root === 'input' && name !== undefined && inputNames && !inputNames.has(name)) {
      problem = `The \`if\` reads ${written}, but \`input_schema\` does not declare "${name}" (it has: ${[...inputNames].join(', ') || 'nothing'}).`;
    } else if (root === 'context' && name !== undefined) {
      problem = contextProblem(written, name);
    } else if (root === 'steps' && name !== undefined) {
      if (!ids.has(name)) problem = `The \`if\` reads ${written}, but this workflow has no step "${name}".`;
      else if (name === step.id) problem = `The \`if\` reads its own step (${written}); a step can only look at steps before it.`;
      else if (field !== undefined && !['output', 'status', 'error'].includes(field)) problem = `The \`if\` reads ${written}; a step offers output, status and error (e.g. steps.${name}.status == 'failed').`;
      else deps.add(name);
    }
    if (problem) findings.push(finding('SW704', problem, stepRange(ctx, step, 'if')));
  }
  return findings;
}
