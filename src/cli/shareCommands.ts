/**
 * `skillwright add`, `install` and `update`: skills from elsewhere, reviewed before they are
 * installed, recorded in skills-lock.json, restored and updated from it. Nothing is asked on a
 * terminal: a run without --yes prints the review and says how to confirm.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../core/base/logger';
import { configuredRoots } from '../core/skills/index/configuredRoots';
import { defaultGitPort } from '../core/sharing/gitPorts';
import type { ImportReview } from '../core/sharing/importReview';
import { formatReview, prepareImport } from '../core/sharing/importReview';
import type { FetchPorts } from '../core/sharing/quarantine';
import type { InstallResult } from '../core/sharing/skillInstaller';
import { installSkill, restoreFailed, restoreFromLock } from '../core/sharing/skillInstaller';
import { ACCEPTED_SOURCES, parseSkillSource } from '../core/sharing/skillSource';
import { LOCK_FILE, readLock } from '../core/sharing/skillsLock';
import type { UpdateCheck } from '../core/sharing/skillUpdates';
import { applyUpdate, checkForUpdates } from '../core/sharing/skillUpdates';
import type { ParsedArgs } from './cliArgs';
import { UsageError } from './cliArgs';
import type { CliEnv } from './cliCommands';

function text(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

function logger(env: CliEnv): Logger {
  const line = (level: string) => (message: string | Error): void => env.stderr(`skillwright: ${level}: ${message instanceof Error ? message.message : message}\n`);
  return { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: line('warning'), error: line('error') };
}

async function projectRoot(args: ParsedArgs, env: CliEnv): Promise<string> {
  const root = path.resolve(env.cwd, text(args, '--cwd') ?? '.');
  if ((await env.fs.stat(root))?.type !== 'directory') throw new UsageError(`--cwd "${root}" is not a folder`);
  return root;
}

function ports(env: CliEnv): FetchPorts {
  return { fs: env.fs, git: defaultGitPort(), tempRoot: env.env.SKILLWRIGHT_TEMP_DIR ?? os.tmpdir() };
}

function show(file: string, root: string): string {
  const relative = path.relative(root, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative.split(path.sep).join('/') : file;
}

function reviewJson(review: ImportReview): Record<string, unknown> {
  return {
    name: review.candidate.name,
    skillPath: review.candidate.skillPath,
    ...(review.candidate.description ? { description: review.candidate.description } : {}),
    target: review.target,
    verdict: review.scan.verdict,
    scannerVersion: review.scan.scannerVersion,
    computedHash: review.computedHash,
    files: review.scan.files,
    findings: review.scan.findings,
    ...(review.notes ? { notes: review.notes } : {}),
    ...(review.existing ? { existing: review.existing } : {}),
  };
}

export async function addCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const input = args.positionals[0];
  if (input === undefined || args.positionals.length > 1) throw new UsageError(`add takes one source: ${ACCEPTED_SOURCES}`);
  if (args.flags.has('--project') && args.flags.has('--user')) throw new UsageError('give --project or --user, not both');
  const renameTo = text(args, '--as');
  if (renameTo !== undefined && args.flags.has('--replace')) throw new UsageError('give --replace or --as NAME, not both');
  const root = await projectRoot(args, env);
  const ref = text(args, '--ref');
  const source = parseSkillSource(input, { cwd: root, ...(ref !== undefined ? { ref } : {}) });
  if ('error' in source) throw new UsageError(source.error);
  const user = args.flags.has('--user');
  const targetRoot = user ? path.join(env.homeDir, '.agents', 'skills') : path.join(root, '.agents', 'skills');
  const lock = user ? undefined : (await readLock(env.fs, root)).lock;
  const roots = configuredRoots([{ name: path.basename(root), fsPath: root }], env.homeDir).roots;
  const skill = text(args, '--skill');
  const prepared = await prepareImport(source, ports(env), {
    targetRoot,
    existingDirOf: async (name) => {
      for (const candidate of [targetRoot, ...roots.map((r) => r.path)]) {
        if ((await env.fs.stat(path.join(candidate, name, 'SKILL.md')))?.type === 'file') return path.join(candidate, name);
      }
      return undefined;
    },
    isLocked: (name) => lock?.skills[name] !== undefined,
    ...(skill !== undefined ? { skill } : {}),
    ...(env.signal ? { signal: env.signal } : {}),
  });
  const json = args.flags.has('--json');
  try {
    if (renameTo !== undefined && prepared.reviews.length > 1) throw new UsageError(`--as names one skill; ${input} has ${prepared.reviews.length}. Pick one with --skill`);
    if (!json) {
      env.stdout(`Review of ${source.source}${source.ref ? ` at ${source.ref}` : ''}${prepared.quarantine.commit ? ` (commit ${prepared.quarantine.commit.slice(0, 12)})` : ''}:\n\n`);
      for (const review of prepared.reviews) env.stdout(`${formatReview(review)}\n`);
    }
    const confirmed = args.flags.has('--yes');
    const results: { review: ImportReview; result?: InstallResult; held?: string }[] = [];
    for (const review of prepared.reviews) {
      if (!confirmed) {
        results.push({ review, held: 'not confirmed: re-run with --yes to install' });
        continue;
      }
      if (review.scan.verdict === 'dangerous' && !args.flags.has('--allow-dangerous')) {
        results.push({ review, held: 'the scanner found it dangerous: re-run with --yes --allow-dangerous to install it anyway (recorded in skills-lock.json)' });
        continue;
      }
      const existing = review.existing;
      const collides = existing !== undefined && !existing.sameContent;
      if (collides && renameTo === undefined && !args.flags.has('--replace')) {
        results.push({ review, held: `a different ${review.candidate.name} is installed at ${existing.dir}: kept; re-run with --replace to take theirs, or --as NAME to install it under another name` });
        continue;
      }
      const result = await installSkill(env.fs, review, {
        source,
        ...(prepared.quarantine.commit ? { commit: prepared.quarantine.commit } : {}),
        ...(collides || renameTo !== undefined ? (renameTo !== undefined ? { collision: 'rename' as const, newName: renameTo } : { collision: 'take_theirs' as const }) : {}),
        ...(review.scan.verdict === 'dangerous' ? { override: 'yes' as const } : {}),
        ...(user ? {} : { lockRoot: root }),
        logger: logger(env),
      });
      results.push({ review, result });
    }
    const held = results.filter((r) => r.held !== undefined);
    if (json) {
      env.stdout(`${JSON.stringify({ source, ...(prepared.quarantine.commit ? { commit: prepared.quarantine.commit } : {}), skills: results.map((r) => ({ ...reviewJson(r.review), installed: r.result?.installedDir !== undefined, ...(r.result ? { result: r.result } : {}), ...(r.held ? { held: r.held } : {}) })) }, null, 2)}\n`);
    } else {
      for (const r of results) {
        if (r.result?.installedDir) env.stdout(`installed ${r.result.name} → ${show(r.result.installedDir, root)}${r.result.lockEntry ? ` (${LOCK_FILE} updated)` : ''}\n`);
        else env.stdout(`not installed: ${r.review.candidate.name}: ${r.held ?? r.result?.skipped ?? ''}\n`);
      }
      if (!confirmed) {
        const dangerous = prepared.reviews.filter((r) => r.scan.verdict === 'dangerous').map((r) => r.candidate.name);
        env.stdout(`\nNothing was installed. Re-run with --yes to install${dangerous.length ? `; ${dangerous.join(', ')} ${dangerous.length === 1 ? 'is' : 'are'} dangerous and also need${dangerous.length === 1 ? 's' : ''} --allow-dangerous` : ''}.\n`);
      }
    }
    return held.length > 0 ? 1 : 0;
  } finally {
    await prepared.quarantine.dispose();
  }
}

export async function installCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`install restores what ${LOCK_FILE} lists and takes no names; to add a skill use skillwright add <source>`);
  const root = await projectRoot(args, env);
  const frozen = args.flags.has('--frozen');
  const exists = (await env.fs.stat(path.join(root, LOCK_FILE)))?.type === 'file';
  const results = exists ? await restoreFromLock(env.fs, root, ports(env), { frozen, logger: logger(env), ...(env.signal ? { signal: env.signal } : {}) }) : [];
  const failed = results.filter((result) => restoreFailed(result, frozen));
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify({ lock: exists ? path.join(root, LOCK_FILE) : null, frozen, ok: failed.length === 0, skills: results }, null, 2)}\n`);
  } else if (!exists) {
    env.stdout(`No ${LOCK_FILE} in ${root}; nothing to install.\n`);
  } else {
    for (const result of results) {
      env.stdout(`${result.status.padEnd(8)} ${result.name}${result.dir ? `  ${show(result.dir, root)}` : ''}${result.message ? `\n         ${result.message}` : ''}\n`);
    }
    const restored = results.filter((r) => r.status === 'restored').length;
    env.stdout(failed.length === 0 ? `\n${results.length} locked skill${results.length === 1 ? '' : 's'} match ${LOCK_FILE}${restored ? ` (${restored} restored)` : ''}.\n` : `\n${failed.length} of ${results.length} do not match ${LOCK_FILE}${frozen ? '; --frozen changed nothing' : ''}.\n`);
  }
  return failed.length === 0 ? 0 : 1;
}

function checkJson(check: UpdateCheck, applied?: string): Record<string, unknown> {
  return {
    name: check.name,
    status: check.status,
    ...(check.message ? { message: check.message } : {}),
    ...(check.review ? { verdict: check.review.scan.verdict, findings: check.review.scan.findings } : {}),
    ...(check.diff ? { diff: check.diff } : {}),
    ...(applied ? { applied } : {}),
  };
}

export async function updateCommand(args: ParsedArgs, env: CliEnv): Promise<number> {
  const root = await projectRoot(args, env);
  if ((await env.fs.stat(path.join(root, LOCK_FILE)))?.type !== 'file') throw new UsageError(`no ${LOCK_FILE} in ${root}; add skills with skillwright add <source> first`);
  const names = args.positionals.length > 0 ? args.positionals : undefined;
  const checks = await checkForUpdates(env.fs, root, ports(env), { ...(names ? { names } : {}), ...(env.signal ? { signal: env.signal } : {}) });
  const checkOnly = args.flags.has('--check');
  const confirmed = args.flags.has('--yes');
  const outcome = new Map<string, string>();
  for (const check of checks) {
    if (checkOnly || !confirmed || check.status !== 'update_available') continue;
    if (check.review?.scan.verdict === 'dangerous' && !args.flags.has('--allow-dangerous')) {
      outcome.set(check.name, 'held: the scanner found the update dangerous; re-run with --yes --allow-dangerous to take it anyway');
      continue;
    }
    await applyUpdate(env.fs, root, check, 'take_theirs', { ...(check.review?.scan.verdict === 'dangerous' ? { override: 'yes' as const } : {}), logger: logger(env) });
    outcome.set(check.name, 'updated');
  }
  const pending = checks.filter((c) => c.status === 'update_available' && outcome.get(c.name) !== 'updated');
  const conflicts = checks.filter((c) => c.status === 'both_changed');
  const failures = checks.filter((c) => c.status === 'error' || c.status === 'missing');
  if (args.flags.has('--json')) {
    env.stdout(`${JSON.stringify({ checks: checks.map((c) => checkJson(c, outcome.get(c.name))) }, null, 2)}\n`);
  } else {
    for (const check of checks) {
      const applied = outcome.get(check.name);
      env.stdout(`${check.status.padEnd(16)} ${check.name}${check.review ? ` (verdict ${check.review.scan.verdict})` : ''}${applied ? `: ${applied}` : check.message ? `: ${check.message}` : ''}\n`);
      if (check.diff && (check.status === 'update_available' || check.status === 'both_changed') && applied !== 'updated') {
        env.stdout(`${check.diff.trimEnd().split('\n').map((line) => `    ${line}`).join('\n')}\n`);
      }
    }
    if (conflicts.length > 0) env.stdout(`\n${conflicts.map((c) => c.name).join(', ')}: edited here and changed upstream; not updated. Merge them with Check for Skill Updates in VS Code, or move your edits aside and run skillwright update --yes.\n`);
    if (!checkOnly && !confirmed && pending.length > 0) env.stdout(`\nNothing was changed. Re-run with --yes to take ${pending.length} update${pending.length === 1 ? '' : 's'} (skills edited here are never replaced).\n`);
  }
  return pending.length > 0 || conflicts.length > 0 || failures.length > 0 ? 1 : 0;
}
