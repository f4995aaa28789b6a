import * as assert from 'node:assert/strict';
import type { GrantState } from '../../../src/core/agent/approvalGrants';
import { stateAllowlist } from '../../../src/core/agent/approvalGrants';
import { ApprovalPolicy } from '../../../src/core/agent/approvals';
import { readFixture } from './formatFixtures';

/** The extension's workspace state as VS Code hands it back: the stored JSON, parsed. */
function workspaceState(json: string): GrantState & { readonly data: Record<string, unknown> } {
  const data = JSON.parse(json) as Record<string, unknown>;
  return {
    data,
    get: (key) => data[key],
    update: (key, value) => Promise.resolve(void (data[key] = value)),
  };
}

describe('persisted formats: "always for this workspace" approval grants', () => {
  it('v1: every stored grant is still in force, and nothing else is', () => {
    const policy = new ApprovalPolicy({ store: stateAllowlist(workspaceState(readFixture('approvals', 'v1.json'))) });
    assert.deepEqual(policy.allowlist(), [
      { type: 'tool', tool: 'edit_file', addedAt: '2025-05-01T09:00:01.000Z' },
      { type: 'command', match: 'prefix', command: 'npm test', addedAt: '2025-05-01T09:00:02.000Z' },
      { type: 'command', match: 'exact', command: 'git status', addedAt: '2025-05-01T09:00:03.000Z' },
    ]);
    const decision = (tool: string, args: unknown): string => policy.check(tool, args).decision;
    assert.equal(decision('edit_file', { path: 'src/other.ts' }), 'allow');
    assert.equal(decision('run_command', { command: 'npm test -- --grep login' }), 'allow');
    assert.equal(decision('run_command', { command: 'git status' }), 'allow');
    assert.equal(decision('run_command', { command: 'git push' }), 'ask');
    // The v1 writer kept session grants out of the store: they must not come back as "always".
    assert.equal(decision('write_file', { path: 'notes.md' }), 'ask');
  });

  it('v1: removing a grant writes the rest back in the same shape', async () => {
    const state = workspaceState(readFixture('approvals', 'v1.json'));
    const policy = new ApprovalPolicy({ store: stateAllowlist(state) });
    await policy.removeFromAllowlist({ type: 'command', match: 'exact', command: 'git status' });
    const stored = workspaceState(readFixture('approvals', 'v1.json')).data['skillwright.approvals.allowlist'];
    assert.ok(Array.isArray(stored));
    assert.deepEqual(state.data['skillwright.approvals.allowlist'], stored.slice(0, 2));
  });

  it('today writes what v1 wrote for the same answers (otherwise the format changed: add a fixture)', async () => {
    const state = workspaceState('{}');
    let tick = Date.UTC(2025, 4, 1, 9, 0, 0);
    const policy = new ApprovalPolicy({ store: stateAllowlist(state), now: () => new Date((tick += 1_000)) });
    policy.record('edit_file', { path: 'src/app.ts', old_text: 'a', new_text: 'b' }, 'allow_always');
    policy.record('run_command', { command: 'npm test -- --grep auth' }, 'allow_always', { commandPrefix: 'npm test' });
    policy.record('run_command', { command: 'git status' }, 'allow_always');
    policy.record('write_file', { path: 'notes.md', content: 'x' }, 'allow_session');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(`${JSON.stringify(state.data)}\n`, readFixture('approvals', 'v1.json'));
  });

  it('a stored value that is not a list holds no grants', () => {
    for (const json of ['{}', '{"skillwright.approvals.allowlist":{"type":"tool","tool":"edit_file"}}', '{"skillwright.approvals.allowlist":"edit_file"}']) {
      assert.deepEqual(new ApprovalPolicy({ store: stateAllowlist(workspaceState(json)) }).allowlist(), [], json);
    }
  });
});
