import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { FileSystemPort } from '../core/base/fileSystemPort';
import type { SkillRoot } from '../core/base/skillRoots';
import { SyncReadFileSystem } from '../core/base/syncReadFileSystem';
import { MemoryTextStore } from '../core/base/textStore';
import { lintSkillFile } from '../core/skills/lint/lintRunner';
import { SkillIndex } from '../core/skills/index/skillIndex';
import type { LintFinding } from '../core/skills/model/skillTypes';

/**
 * Skills per thread below which another thread does not pay: a worker first loads the CLI and
 * the index snapshot and checks it against the disk, a few hundred ms at 10,000 skills.
 */
export const MIN_SKILLS_PER_THREAD = 1_500;
const JOB_KIND = 'skillwright-lint';

interface LintJob {
  readonly kind: typeof JOB_KIND;
  readonly roots: readonly SkillRoot[];
  readonly snapshot: string;
  readonly files: readonly string[];
}

type LintReply = { readonly findings: LintFinding[][] } | { readonly error: string };

export interface ParallelLintOptions {
  /** The script a worker thread runs (the CLI's own entry); without it everything is linted here. */
  readonly workerEntry?: string;
  /** Threads at most, this one included. */
  readonly jobs: number;
  /** The index's snapshot, validated: workers serve their index from it instead of reading every file. */
  readonly snapshot: () => Promise<string | undefined>;
}

async function lintHere(files: readonly string[], fs: FileSystemPort, index: SkillIndex): Promise<LintFinding[][]> {
  const findings: LintFinding[][] = [];
  for (const file of files) findings.push(await lintSkillFile({ file }, fs, index));
  return findings;
}

function lintInWorker(entry: string, job: LintJob): Promise<LintFinding[][]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry, { workerData: job });
    let settled = false;
    worker.once('message', (reply: LintReply) => {
      settled = true;
      // Its index is still checking the snapshot against the disk, which nobody needs now.
      void worker.terminate();
      if ('error' in reply) reject(new Error(reply.error));
      else resolve(reply.findings);
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the lint worker stopped (exit code ${code}) before it answered`));
    });
  });
}

export interface LintedFiles {
  /** Per file, in the order given. */
  readonly findings: LintFinding[][];
  /** How many parts worker threads linted (0 when everything ran in this thread). */
  readonly workers: number;
}

/**
 * Lints `files` (SKILL.md paths of `index`), each with the whole index as context, and returns
 * their findings in the same order. Lint rules are CPU work (the threat scan above all), so a
 * large index is split into contiguous parts for worker threads, this thread taking the first. A
 * part whose worker fails is linted here instead: the findings never depend on the threads.
 */
export async function lintFiles(files: readonly string[], fs: FileSystemPort, index: SkillIndex, options: ParallelLintOptions): Promise<LintedFiles> {
  const threads = Math.max(1, Math.min(options.jobs, Math.floor(files.length / MIN_SKILLS_PER_THREAD)));
  const snapshot = threads > 1 && options.workerEntry !== undefined ? await options.snapshot() : undefined;
  const entry = options.workerEntry;
  if (snapshot === undefined || entry === undefined) return { findings: await lintHere(files, fs, index), workers: 0 };
  const size = Math.ceil(files.length / threads);
  const parts: string[][] = [];
  for (let start = 0; start < files.length; start += size) parts.push(files.slice(start, start + size));
  const [first = [], ...rest] = parts;
  let workers = 0;
  const results = await Promise.all([
    lintHere(first, fs, index),
    ...rest.map((part) =>
      lintInWorker(entry, { kind: JOB_KIND, roots: index.roots, snapshot, files: part }).then(
        (findings) => {
          workers += 1;
          return findings;
        },
        () => lintHere(part, fs, index),
      ),
    ),
  ]);
  return { findings: results.flat(), workers };
}

/** True in a thread that `lintFiles` started: the CLI's entry then runs `runLintWorker` instead of a command. */
export function isLintWorker(): boolean {
  return !isMainThread && (workerData as { kind?: unknown } | null)?.kind === JOB_KIND;
}

/**
 * The worker side: the main thread's index, from the snapshot it has just checked against the
 * disk and written, then the given part. The worker's own check of that snapshot (which the index
 * starts after serving it) is not waited for: it would repeat the main thread's walk, and the
 * records it could change are the ones the main thread lints with too.
 */
export async function runLintWorker(): Promise<void> {
  const job = workerData as LintJob;
  const fs = new SyncReadFileSystem();
  const index = new SkillIndex({ fs, roots: job.roots, snapshot: new MemoryTextStore(job.snapshot) });
  let reply: LintReply;
  try {
    await index.load();
    reply = { findings: await lintHere(job.files, fs, index) };
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  } finally {
    index.dispose();
  }
  parentPort?.postMessage(reply);
}
