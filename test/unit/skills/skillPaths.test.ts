import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { closestNames, editDistance } from '../../../src/core/text/closestNames';
import {
  checkCategory,
  isInside,
  parseRelativePath,
  resolveInSkill,
  skillNameProblem,
  suggestSkillName,
  supportFolderProblem,
} from '../../../src/core/skills/model/skillPaths';

function refusal(result: { ok: boolean; error?: string }): string {
  assert.equal(result.ok, false, 'expected a refusal');
  return result.error ?? '';
}

describe('skill names and categories', () => {
  it('accepts valid names and explains invalid ones with a suggestion', () => {
    for (const name of ['a', 'deploy-app', 'k8s-2', 'x'.repeat(64)]) assert.equal(skillNameProblem(name), undefined, name);
    assert.match(skillNameProblem('') ?? '', /empty/);
    assert.match(skillNameProblem('x'.repeat(65)) ?? '', /65 characters.*64/);
    assert.match(skillNameProblem('Deploy_App') ?? '', /e\.g\. "deploy-app"/);
    for (const bad of ['-a', 'a-', 'a--b', 'a b', 'a/b', '..', 'é']) assert.ok(skillNameProblem(bad), bad);
    assert.equal(suggestSkillName('  My Skill!! '), 'my-skill');
  });

  it('validates categories: charset, depth, no dot segments', () => {
    assert.deepEqual(checkCategory('devops/k8s'), { ok: true, value: 'devops/k8s' });
    assert.deepEqual(checkCategory('/devops/'), { ok: true, value: 'devops' });
    assert.deepEqual(checkCategory(''), { ok: true, value: '' });
    assert.match(refusal(checkCategory('a/b/c/d')), /at most 3 levels/);
    assert.match(refusal(checkCategory('a/../b')), /"\." and "\.\."/);
    assert.match(refusal(checkCategory('Dev Ops')), /lowercase/);
    assert.match(refusal(checkCategory('a//b')), /lowercase/);
    assert.match(refusal(checkCategory('a\\b')), /not "\\"/);
  });
});

describe('parseRelativePath', () => {
  it('splits a clean relative path and drops "." and empty segments', () => {
    assert.deepEqual(parseRelativePath('references/./guide.md'), { ok: true, value: ['references', 'guide.md'] });
    assert.deepEqual(parseRelativePath('references//a/b.md'), { ok: true, value: ['references', 'a', 'b.md'] });
  });

  it('refuses every form of escape or ambiguity', () => {
    assert.match(refusal(parseRelativePath('../x.md')), /contains "\.\."/);
    assert.match(refusal(parseRelativePath('references/../../x')), /contains "\.\."/);
    assert.match(refusal(parseRelativePath('/etc/passwd')), /absolute/);
    assert.match(refusal(parseRelativePath('~/x')), /absolute/);
    assert.match(refusal(parseRelativePath('C:/x')), /absolute/);
    assert.match(refusal(parseRelativePath('references\\..\\x')), /backslash/);
    assert.match(refusal(parseRelativePath('references/a\u0000.md')), /NUL/);
    assert.match(refusal(parseRelativePath('references/a.md:stream')), /":"/);
    assert.match(refusal(parseRelativePath('')), /empty/);
    assert.match(refusal(parseRelativePath('./')), /skill folder itself/);
    assert.match(refusal(parseRelativePath(`references/${'a'.repeat(600)}`)), /limit is 512/);
  });

  it('limits writes to files inside the four support folders', () => {
    assert.equal(supportFolderProblem(['references', 'x.md']), undefined);
    assert.equal(supportFolderProblem(['assets', 'img', 'a.svg']), undefined);
    assert.match(supportFolderProblem(['SKILL.md']) ?? '', /"edit" or "patch"/);
    assert.match(supportFolderProblem(['notes.md']) ?? '', /support folders references\/, templates\/, scripts\/, assets\//);
    assert.match(supportFolderProblem(['References', 'x.md']) ?? '', /support folders/);
    assert.match(supportFolderProblem(['scripts']) ?? '', /is a folder/);
  });
});

describe('resolveInSkill', () => {
  const nodeFs = new NodeFileSystem();
  let tmp: string;
  let skill: string;

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-paths-'));
    skill = path.join(tmp, 'skills', 'demo');
    fs.mkdirSync(path.join(skill, 'references'), { recursive: true });
    fs.writeFileSync(path.join(skill, 'references', 'a.md'), 'a');
    fs.mkdirSync(path.join(tmp, 'outside'));
    fs.writeFileSync(path.join(tmp, 'outside', 'secret.txt'), 'secret');
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('resolves existing and new files inside the skill', async () => {
    const existing = await resolveInSkill(nodeFs, skill, 'references/a.md');
    assert.ok(existing.ok);
    assert.equal(existing.value.exists, true);
    assert.equal(existing.value.absolute, path.join(skill, 'references', 'a.md'));
    const fresh = await resolveInSkill(nodeFs, skill, 'templates/deep/new.md');
    assert.ok(fresh.ok);
    assert.equal(fresh.value.exists, false);
    assert.equal(fresh.value.relative, 'templates/deep/new.md');
  });

  it('refuses a symlinked file or folder that leads outside the skill', async () => {
    fs.symlinkSync(path.join(tmp, 'outside', 'secret.txt'), path.join(skill, 'references', 'link.md'));
    fs.symlinkSync(path.join(tmp, 'outside'), path.join(skill, 'assets'));
    assert.match(refusal(await resolveInSkill(nodeFs, skill, 'references/link.md')), /outside the skill folder through a symbolic link/);
    assert.match(refusal(await resolveInSkill(nodeFs, skill, 'assets/secret.txt')), /symbolic link/);
    // A new file below the escaping folder would land outside too.
    assert.match(refusal(await resolveInSkill(nodeFs, skill, 'assets/new/file.txt')), /symbolic link/);
  });

  it('accepts a symlink that stays inside the skill, and a skill folder that is itself a link', async () => {
    fs.symlinkSync(path.join(skill, 'references', 'a.md'), path.join(skill, 'references', 'alias.md'));
    assert.ok((await resolveInSkill(nodeFs, skill, 'references/alias.md')).ok);
    const linkedSkill = path.join(tmp, 'linked-demo');
    fs.symlinkSync(skill, linkedSkill);
    assert.ok((await resolveInSkill(nodeFs, linkedSkill, 'references/a.md')).ok);
  });

  it('refuses dangling links and files in the way of folders', async () => {
    fs.symlinkSync(path.join(tmp, 'nowhere'), path.join(skill, 'references', 'dangling.md'));
    assert.match(refusal(await resolveInSkill(nodeFs, skill, 'references/dangling.md')), /target does not exist/);
    assert.match(refusal(await resolveInSkill(nodeFs, skill, 'references/a.md/x.md')), /"references\/a.md" is a file/);
  });

  it('checks the path text before touching the disk', async () => {
    assert.match(refusal(await resolveInSkill(nodeFs, skill, '../outside/secret.txt')), /"\.\."/);
    assert.match(refusal(await resolveInSkill(nodeFs, skill, path.join(tmp, 'outside', 'secret.txt'))), /absolute/);
  });
});

describe('name helpers', () => {
  it('computes edit distance and finds close names', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.deepEqual(closestNames('deploy-ap', ['deploy-app', 'debug', 'deploy-api', 'unrelated']), ['deploy-api', 'deploy-app']);
    assert.deepEqual(closestNames('pdf', ['pdf-tools', 'xlsx']), ['pdf-tools']);
    assert.deepEqual(closestNames('zzzz', ['pdf-tools']), []);
  });

  it('knows what is inside what', () => {
    assert.ok(isInside(path.join(path.sep, 'a'), path.join(path.sep, 'a', 'b')));
    assert.ok(isInside(path.join(path.sep, 'a'), path.join(path.sep, 'a')));
    assert.ok(!isInside(path.join(path.sep, 'a'), path.join(path.sep, 'ab')));
    assert.ok(!isInside(path.join(path.sep, 'a', 'b'), path.join(path.sep, 'a')));
  });
});
