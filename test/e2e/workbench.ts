import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { BrowserSession } from '../harness/browser';
import { findFrame, launchBrowser } from '../harness/browser';
import type { CodeServer, CodeServerOptions } from '../harness/codeServer';
import { startCodeServer } from '../harness/codeServer';
import { repoRoot } from '../repoRoot';

/** The packaged extension built by `npm run package`; the e2e suite tests what users install. */
export function packagedVsix(): string {
  const root = repoRoot();
  const { name, version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = path.join(root, `${name}-${version}.vsix`);
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run "npm run package" first`);
  return vsix;
}

export function resultsDir(): string {
  const dir = path.join(repoRoot(), 'test-results');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export interface Workbench {
  readonly server: CodeServer;
  readonly session: BrowserSession;
  readonly page: Page;
  close(): Promise<void>;
}

/** Starts code-server with the packaged extension and loads the workbench in Chromium. */
export async function openWorkbench(options: CodeServerOptions & { colorScheme?: 'dark' | 'light' }): Promise<Workbench> {
  const server = await startCodeServer({ ...options, installExtensions: [packagedVsix()] });
  let session: BrowserSession;
  try {
    session = await launchBrowser({ colorScheme: options.colorScheme ?? 'dark' });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const close = async () => {
    await session.close();
    await server.stop();
  };
  try {
    await session.page.goto(server.workbenchUrl(options.workspace ? { folder: options.workspace } : {}));
    await session.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  } catch (error) {
    await close();
    throw new Error(`The workbench did not load: ${(error as Error).message}\n${server.output().slice(-3000)}`);
  }
  return { server, session, page: session.page, close };
}

/** Clicks Skillwright's activity-bar icon and returns the panel's webview frame once it rendered. */
export async function openPanel(page: Page): Promise<Frame> {
  const icon = page.getByRole('tab', { name: /^Skillwright/ });
  await icon.first().waitFor({ timeout: 60_000 });
  await icon.first().click();
  const frame = await findFrame(page, 'main#app[aria-busy="false"]', 60_000);
  return frame;
}


/** Selects one of the panel's tabs (Chat, Skills, Memory, History, Status) the way a user would. */
export async function openTab(panel: Frame, name: 'Chat' | 'Skills' | 'Memory' | 'History' | 'Status'): Promise<void> {
  const tab = panel.getByRole('tab', { name, exact: true });
  await tab.click();
  await panel.locator(`#${await tab.getAttribute('aria-controls')}:not([hidden])`).waitFor();
}
