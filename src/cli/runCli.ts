/** The `skillwright` command line: a thin layer over core, for CI jobs and scripts. */

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const CLI_USAGE = `Usage: skillwright [options]

Skillwright's command line, for CI jobs and scripts that work with agent skills.

Options:
  -v, --version   print the version and exit
  -h, --help      print this help and exit

Skill commands (lint, list, catalog, search, view, scan) are not available in this version.
`;

/** Runs the CLI with the given arguments (without `node` and the script) and returns the exit code. */
export function runCli(args: readonly string[], version: string, io: CliIo): number {
  if (args.length === 0 || args.includes('-h') || args.includes('--help')) {
    io.stdout(CLI_USAGE);
    return args.length === 0 ? 2 : 0;
  }
  if (args.includes('-v') || args.includes('--version')) {
    io.stdout(`${version}\n`);
    return 0;
  }
  const first = args[0] ?? '';
  const what = first.startsWith('-') ? `unknown option "${first}"` : `unknown command "${first}"`;
  io.stderr(`skillwright: ${what}. Run "skillwright --help" for what is available.\n`);
  return 2;
}
