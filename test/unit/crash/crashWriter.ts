/**
 * The child process of the crash tests: writes one kind of file over and over with the same core
 * code the CLI runs, until the test kills it with SIGKILL. It prints `ready` once set up and
 * `done <version>` after each write has returned, so the test knows the newest version that must
 * have reached the disk.
 *
 *   node crashWriter.js <kind> <dir> <from-version> [--naive]
 *
 * `--naive` writes with a plain truncate-and-write instead (the test's proof that its check finds
 * torn files).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { CrashKind } from './crashVersions';
import { layout, lockOf, memoryAction, messageText, skillText } from './crashVersions';

type Writer = (version: number) => Promise<void>;

/** A FileSystemPort whose writes truncate the file and write it in pieces: what atomic writes prevent. */
class NaiveFileSystem extends NodeFileSystem {
  override async writeFileAtomic(p: string, data: Uint8Array | string): Promise<void> {
    await fs.mkdir(path.dirname(p), { recursive: true });
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    const handle = await fs.open(p, 'w');
    try {
      for (let at = 0; at < bytes.length; at += 4096) await handle.write(bytes.subarray(at, at + 4096));
    } finally {
      await handle.close();
    }
  }
}

async function writerFor(kind: CrashKind, dir: string, naive: boolean): Promise<Writer> {
  const nodeFs = naive ? new NaiveFileSystem() : new NodeFileSystem();
  const where = layout(dir);
  switch (kind) {
    case 'skill-edit':
    case 'skill-create': {
      const { skillRootCandidates } = await import('../../../src/core/base/skillRoots');
      const { SkillIndex } = await import('../../../src/core/skills/index/skillIndex');
      const { runSkillTool } = await import('../../../src/core/skills/tools/skillTools');
      const index = new SkillIndex({ fs: nodeFs, roots: skillRootCandidates([{ name: 'project', fsPath: where.project }], where.home) });
      await index.load();
      const ctx = { fs: nodeFs, index };
      return async (v) => {
        const args =
          kind === 'skill-edit'
            ? { action: 'edit', name: 'crash-skill', content: skillText(v) }
            : { action: 'create', name: `made-${v}`, content: skillText(v, `made-${v}`) };
        const result = await runSkillTool('skill_manage', args, ctx);
        if (!result.success) throw new Error(`skill_manage ${args.action} failed: ${result.error}`);
      };
    }
    case 'memory': {
      const { MemoryStore } = await import('../../../src/core/memory/memoryStore');
      const { NodeFileLock } = await import('../../../src/core/memory/memoryLock');
      // As the CLI builds it (src/cli/runCommand.ts).
      const store = new MemoryStore({ fs: nodeFs, lock: new NodeFileLock(), projectRoot: where.project, userHome: where.home });
      return async (v) => {
        const result = await store.apply([memoryAction(v)]);
        if (!result.ok) throw new Error(`memory replace failed: ${result.error}`);
      };
    }
    case 'lock': {
      const { writeLock } = await import('../../../src/core/sharing/skillsLock');
      return (v) => writeLock(nodeFs, where.project, lockOf(v));
    }
    case 'session': {
      const { NodeAppendPort, SessionLog } = await import('../../../src/core/sessions/sessionLog');
      const log = new SessionLog({ fs: nodeFs, append: new NodeAppendPort(), storageDir: where.storage, autoTitle: false });
      const resumed = await log.resume('crash');
      if (!resumed) throw new Error('the crash session does not exist');
      const writer = resumed.writer;
      // `v` is the number of the message appended: the writer's own count decides it.
      return async () => {
        await writer.appendMessage({ role: writer.messageCount % 2 === 0 ? 'user' : 'assistant', content: messageText(writer.messageCount + 1) });
      };
    }
    case 'index': {
      const { skillRootCandidates } = await import('../../../src/core/base/skillRoots');
      const { SkillIndex } = await import('../../../src/core/skills/index/skillIndex');
      const { CliSnapshotStore, snapshotFile } = await import('../../../src/cli/indexCache');
      const roots = skillRootCandidates([{ name: 'project', fsPath: where.tree }], where.home);
      const store = new CliSnapshotStore(nodeFs, snapshotFile(where.cache, roots));
      const index = new SkillIndex({ fs: nodeFs, roots, snapshot: store });
      await index.load();
      await index.validated;
      const first = index.all()[0];
      if (!first) throw new Error('the crash tree has no skills');
      const original = await fs.readFile(first.file, 'utf8');
      return async (v) => {
        // A changed skill, then the snapshot saved: what a CLI run does after finding a change.
        await nodeFs.writeFileAtomic(first.file, original.replace(/^description: /m, `description: Changed ${v}. `));
        await index.invalidate(first.file);
        await index.saveSnapshot();
      };
    }
  }
}

async function main(): Promise<void> {
  const [kind, dir, from, flag] = process.argv.slice(2);
  if (!kind || !dir || from === undefined) throw new Error('usage: crashWriter <kind> <dir> <from-version> [--naive]');
  const write = await writerFor(kind as CrashKind, dir, flag === '--naive');
  process.stdout.write('ready\n');
  for (let v = Number(from) + 1; ; v++) {
    await write(v);
    process.stdout.write(`done ${v}\n`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
