import * as assert from 'node:assert/strict';
import { compileUserGlob, globToRegExp, userGlobProblem } from '../../../src/core/tools/globPattern';

function expectGlob(glob: string, matching: readonly string[], notMatching: readonly string[], options = {}): void {
  const regex = globToRegExp(glob, options);
  for (const p of matching) assert.ok(regex.test(p), `${glob} should match ${p} (${regex})`);
  for (const p of notMatching) assert.ok(!regex.test(p), `${glob} should not match ${p} (${regex})`);
}

describe('globToRegExp', () => {
  it('keeps * and ? inside one folder', () => {
    expectGlob('*.ts', ['a.ts', '.ts', 'x.y.ts'], ['src/a.ts', 'a.tsx', 'a.js']);
    expectGlob('src/*.ts', ['src/a.ts'], ['src/x/a.ts', 'a.ts']);
    expectGlob('file?.md', ['file1.md', 'fileA.md'], ['file.md', 'file12.md', 'file/.md']);
  });

  it('lets ** as a whole segment span any number of folders, including none', () => {
    expectGlob('**/*.ts', ['a.ts', 'src/a.ts', 'src/deep/er/a.ts'], ['a.js']);
    expectGlob('src/**/test.ts', ['src/test.ts', 'src/a/test.ts', 'src/a/b/test.ts'], ['test.ts', 'srcx/test.ts', 'src/atest.ts']);
    expectGlob('src/**', ['src/a', 'src/a/b.ts'], ['src', 'other/a']);
    expectGlob('**', ['a', 'a/b/c'], []);
    expectGlob('**/node_modules', ['node_modules', 'a/node_modules'], ['node_modules/x', 'my_node_modules']);
  });

  it('treats ** inside a segment like *', () => {
    expectGlob('a**b', ['ab', 'axxb'], ['a/b', 'ax/yb']);
  });

  it('supports classes, ranges and negated classes, never matching /', () => {
    expectGlob('[abc].txt', ['a.txt', 'c.txt'], ['d.txt', 'ab.txt']);
    expectGlob('v[0-9].md', ['v1.md', 'v9.md'], ['va.md', 'v10.md']);
    expectGlob('[!a]*', ['b', 'bcd'], ['a', 'abc']);
    expectGlob('[^a]x', ['bx'], ['ax', '/x']);
    expectGlob('x[]]y', ['x]y'], ['xy']);
    expectGlob('x[a-]y', ['xay', 'x-y'], ['xby']);
    expectGlob('x[/]y', [], ['x/y']);
  });

  it('expands braces, nested ones included, unless told not to', () => {
    expectGlob('*.{js,jsx,ts}', ['a.js', 'a.jsx', 'a.ts'], ['a.tsx', 'a.']);
    expectGlob('{src,lib/{a,b}}/*.c', ['src/x.c', 'lib/a/x.c', 'lib/b/x.c'], ['lib/x.c', 'lib/c/x.c']);
    expectGlob('{a,b}', ['{a,b}'], ['a'], { braces: false });
    expectGlob('{abc}', ['{abc}'], ['abc']);
  });

  it('escapes regex syntax and honours backslash escapes', () => {
    expectGlob('a+b(c).txt', ['a+b(c).txt'], ['aab(c).txt']);
    expectGlob('\\*.md', ['*.md'], ['a.md']);
    expectGlob('a[b', ['a[b'], ['ab']);
  });

  it('can ignore case', () => {
    expectGlob('*.MD', ['readme.md', 'README.MD'], [], { caseInsensitive: true });
    expectGlob('*.MD', ['README.MD'], ['readme.md']);
  });
});

describe('compileUserGlob', () => {
  it('matches a glob without / against the file name at any depth', () => {
    const match = compileUserGlob('*.test.ts');
    assert.ok(match('a.test.ts'));
    assert.ok(match('src/deep/a.test.ts'));
    assert.ok(!match('src/a.ts'));
  });

  it('matches a glob with / against the whole relative path, with ./ or / as an anchor', () => {
    for (const glob of ['src/*.ts', './src/*.ts', '/src/*.ts']) {
      const match = compileUserGlob(glob);
      assert.ok(match('src/a.ts'), glob);
      assert.ok(!match('lib/src/a.ts'), glob);
    }
  });

  it('explains unusable globs', () => {
    assert.match(userGlobProblem('  ') ?? '', /empty/);
    assert.match(userGlobProblem('../*.ts') ?? '', /"\.\."/);
    assert.equal(userGlobProblem('**/*.ts'), undefined);
  });
});
