import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SkillSource } from '../../../src/core/sharing/skillSource';
import { parseSkillSource, sourceFromLockEntry } from '../../../src/core/sharing/skillSource';

const cwd = path.resolve('/project');

function ok(input: string, ref?: string): SkillSource {
  const parsed = parseSkillSource(input, { cwd, ...(ref ? { ref } : {}) });
  if ('error' in parsed) assert.fail(`${input}: ${parsed.error}`);
  return parsed;
}

function error(input: string, ref?: string): string {
  const parsed = parseSkillSource(input, { cwd, ...(ref ? { ref } : {}) });
  assert.ok('error' in parsed, `${input} should be refused`);
  return parsed.error;
}

describe('parseSkillSource', () => {
  it('reads folders and zip files as local paths, relative to the cwd as the other tool writes them', () => {
    assert.deepEqual(ok('./skills'), { kind: 'folder', sourceType: 'local', source: './skills', path: path.join(cwd, 'skills') });
    assert.deepEqual(ok('../shared/tools'), { kind: 'folder', sourceType: 'local', source: '../shared/tools', path: path.resolve(cwd, '../shared/tools') });
    assert.equal(ok('.').source, '.');
    assert.deepEqual(ok('./dist/pack.ZIP'), { kind: 'zip', sourceType: 'zip', source: './dist/pack.ZIP', path: path.join(cwd, 'dist', 'pack.ZIP') });
    assert.equal(ok('team-skills.zip').kind, 'zip');
    assert.equal(ok(path.resolve('/elsewhere/x')).path, path.resolve('/elsewhere/x'));
  });

  it('turns owner/repo[/path] and GitHub URLs into github sources with owner/repo as the lock source', () => {
    assert.deepEqual(ok('acme/skills'), { kind: 'git', sourceType: 'github', source: 'acme/skills', url: 'https://github.com/acme/skills.git' });
    assert.deepEqual(ok('acme/skills/tools/lint#v2'), { kind: 'git', sourceType: 'github', source: 'acme/skills', url: 'https://github.com/acme/skills.git', ref: 'v2', subpath: 'tools/lint' });
    assert.deepEqual(ok('https://github.com/acme/skills/tree/main/skills/pdf'), {
      kind: 'git', sourceType: 'github', source: 'acme/skills', url: 'https://github.com/acme/skills.git', ref: 'main', subpath: 'skills/pdf',
    });
    assert.equal(ok('https://github.com/acme/skills.git', 'abc1234').ref, 'abc1234');
    assert.equal(ok('github:acme/skills').source, 'acme/skills');
  });

  it('keeps other git URLs as they are, with #ref or --ref', () => {
    assert.deepEqual(ok('https://git.example.com/team/skills.git#release-1'), {
      kind: 'git', sourceType: 'git', source: 'https://git.example.com/team/skills.git', url: 'https://git.example.com/team/skills.git', ref: 'release-1',
    });
    assert.equal(ok('git@github.com:acme/skills.git').sourceType, 'git');
    assert.equal(ok('git@github.com:acme/skills.git').url, 'git@github.com:acme/skills.git');
    assert.equal(ok('ssh://git@host.example/x/y.git', 'main').ref, 'main');
    assert.equal(ok('file:///srv/git/skills.git').url, 'file:///srv/git/skills.git');
    assert.equal(ok('https://gitlab.com/group/sub/skills').sourceType, 'gitlab');
    assert.equal(ok('http://127.0.0.1:8080/skills.git').sourceType, 'git');
  });

  it('refuses what it cannot import, saying what is accepted', () => {
    assert.match(error(''), /a folder .*a \.zip file.*git URL.*owner\/repo/);
    assert.match(error('skills'), /write \.\/skills/);
    assert.match(error('ext::sh -c touch% /tmp/pwned'), /ext::/);
    assert.match(error('git://example.com/x.git'), /unencrypted/);
    assert.match(error('ftp://example.com/x'), /not a source/);
    assert.match(error('https://user:token@git.example.com/x.git'), /user name or password/);
    assert.match(error('acme/skills/../../etc'), /must not contain "\.\."/);
    assert.match(error('acme/skills#v1', 'v2'), /#v1 and --ref says v2/);
    assert.match(error('./folder', 'main'), /--ref applies to git sources/);
    assert.match(error('acme/skills', '--upload-pack=evil'), /not a branch, tag or commit/);
  });
});

describe('sourceFromLockEntry', () => {
  it('resolves local sources inside the project and refuses absolute ones or ones outside', () => {
    const local = sourceFromLockEntry({ source: './vendor/skills', sourceType: 'local' }, cwd);
    assert.deepEqual(local, { kind: 'folder', sourceType: 'local', source: './vendor/skills', path: path.join(cwd, 'vendor', 'skills') });
    const absolute = sourceFromLockEntry({ source: '/etc', sourceType: 'local' }, cwd);
    assert.ok('error' in absolute && /absolute path/.test(absolute.error));
    const outside = sourceFromLockEntry({ source: '../../home/me/.ssh', sourceType: 'local' }, cwd);
    assert.ok('error' in outside && /outside the project/.test(outside.error));
    const drive = sourceFromLockEntry({ source: 'C:\\Users\\x', sourceType: 'zip' }, cwd);
    assert.ok('error' in drive);
  });

  it('clones github entries from github.com, git entries from sourceUrl, and names sourceTypes it does not fetch', () => {
    assert.deepEqual(sourceFromLockEntry({ source: 'acme/skills', sourceType: 'github', ref: 'v1' }, cwd), { kind: 'git', sourceType: 'github', source: 'acme/skills', url: 'https://github.com/acme/skills.git', ref: 'v1' });
    const git = sourceFromLockEntry({ source: 'http://127.0.0.1:1/x.git', sourceUrl: 'http://127.0.0.1:1/x.git', sourceType: 'git' }, cwd);
    assert.ok(!('error' in git) && git.url === 'http://127.0.0.1:1/x.git');
    const bad = sourceFromLockEntry({ source: '../x', sourceType: 'github' }, cwd);
    assert.ok('error' in bad && /owner\/repo/.test(bad.error));
    const known = sourceFromLockEntry({ source: 'x', sourceType: 'well-known' }, cwd);
    assert.ok('error' in known && /well-known/.test(known.error));
  });

  it('refuses a lock ref git could read as an option, for github and git entries alike', () => {
    for (const sourceType of ['github', 'git']) {
      const source = sourceType === 'github' ? 'acme/skills' : 'https://example.com/x.git';
      const injected = sourceFromLockEntry({ source, sourceType, ref: '--upload-pack=touch /tmp/x' }, cwd);
      assert.ok('error' in injected && /is not a branch, tag or commit name; fix "ref" in skills-lock\.json/.test(injected.error), sourceType);
    }
    const fine = sourceFromLockEntry({ source: 'acme/skills', sourceType: 'github', ref: 'release/v1-2' }, cwd);
    assert.ok(!('error' in fine) && fine.ref === 'release/v1-2');
  });

  it('takes a file:// git source from a lock wherever it lies (a mirror on a shared disk), as a git source to quarantine', () => {
    const outside = sourceFromLockEntry({ source: 'x', sourceUrl: pathToFileURL(path.join(cwd, '..', 'repo.git')).href, sourceType: 'git' }, cwd);
    assert.ok(!('error' in outside) && outside.kind === 'git' && outside.url?.startsWith('file://'), JSON.stringify(outside));
    const inside = sourceFromLockEntry({ source: 'x', sourceUrl: pathToFileURL(path.join(cwd, 'vendor', 'repo.git')).href, sourceType: 'git' }, cwd);
    assert.ok(!('error' in inside) && inside.kind === 'git', JSON.stringify(inside));
  });
});
