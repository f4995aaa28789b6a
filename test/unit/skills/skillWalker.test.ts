import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DirEntry } from '../../../src/core/base/fileSystemPort';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SkillRoot } from '../../../src/core/base/skillRoots';
import type { WalkResult } from '../../../src/core/skills/index/skillWalker';
import { SkillWalker } from '../../../src/core/skills/index/skillWalker';

function writeTree(base: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(base, ...rel.split('/'));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
}

const SKILL = '---\nname: x\ndescription: y\n---\n';

describe('SkillWalker', () => {
  let temp: string;
  let root: SkillRoot;

  beforeEach(() => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-walker-'));
    root = { path: path.join(temp, 'skills'), scope: 'project', label: '.agents/skills', writeTarget: true };
  });

  afterEach(() => {
    fs.rmSync(temp, { recursive: true, force: true });
  });

  function walk(options: { maxDepth?: number; budget?: number; fs?: NodeFileSystem } = {}): Promise<WalkResult> {
    const walker = new SkillWalker(options.fs ?? new NodeFileSystem(), 8, options.maxDepth);
    return walker.walk({ root, rootIndex: 0, visited: new Map(), budget: options.budget ?? 1000 });
  }

  const found = (result: WalkResult): string[] => result.skills.map((skill) => `${skill.category}|${skill.folderName}`);

  it('gives each skill the folder path between the root and the skill folder as its category', async () => {
    writeTree(root.path, {
      'top/SKILL.md': SKILL,
      'devops/k8s/deploy-app/SKILL.md': SKILL,
      'devops/k8s/deploy-app/canary/SKILL.md': SKILL,
      'devops/README.md': '# not a skill',
    });
    assert.deepEqual(found(await walk()), ['devops/k8s|deploy-app', 'devops/k8s/deploy-app|canary', '|top']);
  });

  it('never looks for skills inside a skill’s support folders, but does in its plain subfolders', async () => {
    writeTree(root.path, {
      'parent/SKILL.md': SKILL,
      'parent/references/inner/SKILL.md': SKILL,
      'parent/templates/SKILL.md': SKILL,
      'parent/scripts/x/SKILL.md': SKILL,
      'parent/assets/SKILL.md': SKILL,
      'parent/nested-child/SKILL.md': SKILL,
      // Outside a skill, a folder named like a support folder is an ordinary category.
      'references/shared/SKILL.md': SKILL,
    });
    assert.deepEqual(found(await walk()), ['|parent', 'parent|nested-child', 'references|shared']);
  });

  it('skips version control, dependencies, virtualenvs and caches, but walks other dot-folders', async () => {
    writeTree(root.path, {
      '.git/hooks/SKILL.md': SKILL,
      'node_modules/pkg/SKILL.md': SKILL,
      '__pycache__/SKILL.md': SKILL,
      '.venv/lib/SKILL.md': SKILL,
      'env/pyvenv.cfg': 'home = /usr/bin',
      'env/lib/site/SKILL.md': SKILL,
      '.cache/x/SKILL.md': SKILL,
      '.curated/gh-fix-ci/SKILL.md': SKILL,
      '.system/skill-creator/SKILL.md': SKILL,
      'dist/release-notes/SKILL.md': SKILL,
    });
    assert.deepEqual(found(await walk()), ['.curated|gh-fix-ci', '.system|skill-creator', 'dist|release-notes']);
  });

  it('sorts by code unit on every platform, parents before their children', async () => {
    writeTree(root.path, {
      'alpha-beta/SKILL.md': SKILL,
      'alpha/beta/SKILL.md': SKILL,
      'Zeta/SKILL.md': SKILL,
      'ärger/SKILL.md': SKILL,
      'b/SKILL.md': SKILL,
    });
    assert.deepEqual(found(await walk()), ['|Zeta', 'alpha|beta', '|alpha-beta', '|b', '|ärger']);
  });

  it('follows a symlinked skill folder and reports a link back to an ancestor once, without hanging', async () => {
    writeTree(temp, { 'elsewhere/linked-skill/SKILL.md': SKILL });
    writeTree(root.path, { 'cat/own/SKILL.md': SKILL });
    fs.symlinkSync(path.join(temp, 'elsewhere', 'linked-skill'), path.join(root.path, 'cat', 'linked'), 'dir');
    fs.symlinkSync(root.path, path.join(root.path, 'cat', 'loop'), 'dir');
    const result = await walk();
    assert.deepEqual(found(result), ['cat|linked', 'cat|own']);
    const cycles = result.warnings.filter((warning) => warning.includes('cycle'));
    assert.equal(cycles.length, 1, result.warnings.join('\n'));
    assert.match(cycles[0] ?? '', /cat.loop/);
  });

  it('indexes a folder reached through two links only once and says so', async () => {
    writeTree(temp, { 'shared/one/SKILL.md': SKILL });
    fs.mkdirSync(root.path, { recursive: true });
    fs.symlinkSync(path.join(temp, 'shared'), path.join(root.path, 'a'), 'dir');
    fs.symlinkSync(path.join(temp, 'shared'), path.join(root.path, 'b'), 'dir');
    const result = await walk();
    assert.deepEqual(found(result), ['a|one']);
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0] ?? '', /already indexed/);
  });

  it('stops at the depth bound with a warning that names the first folder left out', async () => {
    writeTree(root.path, { 'a/b/c/deep/SKILL.md': SKILL, 'a/shallow/SKILL.md': SKILL });
    const result = await walk({ maxDepth: 3 });
    assert.deepEqual(found(result), ['a|shallow']);
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0] ?? '', /more than 3 levels below \.agents\/skills \(first: a\/b\/c\/deep\)/);
  });

  it('stops at the skill budget, keeping the shallowest skills in path order', async () => {
    writeTree(root.path, { 'e/SKILL.md': SKILL, 'd/SKILL.md': SKILL, 'cat/a/SKILL.md': SKILL, 'c/SKILL.md': SKILL, 'b/SKILL.md': SKILL });
    const result = await walk({ budget: 3 });
    assert.equal(result.limited, true);
    assert.deepEqual(found(result), ['|b', '|c', '|d']);
  });

  it('reports an unreadable folder and keeps walking the others', async () => {
    writeTree(root.path, { 'locked/x/SKILL.md': SKILL, 'open/y/SKILL.md': SKILL });
    const locked = path.join(root.path, 'locked');
    class LockedFs extends NodeFileSystem {
      override async readDirectory(dir: string): Promise<DirEntry[]> {
        if (dir === locked) throw new Error('EACCES: permission denied');
        return super.readDirectory(dir);
      }
    }
    const result = await walk({ fs: new LockedFs() });
    assert.deepEqual(found(result), ['open|y']);
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0] ?? '', /Could not read the folder .*locked: EACCES/);
  });

  it('treats a missing root as empty and a root that is a file as a warning', async () => {
    const missing = await walk();
    assert.equal(missing.exists, false);
    assert.deepEqual(missing.skills, []);
    fs.writeFileSync(root.path, 'not a folder');
    const file = await walk();
    assert.equal(file.exists, false);
    assert.match(file.warnings[0] ?? '', /is a file, not a folder/);
  });
});
