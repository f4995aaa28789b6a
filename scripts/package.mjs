// Builds the production bundles and packs them into skillwright-<version>.vsix at the repo root.
// Fails if the package is over the size budget or contains files that must not ship.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { version, name } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const vsix = path.join(root, `${name}-${version}.vsix`);
const maxBytes = 3 * 1024 * 1024;

execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--production'], { cwd: root, stdio: 'inherit' });
const vsce = require.resolve('@vscode/vsce/vsce');
// --no-dependencies: everything the extension needs is bundled by esbuild.
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', vsix], {
  cwd: root,
  stdio: 'inherit',
});

const listing = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const forbidden = listing.filter((file) => /(^|\/)(node_modules|src|test)\/|\.map$|\.ts$/.test(file));
if (forbidden.length > 0) {
  console.error(`The package must not contain: ${forbidden.join(', ')}`);
  process.exit(1);
}
const size = statSync(vsix).size;
console.log(`${path.basename(vsix)}: ${(size / 1024).toFixed(0)} KiB, ${listing.length} files (budget ${maxBytes / 1024 / 1024} MiB)`);
if (size > maxBytes) {
  console.error(`The package is over the ${maxBytes} byte budget.`);
  process.exit(1);
}
