import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../src/core/base/nodeFileSystem';
import type { SqlJsDatabase } from '../src/core/sessions/sessionIndex';
import { SessionIndex, sqlJsLoader } from '../src/core/sessions/sessionIndex';
import { NodeAppendPort, SessionLog } from '../src/core/sessions/sessionLog';
import type { SessionRecord } from '../src/core/sessions/sessionRecords';
import { CANDIDATE_CAP, SESSION_DOCIDS, bm25FromMatchinfo, idfOf } from '../src/core/sessions/sessionQuery';
import { runSessionSearch } from '../src/core/sessions/sessionSearchTool';
import { seededRandom } from './generateSkillTree';

/**
 * Session search benchmark (issue 4 figures): 100,000 synthetic messages in 2,000 sessions,
 * generated from a fixed seed with a Zipf-like vocabulary (the commonest words are in most
 * messages). Prints catch-up rate, query p50/p95 over rare and very common terms, append cost,
 * index save time and size, each beside its target. Usage: node out/bench/benchSessions.js
 * [--sessions N] [--messages-per-session M]. A benchmark, not a test: nothing here fails on time.
 */

const args = process.argv.slice(2);
const argOf = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const SESSIONS = argOf('--sessions', 2_000);
const PER_SESSION = argOf('--messages-per-session', 50);
const VOCABULARY = 20_000;
const repoRoot = path.resolve(__dirname, '..', '..');
const wasmDir = path.join(repoRoot, 'node_modules', 'sql.js', 'dist');

const random = seededRandom(20_240_501);
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'pe', 'su', 'do', 'fa', 'gu', 'hi', 'jo', 'be', 'co', 'xu', 'ya', 'wi'];
/** Word i of the vocabulary; rank 0 is the commonest. Distinct by construction (base-20 digits). */
function word(rank: number): string {
  let n = rank;
  let out = '';
  do {
    out += SYLLABLES[n % 20];
    n = Math.floor(n / 20);
  } while (n > 0);
  return out.length < 4 ? `${out}n` : out;
}
const cumulative: number[] = [];
let harmonic = 0;
for (let rank = 0; rank < VOCABULARY; rank++) cumulative.push((harmonic += 1 / (rank + 1)));
function zipfRank(): number {
  const x = random() * harmonic;
  let low = 0;
  let high = VOCABULARY - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((cumulative[mid] as number) < x) low = mid + 1;
    else high = mid;
  }
  return low;
}
function sentence(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(word(zipfRank()));
  return out.join(' ');
}

/** One session's JSONL text: user, assistant with a tool call, tool result, assistant, … */
function sessionText(index: number, start: Date): { id: string; text: string } {
  const id = `${start.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}-${index.toString(16).padStart(6, '0')}`;
  const records: SessionRecord[] = [{ type: 'session', v: 1, id, created: start.toISOString(), model: 'bench-model', systemPrompt: 'You are a benchmark.', workspace: `/projects/project-${index % 40}` }];
  let clock = start.getTime();
  for (let m = 1; m <= PER_SESSION; m++) {
    clock += 5_000;
    const at = new Date(clock).toISOString();
    const kind = m % 4;
    if (kind === 1) records.push({ type: 'message', id: `m${m}`, role: 'user', content: sentence(5 + Math.floor(random() * 30)), at });
    else if (kind === 2) {
      records.push({ type: 'message', id: `m${m}`, role: 'assistant', content: sentence(10 + Math.floor(random() * 60)), toolCalls: [{ id: `c${m}`, name: 'read_file', arguments: JSON.stringify({ path: `src/${word(zipfRank())}.ts` }) }], at });
    } else if (kind === 3) records.push({ type: 'message', id: `m${m}`, role: 'tool', content: sentence(20 + Math.floor(random() * 100)), toolCallId: `c${m - 1}`, toolName: 'read_file', at });
    else records.push({ type: 'message', id: `m${m}`, role: 'assistant', content: sentence(10 + Math.floor(random() * 60)), at });
  }
  return { id, text: records.map((record) => `${JSON.stringify(record)}\n`).join('') };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const rows: string[][] = [['figure', 'ours', 'target']];
function report(label: string, ours: string, target = '—'): void {
  rows.push([label, ours, target]);
}
const ms = (value: number): string => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

async function main(): Promise<void> {
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-bench-sessions-'));
  try {
    const sessionsDir = path.join(storage, 'sessions');
    fs.mkdirSync(sessionsDir, { recursive: true });
    const base = Date.UTC(2025, 0, 1);
    let bytes = 0;
    for (let i = 0; i < SESSIONS; i++) {
      const { id, text } = sessionText(i, new Date(base + i * 3_600_000));
      fs.writeFileSync(path.join(sessionsDir, `${id}.jsonl`), text);
      bytes += text.length;
    }
    const total = SESSIONS * PER_SESSION;
    process.stdout.write(`Machine: ${os.cpus().length} CPUs, load average ${os.loadavg().map((load) => load.toFixed(1)).join(' ')} (figures are wall clock unless marked)\n`);
    process.stdout.write(`Generated ${total.toLocaleString('en-US')} messages in ${SESSIONS.toLocaleString('en-US')} sessions (${(bytes / 1e6).toFixed(1)} MB of JSONL)\n`);

    const fileSystem = new NodeFileSystem();
    const log = new SessionLog({ fs: fileSystem, append: new NodeAppendPort(), storageDir: storage });
    const loader = sqlJsLoader(wasmDir);
    let started = performance.now();
    await loader();
    report('sql.js load (first use only)', ms(performance.now() - started));

    // Catch-up from JSONL with no saved index: the worst case (first start, or a lost index file).
    const index = new SessionIndex({ log, sqlJs: loader, saveDelayMs: 60_000 });
    started = performance.now();
    const cpu = process.cpuUsage();
    await index.ready();
    const catchUpMs = performance.now() - started;
    const cpuUsed = process.cpuUsage(cpu);
    const catchUpCpuMs = (cpuUsed.user + cpuUsed.system) / 1000;
    if (index.stats.messages !== total) throw new Error(`indexed ${index.stats.messages} of ${total} messages`);
    const rate = (ms: number): string => `${Math.round(total / (ms / 1000)).toLocaleString('en-US')} msg/s`;
    report('index catch-up from JSONL (wall clock)', `${rate(catchUpMs)} (${(catchUpMs / 1000).toFixed(2)} s)`, '≥ 20,000 msg/s');
    report('index catch-up from JSONL (CPU time)', `${rate(catchUpCpuMs)} (${(catchUpCpuMs / 1000).toFixed(2)} s)`);

    // Queries: rare, mid-frequency and very common terms, alone and mixed.
    const frequency = (rank: number): string => `${word(rank)}`;
    const queries: string[] = [];
    const mix = seededRandom(7);
    const pick = (low: number, high: number): number => low + Math.floor(mix() * (high - low));
    for (let i = 0; i < 40; i++) queries.push(frequency(pick(2_000, VOCABULARY)));
    for (let i = 0; i < 30; i++) queries.push(frequency(pick(50, 2_000)));
    for (let i = 0; i < 10; i++) queries.push(frequency(pick(0, 5)));
    for (let i = 0; i < 20; i++) queries.push(`${frequency(pick(0, 5))} ${frequency(pick(2_000, VOCABULARY))}`);
    for (let i = 0; i < 10; i++) queries.push(`${frequency(pick(0, 3))} ${frequency(pick(3, 10))}`);
    for (let i = 0; i < 10; i++) queries.push(`how did we ${frequency(pick(5, 50))} the "${frequency(pick(0, 20))} ${frequency(pick(0, 20))}" ${frequency(pick(500, 5_000))}`);
    const common = word(0);
    const share = await index.searchSessions(common, { limit: 1 });
    started = performance.now();
    await index.searchSessions(`${word(1)} ${word(2)}`, { limit: 5 });
    const coldCommon = performance.now() - started;
    // Each query three times (median kept), wall clock and CPU time: the CPU figure is what a busy machine cannot inflate.
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let empty = 0;
    for (const query of queries) {
      const runs: [number, number][] = [];
      for (let run = 0; run < 3; run++) {
        const t = performance.now();
        const c = process.cpuUsage();
        const result = await index.searchSessions(query, { limit: 5 });
        const used = process.cpuUsage(c);
        runs.push([performance.now() - t, (used.user + used.system) / 1000]);
        if (run === 0 && result.sessions.length === 0) empty++;
      }
      times.push(percentile(runs.map((r) => r[0]), 50));
      cpuTimes.push(percentile(runs.map((r) => r[1]), 50));
    }
    report(`query p50 (${queries.length} queries: rare, mid, very common, mixed)`, ms(percentile(times, 50)), '≤ 10 ms');
    report('query p95', ms(percentile(times, 95)), '≤ 50 ms');
    report('query max', ms(Math.max(...times)));
    report('query p50 / p95 (CPU time)', `${ms(percentile(cpuTimes, 50))} / ${ms(percentile(cpuTimes, 95))}`);
    report('first query with two uncached very common words', ms(coldCommon));
    const toolTimes: number[] = [];
    for (const query of queries.slice(0, 40)) {
      const t = performance.now();
      await runSessionSearch({ query }, { index });
      toolTimes.push(performance.now() - t);
    }
    report('session_search tool call p50 (search + read 3 JSONL files)', ms(percentile(toolTimes, 50)));
    process.stdout.write(`Queries with no result: ${empty} of ${queries.length}; "${common}" ranked among the newest ${CANDIDATE_CAP} matches: ${share.capped}\n`);

    // Append cost through SessionWriter (JSON line + appendFile + index update), with and without fsync.
    for (const fsync of [false, true]) {
      const appendLog = new SessionLog({ fs: fileSystem, append: new NodeAppendPort({ fsync }), storageDir: storage, autoTitle: false });
      const appendIndex = new SessionIndex({ log: appendLog, sqlJs: loader, saveDelayMs: 60_000 });
      const writer = await appendLog.create({ model: 'bench-model', systemPrompt: 'You are a benchmark.' });
      const count = fsync ? 200 : 2_000;
      started = performance.now();
      for (let i = 0; i < count; i++) await writer.appendMessage({ role: i % 2 ? 'assistant' : 'user', content: sentence(40) });
      report(`append per message${fsync ? ' with fsync' : ''}`, ms((performance.now() - started) / count), fsync ? '—' : '≤ 1 ms');
      appendIndex.dispose();
    }

    // Save: export + atomic write of the whole database.
    started = performance.now();
    await index.flush();
    const save = index.lastSave;
    report('index save (export + write)', `${ms(performance.now() - started)} (export ${ms(save?.exportMs ?? 0)})`);
    report('index size', `${((save?.bytes ?? 0) / 1e6).toFixed(1)} MB (JSONL ${(bytes / 1e6).toFixed(1)} MB)`);
    index.dispose();

    // Warm start: load the saved index, nothing new to read.
    const warm = new SessionIndex({ log, sqlJs: loader, saveDelayMs: 60_000 });
    started = performance.now();
    await warm.ready();
    report('warm start from the saved index (stat every file)', ms(performance.now() - started));
    warm.dispose();

    await compareRankingStrategies(loader, path.join(storage, 'session-index.sqlite'), common);
  } finally {
    fs.rmSync(storage, { recursive: true, force: true });
  }
  const widths = (rows[0] as string[]).map((_, column) => Math.max(...rows.map((row) => (row[column] as string).length)));
  for (const [i, row] of rows.entries()) {
    process.stdout.write(`${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number))).join(' | ')}\n`);
    if (i === 0) process.stdout.write(`${widths.map((width) => '-'.repeat(width)).join('-|-')}\n`);
  }
}

/** The design choices measured on the saved index: naive full ranking, BM25 in SQL vs from the blob. */
async function compareRankingStrategies(loader: ReturnType<typeof sqlJsLoader>, file: string, common: string): Promise<void> {
  const SQL = await loader();
  const db = new SQL.Database(fs.readFileSync(file)) as SqlJsDatabase & { create_function(name: string, fn: (...args: unknown[]) => unknown): void };
  const docs = Number(db.exec(`SELECT count(*) FROM message_text WHERE message_text MATCH '"${common}"'`)[0]?.values[0]?.[0]);
  const all = Number(db.exec('SELECT sum(messages) FROM sessions')[0]?.values[0]?.[0]);
  const idf = [idfOf(all, docs)];
  const scores = new Float64Array(1);
  const time = (sql: string, perRow: (row: unknown[]) => void): number => {
    const values: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = process.cpuUsage();
      const statement = db.prepare(sql);
      statement.bind([`"${common}"`]);
      while (statement.step()) perRow(statement.get());
      statement.free();
      const used = process.cpuUsage(started);
      values.push((used.user + used.system) / 1000);
    }
    return percentile(values, 50);
  };
  const fromBlob = (row: unknown[]): void => void bm25FromMatchinfo(row[1] as Uint8Array, idf, scores);
  db.create_function('bm25', (blob: unknown) => bm25FromMatchinfo(blob as Uint8Array, idf, scores));
  process.stdout.write(`\nRanking strategies for "${common}" (in ${((docs / all) * 100).toFixed(0)}% of ${all.toLocaleString('en-US')} messages; CPU time, median of 5):\n`);
  process.stdout.write(`  naive: every match, matchinfo 'pcnalx', BM25 in JS     ${ms(time(`SELECT docid, matchinfo(message_text, 'pcnalx') FROM message_text WHERE message_text MATCH ?`, fromBlob))}\n`);
  process.stdout.write(`  naive: every match, bm25() registered with create_function ${ms(time(`SELECT docid, bm25(matchinfo(message_text, 'pcnaly')) AS s FROM message_text WHERE message_text MATCH ? ORDER BY s DESC LIMIT 50`, () => undefined))}\n`);
  process.stdout.write(`  ours: newest ${CANDIDATE_CAP}, matchinfo 'pcnaly', BM25 in JS from the blob ${ms(time(`SELECT docid, matchinfo(message_text, 'pcnaly') FROM message_text WHERE message_text MATCH ? ORDER BY docid DESC LIMIT ${CANDIDATE_CAP}`, fromBlob))}\n`);
  process.stdout.write(`  ours, BM25 via create_function instead                 ${ms(time(`SELECT docid, bm25(matchinfo(message_text, 'pcnaly')) FROM message_text WHERE message_text MATCH ? ORDER BY docid DESC LIMIT ${CANDIDATE_CAP}`, () => undefined))}\n`);
  process.stdout.write(`  (docids: session number × ${SESSION_DOCIDS.toLocaleString('en-US')} + message ordinal)\n\n`);
  db.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`benchSessions failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
