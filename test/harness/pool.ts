import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from './browser';
import type { CodeServer, CodeServerOptions } from './codeServer';
import { startCodeServer } from './codeServer';

/**
 * Processes a test run shares between suites: one Chromium, and one code-server per key (a
 * configuration that needs a server of its own, such as workspace trust on or off). Each starts on
 * first use; `closePool()` (mocha's global teardown) stops them all. Starting code-server,
 * installing the .vsix and launching Chromium cost seconds each; a fresh window per suite costs
 * far less, and suites get their clean state from that window (see test/e2e/workbench.ts).
 */
let browser: Promise<Browser> | undefined;
const servers = new Map<string, Promise<CodeServer>>();
const contexts = new Map<string, Promise<BrowserContext>>();
/** Process groups still to end if the run exits without the teardown (Ctrl-C, a crash). */
const running = new Set<number>();
let exitHookInstalled = false;

/** The counts of what this pool started, for the run's summary. */
export const launches = { chromium: 0, codeServer: 0 };

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous on purpose: 'exit' handlers cannot wait. Leaves nothing running behind a crashed run.
  process.on('exit', () => {
    for (const pgid of running) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export function sharedChromium(): Promise<Browser> {
  if (!browser) {
    launches.chromium += 1;
    browser = launchChromium();
    // A failed launch is not cached: the next suite tries again and reports its own error.
    browser.catch(() => (browser = undefined));
  }
  return browser;
}

/**
 * A browser context of the shared Chromium for `key`, created the first time it is asked for. Its
 * windows share the HTTP cache, so the workbench's files are not fetched again; whoever reuses it
 * clears the site data it must not share (see test/e2e/workbench.ts).
 */
export function sharedContext(key: string, options: () => Parameters<Browser['newContext']>[0]): Promise<BrowserContext> {
  let context = contexts.get(key);
  if (!context) {
    context = sharedChromium().then((shared) => shared.newContext(options()));
    contexts.set(key, context);
    context.catch(() => contexts.delete(key));
  }
  return context;
}

/** The code-server for `key`, started with `options` the first time it is asked for. */
export function sharedCodeServer(key: string, options: () => CodeServerOptions): Promise<CodeServer> {
  let server = servers.get(key);
  if (!server) {
    installExitHook();
    launches.codeServer += 1;
    server = startCodeServer(options()).then((started) => {
      const pgid = started.pid;
      if (pgid) running.add(pgid);
      return started;
    });
    servers.set(key, server);
    server.catch(() => servers.delete(key));
  }
  return server;
}

/** Stops every shared process; safe to call twice. */
export async function closePool(): Promise<void> {
  const stopping = [...servers.values()].map(async (pending) => {
    const server = await pending.catch(() => undefined);
    if (!server) return;
    await server.stop();
    if (server.pid) running.delete(server.pid);
  });
  servers.clear();
  // Closing the browser closes its contexts.
  contexts.clear();
  const shared = browser;
  browser = undefined;
  await Promise.all([...stopping, shared?.then((b) => b.close()).catch(() => undefined)]);
}
