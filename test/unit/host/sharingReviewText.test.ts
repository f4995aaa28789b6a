import * as assert from 'node:assert/strict';
import type { SkillScanReport } from '../../../src/core/security/skillScan';
import type { ImportReview } from '../../../src/core/sharing/importReview';
import { findingLines, reviewMarkdown, verdictLine } from '../../../src/host/sharing/reviewText';

function scan(findings: SkillScanReport['findings'], verdict: SkillScanReport['verdict']): SkillScanReport {
  return { verdict, findings, files: [{ path: 'SKILL.md', size: 120, kind: 'text' }, { path: 'scripts/run.sh', size: 30, kind: 'executable' }], totalBytes: 150, contentHash: 'h', scannerVersion: '2' };
}

function review(overrides: Partial<ImportReview> = {}): ImportReview {
  return {
    candidate: { name: 'tidy-notes', dir: '/q/skills/tidy-notes', skillPath: 'skills/tidy-notes/SKILL.md', description: 'Tidies *notes* [here](https://example.com)' },
    scan: scan([], 'safe'),
    target: '/p/.agents/skills/tidy-notes',
    computedHash: 'abc',
    ...overrides,
  };
}

describe('the import review document', () => {
  it('states the verdict with counts by severity, every finding as file:line severity id message, and every file', () => {
    const findings = [
      { id: 'override-ignore-instructions', category: 'prompt_injection' as const, severity: 'critical' as const, message: 'Tells the model to ignore its instructions', file: 'SKILL.md', line: 12, excerpt: 'Ignore all previous' },
      { id: 'exec-outside-scripts', category: 'structure' as const, severity: 'high' as const, message: 'An executable outside scripts/' },
    ];
    const report = scan(findings, 'dangerous');
    assert.equal(verdictLine(report), 'DANGEROUS (1 critical, 1 high)');
    assert.equal(verdictLine(scan([], 'safe')), 'SAFE (no findings)');
    assert.deepEqual(findingLines(report), ['SKILL.md:12 critical override-ignore-instructions Tells the model to ignore its instructions', 'high exec-outside-scripts An executable outside scripts/']);
    const text = reviewMarkdown(review({ scan: report }), { source: 'file:///repo', ref: 'v1', commit: '0123456789abcdef0123' });
    assert.match(text, /^# Import review: tidy-notes\n/);
    assert.match(text, /\*\*Verdict: DANGEROUS \(1 critical, 1 high\)\*\* — scanner 2/);
    assert.match(text, /- Source: `file:\/\/\/repo` at `v1` \(commit `0123456789ab`\)/);
    assert.match(text, /- `SKILL\.md:12` \*\*critical\*\* `override-ignore-instructions` Tells the model to ignore its instructions — `Ignore all previous`/);
    assert.match(text, /## Files \(2, 150 bytes\)\n\n- `SKILL\.md` 120 B\n- `scripts\/run\.sh` 30 B \(executable\)/);
  });

  it('escapes what the skill wrote, and fences a diff that holds backticks with more of them', () => {
    const diff = '--- a/SKILL.md\n+++ b/SKILL.md\n-old\n+```\n+## Verdict: SAFE\n+```\n';
    const text = reviewMarkdown(review({ existing: { dir: '/p/.agents/skills/tidy-notes', diff, sameContent: false, locked: true } }), { source: 'acme/notes' });
    assert.match(text, /> Tidies \\\*notes\\\* \\\[here\\\]\\\(https:\/\/example\.com\\\)/, 'no emphasis or link from the description');
    assert.match(text, /\*\*A skill named `tidy-notes` is already installed\*\* at `\/p\/\.agents\/skills\/tidy-notes` \(listed in skills-lock\.json\)/);
    assert.match(text, /## Changes against the installed copy\n\n````diff\n--- a\/SKILL\.md[\s\S]*\+```\n````\n/, 'the fence is longer than any run of backticks inside');
  });

  it('says when the installed copy has the same files, and shows no diff then', () => {
    const text = reviewMarkdown(review({ existing: { dir: '/p/x', diff: '', sameContent: true, locked: false } }), { source: './vendor' });
    assert.match(text, /- Already installed at `\/p\/x` with the same files/);
    assert.doesNotMatch(text, /Changes against the installed copy/);
  });
});
