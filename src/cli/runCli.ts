/** The `skillwright` command line: a thin layer over core, for CI jobs and scripts. */
import type { ParsedArgs } from './cliArgs';
import { parseArgs, UsageError } from './cliArgs';
import type { CliEnv } from './cliCommands';
import { catalogCommand, lintCommand, listCommand, searchCommand, viewCommand } from './cliCommands';

export type { CliEnv } from './cliCommands';

export const CLI_USAGE = `Usage: skillwright <command> [options]

Work with agent skills (folders with a SKILL.md) from a terminal or CI.

Commands:
  lint [DIR...]             check every SKILL.md; exit 1 on errors (--strict: also on warnings;
                            --jobs N: threads at most, default one less than the CPUs)
  list [DIR...]             list the skills (--all: also shadowed and hidden ones)
  catalog [DIR...]          print the skills catalog the model sees (--budget N tokens, default 3000)
  search <query>            rank skills for a request (--top K, default 5)
  view <name> [file]        print a skill's SKILL.md, or one of its linked files
  run -p "<prompt>"         one agent turn with the skills and workspace tools (headless)
  run-skill <name>          run one skill (--args '<json>' or --args-file FILE); exit 1 if the run fails
  test-skill <name>         run a skill's examples/*.json and check its example_queries; exit 1 on a failure
  test-trigger <name>       does the model load the skill for its example_queries (and --query "…")? (--runs N,
                            --min-rate R: exit 1 when a query loads it in fewer runs; model flags as for run)
  traces list               the recorded skill runs, newest first (--skill NAME, --since 7d, --limit N)
  traces export             the recorded runs as OpenTelemetry OTLP/JSON on stdout (--since 7d,
                            --skill NAME, --format otlp-json|jsonl)
  add <source>              review skills from a folder, .zip, git URL or owner/repo, then install them
                            with --yes (--skill NAME, --project|--user, --ref REF, --replace, --as NAME;
                            a dangerous verdict also needs --allow-dangerous); records skills-lock.json
  install                   restore every skill skills-lock.json lists, hash-checked (--frozen: change
                            nothing and exit 1 on any mismatch, for CI)
  update [NAME...]          check locked skills against their sources (--check: only list; --yes: take
                            updates where nothing was edited here; conflicts are reported)
  scan [PATH...]            threat-scan skill folders, a file or a skills-lock.json: verdict and findings
                            (--json; --fail-on caution|dangerous: exit 1 when reached); no PATH: the
                            project's .agents/skills, .github/skills and .claude/skills

Skill folders are given as DIR arguments or repeated --root DIR; with none, the current folder's
.agents/skills, .github/skills and .claude/skills and the user folders (~/.agents/skills, …) are used.

run options: --cwd DIR, --json (stream events as JSON lines), --max-steps N, --base-url URL,
  --model NAME (or SKILLWRIGHT_BASE_URL, SKILLWRIGHT_MODEL; OPENAI_API_KEY for the key),
  --yes-reads-only (no edits or commands), --yes-edits, --yes-commands (default: both denied)

run-skill and test-skill options: --cwd DIR (the workspace folder), --json (the result object),
  --yes-commands (let skills run their scripts and call their endpoints; without it only
  instruction skills run, and test-skill fails the examples that need more)

add, install and update work on the project in the current folder (--cwd DIR for another) and its
skills-lock.json; git sources use the system git (HTTPS through a built-in client without it).

run, run-skill, test-skill and traces keep sessions and traces in the extension's data folder
(--data-dir DIR or SKILLWRIGHT_DATA_DIR to point elsewhere). --since takes 30m, 12h, 7d, 2w or an ISO date.

Options:
  --root DIR      add a skill folder (repeatable)
  --no-cache      lint, list, catalog, search, view: do not use the index snapshot in the cache folder
  --json          machine-readable output (shapes in docs/cli.md)
  -v, --version   print the version and exit
  -h, --help      print this help and exit
`;

type Command = (args: ParsedArgs, env: CliEnv, version: string) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  lint: lintCommand,
  list: listCommand,
  catalog: catalogCommand,
  search: searchCommand,
  view: viewCommand,
  // The agent, the executor and the session store (openai, sql.js, ajv, zod) load only for the
  // commands that use them, so the skill-folder commands and --help start quickly.
  run: async (args, env) => (await import('./runCommand')).runCommand(args, env),
  'run-skill': async (args, env) => (await import('./skillRunCommands')).runSkillCommand(args, env),
  'test-skill': async (args, env) => (await import('./skillRunCommands')).testSkillCommand(args, env),
  traces: async (args, env, version) => (await import('./traceCommands')).tracesCommand(args, env, version),
  'test-trigger': async (args, env) => (await import('./triggerTestCommand')).triggerTestCommand(args, env),
  add: async (args, env) => (await import('./shareCommands')).addCommand(args, env),
  install: async (args, env) => (await import('./shareCommands')).installCommand(args, env),
  update: async (args, env) => (await import('./shareCommands')).updateCommand(args, env),
  scan: async (args, env) => (await import('./scanCommand')).scanCommand(args, env),
};

/** Runs the CLI with the given arguments (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], version: string, env: CliEnv): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    env.stderr(`skillwright: ${(error as Error).message}. Run "skillwright --help" for the options.\n`);
    return 2;
  }
  if (args.flags.has('--version') || args.flags.has('-v')) {
    env.stdout(`${version}\n`);
    return 0;
  }
  if (args.command === undefined || args.flags.has('--help') || args.flags.has('-h')) {
    env.stdout(CLI_USAGE);
    return args.command === undefined && !args.flags.has('--help') && !args.flags.has('-h') ? 2 : 0;
  }
  const command = Object.prototype.hasOwnProperty.call(COMMANDS, args.command) ? COMMANDS[args.command] : undefined;
  if (!command) {
    env.stderr(`skillwright: unknown command "${args.command}". Run "skillwright --help" for what is available.\n`);
    return 2;
  }
  try {
    return await command(args, env, version);
  } catch (error) {
    if (error instanceof UsageError) {
      env.stderr(`skillwright ${args.command}: ${error.message}\n`);
      return 2;
    }
    env.stderr(`skillwright ${args.command} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 3;
  }
}
