import * as path from 'node:path';
import type { FileSystemPort } from '../core/base/fileSystemPort';
import { configuredRoots } from '../core/skills/index/configuredRoots';
import { lintSkillFile } from '../core/skills/lint/lintRunner';
import { buildCatalog } from '../core/skills/catalog/skillCatalog';
import { SkillIndex } from '../core/skills/index/skillIndex';
import { SkillSearch } from '../core/skills/search/skillSearch';
import { runSkillTool } from '../core/skills/tools/skillTools';
import type { LintFinding, SkillRecord } from '../core/skills/model/skillTypes';
import type { SkillRoot } from '../core/base/skillRoots';
import type { ParsedArgs } from './cliArgs';
import { intFlag, UsageError } from './cliArgs';

export interface CliEnv {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  readonly homeDir: string;
  readonly fs: FileSystemPort;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C, so a running agent turn stops and keeps what it said. */
  readonly signal?: AbortSignal;
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

async function openIndex(args: ParsedArgs, env: CliEnv, positionalRoots: boolean): Promise<SkillIndex> {
  const roots = rootsFor(args, env, positionalRoots);
  for (const root of roots) {
    if (args.roots.includes(root.label) || (positionalRoots && args.positionals.includes(root.label))) {
      const stat = await env.fs.stat(root.path);
      if (stat?.type !== 'directory') throw new UsageError(`skill folder "${root.label}" does not exist or is not a folder`);
    }
  }
  const index = new SkillIndex({ fs: env.fs, roots });
  await index.load();
  for (const warning of index.warnings) env.stderr(`skillwright: warning: ${warning}\n`);
  return index;
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

export async function lintCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const index = await openIndex(args, env, true);
  const findings: Record<string, unknown>[] = [];
  const counts = { error: 0, warning: 0, info: 0 };
  const records = index.all();
  for (const record of records) {
    for (const finding of await lintSkillFile({ file: record.file }, env.fs, index)) {
      counts[finding.severity] += 1;
      findings.push(findingJson(env, record.file, finding));
    }
  }
  const summary = { skills: records.length, errors: counts.error, warnings: counts.warning, infos: counts.info };
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify({ findings, summary, warnings: index.warnings }, null, 2)}\n`);
  } else {
    for (const f of findings) env.stdout(`${f.file}:${f.line}:${f.column}: ${f.severity} ${f.code} ${f.message}\n`);
    env.stdout(`${summary.skills} skill(s): ${summary.errors} error(s), ${summary.warnings} warning(s), ${summary.infos} info\n`);
  }
  const failing = counts.error > 0 || (args.flags.has('--strict') && counts.warning > 0);
  return failing ? 1 : 0;
}

export async function listCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const index = await openIndex(args, env, true);
  const records = args.flags.has('--all') ? index.all() : index.active();
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify({ skills: records.map((r) => skillJson(env, r)) }, null, 2)}\n`);
    return 0;
  }
  for (const record of records) {
    const marks = [record.shadowedBy ? 'shadowed' : '', record.platformHidden ? 'other platform' : ''].filter(Boolean).join(', ');
    const where = record.category ? `${record.category}/` : '';
    env.stdout(`${where}${record.name}${record.version !== undefined ? ` ${record.version}` : ''}  [${record.scope}]${marks ? ` (${marks})` : ''}\n    ${record.description.replace(/\s+/g, ' ').slice(0, 160)}\n`);
  }
  env.stdout(`${records.length} skill(s)\n`);
  return 0;
}

export async function catalogCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const budgetTokens = intFlag(args, '--budget', 3000, 50, 1_000_000);
  const index = await openIndex(args, env, true);
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
}

export async function searchCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const query = args.positionals.join(' ').trim();
  if (!query) throw new UsageError('search needs a query, e.g. skillwright search "deploy to kubernetes"');
  const top = intFlag(args, '--top', 5, 1, 100);
  const index = await openIndex(args, env, false);
  const hits = new SkillSearch(index.active()).search(query, { top });
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify({ query, results: hits.map((h) => ({ ...skillJson(env, h.record), score: h.score })) }, null, 2)}\n`);
    return 0;
  }
  hits.forEach((hit, i) => env.stdout(`${i + 1}. ${hit.record.name} (${hit.score.toFixed(2)})  ${display(env, hit.record.dir)}\n`));
  if (hits.length === 0) env.stdout('no matching skills\n');
  return 0;
}

export async function viewCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const [name, file] = args.positionals;
  if (!name) throw new UsageError('view needs a skill name, e.g. skillwright view my-skill [references/file.md]');
  const index = await openIndex(args, env, false);
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
}
