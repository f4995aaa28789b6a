import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page, Request } from 'playwright-core';
import { findFrame, textNow } from '../harness/browser';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { until } from '../harness/until';
import { quickOpenFile } from './quickInput';
import type { Workbench } from './workbench';
import { calm, imagesSettled, openWorkbench, resultsDir } from './workbench';

/** A Level 1 workflow whose second step names a skill no folder has. */
const WORKFLOW_SKILL = `---
name: ship-release
description: Builds, publishes and announces a release. Use when the user asks to ship a release.
version: 1.2.0
level: 1
tags: [release, ci]
permissions:
  - skills:run
workflow:
  - step: count
    skill: count-files
  - step: publish
    skill: publish-to-store
    depends_on: [count]
    if: steps.count.output.entries > 0
    error_strategy: fallback
    fallback_skill: write-changelog-entry
  - step: notes
    skill: write-changelog-entry
    depends_on: [count]
  - step: announce
    skill: write-changelog-entry
    depends_on: [publish, notes]
---

# Ship a release

Run the workflow above; \`publish\` only runs when \`count\` found files.
`;

/** Hostile text in every field the preview renders; `window.__pwned` is set if any of it runs. */
const PAYLOAD_SKILL = `---
name: payload-skill
description: "Shows hostile text safely <img src=x onerror=\\"window.__pwned='desc'\\">. Use when testing the preview."
tags: ["<script>window.__pwned='tag'</script>", "<b onmouseover=alert(1)>bold</b>"]
version: 1.0.0
permissions: ["<iframe src=javascript:alert(1)>"]
workflow:
  - step: "<svg onload=window.__pwned='step'>"
    skill: "<img src=x onerror=window.__pwned='skill'>"
    if: "<script>window.__pwned='if'</script>"
---

# Payloads

<script>window.__pwned = 'script'</script>

<img src="http://127.0.0.1:9/img.png" onerror="window.__pwned='img'">

<iframe src="javascript:parent.__pwned='iframe'"></iframe>

<svg><script>window.__pwned='svg'</script><circle onload="window.__pwned='svg2'"/></svg>

<style>body { display: none !important; background: url(http://127.0.0.1:9/css.png) }</style>

<div style="position:fixed;inset:0;background:red">overlay</div>

[script link](javascript:window.__pwned='link')

[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)

[ftp link](ftp://127.0.0.1:9/file)

[escape link](../../ops/count-files/SKILL.md)

![remote image](http://127.0.0.1:9/md-image.png)

![svg image](data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0iYWxlcnQoMSkiLz4=)

| centred |
|:-------:|
| cell |
`;

/** The heading the preview shows now, or '' (without waiting: a frame that has none answers at once). */
async function previewHeading(frame: Frame): Promise<string> {
  const heading = frame.locator('.preview-header h1');
  if ((await heading.count().catch(() => 0)) === 0) return '';
  return (await heading.first().innerText({ timeout: 1_000 }).catch(() => '')).trim();
}

/**
 * The preview's frame once it shows `name`. Looked up afresh each time: VS Code rebuilds a webview
 * that was hidden for a moment (this one keeps no context when hidden), and the old frame stays blank.
 */
async function previewShowing(page: Page, name: string): Promise<Frame> {
  return until(`the preview to show ${name}`, async () => {
    for (const frame of page.frames()) {
      if ((await previewHeading(frame)) === name) return frame;
    }
    return undefined;
  });
}

/** A sample workspace with the workflow and payload skills added. */
function previewWorkspace(): string {
  const workspace = makeSampleWorkspace('sample');
  const skills = path.join(workspace, '.agents', 'skills');
  fs.mkdirSync(path.join(skills, 'release', 'ship-release'), { recursive: true });
  fs.writeFileSync(path.join(skills, 'release', 'ship-release', 'SKILL.md'), WORKFLOW_SKILL);
  fs.mkdirSync(path.join(skills, 'security', 'payload-skill'), { recursive: true });
  fs.writeFileSync(path.join(skills, 'security', 'payload-skill', 'SKILL.md'), PAYLOAD_SKILL);
  return workspace;
}

/** Opens a SKILL.md and its preview with the editor-title button; returns the preview's frame. */
async function openWithPreview(page: Page, query: string, name: string): Promise<Frame> {
  await quickOpenFile(page, query);
  const button = page.getByRole('button', { name: 'Open Skill Preview' });
  await button.first().waitFor({ timeout: 30_000 });
  await button.first().click();
  const frame = await findFrame(page, 'main#preview[aria-busy="false"] .preview-header', 60_000);
  await until(`the ${name} preview`, async () => (await previewHeading(frame)) === name);
  return frame;
}

describe('SKILL.md preview in the workbench (code-server + Chromium, packaged .vsix)', () => {
  let workspace: string;
  let bench: Workbench;
  let preview: Frame;
  const externalRequests: string[] = [];
  const onRequest = (request: Request) => {
    if (request.url().includes('127.0.0.1:9/')) externalRequests.push(request.url());
  };

  before(async () => {
    workspace = previewWorkspace();
    bench = await openWorkbench({ workspace, userSettings: { 'workbench.colorTheme': 'Default Dark Modern', 'workbench.startupEditor': 'none' } });
    // On the context: its request events include the webviews' service workers.
    bench.page.context().on('request', onRequest);
  });

  after(async () => {
    bench?.page.context().off('request', onRequest);
    await bench?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('opens from the editor-title button beside a SKILL.md and shows the card, catalog line, files and body', async () => {
    preview = await openWithPreview(bench.page, 'ops/count-files/SKILL.md', 'count-files');

    const card = preview.getByRole('region', { name: 'Frontmatter' });
    assert.match(await card.innerText(), /Version\s+0\.1\.0/);
    assert.match(await card.innerText(), /Permissions\s+process:python3/);
    assert.match(await card.innerText(), /Level\s+0 · one job/);
    const catalog = preview.getByRole('region', { name: 'In the catalog' });
    assert.match(await catalog.locator('pre').innerText(), /^- count-files: Counts the entries of a workspace folder/);
    const files = preview.getByRole('list', { name: 'Linked files' });
    await files.getByRole('button', { name: 'run.py' }).waitFor();
    await preview.getByRole('heading', { name: 'Count files in a folder' }).waitFor();

    // No hover tooltip or focus ring from the click in the picture.
    await calm(bench.page, { y: 880 });
    await bench.page.screenshot({ path: path.join(resultsDir(), 'preview-dark.png') });
  });

  it('follows the text as you type, without saving, and a finding reveals its line', async () => {
    const file = path.join(workspace, '.agents', 'skills', 'ops', 'count-files', 'SKILL.md');
    const saved = fs.readFileSync(file, 'utf8');
    await bench.page.locator('.editor-group-container .monaco-editor .view-lines').first().click();
    await bench.page.keyboard.press('Control+End');
    await bench.page.keyboard.type('\n## Added while typing\n\nThen run scripts/missing-tool.py on the result.\n', { delay: 5 });
    await preview.getByRole('heading', { name: 'Added while typing' }).waitFor({ timeout: 15_000 });
    assert.equal(fs.readFileSync(file, 'utf8'), saved, 'the preview follows the buffer; the disk is unchanged');

    const finding = preview.getByRole('button', { name: /SW504 · line \d+/ });
    await finding.waitFor({ timeout: 15_000 });
    const line = Number(/line (\d+)/.exec(await finding.innerText())?.[1]);
    // The finding sits right after the paragraph it is about.
    const paragraph = preview.locator('p', { hasText: 'scripts/missing-tool.py' });
    assert.equal(await paragraph.locator('xpath=following-sibling::*[1]').getAttribute('class'), 'findings');
    await bench.page.keyboard.press('Control+Home');
    await finding.click();
    await until('the cursor on the finding line', async () =>
      (await textNow(bench.page.locator('#status\\.editor\\.selection'))).startsWith(`Ln ${line},`),
    );

    // Keyboard: a linked file opens with Enter; the preview stays on the skill.
    await preview.getByRole('button', { name: 'run.py' }).focus();
    await bench.page.keyboard.press('Enter');
    await bench.page.getByRole('tab', { name: /^run\.py/ }).first().waitFor({ timeout: 15_000 });
    assert.equal(await previewHeading(preview), 'count-files');
  });

  it('draws a Level 1 workflow and marks the step with an unknown skill', async () => {
    await quickOpenFile(bench.page, 'ship-release/SKILL.md');
    preview = await previewShowing(bench.page, 'ship-release');
    const diagram = preview.getByRole('img', { name: /Workflow diagram: 4 steps, 1 with an unknown skill/ });
    await diagram.waitFor();
    assert.equal(await preview.locator('svg.workflow-diagram g.step').count(), 4);
    const unknown = preview.locator('svg.workflow-diagram g.step.unknown');
    assert.equal(await unknown.count(), 1);
    assert.match(await unknown.locator('text').allTextContents().then((t) => t.join(' | ')), /publish \| runs publish-to-store \| ⚠ unknown skill/);
    assert.equal(await preview.locator('svg.workflow-diagram path.edge').count(), 4);
    assert.equal(await preview.locator('svg.workflow-diagram path.edge.conditional').count(), 1, 'the arrow into the conditional step is dashed');
    const steps = preview.getByRole('list', { name: 'Workflow steps' });
    assert.match(await steps.innerText(), /Step publish, runs publish-to-store \(unknown skill: not installed\), after count, only if steps\.count\.output\.entries > 0, on failure runs write-changelog-entry\./);
    assert.match(await preview.locator('.workflow-unknown').innerText(), /publish \(publish-to-store\)/);
    await preview.getByRole('button', { name: /SW703/ }).first().waitFor();
    await preview.getByRole('region', { name: 'Workflow' }).scrollIntoViewIfNeeded();
    await calm(bench.page, { y: 880 });
    await bench.page.screenshot({ path: path.join(resultsDir(), 'preview-workflow.png') });
  });

  it('renders hostile skill text as text: nothing runs, nothing loads, links are checked by the host', async () => {
    await quickOpenFile(bench.page, 'payload-skill/SKILL.md');
    preview = await previewShowing(bench.page, 'payload-skill');
    await preview.getByRole('heading', { name: 'Payloads' }).waitFor();
    const body = await preview.locator('.markdown-body').innerText();
    assert.match(body, /<script>window\.__pwned = 'script'<\/script>/, 'raw HTML is shown as text');
    assert.match(body, /<style>body/);
    for (const selector of ['script', 'iframe', 'style', 'object', 'embed', '[style]', '[onerror]', '[onload]', '[onmouseover]', 'a[href^="javascript" i]', 'svg script', 'img[src^="http"]', 'foreignObject']) {
      assert.equal(await preview.locator(`#preview ${selector}`).count(), 0, `no ${selector} in the preview`);
    }
    assert.match(await preview.getByRole('region', { name: 'Frontmatter' }).innerText(), /<img src=x onerror=/);
    assert.match(await preview.locator('svg.workflow-diagram').innerHTML(), /&lt;img src=x onerror=/);
    assert.ok(await preview.locator('.markdown-body').isVisible(), 'the <style> trick did not hide the body');

    await preview.getByRole('link', { name: 'ftp link' }).click();
    await bench.page.locator('.notification-toast', { hasText: 'link not opened' }).first().waitFor({ timeout: 15_000 });
    await preview.getByRole('link', { name: 'escape link' }).click();
    await bench.page.locator('.notification-toast', { hasText: 'paths must stay inside the skill folder' }).first().waitFor({ timeout: 15_000 });

    // Once every image has loaded or failed, any handler that could run has run and any request was made.
    await imagesSettled(preview, '#preview');
    assert.equal(await preview.evaluate('window.__pwned'), undefined);
    assert.equal(await bench.page.evaluate('window.__pwned'), undefined);
    assert.deepEqual(externalRequests, []);
    await bench.page.screenshot({ path: path.join(resultsDir(), 'preview-payload.png') });
  });
});

for (const theme of [
  { name: 'Default Light Modern', scheme: 'light' as const, shot: 'preview-workflow-light.png' },
  { name: 'Default High Contrast', scheme: 'dark' as const, shot: 'preview-workflow-hc.png' },
]) {
  describe(`SKILL.md preview in ${theme.name}`, () => {
    let workspace: string;
    let bench: Workbench;

    before(async () => {
      workspace = previewWorkspace();
      bench = await openWorkbench({ workspace, colorScheme: theme.scheme, userSettings: { 'workbench.colorTheme': theme.name, 'workbench.startupEditor': 'none' } });
    });

    after(async () => {
      await bench?.close();
      if (workspace) removeWorkspace(workspace);
    });

    it('shows the workflow diagram with the unknown skill marked', async () => {
      const preview = await openWithPreview(bench.page, 'ship-release/SKILL.md', 'ship-release');
      await preview.locator('svg.workflow-diagram g.step.unknown').waitFor();
      await preview.getByRole('region', { name: 'Workflow' }).scrollIntoViewIfNeeded();
      await calm(bench.page, { y: 880 });
      await bench.page.screenshot({ path: path.join(resultsDir(), theme.shot) });
    });
  });
}
