import { runCli } from '../../../src/cli/runCli';
import type { FileSystemPort } from '../../../src/core/base/fileSystemPort';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** One `skillwright …` command run in-process, with what it printed to each stream. */
export async function runCliCaptured(
  args: readonly string[],
  where: { readonly cwd: string; readonly homeDir: string; readonly env: Readonly<Record<string, string | undefined>>; readonly fs?: FileSystemPort },
): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runCli([...args], '1.2.3', {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    cwd: where.cwd,
    homeDir: where.homeDir,
    fs: where.fs ?? new NodeFileSystem(),
    env: where.env,
  });
  return { code, out, err };
}
