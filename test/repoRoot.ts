import * as fs from 'node:fs';
import * as path from 'node:path';

/** The repository root, found from the compiled location `out/test/...` or the source `test/...`. */
export function repoRoot(): string {
  let dir = __dirname;
  // The compiled tree has its own copy of package.json (JSON imports), but no tsconfig.json.
  while (!fs.existsSync(path.join(dir, 'tsconfig.json')) || !fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`the repository root was not found above ${__dirname}`);
    }
    dir = parent;
  }
  return dir;
}
