import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { findFrame } from '../harness/browser';
import type { CodeServer } from '../harness/codeServer';
import { writeUserSettings } from '../harness/codeServer';
import { sharedCodeServer, sharedContext } from '../harness/pool';
import { until } from '../harness/until';
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

export interface WorkbenchOptions {
  /** Folder to open; none opens an empty window. */
  readonly workspace?: string;
  /** Leave workspace trust on (Restricted Mode tests): a server of its own. */
  readonly trust?: boolean;
  readonly colorScheme?: 'dark' | 'light';
  /** The user's settings for this window (on top of the harness's base settings). */
  readonly userSettings?: Record<string, unknown>;
  /**
   * Fills the server's home folder (user skills, USER.md) or user data (the extension's global
   * storage: sessions) before the window loads, as an earlier run would have left them.
   */
  readonly seed?: (dirs: { home: string; userDataDir: string }) => void | Promise<void>;
}

export interface Workbench {
  readonly server: CodeServer;
  readonly page: Page;
  /** The home folder the extension host sees (emptied for each window). */
  readonly home: string;
  close(): Promise<void>;
}

/** What a page may keep in the browser for its origin; cleared before each window of a server. */
const SITE_DATA = 'cookies,file_systems,indexeddb,local_storage,websql,service_workers,cache_storage';

/** Empties what a window of the shared server left behind: the extension's storage, the home folder. */
function resetServerState(server: CodeServer, userSettings: Record<string, unknown> | undefined): void {
  const user = path.join(server.userDataDir, 'User');
  for (const dir of ['globalStorage', 'workspaceStorage', 'History']) fs.rmSync(path.join(user, dir), { recursive: true, force: true });
  for (const entry of fs.readdirSync(server.home)) fs.rmSync(path.join(server.home, entry), { recursive: true, force: true });
  writeUserSettings(server.userDataDir, userSettings);
}

/**
 * A new page in the server's browser context, with the origin's site data gone: the workbench keeps
 * extension state, secrets and trust decisions in IndexedDB and local storage. Checked on a page of
 * the origin before the workbench loads, so a reset that missed something fails loudly.
 */
async function freshPage(server: CodeServer, colorScheme: 'dark' | 'light'): Promise<Page> {
  const context = await sharedContext(server.origin, () => ({ viewport: { width: 1400, height: 900 } }));
  for (const page of context.pages()) await page.close();
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin: server.origin, storageTypes: SITE_DATA });
  await cdp.detach();
  await page.goto(`${server.origin}/healthz`);
  const left = await page.evaluate<{ databases: number; storage: number; workers: number }>(
    '(async () => ({ databases: (await indexedDB.databases()).length, storage: localStorage.length, workers: (await navigator.serviceWorker.getRegistrations()).length }))()',
  );
  if (left.databases + left.storage + left.workers > 0) throw new Error(`The last window's site data survived the reset: ${JSON.stringify(left)}`);
  return page;
}

/**
 * Opens a fresh workbench window with the packaged extension: on the shared code-server for its
 * trust setting (started once, with the .vsix installed), in a new page of that server's browser
 * context. Before the window loads, the previous window's extension host is ended and the server's
 * user state and the origin's site data are reset, so every suite starts as on a fresh server.
 */
export async function openWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  const trust = options.trust ?? false;
  const server = await sharedCodeServer(trust ? 'trust' : 'no-trust', () => ({
    trust,
    installExtensions: [packagedVsix()],
    // A window without ?folder= is an empty window, not the folder the last suite opened.
    extraArgs: ['--ignore-last-opened'],
  }));
  await server.stopExtensionHosts();
  // The sample skills came with the workspace; consent (on by default) would hold them back. A suite
  // about consent turns it on in its own userSettings.
  resetServerState(server, { 'skillwright.skills.projectConsent': false, ...options.userSettings });
  await options.seed?.({ home: server.home, userDataDir: server.userDataDir });
  const page = await freshPage(server, options.colorScheme ?? 'dark');
  const close = async () => {
    await page.close().catch(() => undefined);
    await server.stopExtensionHosts();
  };
  try {
    // The workbench showing is what counts, not the page's load event (slow on a busy machine).
    await page.goto(server.workbenchUrl(options.workspace ? { folder: options.workspace } : {}), { waitUntil: 'commit' });
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  } catch (error) {
    await close();
    throw new Error(`The workbench did not load: ${(error as Error).message}\n${server.output().slice(-3000)}`, { cause: error });
  }
  return { server, page, home: server.home, close };
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

/**
 * Takes the mouse off the panel (and with `escape`, closes what a key press closes) and waits until
 * no hover shows and the page has painted, so a screenshot shows the page at rest.
 */
export async function calm(page: Page, options: { x?: number; y?: number; escape?: boolean } = {}): Promise<void> {
  await page.mouse.move(options.x ?? 700, options.y ?? 450);
  if (options.escape) await page.keyboard.press('Escape');
  await until('no hover in the workbench', async () => (await page.locator('.workbench-hover, .monaco-hover').filter({ visible: true }).count()) === 0, 10_000);
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
}

/**
 * Resolves once every image under `selector` in `frame` has loaded or failed: any load or error
 * handler that could run has run, so a check that nothing ran can follow.
 */
export async function imagesSettled(frame: Frame, selector: string): Promise<void> {
  await until(`the images in ${selector} to settle`, () =>
    frame.evaluate<boolean>(`[...document.querySelectorAll(${JSON.stringify(`${selector} img`)})].every((image) => image.complete)`),
  );
}
