/**
 * The panel under load (issue 12's figure): while the host builds the index of 10,000 skills and
 * catches up the session index over 100,000 messages, how long does a panel request take from
 * the panel posting it to the panel receiving the answer?
 *
 * What is measured, honestly: VS Code is not here. A worker thread stands in for the webview and
 * posts requests over a MessagePort (each kind again shortly after its answer); the main thread stands in for the extension host
 * and answers each with the same core calls the host's handlers make (skillsController: the list
 * from browserSkills, the search from browserSearch after `await ready`, as the host does;
 * historyController: searchHistory), serialising the answer to JSON as VS Code does for webview
 * messages. Both indexes run on the same event loop as the handlers, as in the extension host, so
 * a long synchronous slice of indexing shows as a slow answer. Missing: VS Code's IPC hop between
 * the extension host and the renderer (about a millisecond) and the webview's rendering (measured
 * in benchWebview's other figures).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { NodeFileSystem } from '../src/core/base/nodeFileSystem';
import type { SkillRoot } from '../src/core/base/skillRoots';
import { SyncReadFileSystem } from '../src/core/base/syncReadFileSystem';
import { searchHistory } from '../src/core/sessions/historySearch';
import { SessionIndex, sqlJsLoader } from '../src/core/sessions/sessionIndex';
import { NodeAppendPort, SessionLog } from '../src/core/sessions/sessionLog';
import type { SessionRecord } from '../src/core/sessions/sessionRecords';
import { browserSkills } from '../src/core/skills/catalog/skillListItems';
import { SkillIndex } from '../src/core/skills/index/skillIndex';
import { browserSearch } from '../src/core/skills/search/browserSearch';
import { buildSkillSearch } from '../src/core/skills/search/skillSearchBuild';
import type { SkillSearch } from '../src/core/skills/search/skillSearch';
import { seededRandom, skillTree } from './generateSkillTree';

export const PANEL_ROUND_TRIP_TARGET_MS = 100;

type RequestKind = 'ping' | 'skills/list' | 'skills/search' | 'history/search';
const KINDS: readonly RequestKind[] = ['ping', 'skills/list', 'history/search', 'skills/search'];
/** Pause after an answer before the next request of the kind: a ping stands for any small request (tab switch, a click). */
const PAUSE_MS: Readonly<Record<RequestKind, number>> = { ping: 20, 'skills/list': 500, 'history/search': 250, 'skills/search': 250 };

interface Sample {
  readonly kind: RequestKind;
  readonly roundTripMs: number;
  readonly handlerMs: number;
  /** True when the answer was sent while either index was still being built. */
  readonly indexing: boolean;
}

/**
 * The stand-in webview: one loop per request kind, each posting its next request a short pause
 * after the previous answer (as a person clicks and reads), so answers never queue behind a backlog
 * of its own making. A sample counts as "while indexing" when its request was sent before the host
 * said both indexes were done. Hands the samples over on `stop`.
 */
const PANEL_WORKER = `
const { parentPort } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const pauses = ${JSON.stringify(Object.fromEntries(KINDS.map((kind) => [kind, PAUSE_MS[kind]])))};
const pending = new Map();
const samples = [];
let next = 0;
let indexedAt = Infinity;
let stopped = false;
const send = (kind) => {
  if (stopped) return;
  const id = next++;
  pending.set(id, performance.now());
  parentPort.postMessage({ id, kind });
};
parentPort.on('message', (message) => {
  if (message === 'stop') {
    stopped = true;
    parentPort.postMessage({ samples });
    return;
  }
  if (message === 'indexed') {
    indexedAt = performance.now();
    return;
  }
  const answer = JSON.parse(message);
  const sentAt = pending.get(answer.id);
  pending.delete(answer.id);
  samples.push({ kind: answer.kind, roundTripMs: performance.now() - sentAt, handlerMs: answer.handlerMs, indexing: sentAt < indexedAt });
  if (answer.kind === 'ping') parentPort.postMessage({ progress: samples.length, indexing: sentAt < indexedAt });
  setTimeout(() => send(answer.kind), pauses[answer.kind]);
});
for (const kind of Object.keys(pauses)) send(kind);
`;

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'pe', 'su', 'do', 'fa', 'gu', 'hi', 'jo', 'be'];

/** 100,000 messages in JSONL session files (the session log's own format), from a fixed seed. */
function writeSessions(storage: string, sessions: number, perSession: number): number {
  const random = seededRandom(20_261_202);
  const word = (): string => {
    let n = Math.floor(random() ** 3 * 8_000);
    let out = '';
    do {
      out += SYLLABLES[n % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
    } while (n > 0);
    return out.length < 4 ? `${out}x` : out;
  };
  const sentence = (words: number): string => Array.from({ length: words }, word).join(' ');
  const dir = path.join(storage, 'sessions');
  fs.mkdirSync(dir, { recursive: true });
  let bytes = 0;
  const base = Date.UTC(2026, 0, 1);
  for (let s = 0; s < sessions; s++) {
    const created = new Date(base + s * 3_600_000);
    const id = `${created.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${s.toString(16).padStart(6, '0')}`;
    const records: SessionRecord[] = [{ type: 'session', v: 1, id, created: created.toISOString(), model: 'bench-model', systemPrompt: 'You are a benchmark.' }];
    for (let m = 1; m <= perSession; m++) {
      const at = new Date(created.getTime() + m * 5_000).toISOString();
      records.push({ type: 'message', id: `m${m}`, role: m % 2 ? 'user' : 'assistant', content: sentence(8 + Math.floor(random() * 60)), at });
    }
    const text = records.map((record) => `${JSON.stringify(record)}\n`).join('');
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), text);
    bytes += text.length;
  }
  return bytes;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export interface PanelLoadOptions {
  readonly skills?: number;
  readonly sessions?: number;
  readonly messagesPerSession?: number;
  /** The repository root (for sql.js's wasm). */
  readonly root: string;
}

/** Runs the measurement; returns rows of [figure, ours, target] for the caller's table. */
export async function measurePanelLoad(options: PanelLoadOptions): Promise<string[][]> {
  const skillCount = options.skills ?? 10_000;
  const sessionCount = options.sessions ?? 2_000;
  const perSession = options.messagesPerSession ?? 50;
  const tree = skillTree(skillCount);
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-bench-panel-'));
  const rows: string[][] = [];
  const worker = new Worker(PANEL_WORKER, { eval: true });
  try {
    const jsonl = writeSessions(storage, sessionCount, perSession);
    const root: SkillRoot = { path: tree, scope: 'project', label: '.agents/skills', writeTarget: true };
    const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir: storage });
    const memory = { rss: 0, heap: 0 };
    const sampleMemory = (): void => {
      const used = process.memoryUsage();
      memory.rss = Math.max(memory.rss, used.rss);
      memory.heap = Math.max(memory.heap, used.heapUsed);
    };
    sampleMemory();
    const rssBefore = memory.rss;

    // The longest time the loop could not turn (a 5 ms timer firing late), whatever held it.
    let stall = { ms: 0, at: 0 };
    let tick = performance.now();
    const stallTimer = setInterval(() => {
      const now = performance.now();
      if (now - tick - 5 > stall.ms) stall = { ms: now - tick - 5, at: now };
      tick = now;
    }, 5);

    // The host's two indexes, cold (no snapshot, no saved session index): the worst case.
    const started = performance.now();
    const skillIndex = new SkillIndex({ fs: new SyncReadFileSystem(), roots: [root] });
    const sessionIndex = new SessionIndex({ log, sqlJs: sqlJsLoader(path.join(options.root, 'node_modules', 'sql.js', 'dist')), saveDelayMs: 60_000 });
    let search: SkillSearch | undefined;
    let searchBuildMs = 0;
    let skillsMs = 0;
    let sessionsMs = 0;
    let indexing = true;
    const skillsReady = skillIndex.load().then(async () => {
      // As skillService does once the index is ready: the search built in slices (searchReady).
      const t = performance.now();
      search = await buildSkillSearch(skillIndex.active());
      searchBuildMs = performance.now() - t;
      skillsMs = performance.now() - started;
    });
    const sessionsReady = sessionIndex.ready().then(() => {
      sessionsMs = performance.now() - started;
    });
    const queries = ['deploy', 'kalo mine', 'test the build', 'rutavo'];
    let served = 0;
    let afterIndexing = 0;
    let stopAsked = false;
    const samples = new Promise<Sample[]>((resolve) => {
      worker.on('message', (message: { id?: number; kind?: RequestKind; samples?: Sample[]; progress?: number; indexing?: boolean }) => {
        if (message.samples) return resolve(message.samples);
        if (message.progress !== undefined) {
          if (!message.indexing) afterIndexing++;
          // Enough pings after both indexes are done for steady-state figures: then stop.
          if (afterIndexing >= 150 && !stopAsked) {
            stopAsked = true;
            worker.postMessage('stop');
          }
          return;
        }
        void answer(message.id as number, message.kind as RequestKind);
      });
    });
    const answer = async (id: number, kind: RequestKind): Promise<void> => {
      const t = performance.now();
      const query = queries[id % queries.length] as string;
      let body: unknown;
      switch (kind) {
        case 'ping':
          body = { type: 'panel/ack' };
          break;
        case 'skills/list': {
          // skillsController.list(): rows for every indexed skill; "loading" until the index is ready.
          const skills = browserSkills({ records: skillIndex.all(), lint: () => undefined, usage: () => undefined });
          body = { type: 'skills/list', list: { loading: search === undefined, skills, trusted: true } };
          break;
        }
        case 'skills/search':
          // skillsController.search(): `await this.skills.ready`, then the words' ranking.
          await skillsReady;
          body = { type: 'skills/searchResult', query, files: browserSearch(query, search as SkillSearch, skillIndex.all()) };
          break;
        case 'history/search':
          body = { type: 'history/results', results: await searchHistory(sessionIndex, query) };
          break;
      }
      served++;
      sampleMemory();
      worker.postMessage(JSON.stringify({ id, kind, indexing, handlerMs: performance.now() - t, body }));
    };
    await Promise.all([skillsReady, sessionsReady]);
    indexing = false;
    worker.postMessage('indexed');
    sampleMemory();
    const all = await samples;
    clearInterval(stallTimer);
    if (skillIndex.all().length !== skillCount) throw new Error(`indexed ${skillIndex.all().length} of ${skillCount} skills`);
    if (sessionIndex.stats.messages !== sessionCount * perSession) throw new Error(`indexed ${sessionIndex.stats.messages} of ${sessionCount * perSession} messages`);
    const during = all.filter((sample) => sample.indexing);
    const ms = (value: number): string => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
    const figures = (label: string, picked: readonly Sample[]): void => {
      if (picked.length === 0) {
        rows.push([`${label}: no requests`, '—', '—']);
        return;
      }
      const trips = picked.map((sample) => sample.roundTripMs);
      rows.push([`${label} (${picked.length}), p50 / p95`, `${ms(percentile(trips, 50))} / ${ms(percentile(trips, 95))}`, `≤ ${PANEL_ROUND_TRIP_TARGET_MS} ms`]);
      rows.push([`${label}, max`, ms(Math.max(...trips)), '—']);
    };
    rows.push([`cold index of ${skillCount.toLocaleString('en-US')} skills (wall clock, shared loop)`, ms(skillsMs), '—']);
    rows.push([`  of which the skill search, built in slices (wall clock)`, ms(searchBuildMs), '—']);
    rows.push([`longest event-loop stall (at ${(stall.at - started) / 1000 > 0 ? ((stall.at - started) / 1000).toFixed(1) : '0'} s)`, ms(stall.ms), '—']);
    rows.push([`session index catch-up, ${(sessionCount * perSession).toLocaleString('en-US')} messages (${(jsonl / 1e6).toFixed(0)} MB)`, ms(sessionsMs), '—']);
    figures('round trip while indexing, every request', during.filter((sample) => sample.kind !== 'skills/search'));
    for (const kind of ['ping', 'skills/list', 'history/search'] as const) figures(`  ${kind} while indexing`, during.filter((sample) => sample.kind === kind));
    const waited = during.filter((sample) => sample.kind === 'skills/search').map((sample) => sample.roundTripMs);
    if (waited.length > 0) rows.push([`  skills/search while indexing (waits for the index, as the host does), max`, ms(Math.max(...waited)), '—']);
    const settled = all.filter((sample) => !sample.indexing);
    for (const kind of KINDS) figures(`  ${kind} after indexing`, settled.filter((sample) => sample.kind === kind));
    const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    rows.push(['memory: peak RSS (before: generated data only)', `${mb(memory.rss)} (${mb(rssBefore)})`, '—']);
    rows.push(['memory: peak JS heap used', mb(memory.heap), '—']);
    rows.push([`(${served} answers; machine: ${os.cpus().length} CPUs, load ${os.loadavg().map((load) => load.toFixed(1)).join(' ')})`, '', '']);
    skillIndex.dispose();
    sessionIndex.dispose();
    return rows;
  } finally {
    await worker.terminate();
    fs.rmSync(storage, { recursive: true, force: true });
  }
}

if (require.main === module) {
  measurePanelLoad({ root: path.resolve(__dirname, '..', '..') })
    .then((rows) => {
      for (const [label, ours, target] of rows) console.log(`${(label ?? '').padEnd(72)} | ${(ours ?? '').padStart(17)} | ${(target ?? '').padStart(8)}`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
