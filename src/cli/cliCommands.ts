import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import type { FileSystemPort } from '../core/base/fileSystemPort';
import type { Logger } from '../core/base/logger';
import { nullLogger } from '../core/base/logger';
import { configuredRoots } from '../core/skills/index/configuredRoots';
import { buildCatalog } from '../core/skills/catalog/skillCatalog';
import { SkillIndex } from '../core/skills/index/skillIndex';
import type { LintFinding, SkillRecord } from '../core/skills/model/skillTypes';
import type { SkillRoot } from '../core/base/skillRoots';
import type { ParsedArgs } from './cliArgs';
import { intFlag, UsageError } from './cliArgs';
import { CliSnapshotStore, cliCacheDir, snapshotFile } from './indexCache';

export interface CliEnv {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  readonly homeDir: string;
  readonly fs: FileSystemPort;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C, so a running agent turn stops and keeps what it said. */
  readonly signal?: AbortSignal;
  /** The CLI's entry script, which `lint` starts in worker threads; without it lint uses this thread only. */
  readonly workerEntry?: string;
}

function display(env: CliEnv, file: string): string {
  const relative = path.relative(env.cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file;
}

/** Roots from `--root` and (for commands without other positionals) positional paths; else the defaults. */
function rootsFor(args: ParsedArgs, env: CliEnv, positionalRoots: boolean): SkillRoot[] {
  const given = [...args.roots, ...(positionalRoots ? args.positionals : [])];
  if (given.length === 0) {
    return configuredRoots([{ name: path.basename(env.cwd), fsPath: env.cwd }], env.homeDir).roots;
  }
  return given.map((entry) => ({ path: path.resolve(env.cwd, entry), scope: 'project', label: entry, writeTarget: false }));
}

/** What a command gets besides the index. */
interface IndexUse {
  /** The index's snapshot text, current with the disk (encoded on first call when there is none yet). */
  snapshot(): Promise<string | undefined>;
}

/**
 * Opens the index of the roots, runs `use` on it, then brings the cache's snapshot up to date.
 * The snapshot is the extension's: served, then checked against the disk by (mtime, size) of every
 * SKILL.md before anything is printed, so output never comes from a stale entry. It is written
 * after the output (before it, when lint hands it to worker threads), and only when there was
 * none, it was unusable, or the disk differed.
 */
async function withIndex(args: ParsedArgs, env: CliEnv, positionalRoots: boolean, use: (index: SkillIndex, extra: IndexUse) => Promise<number> | number): Promise<number> {
  const roots = rootsFor(args, env, positionalRoots);
  for (const root of roots) {
    if (args.roots.includes(root.label) || (positionalRoots && args.positionals.includes(root.label))) {
      const stat = await env.fs.stat(root.path);
      if (stat?.type !== 'directory') throw new UsageError(`skill folder "${root.label}" does not exist or is not a folder`);
    }
  }
  const file = args.flags.has('--no-cache') ? undefined : snapshotFile(path.resolve(env.cwd, cliCacheDir(env.homeDir, process.platform, env.env)), roots);
  const store = new CliSnapshotStore(env.fs, file);
  // The index reports a failed check of the snapshot through its logger, and carries on.
  const failures: string[] = [];
  const logger: Logger = { ...nullLogger, error: (message) => failures.push(message instanceof Error ? message.message : message) };
  const index = new SkillIndex({ fs: env.fs, roots, snapshot: store, logger });
  try {
    const state = { loaded: false, differed: false };
    index.onDidChange(() => (state.differed ||= state.loaded));
    const unchecked = index.validated;
    await index.load();
    state.loaded = true;
    // load() replaces `validated` only when it served the snapshot; then the check is still to come.
    const served = index.validated !== unchecked;
    await index.validated;
    // The check failed midway, so some entries may be stale: read everything afresh.
    if (failures.length > 0) await index.rescan();
    for (const warning of index.warnings) env.stderr(`skillwright: warning: ${warning}\n`);
    const saved = { current: served && !state.differed && failures.length === 0 };
    const snapshot = async (): Promise<string | undefined> => {
      if (!saved.current) await index.saveSnapshot();
      saved.current = true;
      return store.text;
    };
    const code = await use(index, { snapshot });
    // An index without skills is not kept: running where there are none leaves nothing behind.
    if (!saved.current && file !== undefined && index.all().length > 0) await index.saveSnapshot();
    return code;
  } finally {
    index.dispose();
  }
}

function skillJson(env: CliEnv, record: SkillRecord): Record<string, unknown> {
  return {
    name: record.name,
    ...(record.version !== undefined ? { version: record.version } : {}),
    path: display(env, record.dir),
    category: record.category,
    scope: record.scope,
    description: record.description,
    ...(record.shadowedBy ? { shadowedBy: display(env, record.shadowedBy) } : {}),
    ...(record.platformHidden ? { platformHidden: true } : {}),
  };
}

function findingJson(env: CliEnv, file: string, finding: LintFinding): Record<string, unknown> {
  return {
    file: display(env, file),
    line: finding.range.startLine + 1,
    column: finding.range.startColumn + 1,
    endLine: finding.range.endLine + 1,
    endColumn: finding.range.endColumn + 1,
    severity: finding.severity,
    code: finding.code,
    message: finding.message,
  };
}

export function lintCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  // One CPU is left to the rest of the machine; on two, a worker's start costs most of what it would
  // save, and measured slower on a busy machine (docs/decisions.md, "A fast CLI").
  const jobs = intFlag(args, '--jobs', Math.max(1, availableParallelism() - 1), 1, 256);
  return withIndex(args, env, true, async (index, { snapshot }) => {
    // The lint rules (and semver, the threat scanner, worker threads) load only for lint.
    const { lintFiles } = await import('./parallelLint');
    const findings: Record<string, unknown>[] = [];
    const counts = { error: 0, warning: 0, info: 0 };
    const records = index.all();
    const { findings: perFile } = await lintFiles(records.map((record) => record.file), env.fs, index, { jobs, snapshot, ...(env.workerEntry !== undefined ? { workerEntry: env.workerEntry } : {}) });
    records.forEach((record, i) => {
      for (const finding of perFile[i] ?? []) {
        counts[finding.severity] += 1;
        findings.push(findingJson(env, record.file, finding));
      }
    });
    const summary = { skills: records.length, errors: counts.error, warnings: counts.warning, infos: counts.info };
    if (args.flags.has('--json')) {
      env.stdout(`${JSON.stringify({ findings, summary, warnings: index.warnings }, null, 2)}\n`);
    } else {
      // One write: thousands of small writes to a pipe cost more than building the text.
      const lines = findings.map((f) => `${String(f.file)}:${String(f.line)}:${String(f.column)}: ${String(f.severity)} ${String(f.code)} ${String(f.message)}\n`);
      lines.push(`${summary.skills} skill(s): ${summary.errors} error(s), ${summary.warnings} warning(s), ${summary.infos} info\n`);
      env.stdout(lines.join(''));
    }
    const failing = counts.error > 0 || (args.flags.has('--strict') && counts.warning > 0);
    return failing ? 1 : 0;
  });
}

export function listCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  return withIndex(args, env, true, (index) => {
    const records = args.flags.has('--all') ? index.all() : index.active();
    if (args.flags.has('--json')) {
      env.stdout(`${JSON.stringify({ skills: records.map((r) => skillJson(env, r)) }, null, 2)}\n`);
      return 0;
    }
    const lines: string[] = [];
    for (const record of records) {
      const marks = [record.shadowedBy ? 'shadowed' : '', record.platformHidden ? 'other platform' : ''].filter(Boolean).join(', ');
      const where = record.category ? `${record.category}/` : '';
      lines.push(`${where}${record.name}${record.version !== undefined ? ` ${record.version}` : ''}  [${record.scope}]${marks ? ` (${marks})` : ''}\n    ${record.description.replace(/\s+/g, ' ').slice(0, 160)}\n`);
    }
    lines.push(`${records.length} skill(s)\n`);
    env.stdout(lines.join(''));
    return 0;
  });
}

export function catalogCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const budgetTokens = intFlag(args, '--budget', 3000, 50, 1_000_000);
  return withIndex(args, env, true, (index) => {
    const catalog = buildCatalog(index.active(), { budgetTokens });
    if (args.flags.has('--json')) {
      env.stdout(`${JSON.stringify(catalog, null, 2)}\n`);
      return 0;
    }
    env.stdout(`${catalog.text}\n`);
    env.stderr(
      `catalog: ${catalog.tokens} of ${catalog.budgetTokens} tokens, ${catalog.included} skill(s) listed; ` +
        `${catalog.shortened.length} shortened, ${catalog.collapsed.length} categor(ies) collapsed, ${catalog.omitted.length} left out` +
        `${catalog.omitted.length ? `: ${catalog.omitted.join(', ')}` : ''}\n`,
    );
    return 0;
  });
}

export function searchCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const query = args.positionals.join(' ').trim();
  if (!query) throw new UsageError('search needs a query, e.g. skillwright search "deploy to kubernetes"');
  const top = intFlag(args, '--top', 5, 1, 100);
  return withIndex(args, env, false, async (index) => {
    const { SkillSearch } = await import('../core/skills/search/skillSearch');
    const hits = new SkillSearch(index.active()).search(query, { top });
    if (args.flags.has('--json')) {
      env.stdout(`${JSON.stringify({ query, results: hits.map((h) => ({ ...skillJson(env, h.record), score: h.score })) }, null, 2)}\n`);
      return 0;
    }
    hits.forEach((hit, i) => env.stdout(`${i + 1}. ${hit.record.name} (${hit.score.toFixed(2)})  ${display(env, hit.record.dir)}\n`));
    if (hits.length === 0) env.stdout('no matching skills\n');
    return 0;
  });
}

export function viewCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const [name, file] = args.positionals;
  if (!name) throw new UsageError('view needs a skill name, e.g. skillwright view my-skill [references/file.md]');
  return withIndex(args, env, false, async (index) => {
    // The skill tools bring zod and the tool schemas: loaded only by the command that needs them.
    const { runSkillTool } = await import('../core/skills/tools/skillTools');
    const result = await runSkillTool('skill_view', { name, ...(file ? { file_path: file } : {}) }, { fs: env.fs, index });
    if (args.flags.has('--json')) {
      env.stdout(`${JSON.stringify(result, null, 2)}\n`);
    } else if (result.success) {
      const content = (result as { content?: unknown }).content;
      env.stdout(typeof content === 'string' ? content : `${JSON.stringify(result, null, 2)}\n`);
    } else {
      env.stderr(`skillwright: ${result.error}\n`);
    }
    return result.success ? 0 : 1;
  });
}
