import { version } from '../../package.json';
import { runCli } from './runCli';

process.exitCode = runCli(process.argv.slice(2), version, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
