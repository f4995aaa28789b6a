import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { FileSystemPort } from '../../../src/core/base/fileSystemPort';
import { JsTextSearch } from '../../../src/core/tools/jsTextSearch';
import { NodeProcessPort } from '../../../src/core/tools/processPort';
import { RipgrepSearch } from '../../../src/core/tools/ripgrepSearch';
import { toolSpecOf } from '../../../src/core/toolkit/toolDefinition';
import { READ_ONLY_WORKSPACE_TOOLS, WORKSPACE_TOOLS, WorkspaceTools } from '../../../src/core/tools/workspaceTools';
import { findRipgrep, SEARCH_TREE, writeTree } from './searchFixtures';
import type { TestWorkspace } from './toolTestWorkspace';
import { makeTestWorkspace, nodeFs } from './toolTestWorkspace';

describe('workspace tool schemas', () => {
  it('offer the seven tools, each with a description and a closed argument object', () => {
    assert.deepEqual(
      WORKSPACE_TOOLS.map((definition) => definition.name),
      ['read_file', 'list_files', 'find_files', 'search_text', 'edit_file', 'write_file', 'run_command'],
    );
    for (const definition of WORKSPACE_TOOLS) {
      const schema = { function: toolSpecOf(definition) };
      const parameters = schema.function.parameters as { type: string; properties: Record<string, { type: string; description?: string }>; required?: string[]; additionalProperties: boolean };
      assert.ok(schema.function.description.length > 40 && schema.function.description.length < 400, schema.function.name);
      assert.equal(parameters.type, 'object');
      assert.equal(parameters.additionalProperties, false);
      for (const key of parameters.required ?? []) assert.ok(parameters.properties[key], `${schema.function.name} requires unknown ${key}`);
      for (const [key, property] of Object.entries(parameters.properties)) {
        assert.ok(['string', 'boolean', 'integer'].includes(property.type), `${schema.function.name}.${key}`);
        assert.ok(property.description, `${schema.function.name}.${key} has no description`);
      }
    }
  });
});

describe('WorkspaceTools', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace();
    ws.write('a.txt', 'alpha\n');
  });
  afterEach(() => ws.cleanup());

  it('accepts arguments as the raw JSON text a provider hands over, null meaning absent', async () => {
    const result = await ws.ok('read_file', '{"path": "a.txt", "start_line": null}');
    assert.equal(result['content'], 'alpha');
    assert.match(await ws.refused('read_file', '{"path": '), /arguments are not valid JSON; send an object such as \{"path": "\.\.\."\}/);
    assert.match(await ws.refused('read_file', '[1]'), /must be a JSON object/);
    assert.match(await ws.refused('read_file', { path: 7 }), /"path" must be a string, not number/);
    assert.match(await ws.refused('search_text', { query: 'a', regex: 'yes' }), /"regex" must be a boolean/);
  });

  it('names the tools when asked for an unknown one', async () => {
    assert.match(await ws.refused('delete_file', { path: 'a.txt' }), /unknown tool "delete_file"; the workspace tools are read_file, list_files/);
  });

  it('turns a failure inside a tool into a result instead of throwing', async () => {
    const broken: FileSystemPort = { ...nodeFs, readDirectory: nodeFs.readDirectory.bind(nodeFs), stat: nodeFs.stat.bind(nodeFs), lstat: nodeFs.lstat.bind(nodeFs), realPath: nodeFs.realPath.bind(nodeFs), readFile: () => Promise.reject(new Error('EIO: i/o error')), writeFileAtomic: nodeFs.writeFileAtomic.bind(nodeFs), mkdir: nodeFs.mkdir.bind(nodeFs), remove: nodeFs.remove.bind(nodeFs), rename: nodeFs.rename.bind(nodeFs) };
    const tools = new WorkspaceTools({ fs: broken, folders: [{ name: 'app', fsPath: ws.root }] });
    const result = await tools.run('read_file', { path: 'a.txt' });
    assert.deepEqual(result, { success: false, error: 'read_file failed unexpectedly: EIO: i/o error. Try again, or report this if it repeats.' });
  });

  it('adapts to the agent loop: reads are read-only, changes are not, and run() passes the signal', async () => {
    const tools = new WorkspaceTools({ fs: nodeFs, folders: [{ name: 'app', fsPath: ws.root }], process: new NodeProcessPort() });
    const agentTools = tools.agentTools();
    assert.deepEqual(agentTools.filter((tool) => tool.readOnly).map((tool) => tool.spec.name), [...READ_ONLY_WORKSPACE_TOOLS]);
    const runCommand = agentTools.find((tool) => tool.spec.name === 'run_command');
    assert.ok(runCommand && (runCommand.timeoutMs ?? 0) > 600_000, 'the loop must not cut run_command short of its own timeout');
    const read = agentTools.find((tool) => tool.spec.name === 'read_file');
    assert.deepEqual(await read?.run({ path: 'a.txt' }, { signal: new AbortController().signal, turnId: 't1' }), {
      success: true,
      path: 'a.txt',
      content: 'alpha',
      start_line: 1,
      end_line: 1,
      total_lines: 1,
    });
    const controller = new AbortController();
    controller.abort();
    const stopped = (await runCommand?.run({ command: 'echo never' }, { signal: controller.signal, turnId: 't1' })) as { success: boolean; error: string };
    assert.equal(stopped.success, false);
    assert.match(stopped.error, /stopped by the user/);
  });
});

describe('search_text', () => {
  let ws: TestWorkspace;
  beforeEach(() => {
    ws = makeTestWorkspace({ folders: ['app', 'lib'], tools: { excludeGlobs: ['**/fixtures'] } });
    writeTree(ws.root, SEARCH_TREE);
    ws.write(path.join(ws.tmp, 'lib', 'index.ts'), 'export const needle = "lib";\n');
  });
  afterEach(() => ws.cleanup());

  const engines = (): [string, WorkspaceTools][] => {
    const folders = [{ name: 'app', fsPath: ws.root }, { name: 'lib', fsPath: path.join(ws.tmp, 'lib') }];
    const options = { fs: nodeFs, folders, excludeGlobs: ['**/fixtures'] };
    return [
      ['ripgrep', new WorkspaceTools({ ...options, textSearch: new RipgrepSearch(findRipgrep(), new NodeProcessPort(), new JsTextSearch(nodeFs)) })],
      ['javascript', new WorkspaceTools(options)],
    ];
  };

  it('groups matching lines by file, across every folder, with the same result from both engines', async () => {
    const results = [];
    for (const [engine, tools] of engines()) {
      const result = (await tools.run('search_text', { query: 'needle', glob: '*.ts' })) as Record<string, unknown>;
      assert.equal(result['success'], true);
      assert.equal(result['engine'], engine);
      results.push({ ...result, engine: undefined });
    }
    assert.deepEqual(results[0], results[1]);
    const files = (results[0] as unknown as { files: { path: string; matches: { line: number; text: string }[] }[] }).files;
    assert.deepEqual(files.map((file) => file.path), ['app/src/bom.ts', 'app/src/deep/util.ts', 'app/src/main.ts', 'app/src/unicode.ts', 'lib/index.ts']);
    assert.deepEqual(files[2]?.matches, [{ line: 1, text: 'const a = "needle";' }, { line: 3, text: 'needle1 needle22 neeedle3' }]);
  });

  it('searches one folder or one file given as path', async () => {
    for (const [, tools] of engines()) {
      const inLib = (await tools.run('search_text', { query: 'needle', path: 'lib' })) as unknown as { files: { path: string }[] };
      assert.deepEqual(inLib.files.map((file) => file.path), ['lib/index.ts']);
      const oneFile = (await tools.run('search_text', { query: 'const', path: 'app/src/main.ts' })) as unknown as { count: number };
      assert.equal(oneFile.count, 2);
    }
  });

  it('says when results were cut, and explains an empty result', async () => {
    for (const [, tools] of engines()) {
      const cut = (await tools.run('search_text', { query: 'needle', max_results: 2 })) as Record<string, unknown>;
      assert.equal(cut['count'], 2);
      assert.equal(cut['truncated'], true);
      assert.match(String(cut['note']), /only the first 2 matching lines are shown/);
      const none = (await tools.run('search_text', { query: 'haystack' })) as Record<string, unknown>;
      assert.equal(none['count'], 0);
      assert.match(String(none['note']), /no matches \(literal text, ignoring case\)/);
    }
  });

  it('refuses empty and multi-line queries, bad regular expressions and missing paths', async () => {
    for (const [, tools] of engines()) {
      const refusal = async (args: object): Promise<string> => {
        const result = await tools.run('search_text', args);
        assert.equal(result.success, false, JSON.stringify(args));
        return (result as { error: string }).error;
      };
      assert.match(await refusal({ query: '' }), /query is empty/);
      assert.match(await refusal({ query: 'a\nb' }), /spans several lines/);
      assert.match(await refusal({ query: '[unclosed', regex: true }), /invalid regular expression "\[unclosed"/);
      assert.match(await refusal({ query: 'x', path: 'app/nope' }), /"app\/nope" does not exist/);
      assert.match(await refusal({ query: 'x', path: '../outside' }), /outside the workspace/);
      assert.match(await refusal({ query: 'x', max_results: 0 }), /"max_results" must be at least 1/);
    }
  });
});
