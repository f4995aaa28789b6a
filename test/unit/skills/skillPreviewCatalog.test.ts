import * as assert from 'node:assert/strict';
import { buildCatalog, catalogLine, firstSentence } from '../../../src/core/skills/catalog/skillCatalog';
import type { CatalogLineInput } from '../../../src/core/skills/preview/skillPreviewCatalog';
import { catalogName, previewCatalogEntry, previewCatalogLine } from '../../../src/core/skills/preview/skillPreviewCatalog';
import type { SkillRecord } from '../../../src/core/skills/model/skillTypes';
import { skillRecord } from './skillRecordFixture';

function input(record: SkillRecord, records: readonly SkillRecord[], extra: Partial<CatalogLineInput> = {}): CatalogLineInput {
  return {
    file: record.file,
    name: record.name,
    description: record.description,
    records,
    catalog: buildCatalog(records),
    platform: 'linux',
    ...extra,
  };
}

/** Forty skills in four categories with two-sentence descriptions, enough to push a small budget. */
function manySkills(): SkillRecord[] {
  return Array.from({ length: 40 }, (_, i) =>
    skillRecord(`skill-${String(i).padStart(2, '0')}`, `Handles task number ${i} for the team in a careful way. Use when the user asks about task ${i}, its history, its owners and its many edge cases.`, {
      category: `group-${i % 4}`,
    }),
  );
}

describe('previewCatalogLine (the catalog line the preview shows)', () => {
  it('is the exact catalog line for a listed skill, rebuilt from the buffer as the user types', () => {
    const record = skillRecord('write-notes', 'Writes release notes. Use when the user asks for notes.');
    const records = [record, skillRecord('other', 'Other things. Use when other.')];
    const line = previewCatalogLine(input(record, records));
    assert.equal(line, catalogLine(record));
    assert.ok(buildCatalog(records).text.split('\n').includes(line), 'the line is in the catalog text');
    assert.equal(previewCatalogLine(input(record, records, { description: 'Writes\n  better   notes.' })), '- write-notes: Writes better notes.');
    assert.equal(previewCatalogLine(input(record, records, { description: '' })), '- write-notes');
    assert.equal(catalogName('  ', 'folder-name'), 'folder-name');
    assert.equal(catalogName('', ''), '(unnamed)');
  });

  it('shortens a typed description the way the catalog shortened the saved one', () => {
    const records = manySkills();
    let found: { budget: number; name: string } | undefined;
    for (let budget = 3000; budget > 300 && !found; budget -= 20) {
      const catalog = buildCatalog(records, { budgetTokens: budget });
      const [shortened] = catalog.shortened;
      if (catalog.collapsed.length === 0 && catalog.omitted.length === 0 && shortened !== undefined) found = { budget, name: shortened };
    }
    assert.ok(found, 'some budget shortens descriptions without collapsing categories');
    const catalog = buildCatalog(records, { budgetTokens: found.budget });
    const record = records.find((candidate) => candidate.name === found!.name)!;
    const saved = catalog.text.split('\n').find((line) => line.startsWith(`- ${record.name}: `));
    assert.equal(previewCatalogLine(input(record, records, { catalog })), saved);
    const typed = 'A new first sentence for the skill. Then a second one nobody sees.';
    const shown = previewCatalogLine(input(record, records, { catalog, description: typed }));
    assert.equal(saved, `- ${record.name}: ${firstSentence(record.description)}`, 'this budget cut the saved description to its first sentence');
    assert.equal(shown, `- ${record.name}: A new first sentence for the skill.`);
  });

  it('gives the names-only lines of a collapsed category, and a reason when the budget left the skill out', () => {
    const records = manySkills();
    const collapsedCatalog = [...Array(60).keys()].map((i) => buildCatalog(records, { budgetTokens: 3000 - i * 40 })).find((c) => c.collapsed.length > 0 && c.omitted.length === 0);
    assert.ok(collapsedCatalog);
    const member = records.find((record) => collapsedCatalog.namesOnly.includes(record.name))!;
    const lines = previewCatalogLine(input(member, records, { catalog: collapsedCatalog })).split('\n');
    assert.equal(lines[0], `### ${member.category} (names only)`);
    assert.ok((lines[1] ?? assert.fail('no names line')).split(', ').includes(member.name));

    const tiny = buildCatalog(records, { budgetTokens: 200 });
    const left = records.find((record) => tiny.omitted.includes(record.name))!;
    assert.match(previewCatalogLine(input(left, records, { catalog: tiny })), /^Not in the catalog: left out to keep the catalog within its budget of 200 tokens/);
  });

  it('says why a disabled, shadowed, platform-hidden or unindexed skill is not listed', () => {
    const disabled = skillRecord('off', 'Off. Use when off.', { disabled: true });
    assert.match(previewCatalogLine(input(disabled, [disabled])), /^Not in the catalog: "off" is disabled in the skillwright\.skills\.disabled setting/);
    const shadowed = skillRecord('twin', 'Twin. Use when twin.', { category: 'b', shadowedBy: '/skills/a/twin/SKILL.md', shadowReason: 'project skills take precedence over user skills' });
    assert.equal(
      previewCatalogLine(input(shadowed, [shadowed])),
      'Not in the catalog: shadowed by /skills/a/twin/SKILL.md (project skills take precedence over user skills). Rename one of the two to offer both.',
    );
    const hidden = skillRecord('win-only', 'Windows. Use when on Windows.', { platforms: ['windows'], platformHidden: true });
    assert.equal(previewCatalogLine(input(hidden, [hidden])), 'Not in the catalog: its platforms (windows) exclude this machine (linux).');
    const listed = skillRecord('listed', 'Listed. Use when listed.');
    const outside = { ...input(listed, [listed]), file: '/elsewhere/SKILL.md' };
    assert.match(previewCatalogLine(outside), /^Not in the catalog: Skillwright does not index this file/);
    assert.equal(previewCatalogLine({ ...outside, notIndexedReason: 'Held back.' }), 'Held back.');
    const { catalog: _unused, ...loading } = input(listed, [listed]);
    assert.match(previewCatalogLine(loading), /still being built/);
    for (const reason of [previewCatalogLine(input(disabled, [disabled])), previewCatalogLine(outside)]) {
      assert.ok(!reason.startsWith('- ') && !reason.startsWith('### '), 'a reason never looks like catalog text');
    }
  });
});

describe('previewCatalogEntry', () => {
  it('says whether the text is the catalog line or the reason there is none', () => {
    const listed = previewCatalogEntry({ file: '/x/SKILL.md', name: 'x', description: 'Does x.', records: [], platform: 'linux', notIndexedReason: 'Held back.' });
    assert.deepEqual(listed, { listed: false, text: 'Held back.' });
  });
});
