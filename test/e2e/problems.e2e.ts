import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';
import { quickOpenFile } from './quickInput';
import type { Workbench } from './workbench';
import { openWorkbench, resultsDir } from './workbench';

/** The lint as a person meets it: a squiggle, a Problems entry, and a quick fix from Ctrl+. */
describe('SKILL.md problems and quick fixes in the workbench', () => {
  let workspace: string;
  let bench: Workbench;
  let skillFile: string;

  before(async () => {
    workspace = makeSampleWorkspace('problems');
    const folder = path.join(workspace, '.agents', 'skills', 'docs', 'tidy-headings');
    fs.mkdirSync(folder, { recursive: true });
    skillFile = path.join(folder, 'SKILL.md');
    fs.writeFileSync(
      skillFile,
      '---\nname: neat-headings\ndescription: Makes Markdown headings consistent. Use when a document mixes heading styles.\n---\n\n# Tidy headings\n\n1. Find the headings.\n2. Make them consistent.\n',
    );
    bench = await openWorkbench({ workspace, userSettings: { 'workbench.colorTheme': 'Default Dark Modern' } });
  });

  after(async () => {
    await bench?.close();
    if (workspace) removeWorkspace(workspace);
  });

  it('lists the finding in Problems and fixes it with the quick fix', async () => {
    const page = bench.page;
    await quickOpenFile(page, 'tidy-headings/SKILL.md');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.waitFor();

    await page.keyboard.press('Control+Shift+M');
    const problems = page.locator('.markers-panel');
    const entry = await until('the SW203 entry in Problems', async () => {
      const text = (await textNow(problems)).replace(/\u00a0/g, ' ');
      return /differs from its folder "tidy-headings"/.test(text) && text;
    }, 60_000);
    assert.match(entry, /SW203/);
    await page.screenshot({ path: path.join(resultsDir(), 'problems-dark.png') });

    // Go to the problem the way a keyboard user does (F8 puts the cursor on it), then ask for fixes.
    const fix = page.locator('.action-widget .action-label, .action-widget .monaco-list-row', { hasText: 'Change name to the folder name' }).first();
    const peek = page.locator('.marker-widget').first();
    await until('the quick fix menu', async () => {
      await page.locator('.editor-instance .view-line', { hasText: 'name: neat-headings' }).first().click();
      await page.keyboard.press('Control+Home');
      await page.keyboard.press('F8');
      // F8 shows the problem in a peek; once it shows, the cursor is on the problem.
      const shown = await peek.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false);
      if (!shown) return false;
      await page.keyboard.press('Escape');
      await peek.waitFor({ state: 'hidden', timeout: 5_000 });
      await page.keyboard.press('Control+.');
      return fix.waitFor({ timeout: 5_000 }).then(
        () => true,
        async () => {
          await page.keyboard.press('Escape');
          return false;
        },
      );
    }, 60_000);
    await page.screenshot({ path: path.join(resultsDir(), 'problems-quickfix-dark.png') });
    // The preferred fix is selected; Enter applies it, as a keyboard user would.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+S');
    await until('the fixed name on disk', () => /\nname: tidy-headings\n/.test(fs.readFileSync(skillFile, 'utf8')));
    await until('Problems to clear', async () => !/differs from its folder/.test(await textNow(problems)), 30_000);
  });
});
