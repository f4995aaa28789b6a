import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IgnoreRules, parseGitignore } from '../../../src/core/tools/ignoreRules';
import { walkFolder } from '../../../src/core/tools/workspaceWalker';
import { nodeFs } from './toolTestWorkspace';

function tree(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sw-ignore-')));
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, ...relative.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  return root;
}

async function walkedFiles(root: string, excludes: readonly string[] = [], start = ''): Promise<string[]> {
  const files: string[] = [];
  await walkFolder(nodeFs, new IgnoreRules(nodeFs, root, excludes), {
    start,
    visit: (entry) => {
      if (entry.type === 'file') files.push(entry.relative);
    },
  });
  return files.sort();
}

/** A tree that exercises every rule form: root and nested files, negation, folders, anchoring. */
const SAMPLE: Record<string, string> = {
  '.gitignore': ['# build output', 'build/', '*.log', '!keep.log', '/root-only.txt', 'docs/**/*.tmp', 'cache', '\\#literal', 'trailing.txt   ', ''].join('\n'),
  'a.ts': '',
  'app.log': '',
  'keep.log': '',
  'root-only.txt': '',
  '#literal': '',
  'trailing.txt': '',
  'build/out.js': '',
  'lib/build': 'a file named build is not a folder',
  'src/root-only.txt': 'not at the root, so kept',
  'src/app.log': '',
  'src/keep.log': '',
  'src/cache/x.bin': '',
  'src/.gitignore': ['generated.ts', '!app.log', '/local.txt', 'sub/'].join('\n'),
  'src/generated.ts': '',
  'src/local.txt': '',
  'src/deeper/local.txt': 'anchored to src/, so kept',
  'src/deeper/generated.ts': '',
  'src/sub/x.ts': '',
  'docs/a.md': '',
  'docs/x/y.tmp': '',
  'docs/y.tmp': '',
  'vendor/.gitignore': '*\n!.gitignore\n!keep/\n!keep/**\n',
  'vendor/dropped.js': '',
  'vendor/keep/kept.js': '',
};

describe('parseGitignore', () => {
  it('reads negation, folder-only, anchored and escaped patterns and skips comments', () => {
    const rules = parseGitignore('# comment\n\n!keep.log\nbuild/\n/top\na/b\n\\!bang\n\\#hash\nspace\\ \r\n');
    assert.deepEqual(
      rules.map((rule) => [rule.pattern, rule.negate, rule.dirOnly]),
      [['!keep.log', true, false], ['build/', false, true], ['/top', false, false], ['a/b', false, false], ['\\!bang', false, false], ['\\#hash', false, false], ['space ', false, false]],
    );
    const [, build, top, ab, bang, hash, space] = rules;
    assert.ok(build?.regex.test('x/build') && build.regex.test('build'));
    assert.ok(top?.regex.test('top') && !top.regex.test('x/top'));
    assert.ok(ab?.regex.test('a/b') && !ab.regex.test('x/a/b'));
    assert.ok(bang?.regex.test('!bang'));
    assert.ok(hash?.regex.test('#hash'));
    assert.ok(space?.regex.test('space '));
  });
});

describe('IgnoreRules', () => {
  it('honours root and nested .gitignore files, negation, folder patterns and anchoring', async () => {
    const root = tree(SAMPLE);
    try {
      assert.deepEqual(await walkedFiles(root), [
        '.gitignore',
        'a.ts',
        'docs/a.md',
        'keep.log',
        'lib/build',
        'src/.gitignore',
        'src/app.log',
        'src/deeper/local.txt',
        'src/keep.log',
        'src/root-only.txt',
        'vendor/.gitignore',
        'vendor/keep/kept.js',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('lists exactly the files git treats as not ignored (git ls-files --others --exclude-standard)', async () => {
    const root = tree(SAMPLE);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-git-home-'));
    try {
      const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_GLOBAL: path.join(home, 'none'), GIT_CONFIG_NOSYSTEM: '1' };
      execFileSync('git', ['init', '-q'], { cwd: root, env });
      const listed = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: root, env, encoding: 'utf8' });
      const gitFiles = listed.split('\n').filter(Boolean).map((line) => (line.startsWith('"') ? (JSON.parse(line) as string) : line)).sort();
      assert.deepEqual(await walkedFiles(root), gitFiles);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('applies exclude globs relative to the folder, pruning whole folders', async () => {
    const root = tree({ 'a.ts': '', 'out/x.js': '', 'src/out/y.js': '', 'src/z.js': '', 'node_modules/m/i.js': '', 'src/node_modules/n.js': '' });
    try {
      assert.deepEqual(await walkedFiles(root, ['**/node_modules', './out/']), ['a.ts', 'src/out/y.js', 'src/z.js']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('applies the rules of folders above a walk that starts in a subfolder', async () => {
    const root = tree(SAMPLE);
    try {
      assert.deepEqual(await walkedFiles(root, [], 'src'), ['src/.gitignore', 'src/app.log', 'src/deeper/local.txt', 'src/keep.log', 'src/root-only.txt']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers for single paths, counting ignored parent folders', async () => {
    const root = tree(SAMPLE);
    try {
      const rules = new IgnoreRules(nodeFs, root, ['**/secret']);
      assert.equal(await rules.isIgnored('build/out.js', false), true);
      assert.equal(await rules.isIgnored('build/new/file.txt', false), true, 'inside an ignored folder');
      assert.equal(await rules.isIgnored('src/generated.ts', false), true, 'nested .gitignore');
      assert.equal(await rules.isIgnored('src/app.log', false), false, 'nested negation');
      assert.equal(await rules.isIgnored('app.log', false), true);
      assert.equal(await rules.isIgnored('a/secret/b.txt', false), true, 'exclude glob on a parent');
      assert.equal(await rules.isIgnored('a.ts', false), false);
      assert.equal(await rules.isIgnored('', true), false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
