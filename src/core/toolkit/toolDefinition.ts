import { z } from 'zod';
import type { ToolSpec } from '../llm/chatTypes';
import type { AgentTool, ToolApproval, ToolRunContext } from './agentTool';
import type { ToolArgsSchema } from './toolArgs';
import { parseToolArgs } from './toolArgs';
import type { ToolResult } from './toolResult';
import { fail } from './toolResult';


/**
 * A tool, defined once: what the model is shown (name, description, the JSON schema derived from
 * `args`), how it is gated, and what it does. The agent loop, the approval policy, the headless
 * runner and the VS Code language-model bridge all read this one definition.
 */
export interface ToolDefinition<S extends ToolArgsSchema = ToolArgsSchema, C = unknown> {
  readonly name: string;
  readonly description: string;
  /** A strict zod object; absent fields are optional ones, `null` counts as absent. */
  readonly args: S;
  readonly approval: ToolApproval;
  /** A valid call, shown when the arguments are not JSON at all; default: the first required field. */
  readonly example?: string;
  /** Longest a call may take; the loop turns an overrun into an error result. */
  readonly timeoutMs?: number;
  /** Runs a checked call. May throw: the caller turns a throw into an actionable failure. */
  execute(args: z.infer<S>, context: C, run: ToolRunContext): Promise<ToolResult>;
}

/** Keeps the argument type of each definition while collecting them in lists. */
export function defineTool<S extends ToolArgsSchema, C>(definition: ToolDefinition<S, C>): ToolDefinition<S, C> {
  return definition;
}

/** Any definition over a context, for lists of tools whose argument types differ. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each entry keeps its own precise args type; a list cannot name them all
export type AnyToolDefinition<C> = ToolDefinition<any, C>;

export const isReadOnly = (definition: { readonly approval: ToolApproval }): boolean => definition.approval === 'read';

const schemaCache = new WeakMap<object, Record<string, unknown>>();

/** The JSON schema of the arguments, as function calling wants it (no `$schema`, no safe-integer bounds). */
export function jsonSchemaOf(definition: AnyToolDefinition<never>): Record<string, unknown> {
  const cached = schemaCache.get(definition.args);
  if (cached) return cached;
  const raw = z.toJSONSchema(definition.args, { unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema: _dropped, ...schema } = raw;
  const clean = stripSafeIntegerBounds(schema) as Record<string, unknown>;
  schemaCache.set(definition.args, clean);
  return clean;
}

function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if ((key === 'minimum' || key === 'maximum') && Math.abs(Number(inner)) === Number.MAX_SAFE_INTEGER) continue;
    out[key] = stripSafeIntegerBounds(inner);
  }
  return out;
}

/** What the model is offered. */
export function toolSpecOf(definition: AnyToolDefinition<never>): ToolSpec {
  return { name: definition.name, description: definition.description, parameters: jsonSchemaOf(definition) };
}

/**
 * Checks the raw arguments and runs the tool; every outcome, a bug included, is a result the model
 * can read.
 */
export async function runToolDefinition<C>(definition: AnyToolDefinition<C>, raw: unknown, context: C, run: ToolRunContext, onError?: (error: unknown) => void): Promise<ToolResult> {
  const checked = parseToolArgs(definition.name, definition.args, raw, definition.example);
  if (!checked.ok) return fail(checked.error);
  try {
    return await definition.execute(checked.args, context, run);
  } catch (error) {
    onError?.(error);
    const text = error instanceof Error ? error.message : String(error);
    return fail(`${definition.name} failed unexpectedly: ${text}. Try again, or report this if it repeats.`);
  }
}

/** The definitions as the agent loop takes them, over a context read at each call. */
export function agentToolsOf<C>(definitions: readonly AnyToolDefinition<C>[], context: () => C, onError?: (tool: string, error: unknown) => void): AgentTool[] {
  return definitions.map((definition) => ({
    spec: toolSpecOf(definition),
    readOnly: isReadOnly(definition),
    approval: definition.approval,
    ...(definition.timeoutMs !== undefined ? { timeoutMs: definition.timeoutMs } : {}),
    run: (args: unknown, run: ToolRunContext) => runToolDefinition(definition, args, context(), run, onError ? (error) => onError(definition.name, error) : undefined),
  }));
}

/** Finds a definition by name, or says which names exist. */
export function findTool<C>(definitions: readonly AnyToolDefinition<C>[], name: string, family: string): { ok: true; definition: AnyToolDefinition<C> } | { ok: false; error: string } {
  const definition = definitions.find((candidate) => candidate.name === name);
  if (definition) return { ok: true, definition };
  return { ok: false, error: `unknown tool "${name}"; the ${family} tools are ${definitions.map((d) => d.name).join(', ')}` };
}
