import * as path from 'node:path';
import type { FileSystemPort } from '../../base/fileSystemPort';
import type { SkillIndex } from '../index/skillIndex';
import { runBounded } from '../index/skillWalker';
import { lintSkill } from './skillLint';
import type { SkillDependencies } from '../model/skillDependencies';
import { skillDependencies, workflowCalls } from '../model/skillDependencies';
import { parseSkillBytes, parseSkillText } from '../model/skillParser';
import type { LintFinding, SkillCall, SkillRecord } from '../model/skillTypes';

/** Where a SKILL.md is and which index it belongs to; `text` lints an unsaved buffer instead of the disk. */
export interface LintTarget {
  readonly file: string;
  readonly text?: string;
}

/** The dependency graph of an index, plus what the executor needs to check a run before it starts. */
export interface IndexDependencies extends SkillDependencies {
  /** What the winning copy of `name` calls; undefined when no skill of that name is indexed. */
  callsOf(name: string): readonly SkillCall[] | undefined;
}

type OtherSkills = Map<string, { version?: string; scope: string; file: string }[]>;

/** What every lint of one version of the index shares; a new `index.all()` list means a new version. */
interface IndexView {
  readonly records: readonly SkillRecord[];
  readonly skills: OtherSkills;
  readonly byFile: ReadonlyMap<string, SkillRecord>;
  dependencies?: Promise<IndexDependencies>;
}

interface CachedCalls {
  readonly mtimeMs: number;
  readonly size: number;
  readonly calls: readonly SkillCall[];
}

const READ_CONCURRENCY = 8;
const views = new WeakMap<SkillIndex, IndexView>();
/** Calls per SKILL.md across versions of the index: an unchanged (mtime, size) is not read again. */
const callCaches = new WeakMap<SkillIndex, Map<string, CachedCalls>>();

function otherSkills(records: readonly SkillRecord[]): OtherSkills {
  const skills: OtherSkills = new Map();
  for (const record of records) {
    const list = skills.get(record.name) ?? [];
    list.push({ scope: record.scope, file: record.file, ...(record.version !== undefined ? { version: record.version } : {}) });
    skills.set(record.name, list);
  }
  return skills;
}

/** Built once per version of the index, so linting every skill of a large index stays linear. */
function viewOf(index: SkillIndex): IndexView {
  const records = index.all();
  let view = views.get(index);
  if (!view || view.records !== records) {
    view = { records, skills: otherSkills(records), byFile: new Map(records.map((record) => [record.file, record])) };
    views.set(index, view);
  }
  return view;
}

/**
 * Which workflows run which, for the whole index, once per version of it. Records carry their
 * calls; the few that do not (served from a version 2 snapshot, which kept no workflows) are read
 * here if they are Level 1 or 2 (the levels a workflow makes), and read again only when their
 * (mtime, size) changes. Such a skill that declares `level: 0` and still has a workflow is not
 * seen until its file is read again; its own lint still reports a self-call.
 */
export function indexDependencies(index: SkillIndex, fs: FileSystemPort): Promise<IndexDependencies> {
  const view = viewOf(index);
  view.dependencies ??= buildDependencies(index, view.records, fs);
  return view.dependencies;
}

async function buildDependencies(index: SkillIndex, records: readonly SkillRecord[], fs: FileSystemPort): Promise<IndexDependencies> {
  const previous = callCaches.get(index) ?? new Map<string, CachedCalls>();
  const cache = new Map<string, CachedCalls>();
  const calls = new Map<string, readonly SkillCall[]>();
  const toRead: SkillRecord[] = [];
  for (const record of records) {
    // The copy that wins its name is the one a workflow runs; shadowed copies only lint themselves.
    if (record.shadowedBy !== undefined) continue;
    if (record.calls !== undefined) {
      calls.set(record.name, record.calls);
      continue;
    }
    calls.set(record.name, []);
    if (record.level === 0) continue;
    const cached = previous.get(record.file);
    if (cached && cached.mtimeMs === record.mtimeMs && cached.size === record.size) {
      cache.set(record.file, cached);
      calls.set(record.name, cached.calls);
    } else {
      toRead.push(record);
    }
  }
  await runBounded(toRead, READ_CONCURRENCY, async (record) => {
    let found: readonly SkillCall[] = [];
    try {
      found = workflowCalls(parseSkillBytes(await fs.readFile(record.file)).frontmatter);
    } catch {
      // Gone or unreadable since it was indexed: the index will drop it; until then it calls nothing.
    }
    cache.set(record.file, { mtimeMs: record.mtimeMs, size: record.size, calls: found });
    calls.set(record.name, found);
  });
  callCaches.set(index, cache);
  const graph = skillDependencies(calls);
  return { cyclesThrough: (name, own) => graph.cyclesThrough(name, own), callsOf: (name) => calls.get(name) };
}

/**
 * Lints one SKILL.md with everything the rules need: its folder on disk (links, entry scripts) and
 * the other skills of the index (workflow references, cycles between workflows, duplicate names).
 * Shared by the CLI and the Problems panel so both report the same findings.
 */
export async function lintSkillFile(target: LintTarget, fs: FileSystemPort, index: SkillIndex): Promise<LintFinding[]> {
  const parsed = target.text === undefined ? parseSkillBytes(await fs.readFile(target.file)) : parseSkillText(target.text);
  const dir = path.dirname(target.file);
  const view = viewOf(index);
  const self = view.byFile.get(target.file);
  return lintSkill(parsed, {
    folderName: path.basename(dir),
    exists: async (relative) => (await fs.stat(path.join(dir, relative))) !== undefined,
    skills: view.skills,
    dependencies: await indexDependencies(index, fs),
    ...(self ? { self: { scope: self.scope, file: self.file } } : {}),
  });
}
