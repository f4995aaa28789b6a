import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SkillRoot } from '../../../src/core/base/skillRoots';
import type { SnapshotStore } from '../../../src/core/skills/index/indexSnapshot';
import type { SkillChangeEvent, SkillIndexOptions } from '../../../src/core/skills/index/skillIndex';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { SyncReadFileSystem } from '../../../src/core/base/syncReadFileSystem';
import type { IndexedSkillRecord } from '../../../src/core/skills/index/skillRecordSet';
import { repoRoot } from '../../repoRoot';

function writeTree(base: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(base, ...rel.split('/'));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
}

function skillMd(name: string, extra = ''): string {
  return `---\nname: ${name}\ndescription: ${name} does one thing. Use when testing.\n${extra}---\n# ${name}\n`;
}

class MemorySnapshot implements SnapshotStore {
  text?: string;
  writes = 0;

  async read(): Promise<string | undefined> {
    return this.text;
  }

  async write(text: string): Promise<void> {
    this.text = text;
    this.writes++;
  }
}

/** Node's file system, except for files the test declares unreadable (tests run as root, so chmod cannot). */
class FaultyFileSystem extends NodeFileSystem {
  readonly unreadable = new Set<string>();

  override async readFile(p: string): Promise<Uint8Array> {
    if (this.unreadable.has(p)) throw new Error('EACCES: permission denied');
    return super.readFile(p);
  }
}

describe('SkillIndex', () => {
  let temp: string;
  let project: SkillRoot;
  let user: SkillRoot;
  const indexes: SkillIndex[] = [];

  beforeEach(() => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-index-'));
    project = { path: path.join(temp, 'work', '.agents', 'skills'), scope: 'project', label: '.agents/skills', writeTarget: true };
    user = { path: path.join(temp, 'home', '.agents', 'skills'), scope: 'user', label: '~/.agents/skills', writeTarget: true };
  });

  afterEach(() => {
    for (const index of indexes.splice(0)) index.dispose();
    fs.rmSync(temp, { recursive: true, force: true });
  });

  function create(options: Partial<SkillIndexOptions> = {}): SkillIndex {
    const index = new SkillIndex({ fs: new NodeFileSystem(), roots: [project, user], platform: 'linux', ...options });
    indexes.push(index);
    return index;
  }

  function record(index: SkillIndex, file: string): IndexedSkillRecord {
    const found = index.all().find((item) => item.file === file);
    assert.ok(found, `no record for ${file}`);
    return found as IndexedSkillRecord;
  }

  function events(index: SkillIndex): SkillChangeEvent[] {
    const seen: SkillChangeEvent[] = [];
    index.onDidChange((event) => seen.push(event));
    return seen;
  }

  const names = (event: SkillChangeEvent): { added: string[]; removed: string[]; changed: string[] } => ({
    added: event.added.map((r) => r.name),
    removed: event.removed.map((r) => r.name),
    changed: event.changed.map((r) => r.name),
  });

  describe('name collisions, platforms and settings', () => {
    it('lets the project copy win over the user copy and says why on the shadowed one', async () => {
      writeTree(project.path, { 'deploy/SKILL.md': skillMd('deploy') });
      writeTree(user.path, { 'ops/deploy/SKILL.md': skillMd('deploy'), 'solo/SKILL.md': skillMd('solo') });
      const index = create();
      await index.load();
      const projectFile = path.join(project.path, 'deploy', 'SKILL.md');
      const userFile = path.join(user.path, 'ops', 'deploy', 'SKILL.md');
      assert.deepEqual(index.byName('deploy').map((r) => r.file), [projectFile, userFile]);
      assert.equal(index.get('deploy')?.file, projectFile);
      const shadowed = record(index, userFile);
      assert.equal(shadowed.shadowedBy, projectFile);
      assert.match(shadowed.shadowReason ?? '', /project skills take precedence over user skills/);
      assert.deepEqual(index.active().map((r) => r.name), ['deploy', 'solo']);
      assert.deepEqual(index.all().map((r) => r.file), [projectFile, userFile, path.join(user.path, 'solo', 'SKILL.md')]);
    });

    it('within one root, the first copy in path order wins', async () => {
      writeTree(project.path, { 'b/same/SKILL.md': skillMd('same'), 'a/other-folder/SKILL.md': skillMd('same') });
      const index = create();
      await index.load();
      const winner = path.join(project.path, 'a', 'other-folder', 'SKILL.md');
      assert.equal(index.get('same')?.file, winner);
      const loser = record(index, path.join(project.path, 'b', 'same', 'SKILL.md'));
      assert.equal(loser.shadowedBy, winner);
      assert.match(loser.shadowReason ?? '', /first path in sorted order/);
    });

    it('hides skills limited to another platform, and such a copy does not shadow a usable one', async () => {
      writeTree(project.path, { 'notes/SKILL.md': skillMd('notes', 'platforms: [darwin]\n'), 'win/SKILL.md': skillMd('win', 'platforms: windows\n') });
      writeTree(user.path, { 'notes/SKILL.md': skillMd('notes', 'platforms: [linux, macos]\n') });
      const index = create();
      await index.load();
      const macOnly = record(index, path.join(project.path, 'notes', 'SKILL.md'));
      assert.equal(macOnly.platformHidden, true);
      assert.match(macOnly.shadowReason ?? '', /limited to macos/);
      assert.equal(index.get('notes')?.file, path.join(user.path, 'notes', 'SKILL.md'));
      assert.equal(index.get('win'), undefined);
      assert.equal(record(index, path.join(project.path, 'win', 'SKILL.md')).platformHidden, true);
      assert.deepEqual(index.active().map((r) => r.name), ['notes']);
    });

    it('keeps disabled skills listed but inactive, and re-enabling one emits a change', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b') });
      const index = create({ disabled: new Set(['a']) });
      await index.load();
      assert.equal(record(index, path.join(project.path, 'a', 'SKILL.md')).disabled, true);
      assert.equal(index.get('a'), undefined);
      assert.deepEqual(index.active().map((r) => r.name), ['b']);
      const seen = events(index);
      await index.setRoots([project, user], new Set());
      assert.deepEqual(seen.map(names), [{ added: [], removed: [], changed: ['a'] }]);
      assert.equal(index.get('a')?.name, 'a');
    });

    it('lists a file under two nested roots once, under the earlier root', async () => {
      writeTree(project.path, { 'x/SKILL.md': skillMd('x') });
      const workspace: SkillRoot = { path: path.join(temp, 'work'), scope: 'other', label: 'extra folder', writeTarget: false };
      const index = create({ roots: [project, workspace] });
      await index.load();
      assert.deepEqual(index.all().map((r) => `${r.root.label} ${r.category}/${r.folderName}`), ['.agents/skills /x']);
    });

    it('uses the folder name when the frontmatter has no name', async () => {
      writeTree(project.path, { 'tools/nameless/SKILL.md': '---\ndescription: d\n---\n' });
      const index = create();
      await index.load();
      assert.equal(index.all()[0]?.name, 'nameless');
      assert.equal(index.all()[0]?.category, 'tools');
    });
  });

  describe('bad files', () => {
    it('gives every bad SKILL.md a record with readErrors, and never throws', async () => {
      const fileSystem = new FaultyFileSystem();
      const huge = `---\nname: huge\ndescription: d\n---\n${'x'.repeat(10 * 1024 * 1024)}\n`;
      writeTree(project.path, {
        'bom/SKILL.md': `\uFEFF${skillMd('bom')}`,
        'crlf/SKILL.md': skillMd('crlf').replace(/\n/g, '\r\n'),
        'bare/SKILL.md': '# No frontmatter at all\n',
        'empty/SKILL.md': '---\n---\n',
        'binary/SKILL.md': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]),
        'huge/SKILL.md': huge,
        'locked/SKILL.md': skillMd('locked'),
        'broken/SKILL.md': '---\nname: broken\ndescription: [unclosed\n---\n',
      });
      fileSystem.unreadable.add(path.join(project.path, 'locked', 'SKILL.md'));
      const index = create({ fs: fileSystem });
      await index.load();
      const byFolder = new Map(index.all().map((r) => [r.folderName, r]));
      assert.equal(byFolder.size, 8);
      assert.deepEqual(byFolder.get('bom')?.readErrors, []);
      assert.equal(byFolder.get('bom')?.name, 'bom');
      assert.deepEqual(byFolder.get('crlf')?.readErrors, []);
      assert.equal(byFolder.get('crlf')?.description, 'crlf does one thing. Use when testing.');
      assert.match(byFolder.get('bare')?.readErrors[0] ?? '', /No frontmatter/);
      assert.equal(byFolder.get('bare')?.name, 'bare');
      assert.deepEqual(byFolder.get('empty')?.readErrors, []);
      assert.match(byFolder.get('binary')?.readErrors[0] ?? '', /binary/);
      assert.match(byFolder.get('huge')?.readErrors[0] ?? '', /only its first 1\.0 MB were indexed/);
      assert.equal(byFolder.get('huge')?.name, 'huge');
      assert.match(byFolder.get('locked')?.readErrors[0] ?? '', /could not be read: EACCES/);
      assert.match(byFolder.get('broken')?.readErrors[0] ?? '', /YAML error/);
      assert.equal(byFolder.get('broken')?.name, 'broken');
    });
  });

  describe('bounds', () => {
    it('warns when the skill count bound is hit', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b') });
      writeTree(user.path, { 'c/SKILL.md': skillMd('c') });
      const index = create({ maxSkills: 2 });
      await index.load();
      assert.deepEqual(index.all().map((r) => r.name), ['a', 'b']);
      assert.equal(index.warnings.length, 1);
      assert.match(index.warnings[0] ?? '', /Indexing stopped at 2 skills/);
    });

    it('warns when the depth bound is hit', async () => {
      writeTree(project.path, { 'a/b/c/SKILL.md': skillMd('deep') });
      const index = create({ maxDepth: 2 });
      await index.load();
      assert.deepEqual(index.all(), []);
      assert.match(index.warnings[0] ?? '', /more than 2 levels below \.agents\/skills/);
    });
  });

  describe('invalidate', () => {
    it('re-reads an edited SKILL.md and emits one change', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b') });
      const index = create();
      await index.load();
      const seen = events(index);
      const file = path.join(project.path, 'a', 'SKILL.md');
      fs.writeFileSync(file, skillMd('a', 'tags: [fresh]\n'));
      await index.invalidate(file);
      assert.deepEqual(seen.map(names), [{ added: [], removed: [], changed: ['a'] }]);
      assert.deepEqual(index.get('a')?.tags, ['fresh']);
    });

    it('does nothing for a file whose mtime and size it already has (our own write, then the watcher)', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a') });
      const index = create();
      await index.load();
      const seen = events(index);
      await index.invalidate(path.join(project.path, 'a', 'SKILL.md'));
      await index.invalidate(path.join(project.path, 'a'));
      assert.deepEqual(seen, []);
    });

    it('picks up an added SKILL.md and drops a removed one', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a'), 'b/notes.md': 'plain folder' });
      const index = create();
      await index.load();
      const seen = events(index);
      const added = path.join(project.path, 'b', 'SKILL.md');
      fs.writeFileSync(added, skillMd('b'));
      await index.invalidate(added);
      const removed = path.join(project.path, 'a', 'SKILL.md');
      fs.rmSync(removed);
      await index.invalidate(removed);
      assert.deepEqual(seen.map(names), [
        { added: ['b'], removed: [], changed: [] },
        { added: [], removed: ['a'], changed: [] },
      ]);
      assert.deepEqual(index.all().map((r) => r.name), ['b']);
    });

    it('updates the shadowed copy when the winner goes away', async () => {
      writeTree(project.path, { 'x/SKILL.md': skillMd('x') });
      writeTree(user.path, { 'x/SKILL.md': skillMd('x') });
      const index = create();
      await index.load();
      const seen = events(index);
      const winner = path.join(project.path, 'x', 'SKILL.md');
      fs.rmSync(winner);
      await index.invalidate(winner);
      assert.deepEqual(seen.map(names), [{ added: [], removed: ['x'], changed: ['x'] }]);
      assert.equal(index.get('x')?.file, path.join(user.path, 'x', 'SKILL.md'));
      assert.equal(index.get('x')?.shadowedBy, undefined);
    });

    it('walks a folder moved in with several skills, from one event for the folder', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a') });
      const index = create();
      await index.load();
      const seen = events(index);
      writeTree(temp, { 'staging/pack/one/SKILL.md': skillMd('one'), 'staging/pack/sub/two/SKILL.md': skillMd('two'), 'staging/pack/one/references/r/SKILL.md': skillMd('ref') });
      fs.renameSync(path.join(temp, 'staging', 'pack'), path.join(project.path, 'pack'));
      await index.invalidate(path.join(project.path, 'pack'));
      assert.deepEqual(seen.map(names), [{ added: ['one', 'two'], removed: [], changed: [] }]);
      assert.equal(index.get('two')?.category, 'pack/sub');
    });

    it('finds skills in folders created without their own events (an event for the deepest file only)', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a') });
      const index = create();
      await index.load();
      writeTree(project.path, { 'new/deeper/skill/SKILL.md': skillMd('late') });
      await index.invalidate(path.join(project.path, 'new', 'deeper', 'skill', 'SKILL.md'));
      assert.equal(index.get('late')?.category, 'new/deeper');
    });

    it('prunes a deleted folder with its skills', async () => {
      writeTree(project.path, { 'keep/SKILL.md': skillMd('keep'), 'gone/one/SKILL.md': skillMd('one'), 'gone/two/SKILL.md': skillMd('two') });
      const index = create();
      await index.load();
      const seen = events(index);
      fs.rmSync(path.join(project.path, 'gone'), { recursive: true });
      await index.invalidate(path.join(project.path, 'gone'));
      assert.deepEqual(seen.map(names), [{ added: [], removed: ['one', 'two'], changed: [] }]);
      assert.deepEqual(index.all().map((r) => r.name), ['keep']);
    });

    it('ignores files inside support folders and ordinary files', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a') });
      const index = create();
      await index.load();
      const seen = events(index);
      writeTree(project.path, { 'a/references/SKILL.md': skillMd('not-a-skill'), 'README.md': 'hello' });
      await index.invalidate(path.join(project.path, 'a', 'references', 'SKILL.md'));
      await index.invalidate(path.join(project.path, 'README.md'));
      assert.deepEqual(seen, []);
      assert.deepEqual(index.all().map((r) => r.name), ['a']);
    });

    it('picks up a root that did not exist at load, through invalidate or validate', async () => {
      const index = create();
      await index.load();
      assert.deepEqual(index.all(), []);
      writeTree(project.path, { 'first/SKILL.md': skillMd('first') });
      await index.invalidate(path.join(temp, 'work', '.agents'));
      assert.deepEqual(index.all().map((r) => r.name), ['first']);
      writeTree(user.path, { 'second/SKILL.md': skillMd('second') });
      await index.validate();
      assert.deepEqual(index.all().map((r) => r.name), ['first', 'second']);
    });
  });

  describe('responsiveness', () => {
    it('lets the event loop turn during a long load, even when reads block', async () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < 40; i++) files[`s${i}/SKILL.md`] = skillMd(`s${i}`);
      writeTree(project.path, files);
      // Every call synchronous: without time slicing, nothing else could run until the load ends.
      class BlockingFileSystem extends SyncReadFileSystem {
        override async readFile(p: string): Promise<Uint8Array> {
          const until = Date.now() + 2;
          while (Date.now() < until) {
            // Stands in for a synchronous read that takes a while.
          }
          return super.readFile(p);
        }
      }
      const index = create({ fs: new BlockingFileSystem() });
      let turns = 0;
      const tick = (): void => {
        turns++;
      };
      setImmediate(tick);
      const loading = index.load().then(() => turns);
      setImmediate(tick);
      const turnsDuringLoad = await loading;
      assert.equal(index.all().length, 40);
      assert.ok(turnsDuringLoad >= 1, 'no event-loop turn happened while 40 blocking reads ran');
    });
  });

  describe('validate and rescan', () => {
    it('validate trusts (mtime, size); rescan re-reads everything', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a', 'tags: [one]\n') });
      const file = path.join(project.path, 'a', 'SKILL.md');
      const fixed = new Date('2024-01-01T00:00:00Z');
      fs.utimesSync(file, fixed, fixed);
      const index = create();
      await index.load();
      // Same size, same mtime: only a full re-read can see this edit.
      fs.writeFileSync(file, skillMd('a', 'tags: [two]\n'));
      fs.utimesSync(file, fixed, fixed);
      await index.validate();
      assert.deepEqual(index.get('a')?.tags, ['one']);
      await index.rescan();
      assert.deepEqual(index.get('a')?.tags, ['two']);
    });
  });

  describe('snapshot', () => {
    it('serves the same records from the snapshot as a cold load', async () => {
      writeTree(project.path, { 'cat/a/SKILL.md': skillMd('a', 'tags: [t]\nplatforms: [windows]\n'), 'b/SKILL.md': '# bare\n' });
      writeTree(user.path, { 'a/SKILL.md': skillMd('a'), 'root-level/SKILL.md': skillMd('c') });
      const store = new MemorySnapshot();
      const cold = create({ snapshot: store });
      await cold.load();
      await cold.saveSnapshot();
      const warm = create({ snapshot: store, fs: new FaultyFileSystem() });
      await warm.load();
      assert.deepEqual(warm.all(), cold.all());
      assert.deepEqual(warm.active(), cold.active());
      await warm.validated;
      assert.deepEqual(warm.all(), cold.all());
    });

    it('detects a file changed while closed and reports it as a change', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b') });
      const store = new MemorySnapshot();
      const first = create({ snapshot: store });
      await first.load();
      await first.saveSnapshot();
      first.dispose();
      fs.writeFileSync(path.join(project.path, 'a', 'SKILL.md'), skillMd('a', 'tags: [edited]\n'));
      writeTree(project.path, { 'c/SKILL.md': skillMd('c') });

      const second = create({ snapshot: store });
      const seen = events(second);
      await second.load();
      assert.deepEqual(second.get('a')?.tags, [], 'records come from the snapshot first');
      await second.validated;
      assert.deepEqual(seen.map(names), [
        { added: ['a', 'b'], removed: [], changed: [] },
        { added: ['c'], removed: [], changed: ['a'] },
      ]);
      assert.deepEqual(second.get('a')?.tags, ['edited']);
    });

    it('scans instead when the snapshot is unreadable', async () => {
      writeTree(project.path, { 'a/SKILL.md': skillMd('a') });
      const store = new MemorySnapshot();
      store.text = '{"format":"something else"}';
      const index = create({ snapshot: store });
      await index.load();
      assert.deepEqual(index.all().map((r) => r.name), ['a']);
    });
  });

  it('indexes the whole corpus: 612 skills from four roots, nested ones included', async () => {
    const corpus = path.join(repoRoot(), '..', 'shared', 'corpus');
    assert.ok(fs.existsSync(corpus), `The skills corpus is missing: expected it at ${corpus} (../shared/corpus from the repository root).`);
    const roots: SkillRoot[] = ['anthropics-skills', 'openai-skills', 'awesome-copilot', 'hermes-agent'].map((source) => ({
      path: path.join(corpus, source),
      scope: 'other',
      label: source,
      writeTarget: false,
    }));
    const index = create({ roots });
    await index.load();
    assert.equal(index.all().length, 612);
    assert.deepEqual(index.warnings, []);
    assert.deepEqual(
      index.all().filter((r) => r.shadowedBy).map((r) => r.name).sort(),
      ['github-issues', 'skill-creator', 'webapp-testing'],
    );
    assert.ok(index.all().some((r) => r.category === 'skills/.curated'), 'skills in openai’s .curated folder are indexed');
    // stats.json: 15 awesome-copilot skills sit inside other skills (qdrant-*, up to three deep).
    const skillDirs = new Set(index.all().map((r) => r.dir));
    const nested = index.all().filter((r) => {
      for (let dir = path.dirname(r.dir); dir !== r.root.path && dir.length > r.root.path.length; dir = path.dirname(dir)) {
        if (skillDirs.has(dir)) return true;
      }
      return false;
    });
    assert.equal(nested.length, 15);
    assert.ok(nested.every((r) => r.category.startsWith('skills/qdrant-')));
    assert.ok(index.all().every((r) => r.description.length > 0), 'every corpus skill has a description');
  });
});
