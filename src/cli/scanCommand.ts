/**
 * `skillwright scan [PATH...] [--json] [--fail-on caution|dangerous]`: the threat scanner from a
 * terminal or CI. A PATH is a skill folder, a folder holding skills (each is scanned), one file
 * (scanned as text, its context taken from its name) or a skills-lock.json (each locked skill at
 * `.agents/skills/<name>` beside it). Without a PATH the project's skill folders are scanned.
 */
import * as path from 'node:path';
import type { FileSystemPort } from '../core/base/fileSystemPort';
import type { SkillScanFinding, SkillScanReport, Verdict } from '../core/security/skillScan';
import { contextForFileName, findingLocation, scanSkillFolder, scanTextReport } from '../core/security/skillScan';
import { MemoryScanCache } from '../core/security/scanCache';
import { LOCK_FILE, lockedSkillDir, readLock } from '../core/sharing/skillsLock';
import type { ParsedArgs } from './cliArgs';
import { UsageError } from './cliArgs';
import type { CliEnv } from './cliCommands';

const VERDICT_RANK: Readonly<Record<Verdict, number>> = { safe: 0, caution: 1, dangerous: 2 };
/** Project folders scanned when no PATH is given. */
const PROJECT_SKILL_FOLDERS = ['.agents/skills', '.github/skills', '.claude/skills'];
/** How deep a folder of skills is searched for SKILL.md files. */
const MAX_SEARCH_DEPTH = 6;

export interface ScannedTarget {
  /** As shown: relative to the current folder when inside it. */
  readonly path: string;
  readonly kind: 'skill' | 'file';
  readonly report: SkillScanReport;
}

function display(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file;
}

/** Skill folders under `dir` (a folder holding SKILL.md is one skill; its insides are not searched further). */
async function findSkillDirs(fs: FileSystemPort, dir: string, depth = 0): Promise<string[]> {
  if ((await fs.stat(path.join(dir, 'SKILL.md')))?.type === 'file') return [dir];
  if (depth >= MAX_SEARCH_DEPTH) return [];
  let entries;
  try {
    entries = await fs.readDirectory(dir);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    // Symlinked folders are not followed here: the scan of the skill holding them reports them.
    if (entry.type !== 'directory' || entry.name === '.git' || entry.name === 'node_modules') continue;
    found.push(...(await findSkillDirs(fs, path.join(dir, entry.name), depth + 1)));
  }
  return found;
}

function failOnOf(args: ParsedArgs): Verdict | undefined {
  const raw = args.flags.get('--fail-on');
  if (raw === undefined) return undefined;
  if (raw === 'caution' || raw === 'dangerous') return raw;
  throw new UsageError(`--fail-on takes "caution" or "dangerous" (got ${JSON.stringify(raw === true ? '' : raw)})`);
}

/** Scans what the arguments name; problems that stop one target (a missing locked skill) go to `warn`. */
export async function scanTargets(fs: FileSystemPort, cwd: string, inputs: readonly string[], warn: (text: string) => void): Promise<ScannedTarget[]> {
  const cache = new MemoryScanCache();
  const targets: ScannedTarget[] = [];
  const scanDir = async (dir: string): Promise<void> => {
    targets.push({ path: display(cwd, dir), kind: 'skill', report: await scanSkillFolder(fs, dir, { cache }) });
  };
  if (inputs.length === 0) {
    const roots = [];
    for (const rel of PROJECT_SKILL_FOLDERS) if ((await fs.stat(path.join(cwd, rel)))?.type === 'directory') roots.push(path.join(cwd, rel));
    if (roots.length === 0) {
      throw new UsageError(`no skill folder here (looked for ${PROJECT_SKILL_FOLDERS.join(', ')} in ${cwd}); pass a skill folder, a file or a ${LOCK_FILE}`);
    }
    inputs = roots;
  }
  for (const input of inputs) {
    const target = path.resolve(cwd, input);
    const stat = await fs.stat(target);
    if (!stat) throw new UsageError(`${input} does not exist; pass a skill folder, a folder of skills, a file or a ${LOCK_FILE}`);
    if (stat.type === 'directory') {
      const dirs = await findSkillDirs(fs, target);
      if (dirs.length === 0) throw new UsageError(`no SKILL.md in ${input} or the folders under it; pass a skill folder or a folder holding skills`);
      for (const dir of dirs) await scanDir(dir);
    } else if (path.basename(target) === LOCK_FILE) {
      const root = path.dirname(target);
      const { lock, problems } = await readLock(fs, root);
      for (const problem of problems) warn(`${problem}\n`);
      for (const name of Object.keys(lock.skills).sort()) {
        const dir = lockedSkillDir(root, name);
        if ((await fs.stat(dir))?.type !== 'directory') {
          warn(`${name}: locked in ${display(cwd, target)} but ${display(cwd, dir)} is missing; run "skillwright install" to restore it\n`);
          continue;
        }
        await scanDir(dir);
      }
    } else {
      const text = new TextDecoder('utf-8').decode(await fs.readFile(target));
      const shown = display(cwd, target);
      targets.push({ path: shown, kind: 'file', report: scanTextReport(text, { file: path.basename(target), context: contextForFileName(target) }) });
    }
  }
  return targets;
}

function findingLine(finding: SkillScanFinding): string {
  const where = findingLocation(finding) || '(skill)';
  return `  ${where}  ${finding.severity}  ${finding.id}  ${finding.message}`;
}

export async function scanCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const failOn = failOnOf(args);
  const targets = await scanTargets(env.fs, env.cwd, args.positionals, env.stderr);
  const worst = targets.reduce<Verdict>((w, t) => (VERDICT_RANK[t.report.verdict] > VERDICT_RANK[w] ? t.report.verdict : w), 'safe');
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify({ verdict: worst, reports: targets.map((t) => ({ path: t.path, kind: t.kind, ...t.report })) }, null, 2)}\n`);
  } else {
    for (const t of targets) {
      const n = t.report.findings.length;
      env.stdout(`${t.path}: ${t.report.verdict}${n > 0 ? ` (${n} finding${n === 1 ? '' : 's'})` : ''}\n`);
      for (const finding of t.report.findings) env.stdout(`${findingLine(finding)}\n`);
    }
    const counts = (['dangerous', 'caution', 'safe'] as const).map((v) => `${targets.filter((t) => t.report.verdict === v).length} ${v}`);
    env.stdout(`${targets.length} scanned: ${counts.join(', ')}\n`);
  }
  return failOn !== undefined && VERDICT_RANK[worst] >= VERDICT_RANK[failOn] ? 1 : 0;
}
