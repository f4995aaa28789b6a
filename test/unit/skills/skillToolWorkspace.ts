import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SkillRoot } from '../../../src/core/base/skillRoots';
import { skillRootCandidates } from '../../../src/core/base/skillRoots';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import type { ToolResult } from '../../../src/core/toolkit/toolResult';
import type { SkillToolContext } from '../../../src/core/skills/tools/skillToolContext';
import { runSkillTool } from '../../../src/core/skills/tools/skillTools';

/** A temp project and home folder with every skill root of a one-folder workspace, and an index over them. */
export interface ToolWorkspace {
  readonly tmp: string;
  readonly project: string;
  readonly home: string;
  readonly roots: readonly SkillRoot[];
  readonly index: SkillIndex;
  ctx: SkillToolContext;
  /** Path of a root by its label, e.g. `.agents/skills` or `~/.claude/skills`. */
  root(label: string): string;
  /** Writes a file below a root (by label), creating folders. */
  write(label: string, relative: string, content: string | Uint8Array): string;
  run(tool: string, args: unknown): Promise<ToolResult>;
  ok(tool: string, args: unknown): Promise<Record<string, unknown>>;
  refused(tool: string, args: unknown): Promise<string>;
  cleanup(): void;
}

export function skillMd(name: string, description = `Helps with ${name.replace(/-/g, ' ')} tasks. Use when the user asks about ${name}.`, body = '# Steps\n\n1. Do the thing.\n'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`;
}

export async function makeWorkspace(
  options: { folder?: boolean; disabled?: readonly string[]; setup?: (ws: ToolWorkspace) => void } = {},
): Promise<ToolWorkspace> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-tools-'));
  const project = path.join(tmp, 'app');
  const home = path.join(tmp, 'home');
  fs.mkdirSync(project);
  fs.mkdirSync(home);
  const roots = skillRootCandidates(options.folder === false ? [] : [{ name: 'app', fsPath: project }], home);
  const nodeFs = new NodeFileSystem();
  const index = new SkillIndex({ fs: nodeFs, roots, disabled: new Set(options.disabled ?? []) });
  const rootPath = (label: string): string => {
    const found = roots.find((root) => root.label === label);
    assert.ok(found, `no root labelled ${label}`);
    return found.path;
  };
  const ws: ToolWorkspace = {
    tmp,
    project,
    home,
    roots,
    index,
    ctx: { fs: nodeFs, index },
    root: rootPath,
    write(label, relative, content) {
      const file = path.join(rootPath(label), ...relative.split('/'));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
    run: (tool, args) => runSkillTool(tool, args, ws.ctx),
    async ok(tool, args) {
      const result = await runSkillTool(tool, args, ws.ctx);
      assert.ok(result.success, `${tool} failed: ${result.success ? '' : result.error}`);
      return result as Record<string, unknown>;
    },
    async refused(tool, args) {
      const result = await runSkillTool(tool, args, ws.ctx);
      assert.equal(result.success, false, `${tool} should have been refused: ${JSON.stringify(result).slice(0, 300)}`);
      // Every result must survive the trip into a tool message.
      assert.deepEqual(JSON.parse(JSON.stringify(result)), result);
      return (result as { error: string }).error;
    },
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
  options.setup?.(ws);
  await index.load();
  return ws;
}

export function names(result: Record<string, unknown>): string[] {
  const groups = result['categories'] as { skills: { name: string }[] }[] | undefined;
  if (groups) return groups.flatMap((group) => group.skills.map((skill) => skill.name));
  return (result['skills'] as { name: string }[]).map((skill) => skill.name);
}
