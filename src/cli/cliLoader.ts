import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { cliCacheDir } from './indexCache';

/**
 * The `skillwright` command's first file (dist/cli.js): it runs the CLI bundle (dist/cliMain.js)
 * with V8's code cache, kept in the CLI's cache folder. Compiling the bundle costs more than
 * anything `--help` does (about 100 ms of every start on a 2-core machine); with the cache, V8 reads
 * the compiled code back instead. Node 22 has this built in (module.enableCompileCache); Node 20,
 * which VS Code's extension host runs, does not. A missing, stale or unreadable cache only means
 * compiling as usual, and the next start writes it again.
 */
function cacheFileFor(source: string): string | undefined {
  if (process.env['SKILLWRIGHT_NO_CODE_CACHE']) return undefined;
  const key = createHash('sha256').update(process.version).update(process.arch).update(source).digest('hex').slice(0, 16);
  return path.join(cliCacheDir(os.homedir(), process.platform, process.env), 'code', `cli-${key}.bin`);
}

function readCache(file: string | undefined): Buffer | undefined {
  if (!file) return undefined;
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Written once the command has run, so the functions it compiled lazily are in the cache too. */
function writeCache(file: string, script: vm.Script): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, script.createCachedData());
    fs.renameSync(temp, file);
  } catch {
    // A read-only or full cache folder: the next start compiles again, nothing else changes.
  }
}

/**
 * The bundle's `require`, for the Node built-ins and the few files beside it. js-yaml 3 (inside
 * gray-matter) tries `require('esprima')` at load for `!!js/function` tags, which the safe loader
 * we use never reads; where node_modules has esprima that costs 10–30 ms of every start, so it is
 * reported missing here, which js-yaml expects and handles.
 */
function bundleRequire(main: string): NodeJS.Require {
  const real = createRequire(main);
  const require = ((id: string): unknown => {
    if (id === 'esprima') throw Object.assign(new Error("Cannot find module 'esprima'"), { code: 'MODULE_NOT_FOUND' });
    return real(id);
  }) as NodeJS.Require;
  return Object.assign(require, { resolve: real.resolve, cache: real.cache, main: real.main, extensions: real.extensions });
}

function run(): void {
  const main = path.join(__dirname, 'cliMain.js');
  const source = fs.readFileSync(main, 'utf8');
  const cacheFile = cacheFileFor(source);
  const cachedData = readCache(cacheFile);
  const script = new vm.Script(wrap(source), { filename: main, ...(cachedData ? { cachedData } : {}) });
  if (cacheFile && (!cachedData || script.cachedDataRejected === true)) process.once('exit', () => writeCache(cacheFile, script));
  const mainModule = { exports: {}, filename: main, id: main, loaded: false };
  const compiled = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  compiled.call(mainModule.exports, mainModule.exports, bundleRequire(main), mainModule, main, path.dirname(main));
}

run();
