import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { skillRootCandidates } from '../../../src/core/base/skillRoots';
import { buildCatalog, catalogLine } from '../../../src/core/skills/catalog/skillCatalog';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';
import type { PreviewEnvironment, PreviewResult, SkillPreviewModel } from '../../../src/core/skills/preview/skillPreviewModel';
import { MAX_PREVIEW_BODY_CHARS, MAX_PREVIEW_FINDINGS, buildSkillPreview } from '../../../src/core/skills/preview/skillPreviewModel';
import { parseHostPreviewMessage } from '../../../src/shared/previewProtocol';
import { makeSampleWorkspace, removeWorkspace } from '../../harness/sampleWorkspace';
import { repoRoot } from '../../repoRoot';

const nodeFs = new NodeFileSystem();

function ok(result: PreviewResult): SkillPreviewModel {
  assert.ok(result.ok, result.ok ? '' : result.message);
  // Every model must pass the protocol's own validation, as the webview checks it on arrival.
  const message = parseHostPreviewMessage({ type: 'preview/update', preview: result.preview });
  assert.ok(message.ok, message.ok ? '' : message.error);
  return result.preview;
}

describe('buildSkillPreview', function () {
  this.timeout(30_000);
  let workspace: string;
  let skillsDir: string;
  let env: PreviewEnvironment;
  let index: SkillIndex;
  const file = (...segments: string[]) => path.join(skillsDir, ...segments, 'SKILL.md');
  const preview = async (target: string, text?: string, extra: Partial<PreviewEnvironment> = {}) =>
    ok(await buildSkillPreview({ file: target, ...(text !== undefined ? { text } : {}) }, { ...env, ...extra }));

  before(async () => {
    workspace = makeSampleWorkspace('sample');
    skillsDir = path.join(workspace, '.agents', 'skills');
    index = new SkillIndex({ fs: nodeFs, roots: skillRootCandidates([{ name: 'sample', fsPath: workspace }], ''), platform: 'linux' });
    await index.load();
    env = { fs: nodeFs, records: index.all(), catalog: buildCatalog(index.active()), platform: 'linux' };
  });

  after(() => {
    index?.dispose();
    if (workspace) removeWorkspace(workspace);
  });

  it('previews the sample script skill from the disk: card, files, body, catalog line', async () => {
    const target = file('ops', 'count-files');
    const model = await preview(target);
    assert.deepEqual(model.card, { name: 'count-files', description: index.get('count-files')!.description, tags: [], level: 0, version: '0.1.0', permissions: ['process:python3'], platforms: [] });
    assert.deepEqual(model.files, [
      { path: 'scripts', exists: true, isFolder: true },
      { path: 'scripts/run.py', exists: true, isFolder: false },
    ]);
    const lines = fs.readFileSync(target, 'utf8').split('\n');
    assert.equal(model.bodyLine, lines.indexOf('---', 1) + 1);
    assert.match(model.body, /^\n# Count files in a folder\n/);
    assert.equal(model.catalogLine, catalogLine(index.get('count-files')!));
    assert.equal(model.parseError, undefined);
    assert.equal(model.workflow, undefined);
    for (const finding of model.findings) assert.ok(finding.line === undefined || finding.line < lines.length, finding.code);
  });

  it('follows the editor text rather than the disk', async () => {
    const target = file('docs', 'write-changelog-entry');
    const saved = fs.readFileSync(target, 'utf8');
    const typed = saved.replace(/^description: .*$/m, 'description: Drafts changelog lines. Use when the user asks for a changelog.').replace('tags: []', 'tags: [docs, release]');
    const model = await preview(target, typed);
    assert.equal(model.card.description, 'Drafts changelog lines. Use when the user asks for a changelog.');
    assert.deepEqual(model.card.tags, ['docs', 'release']);
    assert.equal(model.catalogLine, '- write-changelog-entry: Drafts changelog lines. Use when the user asks for a changelog.');
    assert.equal(fs.readFileSync(target, 'utf8'), saved, 'nothing was written');
  });

  it('draws the Level 1 sample and marks a step whose skill is unknown, with its lint finding on that line', async () => {
    const target = file('release', 'prepare-release');
    const model = await preview(target);
    assert.equal(model.card.level, 1);
    assert.deepEqual(model.workflow?.map((step) => [step.id, step.skill, step.unknown]), [
      ['gather', 'count-files', false],
      ['report', 'write-changelog-entry', false],
    ]);
    const typed = fs.readFileSync(target, 'utf8').replace('skill: write-changelog-entry', 'skill: publish-notes');
    const edited = await preview(target, typed);
    const report = edited.workflow?.find((step) => step.id === 'report');
    assert.equal(report?.unknown, true);
    const finding = edited.findings.find((f) => f.code === 'SW703');
    assert.ok(finding, 'the lint reports the unknown skill');
    assert.match(typed.split('\n')[finding.line!] ?? assert.fail('no line at the finding'), /publish-notes/);
  });

  it('shows the body with a parse error when the frontmatter is broken', async () => {
    const target = file('ops', 'count-files');
    const yamlError = await preview(target, '---\nname: count-files\ndescription: Counts: files\n---\n# Still here\n\nSteps.\n');
    assert.match(yamlError.parseError ?? '', /YAML error on line 3/);
    assert.equal(yamlError.card.name, 'count-files', 'the line-by-line fallback still reads the name');
    assert.equal(yamlError.body, '# Still here\n\nSteps.\n');
    assert.equal(yamlError.bodyLine, 4);

    const unclosed = await preview(target, '---\nname: count-files\ndescription: Counts files. Use when counting.\n\n# Body after a blank line\n');
    assert.match(unclosed.parseError ?? '', /never closed/);
    assert.match(unclosed.body, /# Body after a blank line/);

    const none = await preview(target, '# Just Markdown\n\nNo frontmatter at all.\n');
    assert.match(none.parseError ?? '', /No frontmatter/);
    assert.equal(none.body, '# Just Markdown\n\nNo frontmatter at all.\n');
    assert.equal(none.bodyLine, 0);
    assert.deepEqual(none.card, { tags: [], level: 0, permissions: [], platforms: [] });

    const list = await preview(target, '---\n- a\n- b\n---\nbody\n');
    assert.match(list.parseError ?? '', /not a mapping/);
  });

  it('caps a huge body and says so; a file over the parser limit is flagged for the whole file', async () => {
    const target = file('ops', 'count-files');
    const head = '---\nname: count-files\ndescription: Counts files. Use when counting.\n---\n';
    const paragraph = `${'word '.repeat(40)}\n\n`;
    const big = await preview(target, head + paragraph.repeat(Math.ceil((MAX_PREVIEW_BODY_CHARS * 1.5) / paragraph.length)));
    assert.ok(big.body.length <= MAX_PREVIEW_BODY_CHARS && big.body.length > MAX_PREVIEW_BODY_CHARS - paragraph.length);
    assert.ok(big.body.endsWith('\n') || big.body.endsWith(' '), 'cut at a line break');
    const note = big.findings.find((f) => f.code === 'preview');
    assert.match(note?.message ?? '', /shows the first 200,000 characters of the body/);
    assert.equal(note?.line, undefined);

    const huge = await preview(target, head + paragraph.repeat(Math.ceil((1.2 * 1024 * 1024) / paragraph.length)));
    const tooLarge = huge.findings.find((f) => f.code === 'SW102');
    assert.ok(tooLarge, 'the parser says only the start was read');
    assert.equal(tooLarge.line, undefined, 'a whole-file finding has no line');
  });

  it('refuses a binary file, and a file that is not there, with a message', async () => {
    const dir = path.join(skillsDir, 'ops', 'binary-skill');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0x02]));
    const binary = await buildSkillPreview({ file: path.join(dir, 'SKILL.md') }, env);
    assert.equal(binary.ok, false);
    assert.match(binary.ok ? '' : binary.message, /^binary-skill\/SKILL\.md: This file is binary \(a NUL byte at offset 4\)/);
    const missing = await buildSkillPreview({ file: path.join(skillsDir, 'nope', 'SKILL.md') }, env);
    assert.match(missing.ok ? '' : missing.message, /does not exist/);
  });

  it('lists support folders, linked and mentioned files, marks missing ones and never lists paths outside the skill', async () => {
    const dir = path.join(skillsDir, 'docs', 'linked-skill');
    fs.mkdirSync(path.join(dir, 'references', 'deep'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'references', 'guide.md'), '# Guide\n');
    fs.writeFileSync(path.join(dir, 'references', 'deep', 'notes.md'), 'notes\n');
    fs.writeFileSync(path.join(dir, 'forms.md'), 'top-level file linked from the body\n');
    fs.writeFileSync(path.join(dir, 'unlinked.txt'), 'not in a support folder, not linked\n');
    const text = [
      '---',
      'name: linked-skill',
      'description: Shows linked files. Use when testing the tree.',
      'entry: scripts/run.sh',
      'permissions: [process:sh]',
      '---',
      '# Linked',
      '',
      'See [the guide](references/guide.md), [forms](./forms.md) and [gone](references/gone.md).',
      'Also [notes](docs/notes.md), [outside](../other/SKILL.md) and [site](https://example.com).',
      'Run `templates/report.txt` through the template.',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'SKILL.md'), text);
    const model = await preview(path.join(dir, 'SKILL.md'));
    assert.deepEqual(model.files, [
      { path: 'assets', exists: true, isFolder: true },
      { path: 'docs', exists: false, isFolder: true },
      { path: 'docs/notes.md', exists: false, isFolder: false },
      { path: 'forms.md', exists: true, isFolder: false },
      { path: 'references', exists: true, isFolder: true },
      { path: 'references/deep', exists: true, isFolder: true },
      { path: 'references/deep/notes.md', exists: true, isFolder: false },
      { path: 'references/gone.md', exists: false, isFolder: false },
      { path: 'references/guide.md', exists: true, isFolder: false },
      { path: 'scripts', exists: false, isFolder: true },
      { path: 'scripts/run.sh', exists: false, isFolder: false },
      { path: 'templates', exists: false, isFolder: true },
      { path: 'templates/report.txt', exists: false, isFolder: false },
    ]);
    const codes = model.findings.map((f) => `${f.code}@${f.line}`);
    for (const expected of ['SW503@8', 'SW503@9', 'SW504@10', 'SW604@3']) assert.ok(codes.includes(expected), `${expected} in ${codes.join(' ')}`);
    assert.equal(model.catalogLine.startsWith('Not in the catalog'), true, 'written after the index loaded, so not indexed yet');
  });

  it('caps the findings and points to the Problems panel for the rest', async () => {
    const links = Array.from({ length: MAX_PREVIEW_FINDINGS + 100 }, (_, i) => `- [file ${i}](references/missing-${i}.md)`).join('\n');
    const model = await preview(file('ops', 'count-files'), `---\nname: count-files\ndescription: Counts files. Use when counting.\n---\n${links}\n`);
    assert.equal(model.findings.length, MAX_PREVIEW_FINDINGS + 1);
    assert.match(model.findings.at(-1)!.message, /^100 more findings are not shown here/);
  });

  it('previews every skill of the corpus as a valid message with findings inside the file', async function () {
    this.timeout(120_000);
    const shared = path.join(repoRoot(), '..', 'shared', 'corpus');
    assert.ok(fs.existsSync(shared), `the skills corpus is missing: expected it at ${shared} (../shared/corpus beside the repository)`);
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name === 'SKILL.md') files.push(full);
      }
    };
    walk(shared);
    assert.ok(files.length > 500);
    let withFiles = 0;
    for (const skill of files) {
      const model = await preview(skill, undefined, { records: [], catalog: buildCatalog([]) });
      const lines = parseSkillText(fs.readFileSync(skill, 'utf8')).lines.length;
      for (const finding of model.findings) assert.ok(finding.line === undefined || finding.line < lines, `${skill} ${finding.code}`);
      if (model.files.some((entry) => !entry.isFolder && entry.exists)) withFiles += 1;
      assert.ok(model.body.length <= MAX_PREVIEW_BODY_CHARS);
    }
    assert.ok(withFiles > 50, `${withFiles} corpus skills show existing linked files`);
  });
});

describe('buildSkillPreview without an index', () => {
  it('works on a lone SKILL.md outside any skill folder', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-preview-'));
    try {
      const target = path.join(dir, 'lonely', 'SKILL.md');
      fs.mkdirSync(path.dirname(target));
      fs.writeFileSync(target, '---\nname: lonely\ndescription: Alone. Use when alone.\nplatforms: linux, macos\npermissions:\n  network: [api.example.com]\n  files: read\n---\nBody.\n');
      const result = await buildSkillPreview({ file: target }, { fs: nodeFs, records: [], platform: 'linux' });
      const model = ok(result);
      assert.deepEqual(model.card.platforms, ['linux', 'macos']);
      assert.deepEqual(model.card.permissions, ['network: api.example.com', 'files: read']);
      assert.match(model.catalogLine, /^Not in the catalog: Skillwright does not index this file/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
