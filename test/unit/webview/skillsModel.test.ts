import * as assert from 'node:assert/strict';
import type { SkillListItem } from '../../../src/shared/protocol';
import {
  archivedInScope,
  byUsefulness,
  catalogText,
  isSortOrder,
  groupByCategory,
  lintStatus,
  matchesFilters,
  rankedItems,
  usageText,
} from '../../../src/webview/skillsModel';

function item(name: string, extra: Partial<SkillListItem> = {}): SkillListItem {
  return {
    file: `/skills/${extra.category ?? ''}/${name}/SKILL.md`,
    name,
    description: `About ${name}.`,
    category: '',
    scope: 'project',
    rootLabel: '.agents/skills',
    errors: 0,
    warnings: 0,
    platformHidden: false,
    disabled: false,
    ...extra,
  };
}

describe('skills tab model', () => {
  const items = [
    item('zeta', { category: 'ops', errors: 2 }),
    item('alpha', { category: 'ops', warnings: 1 }),
    item('alpha', { category: 'ops', file: '/user/alpha/SKILL.md', scope: 'user', shadowedBy: '/skills/ops/alpha/SKILL.md' }),
    item('top'),
    item('off', { category: 'docs', disabled: true, scope: 'other' }),
  ];

  it('groups by category, top level first, names in order and the copy in use before its shadowed copy', () => {
    const groups = groupByCategory(items);
    assert.deepEqual(groups.map((g) => g.category), ['', 'docs', 'ops']);
    assert.deepEqual(groups[2]?.items.map((i) => `${i.name}${i.shadowedBy ? '*' : ''}`), ['alpha', 'alpha*', 'zeta']);
  });

  it('filters by scope and by health', () => {
    const names = (scope: 'all' | 'project' | 'user' | 'other', health: 'all' | 'errors' | 'warnings' | 'ok' | 'disabled' | 'shadowed') =>
      items.filter((i) => matchesFilters(i, { scope, health })).map((i) => `${i.name}${i.shadowedBy ? '*' : ''}`);
    assert.deepEqual(names('user', 'all'), ['alpha*']);
    assert.deepEqual(names('other', 'all'), ['off']);
    assert.deepEqual(names('all', 'errors'), ['zeta']);
    assert.deepEqual(names('all', 'warnings'), ['alpha']);
    assert.deepEqual(names('all', 'ok'), ['alpha*', 'top', 'off']);
    assert.deepEqual(names('all', 'disabled'), ['off']);
    assert.deepEqual(names('all', 'shadowed'), ['alpha*']);
    assert.deepEqual(names('project', 'errors'), ['zeta']);
  });

  it('keeps the search order and drops files it does not know or the filters hide', () => {
    const byFile = new Map(items.map((i) => [i.file, i]));
    const files = ['/skills//top/SKILL.md', '/gone/SKILL.md', '/skills/ops/zeta/SKILL.md', '/skills/docs/off/SKILL.md'];
    assert.deepEqual(rankedItems(files, byFile, { scope: 'all', health: 'all' }).map((i) => i.name), ['top', 'zeta', 'off']);
    assert.deepEqual(rankedItems(files, byFile, { scope: 'project', health: 'all' }).map((i) => i.name), ['top', 'zeta']);
  });

  it('sorts by usefulness: the most useful first, never-used skills by name, shadowed copies last', () => {
    const health = (usefulness: number) => ({ line: '', stale: false, archivable: false, usefulness });
    const list = [
      item('never-b'),
      item('good', { health: health(3.2) }),
      item('copy', { shadowedBy: '/skills/good/SKILL.md', health: health(9) }),
      item('never-a'),
      item('best', { health: health(5) }),
      item('weak', { health: health(0.4) }),
    ];
    assert.deepEqual(byUsefulness(list).map((i) => i.name), ['best', 'good', 'weak', 'never-a', 'never-b', 'copy']);
    assert.deepEqual(list.map((i) => i.name)[0], 'never-b', 'the input is not reordered');
    assert.equal(isSortOrder('usefulness'), true);
    assert.equal(isSortOrder('random'), false);
  });

  it('lists archived skills of the chosen scope by name', () => {
    const archived = [
      { dir: '/p/.archive/z', name: 'zed', description: '', category: '', scope: 'project' as const, rootLabel: '.agents/skills' },
      { dir: '/u/.archive/a', name: 'abc', description: '', category: 'ops', scope: 'user' as const, rootLabel: '~/.agents/skills' },
    ];
    assert.deepEqual(archivedInScope(archived, 'all').map((a) => a.name), ['abc', 'zed']);
    assert.deepEqual(archivedInScope(archived, 'project').map((a) => a.name), ['zed']);
  });

  it('says the lint status in words, not only with the icon', () => {
    assert.deepEqual(lintStatus(item('a', { errors: 1, warnings: 2 })), { icon: '✖', text: '1 error, 2 warnings', kind: 'error' });
    assert.deepEqual(lintStatus(item('a', { warnings: 1 })), { icon: '⚠', text: '1 warning', kind: 'warning' });
    assert.equal(lintStatus(item('a')).text, 'no problems');
  });

  it('describes usage', () => {
    assert.equal(usageText(item('a'), () => 'x'), 'never used');
    assert.equal(usageText(item('a', { usage: { runs: 1, views: 3, lastUsed: '2025-01-01T00:00:00Z' } }), () => '2 days ago'), 'used 2 days ago · 1 run · 3 views');
  });

  it('sums up the catalog in one line', () => {
    assert.equal(
      catalogText({ tokens: 2980, budget: 3000, included: 140, shortened: 12, collapsed: 1, omitted: ['a', 'b'] }),
      'Catalog: 2,980 of 3,000 tokens · 140 skills listed · 12 shortened · 1 category as names only · 2 left out',
    );
    assert.equal(catalogText({ tokens: 90, budget: 3000, included: 1, shortened: 0, collapsed: 0, omitted: [] }), 'Catalog: 90 of 3,000 tokens · 1 skill listed · nothing left out');
  });
});
