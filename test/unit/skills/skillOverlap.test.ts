import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { corpusDir, loadCorpusRecords } from '../../../bench/benchRetrieval';
import { draftSkill } from '../../../src/core/skills/draft/skillDraft';
import { transcriptFacts } from '../../../src/core/skills/draft/skillDraftFacts';
import { NO_PITFALLS } from '../../../src/core/skills/draft/skillDraft';
import { mergeDraftIntoSkill } from '../../../src/core/skills/draft/skillMerge';
import { findSkillOverlaps, OVERLAP_THRESHOLD, proposeSkillPatch, skillOverlapOffer } from '../../../src/core/skills/draft/skillOverlap';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import type { SkillRecord } from '../../../src/core/skills/model/skillTypes';
import { TranscriptBuilder } from './draftTranscripts';
import { skillRecord } from './skillRecordFixture';

/** A session that does what the corpus skill pytest-coverage describes, in other words. */
function coverageSession() {
  return new TranscriptBuilder()
    .user('Run pytest with coverage and add tests for the lines that are still missing coverage')
    .run('pytest --cov --cov-report=annotate:cov_annotate', 0, 'TOTAL 87%')
    .ok('read_file', { path: 'cov_annotate/app_utils.py,cover' })
    .ok('write_file', { path: 'tests/test_utils.py', content: 'def test_x(): ...' })
    .run('pytest tests/test_utils.py', 1, 'ImportError: attempted relative import with no known parent package')
    .say('The new test imports the module relatively; pytest runs it as a top-level file.')
    .ok('edit_file', { path: 'tests/test_utils.py', old_string: 'from .app', new_string: 'from app' })
    .run('pytest tests/test_utils.py', 0, '3 passed')
    .say('Coverage is at 100% now.')
    .session();
}

function draftOf(request: string, change: string, command: string): ReturnType<typeof draftSkill> {
  return draftSkill(transcriptFacts(new TranscriptBuilder().user(request).ok('edit_file', { path: change }).run(command, 0).say('Done.').session()));
}

describe('skill overlap on the real corpus', function () {
  this.timeout(30_000);
  let records: SkillRecord[];
  let search: SkillSearch;

  before(() => {
    records = loadCorpusRecords(corpusDir());
    search = new SkillSearch(records);
  });

  it('finds the corpus skill a near-duplicate session re-does, above the threshold and first', () => {
    const draft = draftSkill(transcriptFacts(coverageSession()));
    const overlaps = findSkillOverlaps(draft, records, { search });
    assert.equal(overlaps[0]?.record.name, 'pytest-coverage', JSON.stringify(overlaps.map((o) => [o.record.name, o.score])));
    const [top] = overlaps;
    assert.ok(top);
    assert.ok(top.score >= OVERLAP_THRESHOLD);
    assert.ok(top.containment > 0.5, `containment ${top.containment}`);
    const commit = draftOf('Commit my changes with a conventional commit message', 'CHANGELOG.md', 'git commit -m "fix(parser): keep trailing commas"');
    const commitHits = findSkillOverlaps(commit, records, { search }).map((o) => o.record.name);
    assert.ok(commitHits.some((name) => ['git-commit', 'conventional-commit', 'commit-message-storyteller'].includes(name)), commitHits.join(', '));
  });

  it('finds nothing for unrelated drafts', () => {
    for (const draft of [
      draftOf('Rename the CSS variables for the dark theme in styles/theme.css', 'styles/theme.css', 'npm run lint:css'),
      draftOf('Add a --verbose flag to the CLI that prints each file it processes', 'src/cli.ts', 'npm test'),
      draftOf('Speed up the SQL query in reports.ts that lists overdue invoices', 'src/reports.ts', 'npm run bench'),
    ]) {
      const overlaps = findSkillOverlaps(draft, records, { search });
      assert.deepEqual(overlaps.map((o) => `${o.record.name} ${o.score.toFixed(2)}`), [], draft.name);
      // Below the threshold something is always nearest; it just is not close.
      assert.ok(findSkillOverlaps(draft, records, { search, threshold: 0 }).length > 0);
    }
  });

  it('scores a skill with the same name as a full overlap, and only ranks the records it is given', () => {
    const same = findSkillOverlaps({ name: 'webapp-testing', description: 'Something else entirely about gardening.' }, records, { search });
    assert.equal(same[0]?.score, 1);
    const without = records.filter((r) => r.name !== 'pytest-coverage');
    const draft = draftSkill(transcriptFacts(coverageSession()));
    assert.ok(findSkillOverlaps(draft, without, { search }).every((o) => o.record.name !== 'pytest-coverage'));
  });

  it('offers a patch of the overlapping skill: its SKILL.md with the new points added, as a diff', async () => {
    const draft = draftSkill(transcriptFacts(coverageSession()));
    const result = await skillOverlapOffer(draft.text, { records, search, readText: async (file) => fs.readFileSync(file, 'utf8') });
    const offer = result.offer;
    assert.ok(offer, result.error);
    assert.equal(offer.skillName, 'pytest-coverage');
    // The corpus is another tool's folder here: readable, not writable.
    assert.equal(offer.canPatch, false);
    assert.match(offer.reason ?? '', /only reads/);
    assert.deepEqual(offer.newErrors, []);
    const original = fs.readFileSync(offer.overlap.record.file, 'utf8');
    assert.ok(offer.text.startsWith(original.trimEnd()), 'the existing text is kept as it was');
    const pitfalls = offer.added.find((a) => a.section === 'pitfalls');
    assert.ok(pitfalls?.newSection);
    assert.match(pitfalls.items.join('\n'), /ImportError: attempted relative import/);
    // The coverage command is already in the skill, so it is not added again.
    assert.doesNotMatch(offer.added.flatMap((a) => a.items).join('\n'), /annotate:cov_annotate/);
    assert.match(offer.diff.text, /^--- a\/pytest-coverage\/SKILL\.md\n\+\+\+ b\/pytest-coverage\/SKILL\.md\n@@ /);
    assert.equal(offer.diff.removed, 0);
    assert.ok(offer.diff.added > 3);
    assert.deepEqual(mergeDraftIntoSkill(offer.text, draft.text).added, [], 'patching twice adds nothing');
  });
});

describe('mergeDraftIntoSkill: placeholders', () => {
  it('does not copy the draft\'s "no pitfalls came up" placeholder into an existing skill', () => {
    const existing = '---\nname: release\ndescription: Cuts a release. Use when asked for a release.\n---\n\n# Release\n\n## Steps\n1. Tag.\n';
    const draft = `---\nname: cut-release\ndescription: Cuts a release.\n---\n\n## Steps\n1. Push the tag.\n\n## Pitfalls\n- ${NO_PITFALLS}\n`;
    const merged = mergeDraftIntoSkill(existing, draft);
    assert.doesNotMatch(merged.text, /None came up in the session/);
    assert.ok(merged.added.every((a) => a.section !== 'pitfalls'));
  });
});

describe('mergeDraftIntoSkill', () => {
  const existing = [
    '---',
    'name: release',
    'description: Cuts a release. Use when the user asks for a release.',
    'version: 1.4.9',
    '---',
    '',
    '# Release',
    '',
    '## Workflow',
    '1. Run `npm test`.',
    '2. Tag the commit.',
    '',
    '### Notes on tags',
    'Tags are annotated.',
    '',
    '## Common mistakes',
    '- Forgetting to push the tag.',
    '',
    '```md',
    '## Pitfalls',
    '```',
    '',
  ].join('\n');
  const draft = [
    '---',
    'name: cut-release',
    'description: Cuts a release. Use when asked.',
    '---',
    '',
    '## When to use',
    '- The user wants a release.',
    '## Steps',
    '1. Run `npm test`.',
    '2. Update CHANGELOG.md with the merged pull requests.',
    '## Pitfalls',
    '- Forgetting to push the tag!',
    '- The registry rejects a version that was published before;',
    '  bump it first.',
    '## Verification',
    '- The package page shows the new version.',
  ].join('\n');

  it('appends new items to the matching sections, continues numbering, adds missing sections, bumps the version', () => {
    const merged = mergeDraftIntoSkill(existing, draft);
    assert.deepEqual(
      merged.added.map((a) => [a.section, a.heading, a.items, a.newSection]),
      [
        ['steps', 'Workflow', ['Update CHANGELOG.md with the merged pull requests.'], false],
        ['pitfalls', 'Common mistakes', ['The registry rejects a version that was published before;\n  bump it first.'], false],
        ['verification', 'Verification', ['The package page shows the new version.'], true],
      ],
    );
    assert.deepEqual(merged.version, { from: '1.4.9', to: '1.4.10' });
    const lines = merged.text.split('\n');
    assert.equal(lines[3], 'version: 1.4.10');
    assert.equal(lines[lines.indexOf('2. Tag the commit.') + 1], '3. Update CHANGELOG.md with the merged pull requests.');
    assert.equal(lines[lines.indexOf('- Forgetting to push the tag.') + 1], '- The registry rejects a version that was published before;');
    assert.ok(merged.text.endsWith('```\n\n## Verification\n\n- The package page shows the new version.\n'));
    // A heading inside a code block is not a section.
    assert.equal((merged.text.match(/^## Pitfalls$/gm) ?? []).length, 1);
  });

  it('keeps CRLF line endings and a byte order mark, and changes nothing when the draft adds nothing', () => {
    const crlf = `\uFEFF${existing.replace(/\n/g, '\r\n')}`;
    const merged = mergeDraftIntoSkill(crlf, draft);
    assert.ok(merged.text.startsWith('\uFEFF---\r\n'));
    assert.doesNotMatch(merged.text.replace(/\r\n/g, ''), /\n/);
    const same = mergeDraftIntoSkill(existing, '---\nname: x\ndescription: y\n---\n## Steps\n1. Run `npm test`.\n');
    assert.deepEqual(same, { text: existing, added: [] });
  });

  it('proposes the patch with a diff that only adds lines (and the version bump)', () => {
    const proposal = proposeSkillPatch(existing, draft, 'ops/release');
    assert.match(proposal.diff.text, /^--- a\/ops\/release\/SKILL\.md\n/);
    assert.match(proposal.diff.text, /\n-version: 1\.4\.9\n\+version: 1\.4\.10\n/);
    assert.equal(proposal.diff.removed, 1);
    assert.equal(proposal.diff.added, 1 + 1 + 2 + 4);
  });

  it('offers a patch it can apply for a skill in a folder Skillwright writes', async () => {
    const record = skillRecord('release', 'Cuts a release of the package. Use when the user asks for a release.', { category: 'ops' });
    const result = await skillOverlapOffer(draft.replace('name: cut-release', 'name: release-package'), {
      records: [record, skillRecord('image-resize', 'Resize images in bulk.')],
      readText: async () => existing,
      threshold: 0.3,
    });
    assert.equal(result.offer?.skillName, 'ops/release');
    assert.equal(result.offer?.canPatch, true);
    const unreadable = await skillOverlapOffer(draft, { records: [record], threshold: 0.3, readText: () => Promise.reject(new Error('EACCES')) });
    assert.equal(unreadable.offer, undefined);
    assert.match(unreadable.error ?? '', /could not be read \(EACCES\)/);
  });
});
