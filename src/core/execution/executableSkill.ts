import { createHash } from 'node:crypto';
import { isPlainObject } from '../skills/model/skillParser';
import type { ParsedSkill } from '../skills/model/skillParser';
import type { ErrorKind, SkillKind } from './executionTypes';
import { DEFAULT_RETRY_ON, ERROR_KINDS } from './executionTypes';

export const DEFAULT_TIMEOUT_SECONDS = 60;
export const MAX_TIMEOUT_SECONDS = 600;
/** Past this a workflow is refused before anything runs: nobody reviews a thousand steps. */
export const MAX_WORKFLOW_STEPS = 1_000;
const MAX_SKILL_RETRIES = 10;

export type ErrorStrategy = 'fail_fast' | 'retry' | 'fallback' | 'continue';

export interface WorkflowStepSpec {
  readonly id: string;
  /** As written: a name, optionally `name@range`. */
  readonly skill: string;
  readonly with: Readonly<Record<string, unknown>>;
  readonly condition?: string;
  readonly dependsOn: readonly string[];
  readonly outputVar?: string;
  readonly strategy: ErrorStrategy;
  readonly maxRetries: number;
  readonly retryBackoffSeconds: number;
  readonly retryOn: readonly ErrorKind[];
  readonly fallbackSkill?: string;
  readonly fallbackParams: Readonly<Record<string, unknown>>;
}

/** A skill as the executor runs it: everything read off its SKILL.md once. */
export interface ExecutableSkill {
  readonly name: string;
  readonly version?: string;
  readonly dir: string;
  readonly file: string;
  readonly kind: SkillKind;
  readonly body: string;
  /** Of the SKILL.md text: keys compiled schemas and tells a changed skill apart. */
  readonly contentHash: string;
  readonly entry?: string;
  readonly endpoint?: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryBackoffSeconds: number;
  /** Environment variable names the skill declares under `env:`; only these reach its script. */
  readonly env: readonly string[];
  /** As written; undefined when the skill declares none. */
  readonly permissions?: unknown;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly workflow?: readonly WorkflowStepSpec[];
  readonly adaptation?: unknown;
  /** Problems that stop the skill from running at all, each one actionable. */
  readonly problems: readonly string[];
}

const positiveNumber = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** Reads the execution fields of a parsed SKILL.md. Never throws: what is wrong ends up in `problems`. */
export function readExecutableSkill(where: { readonly name: string; readonly dir: string; readonly file: string }, parsed: ParsedSkill): ExecutableSkill {
  const fm = parsed.frontmatter;
  const problems: string[] = [];
  const entry = text(fm['entry']);
  const endpoint = text(fm['endpoint']);
  const hasWorkflow = Object.prototype.hasOwnProperty.call(fm, 'workflow');
  const kinds = [entry && 'entry', endpoint && 'endpoint', hasWorkflow && 'workflow'].filter(Boolean);
  if (kinds.length > 1) problems.push(`the skill declares ${kinds.join(' and ')}; a skill runs one way: keep one of them`);
  const kind: SkillKind = hasWorkflow ? 'workflow' : entry ? 'script' : endpoint ? 'http' : 'instructions';

  const timeoutRaw = fm['timeout_seconds'];
  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
  if (timeoutRaw !== undefined && timeoutRaw !== null) {
    const value = positiveNumber(timeoutRaw);
    if (value === undefined || value === 0) problems.push(`timeout_seconds is ${JSON.stringify(timeoutRaw)}; write a number of seconds above 0 (at most ${MAX_TIMEOUT_SECONDS})`);
    else timeoutSeconds = Math.min(value, MAX_TIMEOUT_SECONDS);
  }
  const retries = positiveNumber(fm['max_retries']);
  const env = Array.isArray(fm['env']) ? fm['env'].filter((name): name is string => typeof name === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) : isPlainObject(fm['env']) ? Object.keys(fm['env']) : [];
  const version = typeof fm['version'] === 'string' ? fm['version'] : typeof fm['version'] === 'number' ? String(fm['version']) : undefined;
  const workflow = hasWorkflow ? readWorkflow(fm['workflow'], problems) : undefined;

  return {
    name: where.name,
    ...(version !== undefined ? { version } : {}),
    dir: where.dir,
    file: where.file,
    kind,
    body: parsed.body,
    contentHash: createHash('sha256').update(parsed.text).digest('hex').slice(0, 16),
    ...(entry !== undefined ? { entry } : {}),
    ...(endpoint !== undefined ? { endpoint } : {}),
    timeoutMs: Math.round(timeoutSeconds * 1000),
    maxRetries: Math.min(Math.floor(retries ?? 0), MAX_SKILL_RETRIES),
    retryBackoffSeconds: positiveNumber(fm['retry_backoff_seconds']) ?? 1,
    env,
    ...(fm['permissions'] !== undefined && fm['permissions'] !== null ? { permissions: fm['permissions'] } : {}),
    ...(fm['input_schema'] !== undefined ? { inputSchema: fm['input_schema'] } : {}),
    ...(fm['output_schema'] !== undefined ? { outputSchema: fm['output_schema'] } : {}),
    ...(workflow !== undefined ? { workflow } : {}),
    ...(fm['adaptation'] !== undefined ? { adaptation: fm['adaptation'] } : {}),
    problems,
  };
}

function readWorkflow(raw: unknown, problems: string[]): WorkflowStepSpec[] {
  const list: unknown[] | undefined = Array.isArray(raw) ? raw : isPlainObject(raw) && Array.isArray(raw['steps']) ? raw['steps'] : undefined;
  if (!list || list.length === 0) {
    problems.push('`workflow` must be a non-empty list of steps, each with `step` (its id) and `skill`');
    return [];
  }
  if (list.length > MAX_WORKFLOW_STEPS) {
    problems.push(`the workflow has ${list.length} steps; at most ${MAX_WORKFLOW_STEPS} run. Split it into workflows that call each other`);
    return [];
  }
  const steps: WorkflowStepSpec[] = [];
  const seen = new Set<string>();
  list.forEach((item, index) => {
    const label = `step ${index + 1}`;
    if (!isPlainObject(item)) {
      problems.push(`${label} of the workflow is not a mapping; write it as \`- step: <id>\` with \`skill: <name>\``);
      return;
    }
    const id = text(item['step']) ?? text(item['id']);
    const skill = text(item['skill']);
    if (id === undefined || !/^[A-Za-z0-9_-]+$/.test(id)) {
      problems.push(`${label} needs a \`step\` id of letters, digits, _ or -`);
      return;
    }
    if (seen.has(id)) problems.push(`the step id "${id}" is used twice; give each step its own id`);
    seen.add(id);
    if (skill === undefined) {
      problems.push(`step "${id}" has no \`skill\`; name the skill it runs`);
      return;
    }
    const strategyRaw = item['error_strategy'] ?? 'fail_fast';
    const strategy = (['fail_fast', 'retry', 'fallback', 'continue'] as const).find((s) => s === strategyRaw);
    if (strategy === undefined) problems.push(`step "${id}": error_strategy ${JSON.stringify(strategyRaw)} is not one of fail_fast, retry, fallback, continue`);
    const fallbackSkill = text(item['fallback_skill']);
    if (strategy === 'fallback' && fallbackSkill === undefined) problems.push(`step "${id}" uses error_strategy: fallback but names no fallback_skill`);
    const dependsRaw = item['depends_on'];
    const dependsOn = typeof dependsRaw === 'string' ? [dependsRaw] : Array.isArray(dependsRaw) ? dependsRaw.filter((d): d is string => typeof d === 'string') : [];
    const retryOnRaw = item['retry_on'];
    const retryOnList = typeof retryOnRaw === 'string' ? [retryOnRaw] : Array.isArray(retryOnRaw) ? retryOnRaw : undefined;
    const retryOn = retryOnList?.filter((kind): kind is ErrorKind => (ERROR_KINDS as readonly unknown[]).includes(kind));
    const unknownKinds = retryOnList?.filter((kind) => !(ERROR_KINDS as readonly unknown[]).includes(kind)) ?? [];
    if (unknownKinds.length > 0) problems.push(`step "${id}": retry_on names ${unknownKinds.map((k) => JSON.stringify(k)).join(', ')}; the error kinds are ${ERROR_KINDS.join(', ')}`);
    const condition = item['if'];
    steps.push({
      id,
      skill,
      with: isPlainObject(item['with']) ? item['with'] : {},
      ...(typeof condition === 'string' || typeof condition === 'boolean' ? { condition: String(condition) } : {}),
      dependsOn,
      ...(text(item['output_var']) !== undefined ? { outputVar: text(item['output_var']) as string } : {}),
      strategy: strategy ?? 'fail_fast',
      maxRetries: Math.min(Math.floor(positiveNumber(item['max_retries']) ?? (strategy === 'retry' ? 2 : 0)), MAX_SKILL_RETRIES),
      retryBackoffSeconds: Math.min(positiveNumber(item['retry_backoff_seconds']) ?? 1, 60),
      retryOn: retryOn ?? DEFAULT_RETRY_ON,
      ...(fallbackSkill !== undefined ? { fallbackSkill } : {}),
      fallbackParams: isPlainObject(item['fallback_params']) ? item['fallback_params'] : {},
    });
  });
  for (const step of steps) {
    for (const dep of step.dependsOn) {
      if (!seen.has(dep)) problems.push(`step "${step.id}" depends on "${dep}", which is not a step of this workflow`);
    }
  }
  return steps;
}

/** True when running the skill starts a process or calls the network (and so needs permissions and approval). */
export const runsSomething = (skill: ExecutableSkill): boolean => skill.kind === 'script' || skill.kind === 'http';
