import * as assert from 'node:assert/strict';
import type { McpServerState } from '../../../src/core/mcp/mcpConnection';
import type { McpServerConfig } from '../../../src/core/mcp/mcpServerConfig';
import { McpServerManager } from '../../../src/core/mcp/mcpServerManager';
import { clientInfo, fakeConfig, isAlive, recordingLogger } from './mcpTestServers';

const managers: McpServerManager[] = [];
const pids = new Set<number>();

function manager(canStart?: (config: McpServerConfig) => Promise<boolean>): McpServerManager {
  const created = new McpServerManager({ logger: recordingLogger(), clientInfo, ...(canStart ? { canStart } : {}) });
  managers.push(created);
  return created;
}

function stateOf(servers: McpServerManager, name: string): McpServerState {
  const entry = servers.servers.find((server) => server.config.name === name);
  assert.ok(entry, `no server ${name}`);
  return entry.state;
}

function pidOf(servers: McpServerManager, name: string): number {
  const pid = servers.connection(name)?.pid;
  assert.ok(pid !== undefined, `${name} has no process`);
  pids.add(pid);
  return pid;
}

describe('McpServerManager', function () {
  this.timeout(30_000);

  after(async () => {
    await Promise.all(managers.map((servers) => servers.dispose()));
    assert.deepEqual([...pids].filter(isAlive), [], 'server processes left running');
  });

  it('starts nothing until ensure, then the named or all enabled servers, never a disabled one', async () => {
    const servers = manager();
    servers.setConfigs([fakeConfig('a', 'ok'), fakeConfig('b', 'ok'), { ...fakeConfig('off', 'ok'), disabled: true }]);
    assert.deepEqual(
      servers.servers.map((server) => server.state.kind),
      ['idle', 'idle', 'disabled'],
    );
    await servers.ensure(['a']);
    assert.deepEqual(
      servers.servers.map((server) => server.state.kind),
      ['connected', 'idle', 'disabled'],
    );
    pidOf(servers, 'a');
    await servers.ensure();
    assert.deepEqual(
      servers.servers.map((server) => server.state.kind),
      ['connected', 'connected', 'disabled'],
    );
    pidOf(servers, 'b');
    assert.equal(servers.connection('off')?.pid, undefined);
    assert.ok((servers.servers[0]?.tools.length ?? 0) > 0);
    assert.deepEqual(servers.servers[2]?.tools, []);
  });

  it('starts servers in parallel: a fast one connects while a silent one is still starting', async () => {
    const servers = manager();
    servers.setConfigs([fakeConfig('silent', 'no-initialize', [], { connectMs: 1_500 }), fakeConfig('fast', 'ok')]);
    let silentWhenFastConnected: string | undefined;
    servers.onDidChange(() => {
      if (silentWhenFastConnected === undefined && stateOf(servers, 'fast').kind === 'connected') {
        silentWhenFastConnected = stateOf(servers, 'silent').kind;
      }
    });
    await servers.ensure();
    pidOf(servers, 'fast');
    assert.equal(silentWhenFastConnected, 'starting');
    assert.equal(stateOf(servers, 'silent').kind, 'failed');
    assert.equal(stateOf(servers, 'fast').kind, 'connected');
  });

  it('asks canStart once per config hash, leaves a refused server "not confirmed", and asks again on restart', async () => {
    const asked: string[] = [];
    let answer = false;
    const servers = manager(async (config) => {
      asked.push(config.name);
      return answer;
    });
    servers.setConfigs([fakeConfig('guarded', 'ok')]);
    await Promise.all([servers.ensure(), servers.ensure(['guarded'])]);
    assert.deepEqual(asked, ['guarded']);
    const refused = stateOf(servers, 'guarded');
    assert.equal(refused.kind, 'failed');
    assert.match(refused.kind === 'failed' ? refused.reason : '', /^Not confirmed: .*test settings.*Restart/);
    assert.equal(servers.connection('guarded')?.pid, undefined);

    await servers.ensure();
    assert.deepEqual(asked, ['guarded'], 'a refusal is not asked again by ensure');

    answer = true;
    await servers.restart('guarded');
    assert.deepEqual(asked, ['guarded', 'guarded']);
    assert.equal(stateOf(servers, 'guarded').kind, 'connected');
    pidOf(servers, 'guarded');

    await servers.ensure();
    assert.equal(asked.length, 2, 'a confirmed hash is not asked again');
  });

  it('treats a consent hook that throws as a refusal', async () => {
    const logger = recordingLogger();
    const servers = new McpServerManager({
      logger,
      clientInfo,
      canStart: () => Promise.reject(new Error('no window')),
    });
    managers.push(servers);
    servers.setConfigs([fakeConfig('x', 'ok')]);
    await servers.ensure();
    assert.equal(stateOf(servers, 'x').kind, 'failed');
    assert.ok(logger.has('warn', /no window/));
  });

  it('on new configs restarts only changed servers that were running, and asks consent for the new hash', async () => {
    const asked: string[] = [];
    const servers = manager(async (config) => {
      asked.push(config.hash);
      return true;
    });
    const same = fakeConfig('same', 'ok');
    const changing = fakeConfig('changing', 'ok');
    const idle = fakeConfig('idle', 'ok');
    const gone = fakeConfig('gone', 'ok');
    servers.setConfigs([same, changing, idle, gone]);
    await servers.ensure(['same', 'changing', 'gone']);
    const samePid = pidOf(servers, 'same');
    const changingPid = pidOf(servers, 'changing');
    const gonePid = pidOf(servers, 'gone');
    const oldChanging = servers.connection('changing');
    const oldGone = servers.connection('gone');
    asked.length = 0;

    const changed = fakeConfig('changing', 'garbage');
    servers.setConfigs([{ ...same, timeouts: { ...same.timeouts, callMs: 1_234 } }, changed, { ...idle, ...fakeConfig('idle', 'rename') }]);
    assert.equal(servers.connection('gone'), undefined);
    await Promise.all([oldChanging?.dispose(), oldGone?.dispose()]);
    assert.equal(isAlive(changingPid), false);
    assert.equal(isAlive(gonePid), false);

    await servers.ensure(['changing']);
    assert.equal(stateOf(servers, 'changing').kind, 'connected');
    assert.notEqual(pidOf(servers, 'changing'), changingPid);
    assert.deepEqual(asked, [changed.hash]);
    assert.equal(servers.connection('same')?.pid, samePid);
    assert.equal(servers.connection('same')?.config.timeouts.callMs, 1_234);
    assert.equal(stateOf(servers, 'idle').kind, 'idle');
    assert.deepEqual(
      servers.servers.map((server) => server.config.name),
      ['same', 'changing', 'idle'],
    );
  });

  it('disabling a running server ends it; enabling lets ensure start it again', async () => {
    const servers = manager();
    servers.setConfigs([fakeConfig('toggle', 'ok')]);
    await servers.ensure();
    const pid = pidOf(servers, 'toggle');
    const running = servers.connection('toggle');
    let changes = 0;
    servers.onDidChange(() => changes++);
    servers.setDisabled('toggle', true);
    assert.equal(stateOf(servers, 'toggle').kind, 'disabled');
    assert.ok(changes > 0);
    await running?.dispose();
    assert.equal(isAlive(pid), false);
    await servers.ensure();
    assert.equal(stateOf(servers, 'toggle').kind, 'disabled');

    servers.setDisabled('toggle', false);
    assert.equal(stateOf(servers, 'toggle').kind, 'idle');
    await servers.ensure();
    assert.equal(stateOf(servers, 'toggle').kind, 'connected');
    pidOf(servers, 'toggle');
  });

  it('restarts a failed server on request and ignores duplicate names', async () => {
    const servers = manager();
    servers.setConfigs([fakeConfig('dup', 'exit'), fakeConfig('dup', 'ok')]);
    assert.equal(servers.servers.length, 1);
    await servers.ensure();
    assert.equal(stateOf(servers, 'dup').kind, 'failed');
    await servers.ensure();
    assert.equal(stateOf(servers, 'dup').kind, 'failed', 'ensure does not retry a failed server');
    await servers.restart('dup');
    assert.equal(stateOf(servers, 'dup').kind, 'failed');
    assert.match(servers.connection('dup')?.state.kind === 'failed' ? JSON.stringify(servers.connection('dup')?.state) : '', /exited with code 3/);
  });

  it('dispose ends every server process', async () => {
    const servers = new McpServerManager({ logger: recordingLogger(), clientInfo });
    servers.setConfigs([fakeConfig('one', 'ok'), fakeConfig('two', 'ok', ['stubborn=1'])]);
    await servers.ensure();
    const running = [pidOf(servers, 'one'), pidOf(servers, 'two')];
    await servers.dispose();
    assert.deepEqual(running.filter(isAlive), []);
    assert.deepEqual(servers.servers.map((server) => server.state.kind), ['idle', 'idle']);
  });
});
