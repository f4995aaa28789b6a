import * as fs from 'node:fs';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's Chromium; Playwright's own browser download does not work offline. */
export const CHROMIUM = process.env.SKILLWRIGHT_CHROMIUM ?? '/usr/bin/chromium';

export interface BrowserSession {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(
  options: { colorScheme?: 'dark' | 'light'; executablePath?: string } = {},
): Promise<BrowserSession> {
  const executablePath = options.executablePath ?? CHROMIUM;
  if (!fs.existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: install Debian's "chromium" package (apt-get install -y chromium) or set SKILLWRIGHT_CHROMIUM.`,
    );
  }
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath,
      headless: true,
      timeout: 60_000,
      // Without the background-networking flags Chromium floods the closed network with requests.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    });
  } catch (error) {
    throw new Error(`Chromium could not start (${executablePath}): ${(error as Error).message}`);
  }
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: options.colorScheme ?? 'dark' });
  const page = await context.newPage();
  return {
    browser,
    context,
    page,
    async close() {
      await browser.close().catch(() => undefined);
    },
  };
}

/** Finds the (nested) webview frame that holds a selector; webviews are iframes inside iframes. */
export async function findFrame(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if ((await frame.locator(selector).count()) > 0) return frame;
      } catch {
        // frame detached while we looked
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`No frame with ${selector} appeared within ${timeoutMs} ms`);
}
