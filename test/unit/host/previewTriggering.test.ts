import * as assert from 'node:assert/strict';
import { skillContentHash } from '../../../src/core/agent/triggerTest';
import { MemoryTextStore } from '../../../src/core/base/textStore';
import { SkillUsage } from '../../../src/core/skills/index/skillUsage';
import { buildPreviewTriggering, triggerStats } from '../../../src/host/preview/previewTriggering';
import type { SkillPreview } from '../../../src/shared/previewProtocol';
import { parseHostPreviewMessage, parsePreviewMessage } from '../../../src/shared/previewProtocol';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2025-06-01T12:00:00Z');
const TEXT = new TextEncoder().encode('---\nname: deploy\ndescription: Deploys.\n---\n');

function previewWith(triggering: SkillPreview['triggering']): SkillPreview {
  return { file: '/skills/deploy/SKILL.md', card: { tags: [], permissions: [], platforms: [] }, body: '', bodyLine: 0, files: [], findings: [], catalogLine: '', catalogListed: false, ...(triggering ? { triggering } : {}) };
}

async function usageWithTest(): Promise<SkillUsage> {
  const usage = new SkillUsage(new MemoryTextStore(), () => NOW);
  await usage.load();
  usage.recordTurn({ suggested: ['deploy'], loaded: ['deploy'], run: ['deploy'] });
  usage.recordTurn({ suggested: ['deploy'], loaded: [], run: [] });
  usage.recordTurn({ suggested: [], loaded: ['deploy'], run: [] });
  usage.recordTriggerTest('deploy', {
    at: NOW - 2 * DAY,
    contentHash: skillContentHash(TEXT),
    model: 'openai:gpt-4.1-mini',
    runs: 6,
    loaded: 5,
    queries: [
      { query: 'ship the app', runs: 3, loaded: 3, others: [] },
      { query: 'put the new build live', runs: 3, loaded: 2, others: [{ name: 'release-notes', runs: 1 }] },
    ],
  });
  return usage;
}

describe('preview triggering (suggested, loaded, the latest trigger test)', () => {
  it('says how often chat turns suggested, loaded and ran the skill', async () => {
    const usage = await usageWithTest();
    assert.equal(triggerStats(usage.get('deploy')), 'suggested 2×, loaded 2× (1 of them when suggested) · run in 1 turn');
    assert.equal(triggerStats(usage.get('never')), '');
  });

  it('shows the kept test with its per-query rows, and marks it outdated once the SKILL.md changed', async () => {
    const usage = await usageWithTest();
    const view = buildPreviewTriggering({ name: 'deploy', usage: usage.get('deploy'), exampleQueries: 2, currentHash: skillContentHash(TEXT), now: NOW });
    assert.equal(view.line, 'Triggering: 5/6 runs loaded it, 2 days ago');
    assert.equal(view.outdated, false);
    assert.equal(view.model, 'openai:gpt-4.1-mini');
    assert.deepEqual(view.queries.map((q) => `${q.loaded}/${q.runs} ${q.query} ${q.others.map((o) => o.name).join(',')}`), ['3/3 ship the app ', '2/3 put the new build live release-notes']);

    const edited = buildPreviewTriggering({ name: 'deploy', usage: usage.get('deploy'), exampleQueries: 2, currentHash: skillContentHash(new TextEncoder().encode('changed')), now: NOW });
    assert.equal(edited.outdated, true);
    assert.match(edited.line ?? '', /SKILL\.md changed since: test again/);

    const untested = buildPreviewTriggering({ name: 'lint', usage: usage.get('lint'), exampleQueries: 0, now: NOW });
    assert.deepEqual(untested, { name: 'lint', stats: '', outdated: false, queries: [], exampleQueries: 0 });
  });

  it('passes the preview protocol both ways, and the webview may ask for a test', async () => {
    const usage = await usageWithTest();
    const view = buildPreviewTriggering({ name: 'deploy', usage: usage.get('deploy'), exampleQueries: 2, currentHash: 'x', now: NOW });
    const parsed = parseHostPreviewMessage({ type: 'preview/update', preview: previewWith(view) });
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.ok(parsePreviewMessage({ type: 'preview/testTriggering' }).ok);
    const tampered = previewWith({ ...view, queries: [{ query: 'q', runs: -1, loaded: 0, others: [] }] });
    assert.equal(parseHostPreviewMessage({ type: 'preview/update', preview: tampered }).ok, false);
  });
});
