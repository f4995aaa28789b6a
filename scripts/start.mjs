// `npm start`: builds Skillwright, makes the sample workspace and opens it with the extension —
// in desktop VS Code when a `code` command is on the PATH, otherwise in browser VS Code
// (code-server on 127.0.0.1; the URL is printed; Ctrl-C stops it).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeSampleWorkspace } from './makeSampleWorkspace.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workspace = await makeSampleWorkspace(path.join(root, 'sample-workspace'));
const browserOnly = process.argv.includes('--browser') || process.env.SKILLWRIGHT_BROWSER === '1';

function hasCode() {
  const which = spawnSync(process.platform === 'win32' ? 'where' : 'which', ['code'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() !== '';
}

function freePort(preferred) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => {
      const fallback = net.createServer();
      fallback.listen(0, '127.0.0.1', () => {
        const { port } = fallback.address();
        fallback.close(() => resolve(port));
      });
    });
    server.listen(preferred, '127.0.0.1', () => server.close(() => resolve(preferred)));
  });
}

if (!browserOnly && hasCode()) {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  console.log(`Opening ${workspace} in VS Code with Skillwright from ${root}`);
  const child = spawn('code', ['--new-window', `--extensionDevelopmentPath=${root}`, workspace], { stdio: 'inherit', shell: process.platform === 'win32' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  // Browser VS Code runs the packaged extension, exactly what a user installs from the .vsix.
  execFileSync(process.execPath, [path.join(root, 'scripts', 'package.mjs')], { cwd: root, stdio: 'inherit' });
  const { name, version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const vsix = path.join(root, `${name}-${version}.vsix`);
  const entry = execFileSync('bash', [path.join(root, 'scripts', 'installCodeServer.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .pop();
  const cache = process.env.SKILLWRIGHT_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'skillwright');
  const profile = ['--user-data-dir', path.join(cache, 'dev-profile'), '--extensions-dir', path.join(cache, 'dev-extensions')];
  mkdirSync(path.join(cache, 'dev-profile'), { recursive: true });
  execFileSync(process.execPath, [entry, ...profile, '--force', '--install-extension', vsix], { stdio: 'inherit' });
  const port = await freePort(Number(process.env.SKILLWRIGHT_PORT ?? 8080));
  const child = spawn(
    process.execPath,
    [entry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, ...profile, '--disable-telemetry', '--disable-update-check', workspace],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  console.log(`\nSkillwright is running in browser VS Code: http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  console.log('Open that address in a browser; press Ctrl-C here to stop.\n');
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
}
