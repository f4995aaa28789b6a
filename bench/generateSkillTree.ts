import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Deterministic synthetic skill trees for the benchmarks, shaped like the reference's trees
 * (TESTING.md §4): ~3 KB SKILL.md, ~20 top-level categories, ~15% nested one level deeper,
 * ~10% with references/, ~5% with scripts/, ~4% limited to another platform.
 * Same seed and size → byte-identical tree on every machine (no Math.random, no clock).
 */

/** Bump when the shape of generated files changes, so cached trees are not reused. */
const GENERATOR_VERSION = 2;
const COMPLETE_MARKER = '.complete';

/** mulberry32: tiny, fast and good enough to shape test data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CATEGORIES = [
  'devops', 'data', 'frontend', 'backend', 'mobile', 'security', 'testing', 'docs', 'ml', 'cloud',
  'databases', 'observability', 'design', 'productivity', 'research', 'finance', 'media', 'networking',
  'automation', 'writing',
];
const SUBCATEGORIES = ['k8s', 'ci', 'analysis', 'tooling', 'migration', 'review'];
const VERBS = ['deploy', 'audit', 'build', 'review', 'migrate', 'profile', 'debug', 'generate', 'sync', 'convert', 'test', 'publish'];
const NOUNS = ['cluster', 'pipeline', 'schema', 'dashboard', 'report', 'api', 'service', 'component', 'dataset', 'notebook', 'release', 'invoice'];
const WORDS = (
  'the a skill agent file project team service request config deploy build check run test data table ' +
  'query index cache release review change branch commit issue user output input step error retry ' +
  'report summary metric alert log trace model prompt token budget catalog search folder path ' +
  'when use this for with after before each every only never always should must can will'
).split(' ');

/** `items[i]` for an index known to be in range; an empty list throws instead of yielding undefined. */
function nth<T>(items: readonly T[], i: number): T {
  const item = items[i];
  if (item === undefined) throw new Error(`no item ${i} in a list of ${items.length}`);
  return item;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return nth(items, Math.floor(random() * items.length));
}

/** The first segment of `a/b` (split always returns at least one piece, so `?? category` is never used). */
function topCategory(category: string): string {
  return category.split('/')[0] ?? category;
}

function sentence(random: () => number, min: number, max: number): string {
  const count = min + Math.floor(random() * (max - min + 1));
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    words.push(pick(random, WORDS));
  }
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1) + '.';
}

function descriptionLines(random: () => number, name: string): string[] {
  const what = `${sentence(random, 8, 16)} Use when ${sentence(random, 6, 12).toLowerCase()}`;
  const style = random();
  if (style < 0.45) {
    return [`description: ${what.replace(/: /g, ' - ')}`];
  }
  if (style < 0.7) {
    return [`description: '${what.replace(/'/g, "''")} (${name})'`];
  }
  if (style < 0.85) {
    return [`description: "${what} \\"${name}\\""`];
  }
  if (style < 0.95) {
    return ['description: >-', `  ${what}`, `  ${sentence(random, 6, 12)}`];
  }
  return ['description: |', `  ${what}`, `  ${sentence(random, 6, 12)}`];
}

function listLines(random: () => number, key: string, values: readonly string[]): string[] {
  if (random() < 0.5) {
    return [`${key}: [${values.join(', ')}]`];
  }
  return [`${key}:`, ...values.map((value) => `  - ${value}`)];
}

function skillMarkdown(random: () => number, name: string, category: string, platformLimited: boolean): string {
  const tags = [topCategory(category), pick(random, VERBS), pick(random, NOUNS)];
  const platforms = platformLimited ? [random() < 0.5 ? 'windows' : 'macos'] : ['linux', 'macos', 'windows'];
  const lines = ['---', `name: ${name}`, ...descriptionLines(random, name), `version: 1.${Math.floor(random() * 9)}.0`, 'license: MIT'];
  lines.push(...listLines(random, 'tags', tags));
  lines.push(`platforms: [${platforms.join(', ')}]`);
  lines.push('use_cases:', `  - ${sentence(random, 4, 9)}`, `  - ${sentence(random, 4, 9)}`);
  if (random() < 0.5) {
    lines.push('example_queries:', `  - "${sentence(random, 4, 8)}"`);
  }
  lines.push('metadata:', '  hermes:', `    tags: [${tags.join(', ')}]`, `    category: ${topCategory(category)}`);
  lines.push('---', '', `# ${name}`, '', sentence(random, 20, 40), '');
  const target = 2600 + Math.floor(random() * 800);
  const sections = ['When to use', 'Steps', 'Examples', 'Pitfalls', 'Verification', 'Notes'];
  let size = lines.join('\n').length;
  for (let section = 0; size < target; section++) {
    const heading = nth(sections, section % sections.length);
    const block = [`## ${heading}`, '', sentence(random, 15, 35), sentence(random, 10, 25), ''];
    if (heading === 'Steps') {
      block.push('```bash', `skill run ${name} --${pick(random, NOUNS)} ${pick(random, WORDS)}`, '# not a heading', '```', '');
    }
    lines.push(...block);
    size += block.join('\n').length + 1;
  }
  return lines.join('\n');
}

/** Writes a fresh tree of `size` skills under `dir` (which must be empty or absent). */
export function writeSkillTree(dir: string, size: number, seed: number): void {
  const random = seededRandom(seed);
  fs.mkdirSync(dir, { recursive: true });
  for (let index = 0; index < size; index++) {
    const top = nth(CATEGORIES, index % CATEGORIES.length);
    const category = random() < 0.15 ? `${top}/${pick(random, SUBCATEGORIES)}` : top;
    const name = `${pick(random, VERBS)}-${pick(random, NOUNS)}-${index.toString(36).padStart(4, '0')}`;
    const skillDir = path.join(dir, ...category.split('/'), name);
    fs.mkdirSync(skillDir, { recursive: true });
    const platformLimited = random() < 0.04;
    fs.writeFileSync(path.join(skillDir, 'SKILL.md'), skillMarkdown(random, name, category, platformLimited));
    if (random() < 0.1) {
      fs.mkdirSync(path.join(skillDir, 'references'));
      fs.writeFileSync(path.join(skillDir, 'references', 'guide.md'), `# Guide\n\n${sentence(random, 40, 80)}\n`);
    }
    if (random() < 0.05) {
      fs.mkdirSync(path.join(skillDir, 'scripts'));
      fs.writeFileSync(path.join(skillDir, 'scripts', 'run.py'), 'import json, sys\nprint(json.dumps({"ok": True}))\n');
    }
  }
}

/**
 * The tree for (size, seed), generated once into the OS temp folder and reused while its
 * completion marker is present (a half-written tree from an interrupted run is rebuilt).
 */
export function skillTree(size: number, seed = 42, baseDir = path.join(os.tmpdir(), 'skillwright-bench')): string {
  const dir = path.join(baseDir, `tree-v${GENERATOR_VERSION}-s${seed}-n${size}`);
  if (fs.existsSync(path.join(dir, COMPLETE_MARKER))) {
    return dir;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  writeSkillTree(dir, size, seed);
  fs.writeFileSync(path.join(dir, COMPLETE_MARKER), `${size} skills, seed ${seed}\n`);
  return dir;
}

if (require.main === module) {
  for (const size of [100, 1000, 10000]) {
    process.stdout.write(`${skillTree(size)}\n`);
  }
}
