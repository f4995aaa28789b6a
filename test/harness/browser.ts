import * as fs from 'node:fs';
import type { Browser, BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { until } from './until';

/** Debian's Chromium; Playwright's own browser download does not work offline. */
export const CHROMIUM = process.env.SKILLWRIGHT_CHROMIUM ?? '/usr/bin/chromium';

export interface BrowserSession {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

export interface WindowOptions {
  readonly colorScheme?: 'dark' | 'light';
}

/** Starts headless Chromium; one browser can serve many windows (see openWindow). */
export async function launchChromium(options: { executablePath?: string } = {}): Promise<Browser> {
  const executablePath = options.executablePath ?? CHROMIUM;
  if (!fs.existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: install Debian's "chromium" package (apt-get install -y chromium) or set SKILLWRIGHT_CHROMIUM.`,
    );
  }
  try {
    return await chromium.launch({
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
    throw new Error(`Chromium could not start (${executablePath}): ${(error as Error).message}`, { cause: error });
  }
}

/**
 * A fresh window in a running browser: a context of its own, so nothing a page kept (IndexedDB,
 * where the workbench stores extension state, local storage, cookies) leaks into the next one.
 * `close()` closes the context and leaves the browser running.
 */
export async function openWindow(browser: Browser, options: WindowOptions = {}): Promise<BrowserSession> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: options.colorScheme ?? 'dark' });
  const page = await context.newPage();
  return {
    browser,
    context,
    page,
    async close() {
      await context.close().catch(() => undefined);
    },
  };
}

/** Chromium with one window; `close()` ends the browser. For runners that need a single page. */
export async function launchBrowser(options: WindowOptions & { executablePath?: string } = {}): Promise<BrowserSession> {
  const browser = await launchChromium(options);
  const session = await openWindow(browser, options);
  return {
    ...session,
    async close() {
      await browser.close().catch(() => undefined);
    },
  };
}

/** Finds the (nested) webview frame that holds a selector; webviews are iframes inside iframes. */
export async function findFrame(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  return until(
    `a frame with ${selector}`,
    async () => {
      for (const frame of page.frames()) {
        try {
          if ((await frame.locator(selector).count()) > 0) return frame;
        } catch {
          // frame detached while we looked
        }
      }
      return undefined;
    },
    timeoutMs,
  ).catch(() => {
    throw new Error(`No frame with ${selector} appeared within ${timeoutMs} ms`);
  });
}

/**
 * The text of the first element a locator matches now, or '' when there is none. For probes
 * polled by `until`: a bare `innerText()` waits up to Playwright's 30 s default for an element to
 * appear, so one probe of a missing element would use up the whole deadline of the wait around it.
 */
export async function textNow(locator: Locator): Promise<string> {
  if ((await locator.count().catch(() => 0)) === 0) return '';
  return locator.first().innerText({ timeout: 1_000 }).catch(() => '');
}
