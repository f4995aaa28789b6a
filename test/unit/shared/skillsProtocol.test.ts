import * as assert from 'node:assert/strict';
import type { SkillListItem, SkillsList } from '../../../src/shared/protocol';
import { parseHostMessage, parseWebviewMessage } from '../../../src/shared/protocol';

const item: SkillListItem = {
  file: '/w/.agents/skills/ops/deploy/SKILL.md',
  name: 'deploy',
  description: 'Deploys.',
  category: 'ops',
  scope: 'project',
  rootLabel: '.agents/skills',
  version: '1.2.0',
  errors: 0,
  warnings: 0,
  platformHidden: false,
  disabled: false,
  usage: { runs: 12, views: 3, lastUsed: '2025-01-02T00:00:00.000Z' },
  health: { line: '12 runs · 92% ok', successRate: 0.92, stale: false, archivable: false, usefulness: 3.4 },
};

const list: SkillsList = {
  loading: false,
  trusted: true,
  skills: [item],
  archived: [{ dir: '/w/.agents/skills/.archive/ops/old', name: 'old', description: 'Old.', category: 'ops', scope: 'project', rootLabel: '.agents/skills' }],
};

describe('webview protocol: skills tab feedback, health and archive', () => {
  it('carries the health line, the archive and the version of a row', () => {
    const parsed = parseHostMessage({ type: 'skills/list', list });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value, { type: 'skills/list', list });
    // Lists of older hosts (no health, no archive) still validate.
    const plain: Partial<SkillListItem> = { ...item };
    delete plain.health;
    assert.ok(parseHostMessage({ type: 'skills/list', list: { loading: false, trusted: true, skills: [plain] } }).ok);
  });

  it('rejects health with the wrong types or a success rate outside 0–1', () => {
    const broken: unknown[] = [
      { ...item, health: { ...item.health, successRate: 1.5 } },
      { ...item, health: { ...item.health, stale: 'yes' } },
      { ...item, health: { ...item.health, usefulness: -1 } },
      { ...item, health: { line: 'x' } },
    ];
    for (const candidate of broken) {
      const parsed = parseHostMessage({ type: 'skills/list', list: { ...list, skills: [candidate] } });
      assert.equal(parsed.ok, false, JSON.stringify(candidate));
      if (!parsed.ok) assert.match(parsed.error, /health/);
    }
    const archived = parseHostMessage({ type: 'skills/list', list: { ...list, archived: [{ name: 'old' }] } });
    assert.equal(archived.ok, false);
    if (!archived.ok) assert.match(archived.error, /archived/);
  });

  it('accepts archive, restore and rate messages and names the wrong field', () => {
    const good: unknown[] = [
      { type: 'skills/archive', file: '/w/.agents/skills/ops/deploy/SKILL.md' },
      { type: 'skills/restore', dir: '/w/.agents/skills/.archive/ops/old' },
      { type: 'skills/rate', name: 'deploy', rating: 1 },
      { type: 'skills/rate', name: 'deploy', rating: -1 },
    ];
    for (const raw of good) {
      const parsed = parseWebviewMessage(raw);
      assert.ok(parsed.ok, JSON.stringify(raw));
      assert.deepEqual(parsed.value, raw);
    }
    const bad: [unknown, RegExp][] = [
      [{ type: 'skills/archive' }, /"skills\/archive" file/],
      [{ type: 'skills/restore', dir: 42 }, /"skills\/restore" dir/],
      [{ type: 'skills/rate', name: 'deploy', rating: 0 }, /rating/],
      [{ type: 'skills/rate', name: 'deploy', rating: 5 }, /rating/],
      [{ type: 'skills/rate', name: 'deploy', rating: '1' }, /rating/],
      [{ type: 'skills/rate', name: '', rating: 1 }, /name/],
      [{ type: 'skills/rate', name: 'x'.repeat(201), rating: 1 }, /name/],
      [{ type: 'skills/rate', rating: 1 }, /name/],
    ];
    for (const [raw, reason] of bad) {
      const parsed = parseWebviewMessage(raw);
      assert.equal(parsed.ok, false, JSON.stringify(raw));
      if (!parsed.ok) assert.match(parsed.error, reason);
    }
  });
});
