/**
 * Retrieval quality and speed of SkillSearch over the real corpus (../shared/corpus), on the dev
 * queries and on our own set (bench/retrieval-queries.jsonl) apart; hybrid figures when
 * SKILLWRIGHT_EMBEDDINGS_URL and SKILLWRIGHT_EMBEDDINGS_MODEL (and _KEY if needed) name an endpoint;
 * per-turn suggestion latency at 10,000 skills; and what the budgeted catalog keeps at 612 and 10,000
 * skills. Run: `npm run bench:retrieval`. The corpus helpers are exported for the unit test that
 * asserts the retrieval floor.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import matter from 'gray-matter';
import MiniSearch from 'minisearch';
import { SyncReadFileSystem } from '../src/core/base/syncReadFileSystem';
import { buildCatalog } from '../src/core/skills/catalog/skillCatalog';
import type { CatalogResult } from '../src/core/skills/catalog/skillCatalog';
import { SkillIndex } from '../src/core/skills/index/skillIndex';
import { EmbeddingIndex } from '../src/core/skills/search/embeddingIndex';
import type { SemanticHit } from '../src/core/skills/search/embeddingIndex';
import { LEXICAL_DEPTH, SEMANTIC_DEPTH, fuseHits, hybridSuggest } from '../src/core/skills/search/embeddingRanker';
import { OpenAiEmbeddingClient } from '../src/providers/embeddingClient';
import { SkillSearch } from '../src/core/skills/search/skillSearch';
import { MAX_PRIOR, MIN_PRIOR, usagePrior } from '../src/core/skills/search/usagePrior';
import { parseSkillHeaderText } from '../src/core/skills/model/skillHeader';
import { SKILL_FILE, SUPPORT_FOLDERS } from '../src/core/skills/model/skillTypes';
import type { SkillRecord } from '../src/core/skills/model/skillTypes';
import { repoRoot } from '../test/repoRoot';
import { seededRandom, skillTree } from './generateSkillTree';

/** The skill roots of each corpus source (SOURCES.md, "Copy rule" step 1). */
export const CORPUS_ROOTS: readonly string[] = [
  'anthropics-skills/skills',
  'openai-skills/skills',
  'awesome-copilot/skills',
  'hermes-agent/skills',
  'hermes-agent/optional-skills',
];

export function corpusDir(): string {
  const dir = path.join(repoRoot(), '..', 'shared', 'corpus');
  if (!fs.existsSync(path.join(dir, 'retrieval-dev.jsonl'))) {
    throw new Error(`the skills corpus was not found at ${dir} (expected ../shared/corpus beside the repository)`);
  }
  return dir;
}

function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string') return value.split(',').map((v) => v.trim()).filter(Boolean);
  return [];
}

function skillDirs(dir: string, out: string[]): void {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  if (entries.some((e) => e.isFile() && e.name === SKILL_FILE)) out.push(dir);
  for (const entry of entries) {
    if (!entry.isDirectory() || (SUPPORT_FOLDERS as readonly string[]).includes(entry.name)) continue;
    skillDirs(path.join(dir, entry.name), out);
  }
}

/** One SkillRecord per SKILL.md of the corpus, nested skills included, in a stable order. */
export function loadCorpusRecords(corpus: string): SkillRecord[] {
  const records: SkillRecord[] = [];
  for (const rootRel of CORPUS_ROOTS) {
    const rootPath = path.join(corpus, ...rootRel.split('/'));
    const root = { path: rootPath, scope: 'other' as const, label: rootRel, writeTarget: false };
    const dirs: string[] = [];
    skillDirs(rootPath, dirs);
    for (const dir of dirs.sort()) {
      const file = path.join(dir, SKILL_FILE);
      const text = fs.readFileSync(file, 'utf8');
      const readErrors: string[] = [];
      let data: Record<string, unknown> = {};
      let body = text;
      try {
        const parsed = matter(text);
        data = parsed.data as Record<string, unknown>;
        body = parsed.content;
      } catch (error) {
        readErrors.push(`frontmatter: ${(error as Error).message}`);
      }
      const rel = path.relative(rootPath, dir).split(path.sep).join('/');
      const folderName = path.basename(dir);
      const stat = fs.statSync(file);
      records.push({
        name: typeof data.name === 'string' && data.name.trim() ? data.name.trim() : folderName,
        folderName,
        dir,
        file,
        root,
        scope: 'other',
        category: rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '',
        description: typeof data.description === 'string' ? data.description.trim() : '',
        tags: stringList(data.tags),
        platforms: stringList(data.platforms),
        useCases: stringList(data.use_cases),
        exampleQueries: stringList(data.example_queries),
        headings: body.split(/\r?\n/).filter((l) => l.startsWith('#')).map((l) => l.replace(/^#+\s*/, '').trim()),
        // As the index reads it: the body's opening paragraph, "When to use" section and `triggers`.
        about: parseSkillHeaderText(text).about ?? '',
        level: 0,
        mtimeMs: stat.mtimeMs,
        size: stat.size,
        readErrors,
      });
    }
  }
  return records;
}

export interface RetrievalQuery {
  readonly query: string;
  readonly expected: readonly string[];
  readonly kind: string;
}

export function readRetrievalQueries(file: string): RetrievalQuery[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as RetrievalQuery);
}

export interface RetrievalScores {
  readonly queries: number;
  readonly recallAt1: number;
  readonly recallAt3: number;
  readonly recallAt5: number;
  readonly mrr: number;
}

export interface RetrievalReport extends RetrievalScores {
  readonly byKind: Readonly<Record<string, RetrievalScores>>;
  /** Queries whose expected skill was not in the top 5, with what came first instead. */
  readonly misses: readonly { query: string; kind: string; rank: number; got: readonly string[] }[];
}

/** Recall@k and MRR (over the top 10) of `rank`; a hit counts when its folder is one of `expected`. */
export function evaluateRetrieval(
  rank: (query: string) => readonly SkillRecord[],
  queries: readonly RetrievalQuery[],
  corpus: string,
): RetrievalReport {
  const folder = (r: SkillRecord) => path.relative(corpus, r.dir).split(path.sep).join('/');
  const ranks: { kind: string; rank: number }[] = [];
  const misses: { query: string; kind: string; rank: number; got: string[] }[] = [];
  for (const q of queries) {
    const list = rank(q.query).slice(0, 10).map(folder);
    const index = list.findIndex((f) => q.expected.includes(f));
    const found = index < 0 ? 0 : index + 1;
    ranks.push({ kind: q.kind, rank: found });
    if (found === 0 || found > 5) misses.push({ query: q.query, kind: q.kind, rank: found, got: list.slice(0, 3) });
  }
  const score = (list: { rank: number }[]): RetrievalScores => {
    const within = (k: number) => list.filter((r) => r.rank > 0 && r.rank <= k).length / Math.max(1, list.length);
    const mrr = list.reduce((sum, r) => sum + (r.rank > 0 ? 1 / r.rank : 0), 0) / Math.max(1, list.length);
    return { queries: list.length, recallAt1: within(1), recallAt3: within(3), recallAt5: within(5), mrr };
  };
  const byKind: Record<string, RetrievalScores> = {};
  for (const kind of [...new Set(ranks.map((r) => r.kind))].sort()) byKind[kind] = score(ranks.filter((r) => r.kind === kind));
  return { ...score(ranks), byKind, misses };
}

/** The issue's baseline: minisearch's defaults over name + description (no stemming, no boosts). */
export function baselineRanker(records: readonly SkillRecord[]): (query: string) => SkillRecord[] {
  const index = new MiniSearch<SkillRecord>({ idField: 'file', fields: ['name', 'description'] });
  index.addAll([...records]);
  const byFile = new Map(records.map((r) => [r.file, r]));
  return (query) => index.search(query).map((hit) => byFile.get(hit.id as string) as SkillRecord);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function timeQueries(
  search: SkillSearch,
  queries: readonly string[],
  rounds: number,
  mode: 'search' | 'suggest' = 'search',
): { p50: number; p95: number } {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const q of queries) {
      const start = process.hrtime.bigint();
      if (mode === 'search') search.search(q, { top: 10 });
      else search.suggest(q);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

function timeIt<T>(fn: () => T): { value: T; ms: number } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** `count` records made from the corpus vocabulary: ~20 categories, descriptions of 15–60 words. */
export function syntheticRecords(base: readonly SkillRecord[], count: number): SkillRecord[] {
  const random = seededRandom(42);
  const words = base.flatMap((r) => r.description.split(/\s+/)).filter(Boolean);
  const pick = (): string => {
    const word = words[Math.floor(random() * words.length)];
    if (word === undefined) throw new Error('the corpus descriptions have no words');
    return word;
  };
  const template = base[0];
  if (!template) throw new Error('synthetic records need at least one corpus record to copy');
  const out: SkillRecord[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${pick().toLowerCase().replace(/[^a-z0-9]+/g, '')}-${pick().toLowerCase().replace(/[^a-z0-9]+/g, '')}-${i}`;
    const category = `area-${i % 20}`;
    const description = Array.from({ length: 15 + Math.floor(random() * 45) }, pick).join(' ');
    const dir = path.join(template.root.path, category, name);
    out.push({
      ...template,
      name,
      folderName: name,
      dir,
      file: path.join(dir, SKILL_FILE),
      category,
      description,
      tags: [pick(), pick()],
      headings: [pick(), `${pick()} ${pick()}`],
    });
  }
  return out;
}

function fmt(s: RetrievalScores): string {
  const f = (n: number) => n.toFixed(3);
  return `n=${s.queries}  recall@1 ${f(s.recallAt1)}  recall@3 ${f(s.recallAt3)}  recall@5 ${f(s.recallAt5)}  MRR ${f(s.mrr)}`;
}

function printReport(title: string, report: RetrievalReport, showMisses: boolean): void {
  console.log(`${title}: ${fmt(report)}`);
  for (const [kind, scores] of Object.entries(report.byKind)) console.log(`  ${kind.padEnd(10)} ${fmt(scores)}`);
  if (showMisses) {
    for (const miss of report.misses) {
      console.log(`  miss (${miss.kind}, rank ${miss.rank || '>10'}): ${miss.query}\n      got: ${miss.got.join(', ')}`);
    }
  }
}

/**
 * The usage prior against adversarial usage: for every query, each expected skill has only
 * failures and thumbs down, every other skill only successes and thumbs up. Relevance must still
 * decide: recall and MRR stay close, and the expected skill keeps first place wherever it led by
 * more than the prior's reach (a lexical score more than MAX_PRIOR / MIN_PRIOR times the runner-up's).
 */
export function adversarialPriorReport(
  search: SkillSearch,
  queries: readonly RetrievalQuery[],
  corpus: string,
  mode: 'search' | 'suggest',
): { plain: RetrievalReport; adversarial: RetrievalReport; firstBefore: number; firstKept: number; lostWithinReach: number; lostBeyondReach: number } {
  const folder = (r: SkillRecord) => path.relative(corpus, r.dir).split(path.sep).join('/');
  const expected = new Map(queries.map((q) => [q.query, q.expected]));
  const worst = { successes: 0, failures: 100, thumbsUp: 0, thumbsDown: 100 };
  const best = { successes: 100, failures: 0, thumbsUp: 100, thumbsDown: 0 };
  const run = (q: string) => (mode === 'search' ? search.search(q, { top: 10 }) : search.suggest(q));
  search.setPrior(undefined);
  const plainLists = new Map(queries.map((q) => [q.query, run(q.query)]));
  const plain = evaluateRetrieval((q) => (plainLists.get(q) ?? []).map((h) => h.record), queries, corpus);
  const adversarial = evaluateRetrieval((q) => {
    const relevant = expected.get(q) ?? [];
    search.setPrior((record) => usagePrior(relevant.includes(folder(record)) ? worst : best));
    return run(q).map((h) => h.record);
  }, queries, corpus);
  let firstBefore = 0;
  let firstKept = 0;
  let lostWithinReach = 0;
  let lostBeyondReach = 0;
  for (const q of queries) {
    const list = plainLists.get(q.query) ?? [];
    const [first, second] = list;
    if (!first || !q.expected.includes(folder(first.record))) continue;
    firstBefore++;
    search.setPrior((record) => usagePrior(q.expected.includes(folder(record)) ? worst : best));
    const after = run(q.query)[0];
    if (after && q.expected.includes(folder(after.record))) firstKept++;
    else if (second && second.score * (MAX_PRIOR / MIN_PRIOR) >= first.score) lostWithinReach++;
    else lostBeyondReach++;
  }
  search.setPrior(undefined);
  return { plain, adversarial, firstBefore, firstKept, lostWithinReach, lostBeyondReach };
}

function printPriorReport(title: string, report: ReturnType<typeof adversarialPriorReport>): void {
  const f = (n: number) => n.toFixed(3);
  const { plain, adversarial } = report;
  const reach = ((MAX_PRIOR / MIN_PRIOR - 1) * 100).toFixed(1);
  console.log(
    `${title}: recall@3 ${f(plain.recallAt3)} → ${f(adversarial.recallAt3)} (target ≥ 0.85), MRR ${f(plain.mrr)} → ${f(adversarial.mrr)}; ` +
      `expected skill first ${report.firstBefore} → ${report.firstKept} ` +
      `(lost: ${report.lostWithinReach} within the prior's reach of ${reach} %, ${report.lostBeyondReach} beyond it)`,
  );
}

/** The query sets, each reported apart: the dev queries beside the corpus and our own, larger set. */
function querySets(corpus: string): { name: string; queries: RetrievalQuery[] }[] {
  const own = path.join(repoRoot(), 'bench', 'retrieval-queries.jsonl');
  return [
    { name: 'dev (retrieval-dev.jsonl)', queries: readRetrievalQueries(path.join(corpus, 'retrieval-dev.jsonl')) },
    { name: 'own (bench/retrieval-queries.jsonl)', queries: readRetrievalQueries(own) },
  ];
}

function quality(records: readonly SkillRecord[], sets: ReturnType<typeof querySets>, corpus: string): SkillSearch {
  const search = new SkillSearch(records);
  const plain = new SkillSearch(records, { synonyms: false });
  const baseline = baselineRanker(records);
  for (const { name, queries } of sets) {
    console.log(`\n== ${name}: ${queries.length} queries (${Object.entries(countKinds(queries)).map(([k, n]) => `${n} ${k}`).join(', ')}) ==`);
    printReport('baseline (BM25, name + description)', evaluateRetrieval(baseline, queries, corpus), false);
    printReport('lexical without synonyms', evaluateRetrieval((q) => plain.search(q, { top: 10 }).map((h) => h.record), queries, corpus), false);
    const report = evaluateRetrieval((q) => search.search(q, { top: 10 }).map((h) => h.record), queries, corpus);
    printReport('lexical (SkillSearch.search)', report, true);
    console.log(`  target recall@3 ≥ 0.90 (lexical): ${report.recallAt3.toFixed(3)} ${report.recallAt3 >= 0.9 ? 'met' : 'NOT met'}`);
    // The per-turn suggestions (top 3 above the score floor, as the agent sends them).
    const suggestions = evaluateRetrieval((q) => search.suggest(q).map((h) => h.record), queries, corpus);
    const answered = queries.filter((q) => search.suggest(q.query).length > 0).length;
    printReport(`suggestions (SkillSearch.suggest, top 3; ${answered} of ${queries.length} queries get any)`, suggestions, false);
    printPriorReport('usage prior, adversarial usage (search top 10, without → with)', adversarialPriorReport(search, queries, corpus, 'search'));
  }
  return search;
}

function countKinds(queries: readonly RetrievalQuery[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const q of queries) out[q.kind] = (out[q.kind] ?? 0) + 1;
  return out;
}

/** Hybrid figures with a real embeddings endpoint (skill vectors cached in the temp folder between runs). */
async function hybrid(records: readonly SkillRecord[], sets: ReturnType<typeof querySets>, corpus: string, search: SkillSearch): Promise<void> {
  const baseUrl = process.env['SKILLWRIGHT_EMBEDDINGS_URL']?.trim();
  const model = process.env['SKILLWRIGHT_EMBEDDINGS_MODEL']?.trim();
  const apiKey = process.env['SKILLWRIGHT_EMBEDDINGS_KEY']?.trim();
  if (!baseUrl || !model) {
    console.log('\nhybrid: not measured (set SKILLWRIGHT_EMBEDDINGS_URL and SKILLWRIGHT_EMBEDDINGS_MODEL, and SKILLWRIGHT_EMBEDDINGS_KEY if the endpoint needs one)');
    return;
  }
  const cacheFile = path.join(os.tmpdir(), 'skillwright-bench', `embeddings-${model.replace(/[^\w.-]+/g, '_')}.bin`);
  const index = new EmbeddingIndex({
    embedder: new OpenAiEmbeddingClient({ baseUrl, model, ...(apiKey ? { apiKey } : {}), maxRetries: 2 }),
    model: `${model} @ ${baseUrl}`,
    queryDeadlineMs: 30_000,
    store: {
      read: () => Promise.resolve(fs.existsSync(cacheFile) ? fs.readFileSync(cacheFile) : undefined),
      write: (bytes) => {
        fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
        fs.writeFileSync(cacheFile, bytes);
        return Promise.resolve();
      },
    },
  });
  try {
    index.update(records);
    await index.idle();
    if (index.status.state !== 'ready') throw new Error(`the skills could not be embedded: ${index.status.reason ?? index.status.state}`);
    console.log(`\n== hybrid (${model} at ${baseUrl}) ==`);
    for (const { name, queries } of sets) {
      const near = new Map<string, readonly SemanticHit[]>();
      const suggested = new Map<string, SkillRecord[]>();
      for (const { query } of queries) {
        const hits = await index.nearest(query, { top: SEMANTIC_DEPTH });
        if (!hits) throw new Error(`"${query.slice(0, 60)}" could not be embedded: ${index.status.reason ?? index.status.state}`);
        near.set(query, hits);
        suggested.set(query, (await hybridSuggest(search, index, query)).map((hit) => hit.record));
      }
      const fused = (q: string) => fuseHits(search.search(q, { top: LEXICAL_DEPTH }).map((h) => h.record), near.get(q) ?? [], 10).map((h) => h.record);
      printReport(`${name}: hybrid search`, evaluateRetrieval(fused, queries, corpus), false);
      printReport(`${name}: hybrid suggestions (≤ 3)`, evaluateRetrieval((q) => suggested.get(q) ?? [], queries, corpus), false);
    }
  } finally {
    index.dispose();
  }
}

function catalogLine(label: string, c: CatalogResult, ms: number): void {
  console.log(
    `catalog (${label}, budget ${c.budgetTokens}): ${c.tokens} tokens; ${c.included} with a description (${c.shortened.length} shortened), ` +
      `${c.namesOnly.length} by name only, ${c.omitted.length} left out; built in ${ms.toFixed(1)} ms`,
  );
}

async function main(): Promise<void> {
  const corpus = corpusDir();
  const records = loadCorpusRecords(corpus);
  const sets = querySets(corpus);
  console.log(`corpus: ${records.length} skills`);
  const search = quality(records, sets, corpus);
  await hybrid(records, sets, corpus, search);

  console.log('\n== speed ==');
  const texts = sets.flatMap((set) => set.queries.map((q) => q.query));
  timeQueries(search, texts, 3);
  const latency = timeQueries(search, texts, 10);
  const built = timeIt(() => new SkillSearch(records));
  console.log(`index build ${records.length}: ${built.ms.toFixed(1)} ms; search p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms`);

  // The per-turn suggestions over the generated 10,000-skill tree, read by the real index.
  const tree = new SkillIndex({ fs: new SyncReadFileSystem(), roots: [{ path: skillTree(10_000), scope: 'project', label: 'bench', writeTarget: true }] });
  await tree.load();
  const treeSearch = new SkillSearch(tree.active());
  timeQueries(treeSearch, texts, 1, 'suggest');
  const treeSuggest = timeQueries(treeSearch, texts, 5, 'suggest');
  console.log(`per-turn suggestions, generated tree of ${tree.active().length}: p50 ${treeSuggest.p50.toFixed(2)} ms, p95 ${treeSuggest.p95.toFixed(2)} ms (target ≤ 2 ms, lexical)`);

  const synthetic = syntheticRecords(records, 10_000);
  const bigBuilt = timeIt(() => new SkillSearch(synthetic));
  timeQueries(bigBuilt.value, texts, 1);
  const bigLatency = timeQueries(bigBuilt.value, texts, 5);
  console.log(`index build 10,000 synthetic: ${bigBuilt.ms.toFixed(0)} ms; search p50 ${bigLatency.p50.toFixed(2)} ms (target ≤ 5 ms), p95 ${bigLatency.p95.toFixed(2)} ms`);
  // The host's prior reads a usage map by name on every hit it ranks.
  const usage = new Map(synthetic.map((r, i) => [r.name, { successes: i % 7, failures: i % 3, thumbsUp: i % 2, thumbsDown: 0 }]));
  bigBuilt.value.setPrior((record) => usagePrior(usage.get(record.name)));
  timeQueries(bigBuilt.value, texts, 1);
  const priorLatency = timeQueries(bigBuilt.value, texts, 5);
  bigBuilt.value.setPrior(undefined);
  console.log(`  with the usage prior: search p50 ${priorLatency.p50.toFixed(2)} ms (target ≤ 5 ms), p95 ${priorLatency.p95.toFixed(2)} ms`);
  timeQueries(bigBuilt.value, texts, 1, 'suggest');
  const suggestLatency = timeQueries(bigBuilt.value, texts, 5, 'suggest');
  console.log(`per-turn suggestions, 10,000 synthetic: p50 ${suggestLatency.p50.toFixed(2)} ms, p95 ${suggestLatency.p95.toFixed(2)} ms (target ≤ 2 ms, lexical)`);
  // Pasted documents: skill descriptions, the words the synthetic records are made of.
  const prose = records.map((r) => r.description).join(' ');
  for (const size of [10_000, 100_000]) {
    const pasted = Array.from({ length: 10 }, (_, i) => prose.repeat(Math.ceil((size * 2) / prose.length)).slice(i * 977, i * 977 + size));
    timeQueries(bigBuilt.value, pasted, 1);
    const pastedSearch = timeQueries(bigBuilt.value, pasted, 3);
    const pastedSuggest = timeQueries(bigBuilt.value, pasted, 3, 'suggest');
    console.log(
      `${size.toLocaleString('en-US')}-character queries at 10,000: search p50 ${pastedSearch.p50.toFixed(2)} ms, p95 ${pastedSearch.p95.toFixed(2)} ms; ` +
        `suggest p50 ${pastedSuggest.p50.toFixed(2)} ms, p95 ${pastedSuggest.p95.toFixed(2)} ms`,
    );
  }
  const upsert = timeIt(() => {
    for (const record of synthetic.slice(0, 100)) bigBuilt.value.upsert({ ...record, description: `${record.description} changed` });
  });
  console.log(`upsert at 10,000: ${(upsert.ms / 100).toFixed(3)} ms per record`);

  console.log('\n== catalog ==');
  const unbounded = buildCatalog(records, { budgetTokens: Number.MAX_SAFE_INTEGER });
  console.log(`catalog (corpus, no budget): ${unbounded.text.length} chars, ${unbounded.tokens} tokens`);
  for (const budgetTokens of [undefined, 10_000, 20_000, 40_000]) {
    const built = timeIt(() => buildCatalog(records, budgetTokens === undefined ? {} : { budgetTokens }));
    catalogLine(`corpus, ${records.length}`, built.value, built.ms);
  }
  const treeCatalog = timeIt(() => buildCatalog(tree.active()));
  catalogLine(`generated tree, ${tree.active().length}`, treeCatalog.value, treeCatalog.ms);
  const bigCatalog = timeIt(() => buildCatalog(synthetic));
  catalogLine('10,000 synthetic', bigCatalog.value, bigCatalog.ms);
  // What the host does after each change: the same records but one, built again. The first builds
  // run before V8 has optimized the catalog code, so they are reported apart.
  const rebuilds: number[] = [];
  let changed = synthetic;
  for (let i = 0; i < 24; i++) {
    changed = changed.map((r, at) => (at === i * 397 ? { ...r, description: `${r.description} Changed.` } : r));
    rebuilds.push(timeIt(() => buildCatalog(changed)).ms);
  }
  const p50 = (times: number[]) => percentile([...times].sort((a, b) => a - b), 50).toFixed(1);
  console.log(`catalog (10,000 synthetic) after one changed record: p50 ${p50(rebuilds.slice(12))} ms (the first 12 changes: p50 ${p50(rebuilds.slice(0, 12))} ms)`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
