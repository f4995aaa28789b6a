import * as assert from 'node:assert/strict';
import { browserSearch } from '../../../src/core/skills/search/browserSearch';
import { buildCatalog } from '../../../src/core/skills/catalog/skillCatalog';
import { LIST_DESCRIPTION_CHARS, browserArchivedSkills, browserCatalogSummary, browserSkills, catalogStates } from '../../../src/core/skills/catalog/skillListItems';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import type { SkillRecord } from '../../../src/core/skills/model/skillTypes';
import type { SkillUsageEntry } from '../../../src/core/skills/index/skillUsage';
import { skillRecord } from './skillRecordFixture';

const usage = (entry: Partial<SkillUsageEntry>): SkillUsageEntry => ({ views: 0, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0, ...entry });

describe('skill browser list', () => {
  const winner = skillRecord('deploy-app', 'Deploys the app to staging. Use when the user asks to ship.', { category: 'ops', version: '1.2.0', level: 1 });
  const shadowed = skillRecord('deploy-app', 'An older copy.', {
    file: '/home/.claude/skills/deploy-app/SKILL.md',
    scope: 'other',
    root: { path: '/home/.claude/skills', scope: 'other', label: '~/.claude/skills', writeTarget: false },
    shadowedBy: winner.file,
  });
  const disabled = skillRecord('lint-docs', 'Lints the docs folder for broken links. Use when docs change.', { disabled: true });
  const broken = skillRecord('broken', '', { readErrors: ['SKILL.md could not be read'] });

  it('lists every copy with its scope, markers, lint counts and usage', () => {
    const items = browserSkills({
      records: [winner, shadowed, disabled, broken],
      lint: (file) => (file === winner.file ? { errors: 1, warnings: 2 } : undefined),
      usage: (name) => (name === 'deploy-app' ? usage({ runs: 3, views: 4, lastUsed: Date.UTC(2025, 0, 2) }) : undefined),
    });
    assert.equal(items.length, 4);
    const [first, second, third, fourth] = items;
    assert.deepEqual(
      { scope: first?.scope, root: first?.rootLabel, level: first?.level, version: first?.version, errors: first?.errors, warnings: first?.warnings },
      { scope: 'project', root: '.agents/skills', level: 1, version: '1.2.0', errors: 1, warnings: 2 },
    );
    assert.deepEqual(first?.usage, { runs: 3, views: 4, lastUsed: '2025-01-02T00:00:00.000Z' });
    // Usage is kept by name: the shadowed copy does not claim the winner's.
    assert.equal(second?.shadowedBy, winner.file);
    assert.equal(second?.usage, undefined);
    assert.equal(second?.scope, 'other');
    assert.equal(third?.disabled, true);
    assert.equal(third?.platformHidden, false);
    // Not linted yet: what the index could not read still counts as an error.
    assert.equal(fourth?.errors, 1);
    assert.equal(fourth?.warnings, 0);
  });

  it('adds the health line, staleness and usefulness of skills with usage, not of the shadowed copies', () => {
    const now = Date.UTC(2025, 5, 1);
    const day = 24 * 60 * 60 * 1000;
    const items = browserSkills({
      records: [winner, shadowed, disabled],
      lint: () => undefined,
      usage: (name) =>
        name === 'deploy-app'
          ? usage({ runs: 4, successes: 3, failures: 1, lastUsed: now - 100 * day, createdBy: 'agent', calls: [['build', 'notify']], lastFailure: { at: now - 3 * day, message: 'exit 1' } })
          : undefined,
      now,
      declared: (record) => (record.name === 'deploy-app' ? ['build'] : undefined),
    });
    const [first, second, third] = items;
    assert.equal(first?.version, '1.2.0');
    assert.deepEqual({ ...first?.health, line: undefined }, { line: undefined, successRate: 0.75, stale: true, archivable: true, usefulness: first?.health?.usefulness });
    assert.ok((first?.health?.usefulness ?? 0) > 0);
    assert.equal(first?.health?.line, '4 runs · 75% ok · last failure 3 days ago: "exit 1" · calls `notify`, not declared · stale: unused for 100 days');
    assert.equal(second?.health, undefined);
    assert.equal(third?.health, undefined, 'no usage, no health');
  });

  it('lists archived skills with where they go back to', () => {
    const root = { path: '/w/.agents/skills', scope: 'project' as const, label: '.agents/skills', writeTarget: true };
    const listed = browserArchivedSkills([{ name: 'old', description: 'Old.\nThing.', dir: '/w/.agents/skills/.archive/ops/old', root, restoreTo: '/w/.agents/skills/ops/old', category: 'ops' }]);
    assert.deepEqual(listed, [{ dir: '/w/.agents/skills/.archive/ops/old', name: 'old', description: 'Old. Thing.', category: 'ops', scope: 'project', rootLabel: '.agents/skills' }]);
  });

  it('cuts long descriptions to one short line', () => {
    const long = skillRecord('long', `${'word '.repeat(200)}\nsecond line`);
    const [item] = browserSkills({ records: [long], lint: () => undefined, usage: () => undefined });
    assert.equal(item?.description.length, LIST_DESCRIPTION_CHARS);
    assert.ok(item?.description.endsWith('…'));
    assert.ok(!item?.description.includes('\n'));
  });

  it('says how each skill in use appears in a budgeted catalog, and what was left out', () => {
    const records: SkillRecord[] = [];
    for (let i = 0; i < 120; i++) {
      records.push(skillRecord(`skill-${i}`, `Does task number ${i} with many careful words about what it is for. Use when the user asks for task ${i} in detail.`, { category: `cat-${i % 12}` }));
    }
    records.push(disabled);
    const active = records.filter((record) => !record.disabled);
    const catalog = buildCatalog(active, { budgetTokens: 400 });
    assert.ok(catalog.omitted.length > 0, 'the budget is small enough to leave skills out');
    const items = browserSkills({ records, lint: () => undefined, usage: () => undefined, catalog });
    const state = (name: string) => items.find((item) => item.name === name)?.inCatalog;
    for (const name of catalog.omitted) assert.equal(state(name), 'omitted');
    for (const name of catalog.namesOnly) assert.equal(state(name), 'collapsed');
    for (const name of catalog.shortened) assert.equal(state(name), 'shortened');
    assert.equal(state('lint-docs'), undefined, 'a disabled skill is not in the catalog at all');
    const counts = { full: 0, shortened: 0, collapsed: 0, omitted: 0 };
    for (const item of items) if (item.inCatalog) counts[item.inCatalog]++;
    assert.equal(counts.full + counts.shortened, catalog.included);
    const summary = browserCatalogSummary(catalog);
    assert.deepEqual(summary.omitted, [...catalog.omitted]);
    assert.equal(summary.collapsed, catalog.collapsed.length);
    assert.equal(catalogStates(catalog)(shadowed), undefined);
  });
});

describe('skill browser search', () => {
  const active = [
    skillRecord('deploy-app', 'Deploys the service to the Kubernetes cluster with Helm.'),
    skillRecord('write-changelog', 'Writes a changelog entry for the release.'),
    skillRecord('kubernetes-debug', 'Debugs pods that crash in the cluster.'),
  ];
  const inactive = [
    skillRecord('old-deploy', 'Deploys to the old cluster by hand.', { disabled: true }),
    skillRecord('write-changelog', 'A team copy that writes changelogs.', { file: '/team/write-changelog/SKILL.md', shadowedBy: '/skills/write-changelog/SKILL.md' }),
    skillRecord('mac-only', 'Cleans the Xcode cache.', { platformHidden: true }),
  ];
  const search = new SkillSearch(active);
  const all = [...active, ...inactive];

  it('ranks the skills in use first, then inactive copies that hold every query term', () => {
    const files = browserSearch('deploy cluster', search, all);
    assert.equal(files[0], active[0]?.file);
    assert.ok(files.includes(inactive[0]?.file as string), 'the disabled copy is found');
    assert.ok(files.indexOf(inactive[0]?.file as string) > files.indexOf(active[0]?.file as string));
    assert.ok(!files.includes(inactive[2]?.file as string));
  });

  it('finds shadowed copies by prefix, and nothing for an empty query', () => {
    assert.ok(browserSearch('changel', search, all).includes('/team/write-changelog/SKILL.md'));
    assert.deepEqual(browserSearch('   ', search, all), []);
  });

  it('stops at the limit', () => {
    assert.equal(browserSearch('cluster', search, all, 1).length, 1);
  });
});
