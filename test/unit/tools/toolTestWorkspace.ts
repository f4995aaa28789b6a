import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { ToolResult } from '../../../src/core/toolkit/toolResult';
import type { WorkspaceToolOptions } from '../../../src/core/tools/workspaceTools';
import { WorkspaceTools } from '../../../src/core/tools/workspaceTools';

/** A temp folder with workspace folders in it, and WorkspaceTools over them. */
export interface TestWorkspace {
  /** Temp folder holding the workspace folders and an `outside` folder. */
  readonly tmp: string;
  /** The first (or only) workspace folder. */
  readonly root: string;
  readonly outside: string;
  tools: WorkspaceTools;
  /** Writes a file below the first folder (or an absolute path), creating folders. */
  write(relative: string, content: string | Uint8Array): string;
  read(relative: string): string;
  run(tool: string, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
  ok(tool: string, args: unknown): Promise<Record<string, unknown>>;
  refused(tool: string, args: unknown): Promise<string>;
  cleanup(): void;
}

export const nodeFs = new NodeFileSystem();

export function makeTestWorkspace(options: { folders?: readonly string[]; tools?: Partial<WorkspaceToolOptions> } = {}): TestWorkspace {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-wstools-')));
  const names = options.folders ?? ['app'];
  const folders = names.map((name) => ({ name, fsPath: path.join(tmp, name) }));
  for (const folder of folders) fs.mkdirSync(folder.fsPath);
  const outside = path.join(tmp, 'outside');
  fs.mkdirSync(outside);
  const root = (folders[0] ?? assert.fail('a test workspace needs at least one folder')).fsPath;
  const at = (relative: string): string => (path.isAbsolute(relative) ? relative : path.join(root, ...relative.split('/')));
  const ws: TestWorkspace = {
    tmp,
    root,
    outside,
    tools: new WorkspaceTools({ fs: nodeFs, folders, ...options.tools }),
    write(relative, content) {
      const file = at(relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
    read: (relative) => fs.readFileSync(at(relative), 'utf8'),
    run: (tool, args, signal) => ws.tools.run(tool, args, signal ? { signal } : {}),
    async ok(tool, args) {
      const result = await ws.tools.run(tool, args);
      assert.ok(result.success, `${tool} failed: ${result.success ? '' : result.error}`);
      return result as Record<string, unknown>;
    },
    async refused(tool, args) {
      const result = await ws.tools.run(tool, args);
      assert.equal(result.success, false, `${tool} should have been refused: ${JSON.stringify(result).slice(0, 300)}`);
      return (result as { error: string }).error;
    },
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
  return ws;
}
