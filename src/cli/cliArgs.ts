/** A small, strict argument parser: unknown flags are errors, never silently ignored. */
export interface ParsedArgs {
  readonly command: string | undefined;
  readonly positionals: string[];
  readonly flags: Map<string, string | true>;
  readonly roots: string[];
  /** Every `--query`, in order (test-trigger takes several). */
  readonly queries: string[];
}

export class UsageError extends Error {}

/** Flags that take a value; everything else is a boolean switch. */
const VALUE_FLAGS = new Set([
  '--root', '--budget', '--top', '--platform', '-p', '--prompt', '--cwd', '--session', '--base-url', '--model', '--max-steps', '--data-dir',
  '--args', '--args-file', '--since', '--skill', '--format', '--limit', '--runs', '--query', '--min-rate', '--jobs',
  '--ref', '--as', '--fail-on',
]);
const SWITCHES = new Set(['--json', '--strict', '--all', '--help', '-h', '--version', '-v', '--yes-reads-only', '--yes-edits', '--yes-commands', '--no-cache',
  '--project', '--user', '--yes', '--allow-dangerous', '--replace', '--frozen', '--check']);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const roots: string[] = [];
  const queries: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    // i < argv.length: this only narrows the type (the loop also skips flag values, so no for…of).
    if (arg === undefined) break;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('-')) {
      const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
      if (VALUE_FLAGS.has(name)) {
        const value = inline ?? argv[i + 1];
        if (value === undefined || (inline === undefined && value.startsWith('-') && value.length > 1)) throw new UsageError(`${name} needs a value`);
        if (inline === undefined) i += 1;
        if (name === '--root') roots.push(value);
        else if (name === '--query') queries.push(value);
        else flags.set(name, value);
      } else if (SWITCHES.has(name) && inline === undefined) {
        flags.set(name, true);
      } else {
        throw new UsageError(`unknown option "${arg}"`);
      }
      continue;
    }
    if (command === undefined) command = arg;
    else positionals.push(arg);
  }
  return { command, positionals, flags, roots, queries };
}

export function intFlag(args: ParsedArgs, name: string, fallback: number, min: number, max: number): number {
  const raw = args.flags.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw === true || !Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${name} takes a whole number from ${min} to ${max}`);
  }
  return value;
}
