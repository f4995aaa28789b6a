import * as assert from 'node:assert/strict';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';
import { newSkillNameProblem, titleFromName, withFrontmatterName } from '../../../src/core/skills/tools/skillRename';
import { skillRecord } from './skillRecordFixture';

function renamed(text: string, name: string): string {
  const result = withFrontmatterName(text, name);
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.value;
}

describe('renaming a skill in its SKILL.md', () => {
  it('changes only the name value, keeping comments, quotes elsewhere and the body', () => {
    const text = '---\nname: old-name # the folder name\ndescription: "Does: things"\n---\n\n# old-name\n\nname: not frontmatter\n';
    assert.equal(renamed(text, 'new-name'), '---\nname: new-name # the folder name\ndescription: "Does: things"\n---\n\n# old-name\n\nname: not frontmatter\n');
  });

  it('keeps CRLF line endings and a byte order mark', () => {
    const text = '\uFEFF---\r\nname: "old"\r\ndescription: x\r\n---\r\nBody\r\n';
    assert.equal(renamed(text, 'fresh'), '\uFEFF---\r\nname: fresh\r\ndescription: x\r\n---\r\nBody\r\n');
  });

  it('replaces a block-scalar name with one line', () => {
    const text = '---\nname: >-\n  old\n  name\ndescription: d\n---\nBody\n';
    const value = renamed(text, 'new-name');
    assert.equal(value, '---\nname: new-name\ndescription: d\n---\nBody\n');
    assert.equal(parseSkillText(value).frontmatter['name'], 'new-name');
  });

  it('adds a missing name as the first key, and frontmatter to a file without it', () => {
    assert.equal(renamed('---\ndescription: d\n---\nBody\n', 'added'), '---\nname: added\ndescription: d\n---\nBody\n');
    assert.equal(renamed('# Just a body\n', 'added'), '---\nname: added\n---\n\n# Just a body\n');
  });

  it('refuses a frontmatter that is never closed, with what to do', () => {
    const result = withFrontmatterName('---\nname: old\ndescription: d\n\nBody\n', 'new');
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.error, /not closed with a "---" line; fix it first/);
  });

  it('quotes a name YAML would read as something else', () => {
    assert.equal(renamed('---\nname: a\n---\n', '123'), '---\nname: "123"\n---\n');
  });
});

describe('names for new and renamed skills', () => {
  const records = [skillRecord('deploy-app', 'd', { category: 'ops' }), skillRecord('lint-docs', 'd')];

  it('accepts a free valid name', () => {
    assert.equal(newSkillNameProblem('ship-it', records), undefined);
  });

  it('explains invalid names with a suggestion', () => {
    assert.match(newSkillNameProblem('Deploy_App', records) ?? '', /^Invalid skill name "Deploy_App".*e\.g\. "deploy-app"/);
    assert.match(newSkillNameProblem('', records) ?? '', /^The skill name is empty/);
  });

  it('refuses a name another skill has, naming where it is', () => {
    assert.equal(newSkillNameProblem('deploy-app', records), 'A skill named "deploy-app" already exists (.agents/skills/ops/deploy-app); choose another name.');
  });

  it('asks for a different name when renaming to the same one, and ignores the skill itself', () => {
    const self = records[1];
    assert.match(newSkillNameProblem('lint-docs', records, self) ?? '', /already called "lint-docs"/);
    assert.equal(newSkillNameProblem('lint-all-docs', records, self), undefined);
  });

  it('makes a heading from a name', () => {
    assert.equal(titleFromName('deploy-app-now'), 'Deploy app now');
  });
});
