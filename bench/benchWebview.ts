/**
 * The panel's webview in Chromium (issue 5's figures): rendering a 1,000-message session,
 * input latency while a reply streams at 100 chunks/s, and the minified bundle sizes. The page
 * loads the production bundle with a stand-in for `acquireVsCodeApi`; messages arrive the way the
 * host sends them (window `message` events).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { ChatItem, HostToWebview, SkillListItem } from '../src/shared/protocol';
import { launchBrowser } from '../test/harness/browser';
import { repoRoot } from '../test/repoRoot';
import { measurePanelLoad } from './benchPanelLoad';

const root = repoRoot();

function row(label: string, ours: string, target: string): void {
  console.log(`${label.padEnd(56)} | ${ours.padStart(10)} | ${target.padStart(9)}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** A realistic session: requests, Markdown replies with code, and tool cards. */
export function syntheticSession(messages: number): ChatItem[] {
  const items: ChatItem[] = [];
  for (let i = 0; items.length < messages; i++) {
    items.push({ kind: 'user', id: `u${i}`, text: `Please look at module ${i} and fix the failing test in src/module${i}.ts` });
    items.push({
      kind: 'tool',
      id: `c${i}`,
      name: 'read_file',
      summary: `read_file: src/module${i}.ts`,
      args: JSON.stringify({ path: `src/module${i}.ts` }, null, 2),
      state: 'done',
      result: `{"success":true,"content":"${'export const x = 1;\\n'.repeat(20)}"}`,
      durationMs: 4,
    });
    items.push({
      kind: 'assistant',
      id: `a${i}`,
      text: `The test for **module ${i}** fails because \`parse()\` drops the last line.\n\n1. Read the parser\n2. Fix the loop bound\n3. Run the tests\n\n\`\`\`ts\nfor (let i = 0; i <= lines.length - 1; i++) {\n  out.push(parse(lines[i]));\n}\n\`\`\`\n\nSee [the docs](https://example.com/docs/${i}) for the format.`,
    });
  }
  return items.slice(0, messages);
}

/** A skill list like the Skills tab receives: categories of 40, mixed scopes, some findings and markers. */
export function syntheticSkills(count: number): SkillListItem[] {
  return Array.from({ length: count }, (_, i) => ({
    file: `/skills/cat-${Math.floor(i / 40)}/skill-${i}/SKILL.md`,
    name: `skill-${i}`,
    description: `Does task number ${i} for the team: reads the inputs, applies the steps and checks the result. Use when asked about task ${i}.`,
    category: `cat-${Math.floor(i / 40)}`,
    scope: i % 3 === 0 ? 'user' : 'project',
    rootLabel: i % 3 === 0 ? '~/.agents/skills' : '.agents/skills',
    version: '1.0.0',
    errors: i % 50 === 0 ? 1 : 0,
    warnings: i % 7 === 0 ? 1 : 0,
    platformHidden: false,
    disabled: i % 97 === 0,
    usage: { runs: i % 5, views: i % 11 },
    inCatalog: i < 100 ? 'full' : 'omitted',
  }));
}

/** Milliseconds from handing a skill list to the page until the frame after it was painted. */
async function renderSkills(page: Page, skills: SkillListItem[]): Promise<number> {
  const message: HostToWebview = { type: 'skills/list', list: { loading: false, skills, trusted: true } };
  return page.evaluate(
    (data) =>
      new Promise<number>((resolve) => {
        const started = performance.now();
        window.dispatchEvent(new MessageEvent('message', { data }));
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - started)));
      }),
    message,
  );
}

async function openPage(page: Page): Promise<void> {
  const css = ['panel.css', 'chat.css', 'skills.css', 'memory.css', 'history.css'].map((name) => fs.readFileSync(path.join(root, 'media', name), 'utf8')).join('\n');
  await page.setContent(`<!DOCTYPE html><html><head><style>${css}</style></head><body><main id="app" aria-busy="true"></main></body></html>`);
  await page.evaluate(() => {
    const posted: unknown[] = [];
    let state: unknown;
    (globalThis as unknown as Record<string, unknown>)['__posted'] = posted;
    (globalThis as unknown as Record<string, unknown>)['acquireVsCodeApi'] = () => ({
      postMessage: (message: unknown) => posted.push(message),
      getState: () => state,
      setState: (value: unknown) => (state = value),
    });
  });
  await page.addScriptTag({ content: fs.readFileSync(path.join(root, 'dist', 'webview.js'), 'utf8') });
}

async function post(page: Page, message: HostToWebview): Promise<void> {
  await page.evaluate((data) => window.dispatchEvent(new MessageEvent('message', { data })), message);
}

/** Milliseconds from handing the snapshot to the page until the frame after it was painted. */
async function renderSnapshot(page: Page, items: ChatItem[]): Promise<number> {
  const message: HostToWebview = { type: 'chat/snapshot', chat: { items, busy: false, trusted: true } };
  return page.evaluate(
    (data) =>
      new Promise<number>((resolve) => {
        const started = performance.now();
        window.dispatchEvent(new MessageEvent('message', { data }));
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - started)));
      }),
    message,
  );
}

async function streamingLatency(page: Page): Promise<number[]> {
  await post(page, { type: 'chat/snapshot', chat: { items: syntheticSession(200), busy: true, trusted: true } });
  await post(page, { type: 'chat/item', item: { kind: 'assistant', id: 'live', text: '' } });
  await page.evaluate(() => {
    const latencies: number[] = [];
    (globalThis as unknown as Record<string, unknown>)['__latencies'] = latencies;
    const input = document.querySelector('textarea');
    input?.addEventListener('keydown', (event) => {
      // Delay from the key event to the next frame painted after its handler: what a person feels.
      requestAnimationFrame(() => latencies.push(performance.now() - event.timeStamp));
    });
    input?.focus();
    let sent = 0;
    const chunk = 'streamed **text** with `code` and words, ';
    const timer = setInterval(() => {
      window.dispatchEvent(new MessageEvent('message', { data: { type: 'chat/delta', id: 'live', delta: sent % 40 === 39 ? `${chunk}\n\n` : chunk } }));
      if (++sent >= 500) clearInterval(timer);
    }, 10);
  });
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('a');
    await page.waitForTimeout(70);
  }
  return page.evaluate(() => (globalThis as unknown as { __latencies: number[] }).__latencies);
}

async function main(): Promise<void> {
  const bundle = path.join(root, 'dist', 'webview.js');
  if (!fs.existsSync(bundle)) throw new Error('dist/webview.js is missing: run "node scripts/build.mjs --production" first');
  const session = await launchBrowser();
  try {
    const errors: string[] = [];
    session.page.on('pageerror', (error) => errors.push(error.message));
    session.page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(message.text());
    });
    await openPage(session.page);
    const items = syntheticSession(1_000);
    const renders: number[] = [];
    for (let i = 0; i < 5; i++) renders.push(await renderSnapshot(session.page, items));
    const shown = await session.page.locator('.chat-log > *').count();
    if (shown !== items.length) throw new Error(`the chat showed ${shown} of ${items.length} items: ${errors.join(' | ').slice(0, 500)}`);
    const skillRenders = new Map<number, number[]>();
    for (const count of [612, 10_000]) {
      const skills = syntheticSkills(count);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) times.push(await renderSkills(session.page, skills));
      const shown = await session.page.evaluate(() => document.querySelector('#panel-skills')?.textContent ?? '');
      if (!shown.includes('cat-0')) throw new Error(`the Skills tab did not show the list of ${count}: ${shown.slice(0, 300)} ${errors.join(' | ').slice(0, 300)}`);
      skillRenders.set(count, times);
    }
    const latencies = await streamingLatency(session.page);
    if (latencies.length < 50) throw new Error(`only ${latencies.length} key presses were measured: ${errors.join(' | ').slice(0, 500)}`);
    const sizes = ['webview.js', 'preview.js']
      .map((name) => path.join(root, 'dist', name))
      .filter((file) => fs.existsSync(file))
      .map((file) => ({ name: path.basename(file), kb: fs.statSync(file).size / 1024 }));

    console.log('\nWebview in Chromium (production bundle; medians of 5 renders)');
    row('figure', 'ours', 'target');
    row('-'.repeat(56), '-'.repeat(10), '-'.repeat(9));
    row('render a 1,000-message session (to the next paint)', `${median(renders).toFixed(0)} ms`, '≤ 1000 ms');
    row('input latency while streaming 100 chunks/s, p50', `${percentile(latencies, 50).toFixed(1)} ms`, '< 50 ms');
    row('input latency while streaming 100 chunks/s, p95', `${percentile(latencies, 95).toFixed(1)} ms`, '< 50 ms');
    row('input latency while streaming 100 chunks/s, max', `${Math.max(...latencies).toFixed(1)} ms`, '—');
    for (const [count, times] of skillRenders) row(`Skills tab: a list of ${count.toLocaleString('en-US')} skills (to the next paint)`, `${median(times).toFixed(0)} ms`, '—');
    for (const size of sizes) row(`bundle ${size.name} (minified)`, `${size.kb.toFixed(0)} KB`, '≤ 400 KB');
    console.log(`(${latencies.length} key presses measured; renders: ${renders.map((r) => r.toFixed(0)).join(', ')} ms)`);
  } finally {
    await session.close();
  }
  await panelUnderLoad();
}

/** The host's side of the panel while it indexes 10,000 skills and 100,000 session messages (see benchPanelLoad.ts for what is and is not measured). */
async function panelUnderLoad(): Promise<void> {
  const rows = await measurePanelLoad({ root });
  console.log('\nPanel requests while the host indexes (host-side handlers on the indexing event loop; a worker thread posts the requests)');
  row('figure', 'ours', 'target');
  row('-'.repeat(56), '-'.repeat(10), '-'.repeat(9));
  for (const [label = '', ours = '', target = ''] of rows) row(label, ours, target);
}

if (require.main === module) {
  // --panel-load: only the host-side figures (no browser, no bundle needed).
  (process.argv.includes('--panel-load') ? panelUnderLoad() : main()).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
