import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpInputSpec } from '../../../src/core/mcp/mcpConfig';
import { mcpConfigFromSetting, parseMcpConfigText } from '../../../src/core/mcp/mcpConfig';
import type { McpConfigSource, McpServerConfig } from '../../../src/core/mcp/mcpServerConfig';
import { parseEnvFile, resolveMcpServer } from '../../../src/core/mcp/mcpVariables';
import type { McpVariableResolver } from '../../../src/core/mcp/mcpVariables';

async function readEnvFile(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A resolver over fixed values that records what it was asked. */
function resolver(values: { env?: Record<string, string>; inputs?: Record<string, string>; workspaceFolder?: string; userHome?: string }) {
  const asked: { id: string; spec: McpInputSpec | undefined }[] = [];
  const r: McpVariableResolver = {
    ...(values.workspaceFolder !== undefined ? { workspaceFolder: values.workspaceFolder } : {}),
    ...(values.userHome !== undefined ? { userHome: values.userHome } : {}),
    env: (name) => values.env?.[name],
    input: async (spec, id) => {
      asked.push({ id, spec });
      // A real prompt answers later: the resolver must wait for it.
      await new Promise((resolve) => setImmediate(resolve));
      return values.inputs?.[id];
    },
  };
  return { r, asked };
}

function server(entry: object, source: McpConfigSource): McpServerConfig {
  const read = mcpConfigFromSetting({ s: entry }, source);
  assert.deepEqual(read.problems, []);
  const only = read.servers[0];
  assert.ok(only);
  return only;
}

describe('MCP variables', () => {
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-mcpvars-'));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('fills every variable in command, args, env, cwd, url, headers, and asks each input once', async () => {
    const text = JSON.stringify({
      inputs: [{ id: 'token', type: 'promptString', password: true, description: 'API token' }],
      servers: {
        s: {
          command: '${workspaceFolder}/bin/server',
          args: ['--home', '${userHome}', '--name', '${workspaceFolderBasename}', '--token=${input:token}', '${input:token}', '${env:MODE}', '${env:UNSET}x'],
          env: { TOKEN: '${input:token}', REGION: '${input:region}' },
          cwd: 'sub',
        },
        h: { url: 'http://127.0.0.1:8/${env:MODE}', headers: { Authorization: 'Bearer ${input:token}' } },
      },
    });
    const source: McpConfigSource = { origin: 'workspace', label: '.vscode/mcp.json', file: path.join(folder, '.vscode', 'mcp.json'), folder };
    const read = parseMcpConfigText(text, source);
    const [s, h] = read.servers;
    assert.ok(s && h);
    const { r, asked } = resolver({ env: { MODE: 'fast' }, inputs: { token: 'sekret', region: 'eu' }, userHome: '/home/u' });
    const result = await resolveMcpServer(s, read.inputs, r, readEnvFile);
    assert.ok(result.ok, result.ok ? '' : result.error);
    assert.equal(result.server.command, `${folder}/bin/server`);
    assert.deepEqual(result.server.args, ['--home', '/home/u', '--name', path.basename(folder), '--token=sekret', 'sekret', 'fast', 'x']);
    assert.deepEqual(result.server.env, { TOKEN: 'sekret', REGION: 'eu' });
    assert.equal(result.server.cwd, path.join(folder, 'sub'));
    assert.equal(result.server.hash, s.hash, 'the hash stays that of the unresolved entry');
    assert.ok(!s.hash.includes('sekret'));
    assert.deepEqual(asked.map((a) => a.id), ['token', 'region']);
    assert.equal(asked[0]?.spec?.password, true);
    assert.equal(asked[1]?.spec, undefined, 'an input without a spec is still asked, by id');

    const again = await resolveMcpServer(h, read.inputs, r, readEnvFile);
    assert.ok(again.ok);
    assert.equal(again.server.url, 'http://127.0.0.1:8/fast');
    assert.deepEqual(again.server.headers, { Authorization: 'Bearer sekret' });
  });

  it('fails with the variable and server named: unknown variable, missing input, no folder, bad url', async () => {
    const user: McpConfigSource = { origin: 'user', label: 'User settings' };
    const { r, asked } = resolver({ inputs: {} });
    const unknown = await resolveMcpServer(server({ command: 'node', args: ['${input:key}', '${config:editor.fontSize}'] }, user), [], r, readEnvFile);
    assert.deepEqual(unknown, {
      ok: false,
      error: 'MCP server "s" (User settings) uses ${config:editor.fontSize}, which is not a variable Skillwright knows. Use ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${env:NAME} or ${input:id}.',
    });
    assert.deepEqual(asked, [], 'nothing is asked for an entry that cannot resolve');
    const inputs: McpInputSpec[] = [{ id: 'key', type: 'promptString', password: true, description: 'the key' }];
    const missing = await resolveMcpServer(server({ command: 'node', args: ['${input:key}'] }, user), inputs, r, readEnvFile);
    assert.ok(!missing.ok);
    assert.match(missing.error, /"s" .* needs a value for \$\{input:key\} \("the key"\), and none was entered/);
    const noFolder = await resolveMcpServer(server({ command: '${workspaceFolder}/x' }, user), [], r, readEnvFile);
    assert.match(noFolder.ok ? '' : noFolder.error, /uses \$\{workspaceFolder\}, but no workspace folder is open/);
    const withFolder = await resolveMcpServer(server({ command: '${workspaceFolder}/x' }, user), [], resolver({ workspaceFolder: folder }).r, readEnvFile);
    assert.equal(withFolder.ok && withFolder.server.command, `${folder}/x`);
    const badUrl = await resolveMcpServer(server({ url: '${env:HOST}/mcp' }, user), [], r, readEnvFile);
    assert.match(badUrl.ok ? '' : badUrl.error, /url is not an http:\/\/ or https:\/\/ address once variables are filled in/);
    const empty = await resolveMcpServer(server({ command: 'node', args: ['${}'] }, user), [], r, readEnvFile);
    assert.match(empty.ok ? '' : empty.error, /uses \$\{\}, which is not a variable/);
  });

  it('reads the envFile (relative to the folder, variables filled in); explicit env wins', async () => {
    fs.writeFileSync(
      path.join(folder, '.env'),
      [
        '# comment',
        'export A=from-file',
        'B="two words # not a comment"',
        "C='single $x'",
        'D=plain value # comment',
        'E="line\\nbreak"',
        'not a line',
        '',
        'F=',
      ].join('\r\n'),
    );
    const source: McpConfigSource = { origin: 'workspace', label: 'w', folder };
    const s = server({ command: 'node', envFile: '${workspaceFolder}/.env', env: { A: 'explicit' } }, source);
    const result = await resolveMcpServer(s, [], resolver({}).r, readEnvFile);
    assert.ok(result.ok, result.ok ? '' : result.error);
    assert.deepEqual(result.server.env, { A: 'explicit', B: 'two words # not a comment', C: 'single $x', D: 'plain value', E: 'line\nbreak', F: '' });
    const relative = await resolveMcpServer(server({ command: 'node', envFile: '.env' }, source), [], resolver({}).r, readEnvFile);
    assert.equal(relative.ok && relative.server.env?.['A'], 'from-file');
    assert.equal(relative.ok && relative.server.envFile, path.join(folder, '.env'));
    const missing = await resolveMcpServer(server({ command: 'node', envFile: 'nope.env' }, source), [], resolver({}).r, readEnvFile);
    assert.match(missing.ok ? '' : missing.error, /envFile ".*nope\.env" could not be read\. Create the file or fix the "envFile" path/);
  });

  it('parses dotenv quoting: escaped quotes inside double quotes, and unquoted values trimmed', () => {
    assert.deepEqual(parseEnvFile('A="say \\"hi\\""\n  B = spaced  \nexport   C=1\n=nokey\n1X=bad'), { A: 'say "hi"', B: 'spaced', C: '1' });
  });
});
