import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { seededRandom } from '../../bench/generateSkillTree';
import type { SkillListItem, SkillsList } from '../../src/shared/protocol';
import { makeSampleWorkspace, removeWorkspace } from '../harness/sampleWorkspace';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';
import { repoRoot } from '../repoRoot';
import type { Workbench } from './workbench';
import { calm, openPanel, openTab, openWorkbench, resultsDir } from './workbench';

/**
 * Fills the server's home folder (user skills are read from ~/.agents/skills and ~/.claude/skills)
 * with one user skill and another tool's copy of a sample skill, which the project copy shadows.
 */
function fillHome({ home }: { home: string }): void {
  const write = (dir: string, text: string) => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), text);
  };
  write(
    path.join(home, '.agents', 'skills', 'personal', 'tidy-notes'),
    '---\nname: tidy-notes\ndescription: Tidies meeting notes into decisions and actions. Use when the user pastes raw notes.\nversion: 2.0.0\n---\n\n# Tidy notes\n',
  );
  write(
    path.join(home, '.claude', 'skills', 'write-changelog-entry'),
    '---\nname: write-changelog-entry\ndescription: Claude’s own changelog skill. Use when writing a changelog.\n---\n\n# Changelog\n',
  );
}

const WORDS = 'deploy build review audit cluster pipeline schema report release notes data table query cache index service api token budget'.split(' ');

/** A list shaped like a big real one: 20 categories, two-sentence descriptions, some shadowed and disabled copies. */
function syntheticList(count: number): SkillsList {
  const random = seededRandom(count);
  const word = () => WORDS[Math.floor(random() * WORDS.length)] as string;
  const skills: SkillListItem[] = [];
  for (let i = 0; i < count; i++) {
    const category = `area-${i % 20}${i % 7 === 0 ? '/sub' : ''}`;
    const name = `${word()}-${word()}-${i}`;
    skills.push({
      file: `/synthetic/home/.agents/skills/${category}/${name}/SKILL.md`,
      name,
      description: `Helps ${word()} the ${word()} ${word()} with careful checks of every ${word()} and ${word()}. Use when the user asks to ${word()} a ${word()}.`,
      category,
      scope: i % 3 === 0 ? 'project' : i % 3 === 1 ? 'user' : 'other',
      rootLabel: '~/.agents/skills',
      level: i % 10 === 0 ? 1 : 0,
      version: '1.0.0',
      errors: i % 17 === 0 ? 1 : 0,
      warnings: i % 5 === 0 ? 2 : 0,
      ...(i % 50 === 0 ? { shadowedBy: `/synthetic/project/.agents/skills/${name}/SKILL.md` } : {}),
      platformHidden: false,
      disabled: i % 41 === 0,
      ...(i % 4 === 0 ? { usage: { lastUsed: '2025-01-01T00:00:00.000Z', runs: i % 9, views: i % 13 } } : {}),
      inCatalog: i < 140 ? 'full' : 'omitted',
    });
  }
  return { loading: false, skills, catalog: { tokens: 2990, budget: 3000, included: 140, shortened: 20, collapsed: 2, omitted: skills.slice(140, 400).map((s) => s.name) }, trusted: true };
}

/** The few browser globals the timing code uses (the test project has no DOM library). */
interface Control {
  value: string;
  click(): void;
  dispatchEvent(event: unknown): void;
}
interface BrowserGlobals {
  dispatchEvent(event: unknown): void;
  MessageEvent: new (type: string, init: { data: unknown }) => unknown;
  Event: new (type: string) => unknown;
  requestAnimationFrame(callback: () => void): void;
  document: { querySelector(selector: string): Control | null; querySelectorAll(selector: string): { length: number } };
}

/** Hands the webview a list as if the host sent it. */
async function postList(panel: Frame, list: SkillsList): Promise<void> {
  await panel.evaluate(
    (data) => {
      const browser = globalThis as unknown as BrowserGlobals;
      browser.dispatchEvent(new browser.MessageEvent('message', { data }));
    },
    { type: 'skills/list', list },
  );
}

describe('Skills tab (code-server + Chromium, packaged .vsix)', () => {
  describe('a trusted sample workspace, dark theme', () => {
    let workspace: string;
    let bench: Workbench;
    let panel: Frame;
    const search = () => panel.getByRole('searchbox', { name: 'Search skills' });
    const count = () => panel.getByTestId('skills-count');
    const rows = () => panel.locator('.skill-row');
    const rowOf = (name: string) => panel.locator('.skill-row', { has: panel.getByRole('button', { name, exact: true }) }).first();

    before(async () => {
      workspace = makeSampleWorkspace('sample');
      bench = await openWorkbench({ workspace, seed: fillHome, userSettings: { 'workbench.colorTheme': 'Default Dark Modern' } });
      panel = await openPanel(bench.page);
      await openTab(panel, 'Skills');
    });

    after(async () => {
      await bench?.close();
      if (workspace) removeWorkspace(workspace);
    });

    it('browses every skill from every folder, grouped by category, with scope, level, lint, markers and the catalog line', async () => {
      await until('five skills in five categories', async () => /^5 skills in 5 categories\.$/.test(await count().innerText()));
      const groups = await panel.locator('.group-toggle').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-label')));
      assert.deepEqual(groups, ['(top level), 1 skill', 'docs, 1 skill', 'ops, 1 skill', 'personal, 1 skill', 'release, 1 skill']);
      const docs = panel.getByRole('list', { name: 'Skills in docs' });
      assert.match(await docs.innerText(), /write-changelog-entry\s*project/);
      // Claude's copy sits at the top level of ~/.claude/skills and loses to the project copy.
      const claude = panel.getByRole('list', { name: 'Skills in (top level)' });
      assert.match(await claude.innerText(), /write-changelog-entry\s*other tool\s*shadowed/);
      assert.match(await rowOf('prepare-release').innerText(), /L1 · v0\.1\.0 · .+ · never used · in catalog/);
      assert.match(await rowOf('tidy-notes').innerText(), /user[\s\S]*v2\.0\.0/);
      assert.match(await panel.getByTestId('catalog-line').innerText(), /^Catalog: \d+ of 3,000 tokens · 4 skills listed · nothing left out$/);
      await calm(bench.page);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'skills-dark.png') });
    });

    it('searches a phrase and shows the best match first', async () => {
      await search().fill('how big is a folder');
      const results = panel.getByRole('list', { name: 'Search results for how big is a folder' });
      await results.waitFor();
      assert.equal(await results.locator('.skill-name').first().innerText(), 'count-files');
      assert.match(await count().innerText(), /matches? for “how big is a folder” among 5 skills, \d+ ms\./);
      await search().fill('zzzz nothing like this');
      await panel.getByText('No skills match “zzzz nothing like this”.').waitFor();
      // Escape in the box clears it and brings the groups back.
      await search().press('Escape');
      await until('the groups again', async () => /^5 skills in 5 categories\.$/.test(await count().innerText()));
    });

    it('filters by scope and by health', async () => {
      const scope = panel.getByRole('combobox', { name: 'Scope' });
      const health = panel.getByRole('combobox', { name: 'Health' });
      await scope.selectOption({ label: 'User' });
      await until('only the user skill', async () => (await rows().allInnerTexts()).length === 1);
      assert.match(await rows().first().innerText(), /tidy-notes/);
      await scope.selectOption({ label: 'Other tools' });
      await until('only the other tool’s copy', async () => (await rows().count()) === 1 && /shadowed/.test(await rows().first().innerText()));
      await scope.selectOption({ label: 'All scopes' });
      await health.selectOption({ label: 'Shadowed' });
      await until('only the shadowed copy', async () => (await rows().count()) === 1);
      assert.match(await count().innerText(), /^1 of 5 skills match the filters/);
      await health.selectOption({ label: 'With errors' });
      await panel.getByText('No skills match these filters.').waitFor();
      await panel.getByRole('button', { name: 'Clear search and filters' }).click();
      await until('every skill again', async () => (await rows().count()) === 5);
    });

    it('disables a skill from its actions menu, shows the marker, and enables it again with the keyboard', async () => {
      await panel.getByRole('button', { name: 'Actions for count-files' }).click();
      const menu = panel.getByRole('menu', { name: 'Actions for count-files' });
      await menu.waitFor();
      assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Open', 'Open Preview', 'Run in Chat…', 'Test Triggering…', 'Duplicate…', 'Rename…', 'Disable', 'Reveal in Explorer', 'Delete…']);
      await calm(bench.page);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'skills-menu-dark.png') });
      await menu.getByRole('menuitem', { name: 'Disable' }).click();
      await until('the disabled marker', async () => /disabled/.test(await rowOf('count-files').innerText()), 15_000);
      await calm(bench.page);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'skills-disabled-dark.png') });
      // The list that follows the settings change has the catalog without count-files.
      await until('the catalog without count-files', async () => /3 skills listed/.test(await panel.getByTestId('catalog-line').innerText()));
      const settings = JSON.parse(fs.readFileSync(path.join(workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
      assert.deepEqual(settings['skillwright.skills.disabled'], ['count-files']);

      // Keyboard: Shift+F10 on the name opens the menu on its first item; End, arrows and Escape move and close.
      await rowOf('count-files').getByRole('button', { name: 'count-files', exact: true }).focus();
      await bench.page.keyboard.press('Shift+F10');
      await until('the first item focused', async () => (await panel.locator(':focus').innerText()) === 'Open');
      await bench.page.keyboard.press('End');
      assert.equal(await panel.locator(':focus').innerText(), 'Delete…');
      await bench.page.keyboard.press('Escape');
      await until('the menu closed and focus back on its button', async () => (await panel.locator(':focus').getAttribute('aria-label')) === 'Actions for count-files');
      await bench.page.keyboard.press('Enter');
      await until('Open focused', async () => (await panel.locator(':focus').innerText()) === 'Open');
      for (let i = 0; i < 4; i++) await bench.page.keyboard.press('ArrowDown');
      assert.equal(await panel.locator(':focus').innerText(), 'Enable');
      await bench.page.keyboard.press('Enter');
      await until('the marker gone', async () => !/disabled/.test(await rowOf('count-files').innerText()), 15_000);
    });

    it('creates a skill from a template through the quick picks and lists it at once', async () => {
      const page = bench.page;
      const input = page.locator('.quick-input-widget input');
      const title = page.locator('.quick-input-widget .quick-input-title');
      await panel.getByRole('button', { name: 'New Skill…' }).click();
      await until('the template step', async () => /New Skill from Template \(1\/5\): template/.test(await title.innerText()));
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Instructions' }).first().waitFor();
      await input.fill('Instructions');
      await page.keyboard.press('Enter');
      await until('the location step', async () => /\(2\/5\): location/.test(await title.innerText()));
      await input.fill('Project');
      await page.keyboard.press('Enter');
      await until('the category step', async () => /\(3\/5\): category/.test(await title.innerText()));
      await input.fill('Tools');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'invalid category' }).first().waitFor();
      await input.fill('tools');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'new category' }).first().waitFor();
      await page.keyboard.press('Enter');
      await until('the name step', async () => /\(4\/5\): name/.test(await title.innerText()));
      await input.fill('Tidy Imports');
      await page.locator('.quick-input-message', { hasText: 'Invalid skill name "Tidy Imports"' }).waitFor();
      await input.fill('count-files');
      await page.locator('.quick-input-message', { hasText: 'A skill named "count-files" already exists' }).waitFor();
      await input.fill('tidy-imports');
      await until('the name accepted', async () => !/Invalid|already exists/.test(await textNow(page.locator('.quick-input-message'))));
      await page.keyboard.press('Enter');
      await until('the description step', async () => /\(5\/5\): description/.test(await title.innerText()));
      await input.fill('Sorts and groups import lines. Use when the user asks to tidy imports.');
      const file = path.join(workspace, '.agents', 'skills', 'tools', 'tidy-imports', 'SKILL.md');
      const started = Date.now();
      await page.keyboard.press('Enter');
      const writtenMs = await until('SKILL.md on disk', () => fs.existsSync(file) && Date.now() - started, 10_000);
      const created = panel.getByRole('list', { name: 'Skills in tools' }).getByRole('button', { name: 'tidy-imports', exact: true });
      await created.waitFor({ timeout: 10_000 });
      assert.ok(writtenMs >= 0);
      assert.match(fs.readFileSync(file, 'utf8'), /^---\nname: tidy-imports\ndescription: "Sorts and groups import lines\. Use when the user asks to tidy imports\."\n/);
      await page.locator('.tab', { hasText: 'SKILL.md' }).first().waitFor();
      assert.match(await count().innerText(), /^6 skills in 6 categories\.$/);
    });

    it('is operable with the keyboard: arrows move through groups and skills, Enter opens SKILL.md', async () => {
      await bench.page.keyboard.press('F1');
      const input = bench.page.locator('.quick-input-widget input');
      await input.fill('>View: Close All Editors');
      await bench.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Close All Editors' }).first().waitFor();
      await bench.page.keyboard.press('Enter');
      await until('no editor tabs', async () => (await bench.page.locator('.tabs-container .tab').count()) === 0);
      await search().focus();
      await bench.page.keyboard.press('ArrowDown');
      assert.equal(await panel.locator(':focus').getAttribute('aria-label'), '(top level), 1 skill');
      await bench.page.keyboard.press('ArrowDown');
      assert.equal(await panel.locator(':focus').innerText(), 'write-changelog-entry');
      await bench.page.keyboard.press('ArrowLeft');
      assert.equal(await panel.locator(':focus').getAttribute('aria-label'), '(top level), 1 skill');
      await bench.page.keyboard.press('ArrowLeft');
      await until('the group collapsed', async () => (await panel.locator(':focus').getAttribute('aria-expanded')) === 'false');
      await bench.page.keyboard.press('ArrowRight');
      await until('the group expanded', async () => (await panel.locator(':focus').getAttribute('aria-expanded')) === 'true');
      // Down to the project copy in docs; Tab goes to its actions button and back.
      for (let i = 0; i < 3; i++) await bench.page.keyboard.press('ArrowDown');
      assert.equal(await panel.locator(':focus').innerText(), 'write-changelog-entry');
      assert.equal(await panel.locator(':focus').evaluate((node) => node.closest('ul')?.getAttribute('aria-label')), 'Skills in docs');
      await bench.page.keyboard.press('Tab');
      assert.equal(await panel.locator(':focus').getAttribute('aria-label'), 'Actions for write-changelog-entry');
      await bench.page.keyboard.press('Shift+Tab');
      await bench.page.keyboard.press('Enter');
      await bench.page.locator('.tab.active', { hasText: 'SKILL.md' }).waitFor();
      const crumbs = await bench.page.locator('.breadcrumbs-control').first().innerText();
      assert.match(crumbs.replace(/\s+/g, ' '), /docs.*write-changelog-entry.*SKILL\.md/);
    });

    it('opens the skill preview beside the editor from the actions menu', async () => {
      await rowOf('prepare-release').getByRole('button', { name: 'Actions for prepare-release' }).click();
      await panel.getByRole('menu', { name: 'Actions for prepare-release' }).getByRole('menuitem', { name: 'Open Preview' }).click();
      await bench.page.locator('.tab', { hasText: 'Preview prepare-release' }).first().waitFor({ timeout: 30_000 });
    });

    it('renders, expands and filters lists of 612 and 10,000 skills', async function () {
      this.timeout(120_000);
      await openTab(panel, 'Skills');
      // Big lists work (render, expand, filter); how fast is measured by `npm run bench:webview`, not here.
      for (const size of [612, 10_000]) {
        await postList(panel, syntheticList(size));
        await until(`${size} skills shown`, async () => (await count().innerText()).startsWith(`${size.toLocaleString('en-US')} skills in`));
        const expanded = await panel.evaluate(() => {
          const browser = globalThis as unknown as BrowserGlobals;
          browser.document.querySelector('.group-toggle[aria-expanded="false"]')?.click();
          return browser.document.querySelectorAll('.skill-row').length;
        });
        assert.ok(expanded > 0, `expanding a group of the ${size} list shows its rows`);
        const filtered = await panel.evaluate(() => {
          const browser = globalThis as unknown as BrowserGlobals;
          const health = browser.document.querySelector('select[aria-label="Health"]') as Control;
          health.value = 'warnings';
          health.dispatchEvent(new browser.Event('change'));
          const rows = browser.document.querySelectorAll('.skill-row').length;
          health.value = 'all';
          health.dispatchEvent(new browser.Event('change'));
          return rows;
        });
        assert.ok(filtered >= 0);
      }
    });
  });

  describe('Restricted Mode, high contrast', () => {
    let workspace: string;
    let bench: Workbench;

    before(async () => {
      workspace = makeSampleWorkspace('untrusted');
      bench = await openWorkbench({
        workspace,
        trust: true,
        seed: fillHome,
        userSettings: { 'workbench.colorTheme': 'Default High Contrast', 'security.workspace.trust.startupPrompt': 'never' },
      });
    });

    after(async () => {
      await bench?.close();
      if (workspace) removeWorkspace(workspace);
    });

    it('says project skills are hidden and lists only the user and other tools’ skills', async () => {
      const panel = await openPanel(bench.page);
      await openTab(panel, 'Skills');
      await until('the two skills outside the folder', async () => /^2 skills in 2 categories\.$/.test(await panel.getByTestId('skills-count').innerText()));
      await panel.getByText('Restricted Mode: this folder’s project skills are hidden until you trust it.').waitFor();
      await panel.getByRole('button', { name: 'Manage Workspace Trust' }).waitFor();
      // With nothing shadowing it, Claude's copy is the one in use.
      assert.doesNotMatch(await panel.locator('.skills-body').innerText(), /shadowed/);
      await calm(bench.page);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'skills-restricted-hc.png') });
    });
  });

  describe('the skills corpus (612 real skills)', () => {
    const corpus = path.join(repoRoot(), '..', 'shared', 'corpus');
    let workspace: string;
    let bench: Workbench;

    before(async function () {
      if (!fs.existsSync(path.join(corpus, 'stats.json'))) {
        throw new Error(`The skills corpus is missing: expected it at ${corpus} (../shared/corpus beside the repository).`);
      }
      workspace = makeSampleWorkspace('sample');
      // No seed: the server's home folder is empty, so only the sample and the corpus are listed.
      bench = await openWorkbench({
        workspace,
        userSettings: { 'workbench.colorTheme': 'Default Dark Modern', 'skillwright.skills.extraRoots': [corpus] },
      });
    });

    after(async () => {
      await bench?.close();
      if (workspace) removeWorkspace(workspace);
    });

    it('lists, renders and searches the corpus', async () => {
      const panel = await openPanel(bench.page);
      await openTab(panel, 'Skills');
      const text = await until('the corpus in the list', async () => {
        const value = await panel.getByTestId('skills-count').innerText();
        return /^6\d\d skills in \d+ categories\.$/.test(value) && Number(value.slice(0, 3)) >= 612 && value;
      }, 60_000);
      console.log(`      ${text}`);
      await panel.getByRole('searchbox', { name: 'Search skills' }).fill('merge pdf files');
      const results = panel.getByRole('list', { name: 'Search results for merge pdf files' });
      await results.waitFor({ timeout: 10_000 });
      const first = await results.locator('.skill-name').first().innerText();
      console.log(`      "merge pdf files": first hit ${first}; ${await panel.getByTestId('skills-count').innerText()}`);
      assert.equal(first, 'pdftk-server');
      await panel.getByRole('searchbox', { name: 'Search skills' }).fill('make a powerpoint presentation');
      await panel.getByRole('list', { name: 'Search results for make a powerpoint presentation' }).waitFor({ timeout: 10_000 });
      console.log(`      second search: ${await panel.getByTestId('skills-count').innerText()}`);
      await panel.getByRole('searchbox', { name: 'Search skills' }).fill('merge pdf files');
      await results.waitFor({ timeout: 10_000 });
      await calm(bench.page);
      await bench.page.screenshot({ path: path.join(resultsDir(), 'skills-corpus-dark.png') });
    });
  });
});
