import type { Page } from 'playwright-core';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';

const ATTEMPTS = 3;

/**
 * Opens the palette, types `text` and waits until `ready` says the list shows what was asked.
 * Tries again from a fresh palette: on a busy machine the palette can open before the remote
 * extension host has reported its commands, or before file search has indexed the workspace.
 */
async function typeInPalette(page: Page, text: string, what: string, ready: () => Promise<boolean>): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    await input.waitFor();
    await input.fill(text);
    try {
      await until(what, ready, 20_000);
      return;
    } catch (error) {
      if (attempt === ATTEMPTS) throw error;
      await page.keyboard.press('Escape');
    }
  }
}

/** Runs a palette command by its title, once the palette lists it. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title.replace(/^Skillwright: /, '') });
  // The palette lists an extension's commands once the remote extension host has reported it; its
  // activity-bar icon shows the same moment.
  await page.getByRole('tab', { name: /^Skillwright/ }).first().waitFor({ timeout: 60_000 });
  await typeInPalette(page, `>${title}`, `the palette to list "${title}"`, async () => (await row.count()) > 0);
  await page.keyboard.press('Enter');
}

/**
 * Opens a workspace file through Quick Open, the way a keyboard user would, in the first editor
 * group: Quick Open uses the active group, and after a click in a webview that is the webview's
 * group, where the file would cover the webview instead of sitting beside it.
 */
export async function quickOpenFile(page: Page, query: string): Promise<void> {
  await page.keyboard.press('Control+1');
  // Results arrive in steps: Enter only once the first row is the file asked for (its folder shows in the row).
  const folder = query.split('/').slice(-2, -1)[0] ?? query;
  const file = query.split('/').pop() ?? query;
  let first = '';
  await typeInPalette(page, query, `quick open to list ${query} first`, async () => {
    first = await textNow(page.locator('.quick-input-list .monaco-list-row'));
    return first.includes(file) && first.includes(folder);
  }).catch((error: unknown) => {
    throw new Error(`${(error as Error).message} (the first row was "${first.replace(/\s+/g, ' ')}")`, { cause: error });
  });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/** Waits until the quick input's title matches, saying what it showed if it never does. */
export async function quickInputTitle(page: Page, title: RegExp): Promise<void> {
  const shown = page.locator('.quick-input-widget .quick-input-title');
  let last = '';
  await until(`the quick input "${title.source}"`, async () => title.test((last = await textNow(shown)))).catch((error: unknown) => {
    throw new Error(`${(error as Error).message} (the quick input's title was "${last}")`, { cause: error });
  });
}
