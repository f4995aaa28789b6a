import * as os from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { version } from '../../package.json';
import { SyncReadFileSystem } from '../core/base/syncReadFileSystem';
import { runCli } from './runCli';

function main(): void {
  const stop = new AbortController();
  // `skillwright list | head`: the reader has all it wanted; stop as a shell tool does, without a trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  // The first Ctrl-C stops a running agent turn (which keeps what it said); anything still running
  // two seconds later is ended.
  process.once('SIGINT', () => {
    stop.abort();
    setTimeout(() => process.exit(130), 2_000).unref();
  });

  void runCli(process.argv.slice(2), version, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    homeDir: os.homedir(),
    // A CLI process has no UI to keep responsive, and its skill folders are local: synchronous reads
    // index them about 2.5x faster, as in the extension host (docs/decisions.md, "A fast CLI").
    fs: new SyncReadFileSystem(),
    env: process.env,
    signal: stop.signal,
    workerEntry: __filename,
  }).then((code) => {
    process.exitCode = code;
  });
}

if (isMainThread) {
  main();
} else {
  // `lint` runs this same script in worker threads for its share of the skills.
  void import('./parallelLint').then(async (lint) => {
    if (lint.isLintWorker()) await lint.runLintWorker();
  });
}
