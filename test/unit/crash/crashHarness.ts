import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { Random } from '../seededRandom';
import { randomInt } from '../seededRandom';
import type { CrashKind } from './crashVersions';

export interface CrashRun {
  /** The newest version the child said it finished (`from` when it finished none). */
  readonly lastDone: number;
  /** Whether the child was killed (false: it died on its own, which is a failure). */
  readonly killed: boolean;
  readonly stderr: string;
}

const WRITER = path.join(__dirname, 'crashWriter.js');

/**
 * Starts the writer, lets it finish a random number of writes (0-6), then kills it with SIGKILL,
 * at once or after a random 0-3 ms, so the kill lands anywhere in a write: in the temp file, at the
 * rename, between files. Resolves once the child is gone and its output is read to the end.
 */
export function crashOnce(kind: CrashKind, dir: string, from: number, random: Random, options: { readonly naive?: boolean } = {}): Promise<CrashRun> {
  const writesBeforeKill = randomInt(random, 0, 6);
  const delayMs = random() < 0.5 ? 0 : random() * 3;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, kind, dir, String(from), ...(options.naive ? ['--naive'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let lastDone = from;
    let ready = false;
    let killing = false;
    const kill = (): void => {
      if (killing) return;
      killing = true;
      if (delayMs === 0) child.kill('SIGKILL');
      else setTimeout(() => child.kill('SIGKILL'), delayMs);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      let newline: number;
      while ((newline = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, newline);
        out = out.slice(newline + 1);
        if (line === 'ready') ready = true;
        const done = /^done (\d+)$/.exec(line);
        if (done) lastDone = Number(done[1]);
        if (ready && lastDone - from >= writesBeforeKill) kill();
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve({ lastDone, killed: signal === 'SIGKILL', stderr }));
  });
}
