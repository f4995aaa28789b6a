import * as assert from 'node:assert/strict';
import { MAX_PRIOR, MIN_PRIOR, PRIOR_STRENGTH, clampPrior, usagePrior } from '../../../src/core/skills/search/usagePrior';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import type { SkillRecord } from '../../../src/core/skills/model/skillTypes';
import { skillRecord as skill } from './skillRecordFixture';

const records = [
  skill('docker-compose', 'Write and debug docker compose files for local multi-container development.'),
  skill('deploy-app', 'Deploy a service to the Kubernetes cluster with Helm and check the rollout.', { category: 'devops/k8s' }),
  skill('helm-charts', 'Write Helm charts for Kubernetes services.'),
  skill('kube-logs', 'Read Kubernetes pod logs and events.'),
  skill('release-notes', 'Draft release notes from merged pull requests.'),
  skill('image-resize', 'Resize, crop and convert images in bulk with ImageMagick.'),
];

const names = (hits: readonly { record: SkillRecord }[]) => hits.map((hit) => hit.record.name);
const best = { successes: 1_000, failures: 0, thumbsUp: 1_000, thumbsDown: 0 };
const worst = { successes: 0, failures: 1_000, thumbsUp: 0, thumbsDown: 1_000 };

describe('usage prior of skill search', () => {
  it('is neutral without history and stays within ±2 % however extreme the history', () => {
    assert.equal(usagePrior(undefined), 1);
    assert.equal(usagePrior({ successes: 0, failures: 0 }), 1);
    assert.ok(usagePrior(best) > 1 + 0.98 * PRIOR_STRENGTH && usagePrior(best) <= MAX_PRIOR);
    assert.ok(usagePrior(worst) < 1 - 0.98 * PRIOR_STRENGTH && usagePrior(worst) >= MIN_PRIOR);
    // Three pseudo-runs: one lucky run moves it little, many good runs more.
    const one = usagePrior({ successes: 1, failures: 0 });
    const many = usagePrior({ successes: 50, failures: 0 });
    assert.ok(one > 1 && one < many && many < MAX_PRIOR, `${one} ${many}`);
    assert.ok(usagePrior({ successes: 5, failures: 0, thumbsDown: 5 }) < usagePrior({ successes: 5, failures: 0 }));
    assert.ok(usagePrior({ successes: -5, failures: Number.NaN, thumbsUp: Infinity }) === 1, 'nonsense counts read as none');
    assert.deepEqual([clampPrior(3), clampPrior(0), clampPrior(Number.NaN)], [MAX_PRIOR, MIN_PRIOR, 1]);
  });

  it('never lifts a skill with no lexical match into the results, even with a prior that claims 100×', () => {
    const search = new SkillSearch(records);
    search.setPrior((record) => (record.name === 'image-resize' ? 100 : MIN_PRIOR));
    assert.equal(names(search.search('kubernetes deploy helm', { top: 10 })).includes('image-resize'), false);
    assert.equal(names(search.suggest('kubernetes deploy helm', { top: 10 })).includes('image-resize'), false);
  });

  it('cannot put a weaker match above a clearly stronger one, whatever the usage', () => {
    const search = new SkillSearch(records);
    const plain = search.search('deploy kubernetes rollout', { top: 10 });
    assert.equal(plain[0]?.record.name, 'deploy-app');
    const [first, second] = plain;
    assert.ok(first && second && second.score < first.score * (MIN_PRIOR / MAX_PRIOR), 'the fixture\'s runner-up trails by more than the prior can make up');
    // Adversarial usage: the relevant skill always fails and is disliked, the others always succeed and are liked.
    search.setPrior((record) => usagePrior(record.name === 'deploy-app' ? worst : best));
    const adversarial = search.search('deploy kubernetes rollout', { top: 10 });
    assert.equal(adversarial[0]?.record.name, 'deploy-app');
    assert.deepEqual(new Set(names(adversarial)), new Set(names(plain)), 'the prior reorders, never adds or drops');
    for (const hit of adversarial) {
      assert.ok(hit.relevance !== undefined && hit.score >= hit.relevance * MIN_PRIOR - 1e-12 && hit.score <= hit.relevance * MAX_PRIOR + 1e-12);
    }
  });

  it('does reorder skills whose scores are within a few per cent, and breaks exact ties', () => {
    const twins = [
      skill('alpha-helm', 'Write Helm charts for Kubernetes services.'),
      skill('beta-helm', 'Write Helm charts for Kubernetes services.'),
    ];
    const search = new SkillSearch(twins);
    assert.deepEqual(names(search.search('helm charts')), ['alpha-helm', 'beta-helm'], 'a tie goes by name');
    search.setPrior((record) => usagePrior(record.name === 'beta-helm' ? { successes: 10, failures: 0 } : { successes: 0, failures: 10 }));
    assert.deepEqual(names(search.search('helm charts')), ['beta-helm', 'alpha-helm']);
    assert.deepEqual(names(search.suggest('helm charts', { minScore: 0 })), ['beta-helm', 'alpha-helm']);
    search.setPrior(undefined);
    assert.deepEqual(names(search.search('helm charts')), ['alpha-helm', 'beta-helm']);
    assert.equal(search.search('helm charts')[0]?.relevance, undefined, 'without a prior the score is the lexical one');
  });

  it('finds a lifted hit just past `top`, and keeps the suggestion floor on the lexical score', () => {
    const many = Array.from({ length: 6 }, (_, i) => skill(`helm-${i}`, 'Write Helm charts for Kubernetes services.'));
    // A longer description: a score a few per cent lower, so it ranks seventh without a prior.
    many.push(skill('helm-longer', 'Write Helm charts for Kubernetes services, with linting.'));
    const search = new SkillSearch(many);
    const plain = search.search('helm charts', { top: 10 });
    assert.equal(plain[6]?.record.name, 'helm-longer');
    assert.ok((plain[6]?.score ?? 0) * (MAX_PRIOR / MIN_PRIOR) > (plain[0]?.score ?? 0), 'within the prior\'s reach');
    search.setPrior((record) => (record.name === 'helm-longer' ? MAX_PRIOR : MIN_PRIOR));
    assert.equal(names(search.search('helm charts', { top: 3 }))[0], 'helm-longer', 'lifted from seventh place, past `top`');
    assert.equal(names(search.suggest('helm charts', { top: 3, minScore: 0 }))[0], 'helm-longer');
    const floor = plain[0]?.score ?? 0;
    // A floor just above the best lexical score: hits whose final score passes it only through the prior must not count.
    search.setPrior((record) => (record.name === 'helm-0' ? MAX_PRIOR : MIN_PRIOR));
    assert.deepEqual(search.suggest('helm charts', { minScore: floor * 1.01 }), []);
  });

  it('leaves `similar` alone: overlap is about content', () => {
    const search = new SkillSearch(records);
    const before = search.similar({ name: 'k8s-deploy', description: 'Deploy a service to Kubernetes with Helm.' });
    search.setPrior((record) => usagePrior(record.name === 'deploy-app' ? worst : best));
    assert.deepEqual(search.similar({ name: 'k8s-deploy', description: 'Deploy a service to Kubernetes with Helm.' }), before);
  });
});
