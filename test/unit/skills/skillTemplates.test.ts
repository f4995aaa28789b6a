import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { skillRootCandidates } from '../../../src/core/base/skillRoots';
import { lintSkillFile } from '../../../src/core/skills/lint/lintRunner';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { writeSkillFolder } from '../../../src/core/skills/tools/skillFolderWrite';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';
import { SKILL_TEMPLATES, fillTemplate, templateById } from '../../../src/core/skills/tools/skillTemplates';
import { repoRoot } from '../../repoRoot';

const templatesDir = path.join(repoRoot(), 'skills-templates');
const nodeFs = new NodeFileSystem();

function template(id: string): string {
  return fs.readFileSync(path.join(templatesDir, id, 'SKILL.md'), 'utf8');
}

describe('skill templates', () => {
  let tmp: string;
  let root: string;

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-templates-'));
    root = path.join(tmp, 'app', '.agents', 'skills');
    fs.mkdirSync(root, { recursive: true });
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('offers a folder for every template it lists, at least instructions, script and a Level 1 workflow', () => {
    assert.deepEqual(SKILL_TEMPLATES.map((t) => t.id), ['instructions', 'script', 'workflow']);
    for (const t of SKILL_TEMPLATES) assert.ok(fs.existsSync(path.join(templatesDir, t.id, 'SKILL.md')), t.id);
    assert.equal(templateById('workflow')?.level, 1);
    assert.equal(templateById('nope'), undefined);
  });

  it('fills frontmatter values as YAML and the body as text', () => {
    const filled = fillTemplate(template('instructions'), { name: 'ship-it', description: 'Ships it: fast. Use when # asked.' });
    assert.ok(filled.ok);
    const parsed = parseSkillText(filled.value);
    assert.equal(parsed.frontmatter['name'], 'ship-it');
    assert.equal(parsed.frontmatter['description'], 'Ships it: fast. Use when # asked.');
    assert.match(parsed.body, /^# Ship it$/m);
    assert.doesNotMatch(filled.value, /\{\{/);
  });

  it('refuses a template with a placeholder it cannot fill', () => {
    const filled = fillTemplate('---\nname: {{name}}\nowner: {{owner}}\n---\n', { name: 'a' });
    assert.equal(filled.ok, false);
    assert.match(filled.ok ? '' : filled.error, /without a value: owner/);
  });

  for (const t of SKILL_TEMPLATES) {
    it(`writes a ${t.id} skill with its support files that lints without errors`, async () => {
      // The workflow calls two skills that exist.
      for (const name of ['gather-facts', 'write-report']) {
        fs.mkdirSync(path.join(root, name));
        fs.writeFileSync(path.join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: Helps with ${name}. Use when the user asks for ${name}.\n---\n\n# ${name}\n`);
      }
      const filled = fillTemplate(template(t.id), { name: 'new-skill', description: 'Checks the build folder. Use when the user asks about the build.', skills: ['gather-facts', 'write-report'] });
      assert.ok(filled.ok);
      const dir = path.join(root, 'tools', 'new-skill');
      const written = await writeSkillFolder(nodeFs, { dir, skillText: filled.value, copyFrom: path.join(templatesDir, t.id) });
      assert.ok(written.ok);
      if (t.id === 'script') {
        assert.deepEqual(written.value, ['SKILL.md', 'scripts/run.py']);
        assert.equal(fs.readFileSync(path.join(dir, 'scripts', 'run.py'), 'utf8'), fs.readFileSync(path.join(templatesDir, 'script', 'scripts', 'run.py'), 'utf8'));
      }
      const index = new SkillIndex({ fs: nodeFs, roots: skillRootCandidates([{ name: 'app', fsPath: path.join(tmp, 'app') }], path.join(tmp, 'home')) });
      await index.load();
      assert.equal(index.get('new-skill')?.category, 'tools');
      const findings = await lintSkillFile({ file: path.join(dir, 'SKILL.md') }, nodeFs, index);
      assert.deepEqual(findings.filter((f) => f.severity === 'error').map((f) => `${f.code} ${f.message}`), []);
    });
  }

  it('leaves a placeholder description the lint flags, and placeholder workflow skills it reports as unknown', async () => {
    const filled = fillTemplate(template('workflow'), { name: 'later', description: '' });
    assert.ok(filled.ok);
    const dir = path.join(root, 'later');
    assert.ok((await writeSkillFolder(nodeFs, { dir, skillText: filled.value })).ok);
    const index = new SkillIndex({ fs: nodeFs, roots: skillRootCandidates([{ name: 'app', fsPath: path.join(tmp, 'app') }], path.join(tmp, 'home')) });
    await index.load();
    const findings = await lintSkillFile({ file: path.join(dir, 'SKILL.md') }, nodeFs, index);
    assert.ok(findings.some((f) => f.code === 'SW306'), 'the description placeholder is flagged');
    const unknown = findings.filter((f) => /first-skill|second-skill/.test(f.message));
    assert.ok(unknown.length >= 2, `the placeholder skills are reported: ${findings.map((f) => f.code).join(', ')}`);
  });

  it('refuses to write over an existing folder and removes a half-written one', async () => {
    const dir = path.join(root, 'taken');
    fs.mkdirSync(dir);
    const taken = await writeSkillFolder(nodeFs, { dir, skillText: 'x' });
    assert.equal(taken.ok, false);
    assert.match(taken.ok ? '' : taken.error, /already exists; choose another name/);

    const failing = Object.create(nodeFs) as NodeFileSystem;
    failing.writeFileAtomic = async (file: string) => {
      if (file.endsWith('SKILL.md')) throw new Error('disk full');
    };
    const fresh = path.join(root, 'fresh');
    await assert.rejects(writeSkillFolder(failing, { dir: fresh, skillText: 'x', copyFrom: path.join(templatesDir, 'script') }), /disk full/);
    assert.equal(fs.existsSync(fresh), false);
  });
});
