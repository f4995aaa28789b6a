import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { NodeFileLockOptions } from '../../../src/core/memory/memoryLock';
import { NodeFileLock } from '../../../src/core/memory/memoryLock';
import type { MemoryStoreOptions } from '../../../src/core/memory/memoryStore';
import { MemoryStore } from '../../../src/core/memory/memoryStore';

/** A temp project folder and home folder for memory tests; call cleanup() in afterEach. */
export interface MemoryDirs {
  readonly root: string;
  readonly project: string;
  readonly home: string;
  readonly memoryFile: string;
  readonly userFile: string;
  store(options?: Partial<MemoryStoreOptions> & { lockOptions?: NodeFileLockOptions }): MemoryStore;
  cleanup(): void;
}

export function makeMemoryDirs(): MemoryDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-memory-'));
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.mkdirSync(project);
  fs.mkdirSync(home);
  return {
    root,
    project,
    home,
    memoryFile: path.join(project, '.agents', 'memory', 'MEMORY.md'),
    userFile: path.join(home, '.agents', 'memory', 'USER.md'),
    store: (options = {}) => {
      const { lockOptions, ...rest } = options;
      return new MemoryStore({ fs: new NodeFileSystem(), lock: new NodeFileLock(lockOptions), projectRoot: project, userHome: home, ...rest });
    },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export function writeText(file: string, text: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

export function readText(file: string): string {
  return fs.readFileSync(file, 'utf8');
}
