import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import type { ConsentCardView } from '../../../src/shared/protocol';
import { launchChromium } from '../../harness/browser';
import { repoRoot } from '../../repoRoot';
import { consentCard, consentSkill } from './consentFixture';

/** The sources to bundle: the repository (also when the tests were compiled to a folder outside it). */
function sourceRoot(): string {
  const here = process.cwd();
  return fs.existsSync(path.join(here, 'src', 'webview', 'consentCard.ts')) ? here : repoRoot();
}

/**
 * The consent card in Chromium, with the real DOM's focus: the card is bundled from its source as
 * the panel's is, placed between two controls, and fed host answers the way main.ts does.
 */
describe('consent card focus and announcements (Chromium)', function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let page: Page;
  const [alpha, beta, gamma] = [consentSkill('alpha'), consentSkill('beta'), consentSkill('gamma')];

  // These run in the page; the unit tests' TypeScript has no DOM types, so the page's globals are described here.
  interface PageGlobals {
    consent: { card: { render(view: unknown): void }; sent: unknown[] };
    document: { activeElement: { getAttribute(name: string): string | null; textContent: string | null; tagName: string } | null; body: unknown };
  }
  const render = (view: ConsentCardView) => page.evaluate((data) => (globalThis as unknown as PageGlobals).consent.card.render(data), view);
  const sent = () => page.evaluate(() => (globalThis as unknown as PageGlobals).consent.sent);
  /** The focused element's accessible name, or BODY when focus fell to the page. */
  const focused = () =>
    page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobals;
      const active = document.activeElement;
      if (!active || active === document.body) return 'BODY';
      return active.getAttribute('aria-label') ?? active.textContent ?? active.tagName;
    });
  const status = () => page.getByTestId('consent-status').textContent();

  before(async () => {
    const started = await launchChromium();
    browser = started;
    page = await started.newPage();
  });

  after(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    // A fresh page per test: a card, a control before it and one after it (the chat log and the message box in the panel).
    await page.setContent('<main><button>Before</button><div id="slot"></div><textarea aria-label="Message"></textarea></main>');
    await page.addScriptTag({ content: await bundleText() });
  });

  let cached: string | undefined;
  async function bundleText(): Promise<string> {
    cached ??= (
      await build({
        stdin: {
          contents: [
            "import { ConsentCard } from './src/webview/consentCard';",
            'const sent = [];',
            'const card = new ConsentCard((message) => sent.push(message));',
            "document.getElementById('slot').append(card.element);",
            'window.consent = { card, sent };',
          ].join('\n'),
          resolveDir: sourceRoot(),
          loader: 'ts',
          sourcefile: 'consentCardPage.ts',
        },
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        logLevel: 'silent',
      })
    ).outputFiles[0]?.text;
    assert.ok(cached, 'the card bundled');
    return cached;
  }

  it('Enter on Approve sends the decision; the answer moves focus to the next skill and says what happened', async () => {
    await render(consentCard([alpha, beta, gamma]));
    await page.getByRole('button', { name: 'Approve the project skill beta' }).focus();
    await page.keyboard.press('Enter');
    assert.deepEqual(await sent(), [{ type: 'consent/decide', file: beta.file, hash: beta.hash, decision: 'approve' }]);
    await render(consentCard([alpha, gamma]));
    assert.equal(await focused(), 'Approve the project skill gamma');
    assert.equal(await status(), 'Approved beta. 2 project skills still wait for a decision.');
  });

  it('a click on the last skill’s Keep Out moves focus back to the one before it', async () => {
    await render(consentCard([alpha, gamma]));
    await page.getByRole('button', { name: 'Keep the project skill gamma out of the catalog' }).click();
    await render(consentCard([alpha]));
    assert.equal(await focused(), 'Approve the project skill alpha');
    assert.equal(await status(), 'Kept gamma out of the catalog. 1 project skill still waits for a decision.');
  });

  it('when the last decision closes the card, focus goes to the control after it, never to the page', async () => {
    await render(consentCard([alpha]));
    await page.getByRole('button', { name: 'Approve the project skill alpha' }).click();
    await render(consentCard([]));
    assert.equal(await page.getByTestId('consent-card').count(), 0, 'the card is gone');
    assert.equal(await focused(), 'Message');
    assert.equal(await status(), 'Approved alpha. No project skill waits for consent any more.');
  });

  it('an update that is not the answer keeps focus on the same button', async () => {
    await render(consentCard([alpha, beta]));
    await page.getByRole('button', { name: 'Keep the project skill beta out of the catalog' }).focus();
    await render(consentCard([alpha, consentSkill('beta', { description: 'Helps with beta, now described better.' })]));
    assert.equal(await focused(), 'Keep the project skill beta out of the catalog');
    assert.equal(await status(), '', 'nothing to announce');
  });

  it('a reviewed card takes focus on its heading once, and returns there when nothing waits', async () => {
    const keptOut = consentSkill('alpha', { state: 'declined', reason: 'declined' });
    await render(consentCard([keptOut, beta], true));
    assert.equal(await focused(), '2 project skills to review');
    await page.getByRole('button', { name: 'Keep the project skill beta out of the catalog' }).press('Enter');
    await render(consentCard([keptOut, consentSkill('beta', { state: 'declined', reason: 'declined' })], true));
    assert.equal(await focused(), '2 project skills to review');
    assert.equal(await status(), 'Kept beta out of the catalog. No skill on the card waits for a decision.');
  });

  it('Approve All and Later leave focus on the control after the card', async () => {
    await render(consentCard([alpha, beta]));
    await page.getByRole('button', { name: 'Approve all 2 listed project skills' }).click();
    assert.deepEqual((await sent()).at(-1), { type: 'consent/approveAll', hashes: [alpha.hash, beta.hash] });
    await render(consentCard([]));
    assert.equal(await focused(), 'Message');
    assert.equal(await status(), 'Approved 2 project skills. No project skill waits for consent any more.');

    await render(consentCard([gamma]));
    await page.getByRole('button', { name: 'Hide this card; the skills stay out until you decide' }).press('Enter');
    assert.equal(await page.getByTestId('consent-card').count(), 0);
    assert.equal(await focused(), 'Message');
    assert.match((await status()) ?? '', /^Card hidden\. The project skills stay out until you decide/);
  });
});
