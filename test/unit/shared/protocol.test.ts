import * as assert from 'node:assert/strict';
import type { PanelStatus } from '../../../src/shared/protocol';
import { parseHostMessage, parseWebviewMessage } from '../../../src/shared/protocol';

const status: PanelStatus = {
  extensionVersion: '0.1.0',
  vscodeVersion: '1.100.3',
  workspaceFolders: [{ name: 'sample', path: '/w/sample' }],
  trusted: true,
  skillRoots: [{ label: '.agents/skills', path: '/w/sample/.agents/skills', scope: 'project', exists: true, folder: 'sample' }],
  model: { configured: false, baseUrl: '', model: '', advice: 'Set it.' },
};

describe('webview protocol', () => {
  it('accepts every webview message type', () => {
    for (const type of ['panel/ready', 'status/refresh', 'logs/show', 'settings/open', 'model/configure', 'model/test']) {
      const parsed = parseWebviewMessage({ type });
      assert.ok(parsed.ok, type);
      assert.equal(parsed.value.type, type);
    }
  });

  it('rejects malformed webview messages with a reason', () => {
    const cases: [unknown, RegExp][] = [
      [null, /not an object/],
      ['panel/ready', /not an object/],
      [[{ type: 'panel/ready' }], /not an object/],
      [{}, /no string "type"/],
      [{ type: 42 }, /no string "type"/],
      [{ type: 'logs/delete' }, /unknown message type "logs\/delete"/],
      [{ type: 'x'.repeat(5000) }, /unknown message type/],
    ];
    for (const [raw, reason] of cases) {
      const parsed = parseWebviewMessage(raw);
      assert.equal(parsed.ok, false, JSON.stringify(raw)?.slice(0, 40));
      if (!parsed.ok) {
        assert.match(parsed.error, reason);
        assert.ok(parsed.error.length < 200, 'errors stay short enough to log');
      }
    }
  });

  it('accepts a well-formed status update and a panel error', () => {
    const update = parseHostMessage({ type: 'status/update', status });
    assert.ok(update.ok);
    assert.deepEqual(update.value, { type: 'status/update', status });
    const error = parseHostMessage({ type: 'panel/error', message: 'boom' });
    assert.ok(error.ok);
  });

  it('rejects status updates with missing or mistyped fields', () => {
    const broken: unknown[] = [
      { ...status, trusted: 'yes' },
      { ...status, workspaceFolders: [{ name: 1 }] },
      { ...status, skillRoots: [{ ...status.skillRoots[0], scope: 'global' }] },
      { ...status, model: { ...status.model, advice: undefined } },
      { ...status, extensionVersion: undefined },
    ];
    for (const candidate of broken) {
      assert.equal(parseHostMessage({ type: 'status/update', status: candidate }).ok, false, JSON.stringify(candidate));
    }
    assert.equal(parseHostMessage({ type: 'panel/error' }).ok, false);
    assert.equal(parseHostMessage({ type: 'chat/unknown' }).ok, false);
  });
});

describe('webview protocol: areas', () => {
  it('accepts each area\'s messages and rejects mistyped payloads with the field named', () => {
    const good: unknown[] = [
      { type: 'chat/send', text: 'hello' },
      { type: 'chat/approve', id: 'a1', answer: 'allow_session' },
      { type: 'skills/setEnabled', file: '/x/SKILL.md', enabled: false },
      { type: 'memory/edit', target: 'user', oldText: 'a', content: 'b' },
      { type: 'history/open', id: 's1', messageId: 'm3' },
      { type: 'panel/tab', tab: 'history' },
    ];
    for (const raw of good) assert.ok(parseWebviewMessage(raw).ok, JSON.stringify(raw));
    const bad: [unknown, RegExp][] = [
      [{ type: 'chat/send', text: '' }, /"chat\/send" text/],
      [{ type: 'chat/approve', id: 'a1', answer: 'always' }, /answer/],
      [{ type: 'memory/add', target: 'team', content: 'x' }, /target/],
      [{ type: 'panel/tab', tab: 'secrets' }, /tab/],
      [{ type: 'skills/open' }, /file/],
    ];
    for (const [raw, reason] of bad) {
      const parsed = parseWebviewMessage(raw);
      assert.equal(parsed.ok, false, JSON.stringify(raw));
      if (!parsed.ok) assert.match(parsed.error, reason);
    }
  });

  it('validates chat items by kind', () => {
    const tool = { kind: 'tool', id: 'c1', name: 'read_file', summary: 'read_file: a.ts', args: '{}', state: 'done', durationMs: 3 };
    assert.ok(parseHostMessage({ type: 'chat/item', item: tool }).ok);
    assert.equal(parseHostMessage({ type: 'chat/item', item: { ...tool, state: 'exploded' } }).ok, false);
    assert.equal(parseHostMessage({ type: 'chat/item', item: { ...tool, kind: 'wizard' } }).ok, false);
    assert.equal(parseHostMessage({ type: 'chat/delta', id: '', delta: 'x' }).ok, false, 'ids are never empty');
  });
});
