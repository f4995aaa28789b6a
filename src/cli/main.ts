import * as os from 'node:os';
import { version } from '../../package.json';
import { NodeFileSystem } from '../core/base/nodeFileSystem';
import { runCli } from './runCli';

const stop = new AbortController();
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
  fs: new NodeFileSystem(),
  env: process.env,
  signal: stop.signal,
}).then((code) => {
  process.exitCode = code;
});
