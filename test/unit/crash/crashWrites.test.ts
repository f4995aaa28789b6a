import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeSkillTree } from '../../../bench/generateSkillTree';
import { CliSnapshotStore, snapshotFile } from '../../../src/cli/indexCache';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { skillRootCandidates } from '../../../src/core/base/skillRoots';
import { serializeMemoryFile } from '../../../src/core/memory/memoryFile';
import { NodeAppendPort, SessionLog } from '../../../src/core/sessions/sessionLog';
import { serializeLock, writeLock } from '../../../src/core/sharing/skillsLock';
import { decodeIndexSnapshot } from '../../../src/core/skills/index/indexSnapshot';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { mulberry32 } from '../seededRandom';
import type { CrashRun } from './crashHarness';
import { crashOnce } from './crashHarness';
import type { CrashKind } from './crashVersions';
import { layout, lockOf, memoryEntries, messageText, skillText, skillVersionOf } from './crashVersions';

/**
 * SIGKILL at random points while the core writes a skill, memory, the lock, a session and the
 * index snapshot (the child runs the same code as the CLI). After each kill: every file is one
 * whole version, old or new; a session has at most a torn last line, which the reader skips and
 * reports; a broken snapshot is rebuilt from the skill folders. Seeded: a failure names its seed.
 */

const SEED = Number(process.env['CRASH_SEED'] ?? 20261202);
// Weighted to the kinds whose child starts fastest (the lock writer loads little; the skill tools and
// the session records load zod), so 200 kills fit in about 40 s on two cores.
const ITERATIONS: Record<CrashKind, number> = { 'skill-edit': 20, 'skill-create': 10, memory: 40, lock: 80, session: 30, index: 20 };
const TREE_SKILLS = 100;
const nodeFs = new NodeFileSystem();

interface Tally {
  iterations: number;
  /** Kills that left the newer version on disk although the child had not said so yet. */
  landedAfterReport: number;
  /** Temp files (`.<name>.<random>.tmp`) a kill left beside the target. */
  tempFilesLeft: number;
  extra: Record<string, number>;
}

const totals = { iterations: 0, started: Date.now() };

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function tempFiles(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((name) => /^\..+\.[0-9a-f]{12}\.tmp$/.test(name));
  } catch {
    return [];
  }
}

/** The version `text` is, among `[from, to]`; fails with what the file holds otherwise. */
function versionAmong(text: string | undefined, from: number, to: number, of: (v: number) => string, what: string): number {
  for (let v = to; v >= from; v--) if (text === of(v)) return v;
  const shown = text === undefined ? 'no file' : `${text.length} characters: ${JSON.stringify(text.slice(0, 80))}…${JSON.stringify(text.slice(-80))}`;
  assert.fail(`${what} is neither version ${from} nor ${to} (seed ${SEED}): ${shown}`);
}

/** Runs one kind's iterations; `check` looks at the disk after each kill and returns the version to continue from. */
async function iterate(
  kind: CrashKind,
  dir: string,
  start: number,
  tempDirs: () => readonly string[],
  check: (run: CrashRun, from: number, i: number) => number | Promise<number>,
): Promise<Tally> {
  const random = mulberry32(SEED + kind.length * 101 + kind.charCodeAt(0));
  const tally: Tally = { iterations: 0, landedAfterReport: 0, tempFilesLeft: 0, extra: {} };
  let from = start;
  for (let i = 0; i < ITERATIONS[kind]; i++) {
    const run = await crashOnce(kind, dir, from, random);
    assert.ok(run.killed, `the ${kind} writer ended by itself (iteration ${i}, seed ${SEED}): ${run.stderr.slice(0, 800)}`);
    assert.equal(run.stderr, '', `the ${kind} writer reported an error (iteration ${i}): ${run.stderr.slice(0, 800)}`);
    const next = await check(run, from, i);
    if (next > run.lastDone) tally.landedAfterReport++;
    // Left over by a kill between writing the temp file and renaming it; harmless, but counted.
    for (const folder of tempDirs()) {
      for (const temp of tempFiles(folder)) {
        tally.tempFilesLeft++;
        fs.rmSync(path.join(folder, temp));
      }
    }
    from = next;
    tally.iterations++;
  }
  totals.iterations += tally.iterations;
  return tally;
}

function report(kind: string, tally: Tally, started: number): void {
  const extra = Object.entries(tally.extra).map(([key, value]) => `, ${key} ${value}`).join('');
  console.log(`      ${kind}: ${tally.iterations} kills in ${((Date.now() - started) / 1000).toFixed(1)} s (newer version on disk before its report ${tally.landedAfterReport}, temp files left ${tally.tempFilesLeft}${extra})`);
}

async function skillEdit(tmp: string): Promise<void> {
  const started = Date.now();
  const where = layout(path.join(tmp, 'skill-edit'));
  fs.mkdirSync(path.dirname(where.skillFile), { recursive: true });
  fs.mkdirSync(where.home, { recursive: true });
  fs.writeFileSync(where.skillFile, skillText(0));
  const tally = await iterate('skill-edit', path.join(tmp, 'skill-edit'), 0, () => [path.dirname(where.skillFile)], (run, from) => {
    const v = versionAmong(read(where.skillFile), Math.max(from, run.lastDone), run.lastDone + 1, (n) => skillText(n), 'SKILL.md');
    assert.equal(skillVersionOf(read(where.skillFile) ?? ''), v);
    return v;
  });
  report('skill edit', tally, started);
}

async function skillCreate(tmp: string): Promise<void> {
  const started = Date.now();
  const dir = path.join(tmp, 'skill-create');
  const where = layout(dir);
  fs.mkdirSync(where.skillsRoot, { recursive: true });
  fs.mkdirSync(where.home, { recursive: true });
  // Folders a kill left without SKILL.md (see below): they stay as they are in later iterations.
  const leftovers = new Set<string>();
  const tally = await iterate('skill-create', dir, 0, () => fs.readdirSync(where.skillsRoot).map((name) => path.join(where.skillsRoot, name)), (run) => {
    const made = fs.readdirSync(where.skillsRoot).filter((name) => name.startsWith('made-'));
    let next = run.lastDone;
    for (const name of made) {
      const v = Number(name.slice('made-'.length));
      const file = path.join(where.skillsRoot, name, 'SKILL.md');
      const text = read(file);
      if (leftovers.has(name)) assert.equal(text, undefined, `${name} was left without SKILL.md by a kill, and nothing may write it later`);
      else if (v <= run.lastDone) assert.equal(text, skillText(v, name), `${name} was reported created but is not whole`);
      else {
        assert.equal(v, run.lastDone + 1, `${name} appeared although made-${run.lastDone + 1} was the only one under way`);
        if (text === undefined) {
          // The kill came after the folder was made and before SKILL.md was renamed into it: a
          // folder without a skill, which the index ignores and a new create of the name refuses.
          leftovers.add(name);
          next = v;
        } else {
          assert.equal(text, skillText(v, name), `${name} is torn`);
          next = v;
        }
      }
    }
    return next;
  });
  tally.extra['folders without SKILL.md'] = leftovers.size;
  // The index sees exactly the whole skills.
  const index = new SkillIndex({ fs: nodeFs, roots: skillRootCandidates([{ name: 'project', fsPath: where.project }], where.home) });
  await index.load();
  for (const record of index.all()) assert.equal(read(record.file), skillText(Number(record.name.slice(5)), record.name));
  report('skill create', tally, started);
}

async function memory(tmp: string): Promise<void> {
  const started = Date.now();
  const dir = path.join(tmp, 'memory');
  const where = layout(dir);
  fs.mkdirSync(path.dirname(where.memoryFile), { recursive: true });
  fs.mkdirSync(where.home, { recursive: true });
  fs.writeFileSync(where.memoryFile, serializeMemoryFile(memoryEntries(0)));
  let staleLocks = 0;
  const tally = await iterate('memory', dir, 0, () => [path.dirname(where.memoryFile)], (run, from) => {
    const v = versionAmong(read(where.memoryFile), Math.max(from, run.lastDone), run.lastDone + 1, (n) => serializeMemoryFile(memoryEntries(n)), 'MEMORY.md');
    // A writer killed inside its lock leaves the lock file. It names the killed process, so the
    // next writer breaks it at once (NodeFileLock): it stays for the next iteration to cope with.
    if (fs.existsSync(`${where.memoryFile}.lock`)) staleLocks++;
    return v;
  });
  tally.extra['lock files left'] = staleLocks;
  report('memory', tally, started);
}

async function lock(tmp: string): Promise<void> {
  const started = Date.now();
  const dir = path.join(tmp, 'lock');
  const where = layout(dir);
  fs.mkdirSync(where.project, { recursive: true });
  await writeLock(nodeFs, where.project, lockOf(0));
  const file = path.join(where.project, 'skills-lock.json');
  const tally = await iterate('lock', dir, 0, () => [where.project], (run, from) => {
    const v = versionAmong(read(file), Math.max(from, run.lastDone), run.lastDone + 1, (n) => serializeLock(lockOf(n)), 'skills-lock.json');
    return v;
  });
  report('skills-lock.json', tally, started);
}

async function session(tmp: string): Promise<void> {
  const started = Date.now();
  const dir = path.join(tmp, 'session');
  const where = layout(dir);
  const reported: string[] = [];
  const logger = { trace: () => undefined, debug: () => undefined, info: (m: string) => reported.push(m), warn: (m: string) => reported.push(m), error: (m: string) => reported.push(m) };
  const log = new SessionLog({ fs: nodeFs, append: new NodeAppendPort(), storageDir: where.storage, autoTitle: false, logger });
  const writer = await log.create({ id: 'crash', model: 'test', systemPrompt: 'You are a crash test.' });
  await writer.flush();
  let torn = 0;
  let killTorn = 0;
  /** The file ends in a line this test cut short, which no writer has resumed after yet. */
  let pendingCut = false;
  const random = mulberry32(SEED + 7);
  const tally = await iterate('session', dir, 0, () => [], async (run, from) => {
    const file = log.fileOf('crash');
    const endsTorn = (): boolean => {
      const bytes = fs.readFileSync(file);
      return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a;
    };
    reported.length = 0;
    const killed = await log.read('crash');
    const before = killed?.messages.length ?? 0;
    let newTear = false;
    assert.ok(before >= Math.max(from, run.lastDone) && before <= run.lastDone + 1, `the session has ${before} messages; the writer finished ${run.lastDone} (seed ${SEED})`);
    if (!endsTorn()) pendingCut = false;
    else if (!pendingCut) {
      // The kill itself tore the line it was appending (an append is one write call, so rarely).
      torn++;
      killTorn++;
      newTear = true;
    }
    // A power cut or a full disk can tear a line too: now and then the last one is cut short here,
    // so the reader and the next resume meet one.
    let expected = before;
    if (before > 0 && !endsTorn() && random() < 0.25) {
      const whole = fs.readFileSync(file);
      const lineStart = whole.lastIndexOf(0x0a, whole.length - 2) + 1;
      // The last line may be a damaged one already (a cut line that a resume ended with a newline).
      const wasMessage = ((): boolean => {
        try {
          return (JSON.parse(whole.subarray(lineStart).toString('utf8')) as { type?: string }).type === 'message';
        } catch {
          return false;
        }
      })();
      fs.truncateSync(file, lineStart + 1 + Math.floor(random() * (whole.length - lineStart - 2)));
      if (wasMessage) {
        torn++;
        expected = before - 1;
        newTear = true;
      }
      pendingCut = true;
    }
    const session = await log.read('crash');
    assert.ok(session?.header, 'the session header is gone');
    assert.equal(session.messages.length, expected, 'a torn last line took more than its own message');
    session.messages.forEach((message, i) => assert.equal(message.content, messageText(i + 1), `message ${i + 1} is not what was written`));
    // Every torn line so far is skipped (earlier ones now end in the newline a resume adds).
    assert.equal(session.skippedLines, torn, `skipped ${session.skippedLines} lines, ${torn} were torn`);
    // The log reports each skipped line once, so only a tear new in this round is looked for.
    if (newTear) assert.ok(reported.some((message) => /skipped line/.test(message)), `a torn last line was not reported: ${reported.join(' | ')}`);
    return expected;
  });
  tally.extra['torn by a kill'] = killTorn;
  tally.extra['torn last lines (cut by the test or the kill)'] = torn;
  report('session', tally, started);
}

async function snapshot(tmp: string): Promise<void> {
  const started = Date.now();
  const dir = path.join(tmp, 'index');
  const where = layout(dir);
  writeSkillTree(path.join(where.tree, '.agents', 'skills'), TREE_SKILLS, SEED);
  fs.mkdirSync(where.home, { recursive: true });
  const roots = skillRootCandidates([{ name: 'project', fsPath: where.tree }], where.home);
  const file = snapshotFile(where.cache, roots);
  const random = mulberry32(SEED);
  let broken = 0;
  const tally = await iterate('index', dir, 0, () => [path.dirname(file)], async (run) => {
    const text = read(file);
    if (text !== undefined) {
      const entries = decodeIndexSnapshot(text);
      assert.equal(entries.length, TREE_SKILLS, `the snapshot holds ${entries.length} of ${TREE_SKILLS} skills`);
    } else assert.equal(run.lastDone, 0, 'the snapshot is gone although it was saved');
    // Now and then the snapshot is damaged on purpose, as a disk or another tool might.
    if (text !== undefined && random() < 0.3) {
      broken++;
      fs.writeFileSync(file, random() < 0.5 ? text.slice(0, Math.floor(random() * text.length)) : '{"format":"skillwright-skill-index","version":4,"roots":[1],"skills":[[0,');
    }
    const store = new CliSnapshotStore(nodeFs, file);
    const index = new SkillIndex({ fs: nodeFs, roots, snapshot: store });
    await index.load();
    await index.validated;
    assert.equal(index.all().length, TREE_SKILLS, 'the index did not rebuild every skill');
    for (const record of index.all().slice(0, 3)) {
      const description = /^description: (.*)$/m.exec(read(record.file) ?? '')?.[1];
      assert.equal(record.description, description, `${record.name}: the index does not match the disk`);
    }
    await index.saveSnapshot();
    assert.equal(decodeIndexSnapshot(read(file) ?? '').length, TREE_SKILLS, 'the rebuilt index did not save a whole snapshot');
    index.dispose();
    return run.lastDone;
  });
  tally.extra['snapshots damaged on purpose'] = broken;
  report('index snapshot', tally, started);
}

describe('crash tests: SIGKILL while writing', function () {
  // About 40 s on two idle cores; a machine busy with other work can take several times that.
  this.timeout(600_000);
  it(`kills the writers of a skill, memory, the lock, a session and the index snapshot ${Object.values(ITERATIONS).reduce((a, b) => a + b)} times`, async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-crash-'));
    totals.iterations = 0;
    totals.started = Date.now();
    try {
      // The kinds run side by side (each kill after kill): a child spends most of its life starting.
      const kinds = { 'skill-edit': skillEdit, 'skill-create': skillCreate, memory, lock, session, index: snapshot };
      // CRASH_ONLY=session (comma-separated kinds) runs a part, to look into one failure.
      const only = process.env['CRASH_ONLY']?.split(',');
      const chosen = Object.entries(kinds).filter(([kind]) => !only || only.includes(kind));
      const outcomes = await Promise.allSettled(chosen.map(([, run]) => run(tmp)));
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    console.log(`      crash tests: ${totals.iterations} kills in total, ${((Date.now() - totals.started) / 1000).toFixed(1)} s (seed ${SEED})`);
    if (!process.env['CRASH_ONLY']) assert.ok(totals.iterations >= 200, `only ${totals.iterations} kills`);
  });
});

describe('crash tests: the check itself', function () {
  this.timeout(60_000);
  it('finds torn files when the writes are not atomic', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-crash-naive-'));
    try {
      const where = layout(tmp);
      fs.mkdirSync(where.project, { recursive: true });
      await writeLock(nodeFs, where.project, lockOf(0));
      const file = path.join(where.project, 'skills-lock.json');
      const random = mulberry32(SEED);
      let torn = 0;
      let from = 0;
      for (let i = 0; i < 20 && torn === 0; i++) {
        const run = await crashOnce('lock', tmp, from, random, { naive: true });
        assert.ok(run.killed, run.stderr);
        const text = read(file);
        const whole = [run.lastDone + 1, run.lastDone].find((v) => text === serializeLock(lockOf(v)));
        if (whole === undefined) {
          torn++;
          fs.writeFileSync(file, serializeLock(lockOf(run.lastDone)));
        }
        from = whole ?? run.lastDone;
      }
      assert.ok(torn > 0, 'twenty kills of a truncate-and-write writer left no torn file: the check cannot tell');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
