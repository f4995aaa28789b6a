import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../repoRoot';

/**
 * The persisted-format fixtures, written by test/fixtures/formats/generate.mjs with the code of
 * the version that wrote each format. Listed here so that a fixture nobody loads, or a loader
 * test without its fixture, fails the inventory test (persistedFormats.test.ts).
 */
export const FIXTURES = {
  sessions: ['v1.jsonl', 'v1-crashed.jsonl', 'v1-compacted.jsonl'],
  'session-index': ['v2.sqlite'],
  'skill-index': ['v2.json', 'v3.json', 'v4.json'],
  memory: ['v1/MEMORY.md', 'v1/USER.md'],
  approvals: ['v1.json'],
  usage: ['v1.json', 'v1-triggers.json'],
} satisfies Record<string, readonly string[]>;

export type Format = keyof typeof FIXTURES;

/** Files beside the fixtures that are not fixtures: the generator and the skills each snapshot indexed. */
export const NOT_FIXTURES: readonly RegExp[] = [/^generate\.mjs$/, /^skill-index\/v[234]-skills\/.+\/SKILL\.md$/];

export const fixturesDir = path.join(repoRoot(), 'test', 'fixtures', 'formats');

export function fixturePath(format: Format, name: string): string {
  if (!FIXTURES[format].includes(name)) throw new Error(`${format}/${name} is not listed in FIXTURES`);
  return path.join(fixturesDir, format, name);
}

export function readFixture(format: Format, name: string): string {
  return fs.readFileSync(fixturePath(format, name), 'utf8');
}

/** A temporary folder removed by the returned cleanup. */
export function tempDir(prefix: string): { readonly dir: string; readonly cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `skillwright-${prefix}-`));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Every file under `dir`, as `/`-separated paths relative to it. */
export function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}
