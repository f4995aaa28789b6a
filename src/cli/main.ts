import * as os from 'node:os';
import { version } from '../../package.json';
import { NodeFileSystem } from '../core/nodeFileSystem';
import { runCli } from './runCli';

void runCli(process.argv.slice(2), version, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  homeDir: os.homedir(),
  fs: new NodeFileSystem(),
}).then((code) => {
  process.exitCode = code;
});
