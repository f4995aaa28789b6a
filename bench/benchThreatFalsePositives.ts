/**
 * False alarms of the memory threat scanner on real, benign text: every SKILL.md body of the corpus
 * (../shared/corpus) and every entry-sized paragraph of its Markdown files, scanned with context
 * `memory`. Prints how many texts trip each pattern, with examples, so patterns can be tuned.
 *
 * Run: `npx tsc -p bench/tsconfig.json && node out/bench/benchThreatFalsePositives.js [--examples N] [--pattern ID] [--context skill]`
 * The helpers are exported for the unit test that holds the false-positive rate down.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeFileSystem } from '../src/core/base/nodeFileSystem';
import type { SkillScanReport, Verdict } from '../src/core/security/skillScan';
import { scanSkillFolder } from '../src/core/security/skillScan';
import { scanText } from '../src/core/security/threatScanner';
import type { ScanContext } from '../src/core/security/threatPatterns';
import { repoRoot } from '../test/repoRoot';

/** Skill roots of each corpus source (SOURCES.md, copy rule step 1). */
const ROOTS = ['anthropics-skills/skills', 'openai-skills/skills', 'awesome-copilot/skills', 'hermes-agent/skills', 'hermes-agent/optional-skills'];

/** Paragraphs longer than the default MEMORY.md limit are cut into windows of this size. */
export const ENTRY_MAX_CHARS = 2200;
/** Shorter blocks are headings or list stubs, not something anyone would store as a note. */
const ENTRY_MIN_CHARS = 20;
/** The highest rates the unit test accepts (test/unit/security/threatScanner.test.ts): the figures' targets. */
const CEILING: Readonly<Record<CorpusText['kind'], number>> = { 'skill-body': 0.01, paragraph: 0.001 };

export interface CorpusText {
  /** `source/…/file.md` or `…:line` for a paragraph. */
  readonly id: string;
  readonly kind: 'skill-body' | 'paragraph';
  readonly text: string;
}

export function threatCorpusDir(): string {
  const dir = path.join(repoRoot(), '..', 'shared', 'corpus');
  if (!fs.existsSync(path.join(dir, 'stats.json'))) {
    throw new Error(`the skills corpus was not found at ${dir} (expected ../shared/corpus beside the repository); the false-positive measurement needs it`);
  }
  return dir;
}

function markdownFiles(dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) markdownFiles(full, out);
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) out.push(full);
  }
}

function stripFrontmatter(text: string): { body: string; bodyLine: number } {
  const m = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { body: text, bodyLine: 1 };
  return { body: text.slice(m[0].length), bodyLine: m[0].split('\n').length };
}

/** Blank-line separated blocks, fenced code kept whole, long blocks cut at line ends. */
export function splitParagraphs(body: string, firstLine = 1): { line: number; text: string }[] {
  const lines = body.replace(/\r\n/g, '\n').split('\n');
  const blocks: { line: number; text: string }[] = [];
  let current: string[] = [];
  let start = firstLine;
  let fence: string | undefined;
  const flush = (): void => {
    const text = current.join('\n').trim();
    if (text.replace(/\s/g, '').length >= ENTRY_MIN_CHARS) {
      let window: string[] = [];
      let windowLine = start;
      let size = 0;
      current.forEach((line, i) => {
        if (size + line.length + 1 > ENTRY_MAX_CHARS && window.length > 0) {
          blocks.push({ line: windowLine, text: window.join('\n').trim() });
          window = [];
          size = 0;
          windowLine = start + i;
        }
        window.push(line.slice(0, ENTRY_MAX_CHARS));
        size += Math.min(line.length, ENTRY_MAX_CHARS) + 1;
      });
      if (window.join('').trim()) blocks.push({ line: windowLine, text: window.join('\n').trim() });
    }
    current = [];
  };
  lines.forEach((line, i) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      current.push(line);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (marker) fence = marker;
    if (line.trim() === '' && !fence) {
      flush();
      start = firstLine + i + 1;
      return;
    }
    if (current.length === 0) start = firstLine + i;
    current.push(line);
  });
  flush();
  return blocks;
}

export function collectCorpusTexts(corpus: string): CorpusText[] {
  const texts: CorpusText[] = [];
  for (const root of ROOTS) {
    const files: string[] = [];
    markdownFiles(path.join(corpus, ...root.split('/')), files);
    for (const file of files.sort()) {
      const rel = path.relative(corpus, file).split(path.sep).join('/');
      const { body, bodyLine } = stripFrontmatter(fs.readFileSync(file, 'utf8'));
      if (path.basename(file) === 'SKILL.md') texts.push({ id: rel, kind: 'skill-body', text: body });
      for (const p of splitParagraphs(body, bodyLine)) texts.push({ id: `${rel}:${p.line}`, kind: 'paragraph', text: p.text });
    }
  }
  return texts;
}

/** Every skill folder of the corpus (a folder holding SKILL.md), in path order. */
export function collectCorpusSkillDirs(corpus: string): string[] {
  const dirs: string[] = [];
  for (const root of ROOTS) {
    const files: string[] = [];
    markdownFiles(path.join(corpus, ...root.split('/')), files);
    for (const file of files) if (path.basename(file) === 'SKILL.md') dirs.push(path.dirname(file));
  }
  return dirs.sort();
}

/** The folder-level targets of issue 12: no corpus skill dangerous, at most 2 % caution. */
export const VERDICT_TARGETS = { dangerous: 0, caution: 0.02 } as const;

export interface VerdictReport {
  readonly skills: number;
  readonly counts: Readonly<Record<Verdict, number>>;
  /** Skills that are not safe, with the ids of their high and critical findings. */
  readonly flagged: readonly { readonly dir: string; readonly verdict: Verdict; readonly findings: readonly string[] }[];
  /** Finding id → how many skills have it, any severity (medium and low ones do not change the verdict). */
  readonly byId: ReadonlyMap<string, number>;
  readonly ms: number;
}

export async function measureFolderVerdicts(dirs: readonly string[]): Promise<VerdictReport> {
  const fs = new NodeFileSystem();
  const counts: Record<Verdict, number> = { safe: 0, caution: 0, dangerous: 0 };
  const flagged: { dir: string; verdict: Verdict; findings: string[] }[] = [];
  const byId = new Map<string, number>();
  const started = performance.now();
  for (const dir of dirs) {
    const report: SkillScanReport = await scanSkillFolder(fs, dir);
    counts[report.verdict]++;
    for (const id of new Set(report.findings.map((f) => `${f.id} (${f.severity})`))) byId.set(id, (byId.get(id) ?? 0) + 1);
    if (report.verdict !== 'safe') {
      const serious = report.findings.filter((f) => f.severity === 'high' || f.severity === 'critical');
      flagged.push({ dir, verdict: report.verdict, findings: serious.map((f) => `${f.id} ${f.file ?? ''}${f.line !== undefined ? `:${f.line}` : ''}`) });
    }
  }
  return { skills: dirs.length, counts, flagged, byId, ms: performance.now() - started };
}

export interface FalsePositiveReport {
  readonly texts: number;
  readonly flagged: number;
  /** Pattern id → ids of the texts that trip it, and one excerpt per text. */
  readonly byPattern: Map<string, { id: string; excerpt: string }[]>;
  readonly ms: number;
}

export function measureFalsePositives(texts: readonly CorpusText[], context: ScanContext = 'memory'): FalsePositiveReport {
  const byPattern = new Map<string, { id: string; excerpt: string }[]>();
  let flagged = 0;
  const started = performance.now();
  for (const text of texts) {
    const result = scanText(text.text, { context });
    if (result.ok) continue;
    flagged++;
    const seen = new Set<string>();
    for (const finding of result.findings) {
      if (seen.has(finding.id)) continue;
      seen.add(finding.id);
      const list = byPattern.get(finding.id) ?? [];
      list.push({ id: text.id, excerpt: finding.excerpt });
      byPattern.set(finding.id, list);
    }
  }
  return { texts: texts.length, flagged, byPattern, ms: performance.now() - started };
}

function percent(n: number, d: number): string {
  return d === 0 ? '0%' : `${((100 * n) / d).toFixed(2)}%`;
}

function printReport(label: string, report: FalsePositiveReport, ceiling: number, examples: number, only?: string): void {
  console.log(`\n${label}: ${report.flagged} of ${report.texts} flagged (${percent(report.flagged, report.texts)}; target ≤ ${percent(ceiling, 1)}), scanned in ${report.ms.toFixed(0)} ms (${((1000 * report.ms) / Math.max(1, report.texts)).toFixed(1)} µs per text)`);
  const rows = [...report.byPattern.entries()].sort((a, b) => b[1].length - a[1].length);
  for (const [id, hits] of rows) {
    if (only && id !== only) continue;
    console.log(`  ${id.padEnd(30)} ${String(hits.length).padStart(5)}`);
    for (const hit of hits.slice(0, only ? hits.length : examples)) console.log(`      ${hit.id}\n        ${hit.excerpt}`);
  }
}

function printVerdicts(report: VerdictReport, corpus: string): void {
  const { skills, counts } = report;
  console.log(`\nFolder verdicts (scanSkillFolder over ${skills} corpus skills, ${report.ms.toFixed(0)} ms):`);
  console.log(`  dangerous ${String(counts.dangerous).padStart(4)}  ${percent(counts.dangerous, skills).padStart(7)}   target ${VERDICT_TARGETS.dangerous}`);
  console.log(`  caution   ${String(counts.caution).padStart(4)}  ${percent(counts.caution, skills).padStart(7)}   target ≤ ${percent(VERDICT_TARGETS.caution, 1)}`);
  console.log(`  safe      ${String(counts.safe).padStart(4)}  ${percent(counts.safe, skills).padStart(7)}`);
  const ids = [...report.byId.entries()].sort((a, b) => b[1] - a[1]);
  if (ids.length > 0) console.log(`  skills per finding: ${ids.map(([id, n]) => `${id} ${n}`).join(', ')}`);
  for (const f of report.flagged) {
    console.log(`  ${f.verdict.padEnd(9)} ${path.relative(corpus, f.dir).split(path.sep).join('/')}`);
    for (const id of f.findings) console.log(`      ${id}`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const examples = Number(flag('--examples') ?? 3);
  const only = flag('--pattern');
  const context = (flag('--context') ?? 'memory') as ScanContext;
  const corpus = threatCorpusDir();
  const texts = collectCorpusTexts(corpus);
  console.log(`Threat scanner false positives on the skills corpus (context: ${context})`);
  printVerdicts(await measureFolderVerdicts(collectCorpusSkillDirs(corpus)), corpus);
  printReport('SKILL.md bodies', measureFalsePositives(texts.filter((t) => t.kind === 'skill-body'), context), CEILING['skill-body'], examples, only);
  printReport('Entry-sized paragraphs (all Markdown files)', measureFalsePositives(texts.filter((t) => t.kind === 'paragraph'), context), CEILING.paragraph, examples, only);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
