import * as assert from 'node:assert/strict';
import { ARCHIVE_AFTER_DAYS, STALE_AFTER_DAYS, declaredSkills, healthOf, usefulness } from '../../../src/core/skills/index/skillHealth';
import type { SkillUsageEntry } from '../../../src/core/skills/index/skillUsage';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2025, 5, 1);
const usage = (entry: Partial<SkillUsageEntry>): SkillUsageEntry => ({ views: 0, runs: 0, edits: 0, successes: 0, failures: 0, totalLatencyMs: 0, ...entry });

describe('skill health', () => {
  it('sums up runs, success rate, median latency, the last failure, drift and ratings in one line', () => {
    const health = healthOf(
      usage({
        runs: 12,
        successes: 11,
        failures: 1,
        lastUsed: NOW - DAY,
        latencies: [800, 1200, 2000],
        lastFailure: { at: NOW - 2 * DAY, message: 'timed out after 60 s' },
        drift: 1,
        thumbsUp: 3,
      }),
      NOW,
    );
    assert.equal(health.line, '12 runs · 92% ok · median 1.2 s · last failure 2 days ago: "timed out after 60 s" · 1 drift · rated 3 up, 0 down');
    assert.equal(health.successRate, 11 / 12);
    assert.equal(health.medianLatencyMs, 1200);
    assert.deepEqual([health.stale, health.archivable, health.idleDays], [false, false, 1]);
  });

  it('says nothing for a skill only viewed, and gives no success rate before a run with an outcome', () => {
    const health = healthOf(usage({ views: 4, lastUsed: NOW }), NOW);
    assert.equal(health.line, '');
    assert.equal(health.successRate, undefined);
    assert.equal(healthOf(usage({ runs: 1 }), NOW).line, '1 run');
  });

  it('marks assistant-created skills stale after 30 days unused and archivable after 90, counting from the latest use, creation or restore', () => {
    const created = (idleMs: number, extra: Partial<SkillUsageEntry> = {}) =>
      healthOf(usage({ createdBy: 'agent', createdAt: NOW - idleMs - 5 * DAY, lastUsed: NOW - idleMs, ...extra }), NOW);
    assert.equal(created(STALE_AFTER_DAYS * DAY - 1).stale, false);
    assert.equal(created(STALE_AFTER_DAYS * DAY).stale, true);
    assert.equal(created(STALE_AFTER_DAYS * DAY).archivable, false);
    assert.match(created(45 * DAY).line, /stale: unused for 45 days/);
    assert.equal(created(ARCHIVE_AFTER_DAYS * DAY - 1).archivable, false);
    assert.equal(created(ARCHIVE_AFTER_DAYS * DAY).archivable, true);
    // Restored ten days ago: idle time starts again.
    assert.equal(created(200 * DAY, { restoredAt: NOW - 10 * DAY }).stale, false);
    // Created and never used since: the creation counts as the last use.
    assert.equal(healthOf(usage({ createdBy: 'agent', createdAt: NOW - 31 * DAY }), NOW).stale, true);
  });

  it('never marks a skill someone wrote or installed stale, however long unused', () => {
    const old = usage({ runs: 2, successes: 2, lastUsed: NOW - 400 * DAY });
    assert.deepEqual([healthOf(old, NOW).stale, healthOf(old, NOW).archivable], [false, false]);
    assert.equal(healthOf({ ...old, createdBy: 'user' }, NOW).stale, false);
    // The caller may know better than the usage file (e.g. a skill created before creators were recorded).
    assert.equal(healthOf(old, NOW, { agentCreated: true }).archivable, true);
    assert.equal(healthOf(usage({}), NOW, { agentCreated: true }).stale, false, 'no time known: not stale');
  });

  it('names called skills the SKILL.md does not declare', () => {
    const entry = usage({ runs: 2, successes: 2, calls: [['build', 'lint'], ['deploy']] });
    const health = healthOf(entry, NOW, { declared: ['build', 'deploy'] });
    assert.deepEqual(health.undeclared, ['lint']);
    assert.match(health.line, /calls `lint`, not declared/);
    assert.deepEqual(healthOf(entry, NOW).undeclared, [], 'without the declaration nothing is compared');
  });

  it('reads the declared skills from a workflow: step skills and fallbacks, without version ranges', () => {
    const text = [
      '---',
      'name: release',
      'description: Releases.',
      'workflow:',
      '  - step: build',
      '    skill: build-app@^1.2',
      '  - step: ship',
      '    skill: deploy',
      '    fallback_skill: deploy-legacy',
      '---',
      'Body.',
    ].join('\n');
    assert.deepEqual(declaredSkills(parseSkillText(text).frontmatter).sort(), ['build-app', 'deploy', 'deploy-legacy']);
    assert.deepEqual(declaredSkills({ name: 'plain' }), []);
  });

  it('orders by usefulness: more good use first, failures and thumbs down lower it, no use is zero', () => {
    assert.equal(usefulness(usage({})), 0);
    const good = usefulness(usage({ runs: 10, successes: 10 }));
    const flaky = usefulness(usage({ runs: 10, successes: 3, failures: 7 }));
    const disliked = usefulness(usage({ runs: 10, successes: 10, thumbsDown: 5 }));
    const liked = usefulness(usage({ runs: 10, successes: 10, thumbsUp: 5 }));
    assert.ok(liked > good && good > disliked && good > flaky, JSON.stringify({ liked, good, disliked, flaky }));
    assert.ok(usefulness(usage({ views: 100 })) > usefulness(usage({ views: 1 })));
  });
});
