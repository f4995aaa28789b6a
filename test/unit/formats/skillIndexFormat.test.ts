import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DirEntry, FileStat, FileSystemPort } from '../../../src/core/base/fileSystemPort';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { decodeIndexSnapshot, STALE_MTIME } from '../../../src/core/skills/index/indexSnapshot';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { fixturesDir, readFixture, tempDir } from './formatFixtures';

/** Where the v2 snapshot says its skills are (the generator indexed them under this path). */
const SNAPSHOT_ROOT = '/projects/app/.agents/skills';

/**
 * Node's file system with SNAPSHOT_ROOT mapped to a real folder, so today's index sees the skills
 * where the old one did; counts SKILL.md reads, which a usable snapshot spares.
 */
class MappedFileSystem implements FileSystemPort {
  private readonly node = new NodeFileSystem();
  skillReads = 0;
  constructor(private readonly real: string) {}
  private map(p: string): string {
    return p === SNAPSHOT_ROOT || p.startsWith(`${SNAPSHOT_ROOT}/`) ? this.real + p.slice(SNAPSHOT_ROOT.length) : p;
  }
  readDirectory(p: string): Promise<DirEntry[]> {
    return this.node.readDirectory(this.map(p));
  }
  stat(p: string): Promise<FileStat | undefined> {
    return this.node.stat(this.map(p));
  }
  lstat(p: string): Promise<FileStat | undefined> {
    return this.node.lstat(this.map(p));
  }
  async realPath(p: string): Promise<string> {
    const real = await this.node.realPath(this.map(p));
    return real === this.real || real.startsWith(`${this.real}/`) ? SNAPSHOT_ROOT + real.slice(this.real.length) : real;
  }
  readFile(p: string): Promise<Uint8Array> {
    if (p.endsWith('SKILL.md')) this.skillReads++;
    return this.node.readFile(this.map(p));
  }
  writeFileAtomic(p: string, data: Uint8Array | string): Promise<void> {
    return this.node.writeFileAtomic(this.map(p), data);
  }
  mkdir(p: string): Promise<void> {
    return this.node.mkdir(this.map(p));
  }
  remove(p: string): Promise<void> {
    return this.node.remove(this.map(p));
  }
  rename(from: string, to: string): Promise<void> {
    return this.node.rename(this.map(from), this.map(to));
  }
}

describe('persisted formats: the skill index snapshot', () => {
  it('v2: decodes every field of every skill, a broken one with its read error', () => {
    const entries = decodeIndexSnapshot(readFixture('skill-index', 'v2.json'));
    assert.deepEqual(
      entries.map((entry) => [entry.rootPath, entry.sortKey.replaceAll('\0', '/'), entry.header.name, entry.header.level, entry.header.version]),
      [
        [SNAPSHOT_ROOT, 'broken', '[unclosed', 0, undefined],
        [SNAPSHOT_ROOT, 'deploy', 'deploy', 0, '1.2.0'],
        [SNAPSHOT_ROOT, 'review', 'review', 1, undefined],
        [SNAPSHOT_ROOT, 'testing/flaky-tests', 'flaky-tests', 0, undefined],
      ],
    );
    const deploy = entries[1]?.header;
    assert.equal(deploy?.description, 'Ship the app to staging and production with the release checklist.');
    assert.deepEqual([deploy?.tags, deploy?.useCases, deploy?.exampleQueries, deploy?.headings], [['release', 'ops'], ['ship a release'], ['deploy to staging'], ['Deploy', 'Checklist']]);
    assert.deepEqual(entries[3]?.header.platforms, ['linux', 'macos']);
    assert.match(entries[0]?.header.readErrors[0] ?? '', /Frontmatter YAML error/);
  });

  it('v2: a start serves the skills from it at once, then reads each SKILL.md once to learn what v2 did not keep', async () => {
    const temp = tempDir('formats-skill-index');
    const text = readFixture('skill-index', 'v2.json');
    try {
      // The skills the snapshot was made from.
      fs.cpSync(path.join(fixturesDir, 'skill-index', 'v2-skills'), temp.dir, { recursive: true });
      const mapped = new MappedFileSystem(temp.dir);
      const writes: string[] = [];
      const index = new SkillIndex({
        fs: mapped,
        roots: [{ path: SNAPSHOT_ROOT, scope: 'project', label: '.agents/skills', folder: 'app', writeTarget: true }],
        platform: 'linux',
        snapshot: { read: () => Promise.resolve(text), write: (written) => Promise.resolve(void writes.push(written)) },
      });
      try {
        const served: string[][] = [];
        index.onDidChange((change) => served.push(change.added.map((skill) => skill.name)));
        await index.load();
        assert.deepEqual(served, [['[unclosed', 'deploy', 'review', 'flaky-tests']]);
        await index.validated;
        assert.equal(mapped.skillReads, 4, 'every skill of the older snapshot is read again once');
        assert.ok(index.get('review')?.calls !== undefined, 'the workflow calls v2 did not keep are known now');
        const deploy = index.get('deploy');
        assert.deepEqual([deploy?.category, deploy?.version, deploy?.file], ['', '1.2.0', `${SNAPSHOT_ROOT}/deploy/SKILL.md`]);
        assert.equal(index.get('flaky-tests')?.category, 'testing');
      } finally {
        index.dispose();
      }
    } finally {
      temp.cleanup();
    }
  });
});

describe('persisted formats: the skill index snapshot, version 3', () => {
  it('v3: decodes the workflow calls with every other field', () => {
    const entries = decodeIndexSnapshot(readFixture('skill-index', 'v3.json'));
    assert.deepEqual(entries.map((entry) => [entry.sortKey.replaceAll('\0', '/'), entry.header.name, entry.header.level, entry.header.version]), [
      ['broken', '[unclosed', 0, undefined],
      ['deploy', 'deploy', 0, '1.2.0'],
      ['review', 'review', 1, undefined],
      ['testing/flaky-tests', 'flaky-tests', 0, undefined],
    ]);
    assert.deepEqual(entries[2]?.header.calls, [
      { skill: 'flaky-tests', step: 'check', via: 'skill' },
      { skill: 'deploy', range: '^1.2.0', step: 'ship', via: 'skill' },
      { skill: 'flaky-tests', step: 'ship', via: 'fallback' },
    ]);
    assert.deepEqual(entries[1]?.header.calls, [], 'a skill without a workflow calls nothing, and that is known');
    assert.deepEqual(entries[3]?.header.platforms, ['linux', 'macos']);
    assert.match(entries[0]?.header.readErrors[0] ?? '', /Frontmatter YAML error/);
  });

  it('v3: a start serves the skills with their calls at once, then reads each SKILL.md once to learn its about text', async () => {
    const temp = tempDir('formats-skill-index-v3');
    const text = readFixture('skill-index', 'v3.json');
    try {
      fs.cpSync(path.join(fixturesDir, 'skill-index', 'v3-skills'), temp.dir, { recursive: true });
      const mapped = new MappedFileSystem(temp.dir);
      const index = new SkillIndex({
        fs: mapped,
        roots: [{ path: SNAPSHOT_ROOT, scope: 'project', label: '.agents/skills', folder: 'app', writeTarget: true }],
        platform: 'linux',
        snapshot: { read: () => Promise.resolve(text), write: () => Promise.resolve() },
      });
      try {
        await index.load();
        assert.deepEqual(index.get('review')?.calls?.map((call) => call.skill), ['flaky-tests', 'deploy', 'flaky-tests'], 'served from the snapshot before any file is read');
        await index.validated;
        assert.equal(mapped.skillReads, 4, 'every skill of the older snapshot is read again once');
        assert.deepEqual(index.get('review')?.calls?.map((call) => `${call.via} ${call.skill}${call.range ? `@${call.range}` : ''}`), ['skill flaky-tests', 'skill deploy@^1.2.0', 'fallback flaky-tests']);
        assert.deepEqual(index.get('deploy')?.calls, []);
      } finally {
        index.dispose();
      }
    } finally {
      temp.cleanup();
    }
  });
});

describe('persisted formats: the skill index snapshot, version 4', () => {
  it('v4: decodes the about text search reads, with every other field', () => {
    const entries = decodeIndexSnapshot(readFixture('skill-index', 'v4.json'));
    assert.deepEqual(entries.map((entry) => [entry.sortKey.replaceAll('\0', '/'), entry.header.name, entry.header.about]), [
      ['broken', '[unclosed', 'No usable frontmatter.'],
      ['deploy', 'deploy', 'Roll the build out to the servers\nbehind the load balancer.\n- a release is tagged\nship it'],
      ['review', 'review', ''],
      ['testing/flaky-tests', 'flaky-tests', 'Tests that pass and fail on the same code.'],
    ]);
    assert.deepEqual(entries[1]?.header.headings, ['Deploy', 'When to use', 'Steps']);
    assert.equal(entries[2]?.header.calls?.length, 3);
  });

  it('v3: decodes without about text, each entry marked for a re-read at the first check against the disk', () => {
    for (const entry of decodeIndexSnapshot(readFixture('skill-index', 'v3.json'))) {
      assert.equal(entry.header.about, undefined);
      assert.equal(entry.mtimeMs, STALE_MTIME);
    }
  });

  it('v4: a start serves the skills with their about text and, with the files unchanged, reads none of them again', async () => {
    const temp = tempDir('formats-skill-index-v4');
    const text = readFixture('skill-index', 'v4.json');
    try {
      fs.cpSync(path.join(fixturesDir, 'skill-index', 'v4-skills'), temp.dir, { recursive: true });
      for (const entry of decodeIndexSnapshot(text)) {
        const file = path.join(temp.dir, ...entry.sortKey.split('\0'), 'SKILL.md');
        fs.utimesSync(file, entry.mtimeMs / 1000, entry.mtimeMs / 1000);
      }
      const mapped = new MappedFileSystem(temp.dir);
      const index = new SkillIndex({
        fs: mapped,
        roots: [{ path: SNAPSHOT_ROOT, scope: 'project', label: '.agents/skills', folder: 'app', writeTarget: true }],
        platform: 'linux',
        snapshot: { read: () => Promise.resolve(text), write: () => Promise.resolve() },
      });
      try {
        await index.load();
        await index.validated;
        assert.equal(mapped.skillReads, 0, 'a usable snapshot spares reading every SKILL.md at start');
        assert.equal(index.get('flaky-tests')?.about, 'Tests that pass and fail on the same code.');
        assert.match(index.get('deploy')?.about ?? '', /load balancer[\s\S]*ship it$/);
      } finally {
        index.dispose();
      }
    } finally {
      temp.cleanup();
    }
  });
});
