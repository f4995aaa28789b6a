import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { SkillRoot } from '../../../src/core/base/skillRoots';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import type { SkillToolContext } from '../../../src/core/skills/tools/skillToolContext';
import { MAX_VIEW_CHARS, SKILL_TOOLS, runSkillTool } from '../../../src/core/skills/tools/skillTools';
import { toolSpecOf } from '../../../src/core/toolkit/toolDefinition';
import { repoRoot } from '../../repoRoot';
import type { ToolWorkspace } from './skillToolWorkspace';
import { makeWorkspace, names, skillMd } from './skillToolWorkspace';

describe('skill tools: schemas and arguments', () => {
  let ws: ToolWorkspace;
  before(async () => {
    ws = await makeWorkspace({ setup: (w) => w.write('.agents/skills', 'demo/SKILL.md', skillMd('demo')) });
  });
  after(() => ws.cleanup());

  it('describes three tools whose JSON schemas derive from their definitions', () => {
    assert.deepEqual(SKILL_TOOLS.map((t) => t.name), ['skills_list', 'skill_view', 'skill_manage']);
    for (const definition of SKILL_TOOLS) {
      const spec = toolSpecOf(definition);
      assert.ok(spec.description.length > 40);
      assert.equal(spec.parameters['type'], 'object');
      assert.equal(spec.parameters['additionalProperties'], false);
      assert.equal(spec.parameters['$schema'], undefined, 'no draft marker: some providers refuse it');
    }
    const manage = toolSpecOf(SKILL_TOOLS[2]).parameters as { required: string[]; properties: Record<string, { enum?: string[] }> };
    assert.deepEqual(manage.required, ['action', 'name']);
    assert.deepEqual(manage.properties['action']?.enum, ['create', 'patch', 'edit', 'delete', 'write_file', 'remove_file']);
  });

  it('refuses an unknown tool and names the real ones', async () => {
    assert.match(await ws.refused('skill_delete', {}), /unknown tool "skill_delete"; the skill tools are skills_list, skill_view, skill_manage/);
  });

  it('refuses model garbage instead of throwing', async () => {
    assert.match(await ws.refused('skill_view', 'not json object'), /not valid JSON/);
    assert.match(await ws.refused('skill_view', '[1,2]'), /must be a JSON object.*not an array/);
    assert.match(await ws.refused('skill_view', 42), /must be a JSON object.*not number/);
    assert.match(await ws.refused('skill_view', { name: 7 }), /"name" must be a string, not number/);
    assert.match(await ws.refused('skill_view', { name: ['demo'] }), /"name" must be a string, not an array/);
    assert.match(await ws.refused('skill_view', {}), /skill_view needs "name"/);
    assert.match(await ws.refused('skill_view', { name: 'demo', path: 'x' }), /no argument "path"; its arguments are name, file_path/);
    assert.match(await ws.refused('skill_manage', { action: 'rename', name: 'demo' }), /"action" must be one of "create", "patch"/);
    assert.match(await ws.refused('skill_manage', { action: 'patch', name: 'demo', old_string: 'a', new_string: 'b', replace_all: 'yes' }), /"replace_all" must be a boolean/);
  });

  it('accepts arguments as a JSON string and treats null as absent', async () => {
    const viewed = await ws.ok('skill_view', '{"name": "demo", "file_path": null}');
    assert.match(viewed['content'] as string, /name: demo/);
    assert.ok(names(await ws.ok('skills_list', '')).includes('demo'));
    assert.ok(names(await ws.ok('skills_list', null)).includes('demo'));
  });

  it('turns an unexpected failure into an error result', async () => {
    const broken = { ...ws.ctx, index: { active: () => { throw new Error('boom'); }, all: () => [] } } as unknown as typeof ws.ctx;
    const result = await runSkillTool('skills_list', {}, broken);
    assert.deepEqual(result, { success: false, error: 'skills_list failed unexpectedly: boom. Try again, or report this if it repeats.' });
  });
});

describe('skills_list', () => {
  let ws: ToolWorkspace;
  before(async () => {
    ws = await makeWorkspace({
      setup: (w) => {
        w.write('.agents/skills', 'devops/k8s/deploy-app/SKILL.md', skillMd('deploy-app', 'Deploys the app to Kubernetes with kubectl. Use when shipping a release.'));
        w.write('.agents/skills', 'devops/ci-fix/SKILL.md', skillMd('ci-fix', 'Repairs failing CI pipelines. Use when a build is red.'));
        w.write('.agents/skills', 'writing/release-notes/SKILL.md', skillMd('release-notes', `Writes release notes from merged pull requests. ${'Very long text. '.repeat(30)}`));
        w.write('.agents/skills', 'top/SKILL.md', skillMd('top'));
        // Shadowed by the project copy: listed once.
        w.write('~/.agents/skills', 'ci-fix/SKILL.md', skillMd('ci-fix', 'User copy of ci-fix. Use when never.'));
      },
    });
  });
  after(() => ws.cleanup());

  it('lists active skills grouped by category, sorted, with short descriptions', async () => {
    const result = await ws.ok('skills_list', {});
    assert.equal(result['total'], 4);
    const groups = result['categories'] as { category: string; skills: { name: string; description: string }[] }[];
    assert.deepEqual(groups.map((g) => g.category), ['(top level)', 'devops', 'devops/k8s', 'writing']);
    assert.equal(groups[1]?.skills[0]?.description, 'Repairs failing CI pipelines. Use when a build is red.');
    const long = groups[3]?.skills[0]?.description ?? '';
    assert.ok(long.length <= 140 && long.endsWith('…'), long);
    assert.equal(result['more'], undefined);
  });

  it('filters by a category and its subcategories, and names the categories when none match', async () => {
    assert.deepEqual(names(await ws.ok('skills_list', { category: 'devops' })), ['ci-fix', 'deploy-app']);
    assert.deepEqual(names(await ws.ok('skills_list', { category: 'devops/k8s/' })), ['deploy-app']);
    assert.match(await ws.refused('skills_list', { category: 'dev' }), /no skills in category "dev"; categories: "devops", "devops\/k8s", "writing"/);
  });

  it('ranks by a query, with or without a search the host keeps', async () => {
    assert.equal(names(await ws.ok('skills_list', { query: 'ship a release to kubernetes' }))[0], 'deploy-app');
    ws.ctx = { ...ws.ctx, search: new SkillSearch(ws.index.active()) };
    const result = await ws.ok('skills_list', { query: 'kubernetes', category: 'devops' });
    assert.deepEqual(names(result), ['deploy-app']);
    assert.equal(result['matches'], 1);
    const none = await ws.ok('skills_list', { query: 'zebra husbandry' });
    assert.deepEqual(none['skills'], []);
    assert.match(none['hint'] as string, /No skill matches/);
  });
});

describe('skills_list size cap', () => {
  let ws: ToolWorkspace;
  before(async () => {
    ws = await makeWorkspace({
      setup: (w) => {
        for (let i = 0; i < 230; i++) {
          const name = `skill-${String(i).padStart(3, '0')}`;
          w.write('.agents/skills', `cat-${i % 3}/${name}/SKILL.md`, skillMd(name, 'Short one. Use when asked.'));
        }
        for (let i = 0; i < 150; i++) {
          const name = `wordy-${String(i).padStart(3, '0')}`;
          w.write('.agents/skills', `wordy/${name}/SKILL.md`, skillMd(name, `Use when asked. ${'Long description words. '.repeat(12)}`));
        }
      },
    });
  });
  after(() => ws.cleanup());

  it('keeps the output to about 20,000 characters when descriptions are long', async () => {
    const result = await ws.ok('skills_list', { category: 'wordy' });
    assert.equal(result['total'], 150);
    const shown = result['shown'] as number;
    assert.ok(shown > 50 && shown < 150, `shown ${shown}`);
    assert.equal(names(result).length, shown);
    assert.match(result['more'] as string, new RegExp(`^${150 - shown} more skills`));
    assert.ok(JSON.stringify(result).length <= 20_000, `${JSON.stringify(result).length} chars`);
  });

  it('shows at most 200 skills and says how many more exist, per category', async () => {
    const result = await ws.ok('skills_list', {});
    assert.equal(result['total'], 380);
    assert.equal(result['shown'], 200);
    assert.equal(names(result).length, 200);
    assert.match(result['more'] as string, /^180 more skills are not shown; narrow the list with category or query/);
    assert.deepEqual(result['category_counts'], { 'cat-0': 77, 'cat-1': 77, 'cat-2': 76, wordy: 150 });
    assert.ok(JSON.stringify(result).length < 25_000);
  });
});

describe('skill_view', () => {
  let ws: ToolWorkspace;
  let outside: string;
  before(async () => {
    ws = await makeWorkspace({
      setup: (w) => {
        w.write('.agents/skills', 'ops/pdf-tools/SKILL.md', skillMd('pdf-tools', undefined, '# PDF\n\nSee [forms](references/forms.md).\n'));
        w.write('.agents/skills', 'ops/pdf-tools/references/forms.md', '# Forms\n');
        w.write('.agents/skills', 'ops/pdf-tools/references/deep/more.md', 'more');
        w.write('.agents/skills', 'ops/pdf-tools/scripts/fill.py', 'print(1)\n');
        w.write('.agents/skills', 'ops/pdf-tools/assets/logo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
        w.write('.agents/skills', 'ops/pdf-tools/assets/big.txt', 'x'.repeat(MAX_VIEW_CHARS + 10));
        w.write('.agents/skills', 'ops/pdf-tools/LICENSE.txt', 'MIT');
        w.write('.agents/skills', 'ops/pdf-tools/.DS_Store', 'junk');
        // Two skills whose folders share a name, reachable by "category/name".
        w.write('.agents/skills', 'a/helper/SKILL.md', skillMd('helper-a'));
        w.write('.agents/skills', 'b/helper/SKILL.md', skillMd('helper-b'));
        outside = path.join(w.tmp, 'secret.txt');
        fs.writeFileSync(outside, 'top secret');
        fs.symlinkSync(outside, path.join(w.root('.agents/skills'), 'ops', 'pdf-tools', 'references', 'leak.md'));
      },
    });
  });
  after(() => ws.cleanup());

  it('returns SKILL.md and its linked files by support folder, with sizes and how to open them', async () => {
    const result = await ws.ok('skill_view', { name: 'pdf-tools' });
    assert.match(result['content'] as string, /^---\nname: pdf-tools/);
    assert.equal(result['category'], 'ops');
    assert.equal(result['scope'], 'project');
    assert.deepEqual(result['linked_files'], {
      assets: [
        { path: 'assets/big.txt', size: MAX_VIEW_CHARS + 10 },
        { path: 'assets/logo.png', size: 8 },
      ],
      references: [
        { path: 'references/deep/more.md', size: 4 },
        { path: 'references/forms.md', size: 8 },
      ],
      scripts: [{ path: 'scripts/fill.py', size: 9 }],
    });
    assert.deepEqual(result['other_files'], [{ path: 'LICENSE.txt', size: 3 }]);
    assert.equal(result['how_to_open'], 'skill_view(name="ops/pdf-tools", file_path="references/deep/more.md")');
  });

  it('returns one file on request', async () => {
    const result = await ws.ok('skill_view', { name: 'pdf-tools', file_path: 'references/forms.md' });
    assert.equal(result['content'], '# Forms\n');
    assert.equal(result['file_path'], 'references/forms.md');
    const main = await ws.ok('skill_view', { name: 'pdf-tools', file_path: 'SKILL.md' });
    assert.match(main['content'] as string, /# PDF/);
  });

  it('describes a binary file instead of returning its bytes', async () => {
    const result = await ws.ok('skill_view', { name: 'pdf-tools', file_path: 'assets/logo.png' });
    assert.equal(result['content'], undefined);
    assert.equal(result['binary'], true);
    assert.equal(result['size'], 8);
    assert.equal(result['type'], 'PNG image');
  });

  it('cuts a very large file and says so', async () => {
    const result = await ws.ok('skill_view', { name: 'pdf-tools', file_path: 'assets/big.txt' });
    assert.equal((result['content'] as string).length, MAX_VIEW_CHARS);
    assert.equal(result['truncated'], true);
    assert.match(result['note'] as string, /only the first 262,144 of 262,154 characters/);
  });

  it('lists the files of a folder given as file_path', async () => {
    const result = await ws.ok('skill_view', { name: 'pdf-tools', file_path: 'references' });
    assert.deepEqual((result['files'] as { path: string }[]).map((f) => f.path), ['references/deep/more.md', 'references/forms.md']);
  });

  it('refuses every path that leaves the skill folder', async () => {
    assert.match(await ws.refused('skill_view', { name: 'pdf-tools', file_path: '../helper/SKILL.md' }), /contains "\.\."/);
    assert.match(await ws.refused('skill_view', { name: 'pdf-tools', file_path: outside }), /absolute/);
    assert.match(await ws.refused('skill_view', { name: 'pdf-tools', file_path: 'references\\..\\..\\x' }), /backslash/);
    assert.match(await ws.refused('skill_view', { name: 'pdf-tools', file_path: 'references/forms.md\u0000.png' }), /NUL/);
    const symlink = await ws.refused('skill_view', { name: 'pdf-tools', file_path: 'references/leak.md' });
    assert.match(symlink, /outside the skill folder through a symbolic link/);
    assert.doesNotMatch(symlink, /top secret/);
  });

  it('names the existing files when the requested one is missing', async () => {
    assert.match(await ws.refused('skill_view', { name: 'pdf-tools', file_path: 'references/form.md' }), /no file "references\/form.md"; its files: "LICENSE.txt", "assets\/big.txt"/);
  });

  it('suggests close names for an unknown skill', async () => {
    assert.match(await ws.refused('skill_view', { name: 'pdf-tool' }), /no skill named "pdf-tool"; did you mean "pdf-tools"\?/);
    assert.match(await ws.refused('skill_view', { name: 'qqqqqq' }), /no skill named "qqqqqq"\. Call skills_list/);
  });

  it('refuses an ambiguous name with the candidates, and accepts category/name', async () => {
    assert.match(await ws.refused('skill_view', { name: 'helper' }), /"helper" matches 2 skills: "a\/helper-a" \(\.agents\/skills\), "b\/helper-b" \(\.agents\/skills\); give the one you mean as "category\/name"/);
    const b = await ws.ok('skill_view', { name: 'b/helper' });
    assert.equal(b['name'], 'helper-b');
  });
});

describe('skill_view of skills that are not active', () => {
  it('explains a disabled skill and one limited to other platforms', async () => {
    const other = process.platform === 'win32' ? 'linux' : 'windows';
    const ws = await makeWorkspace({
      disabled: ['old-skill'],
      setup: (w) => {
        w.write('.agents/skills', 'old-skill/SKILL.md', skillMd('old-skill'));
        w.write('.agents/skills', 'elsewhere/SKILL.md', skillMd('elsewhere').replace('---\n\n', `platforms: [${other}]\n---\n\n`));
      },
    });
    try {
      assert.match(await ws.refused('skill_view', { name: 'old-skill' }), /"old-skill" in \.agents\/skills is not available: it is disabled in the settings/);
      assert.match(await ws.refused('skill_view', { name: 'elsewhere' }), new RegExp(`its platforms \\(${other}\\) exclude this machine`));
      assert.deepEqual(names(await ws.ok('skills_list', {})), []);
    } finally {
      ws.cleanup();
    }
  });
});

describe('skill tools on the real-world corpus', () => {
  const corpus = path.join(repoRoot(), '..', 'shared', 'corpus');
  let index: SkillIndex;
  let ctx: SkillToolContext;
  before(async function () {
    this.timeout(60_000);
    assert.ok(fs.existsSync(path.join(corpus, 'stats.json')), `the skill corpus is missing: expected it at ${corpus} (../shared/corpus from the repository root)`);
    const roots: SkillRoot[] = ['anthropics-skills', 'openai-skills', 'awesome-copilot', 'hermes-agent'].map((source) => ({
      path: path.join(corpus, source),
      scope: 'other',
      label: source,
      writeTarget: false,
    }));
    index = new SkillIndex({ fs: new NodeFileSystem(), roots });
    await index.load();
    ctx = { fs: new NodeFileSystem(), index, roots };
  });

  it('lists the corpus within the output cap', async () => {
    const result = (await runSkillTool('skills_list', {}, ctx)) as Record<string, unknown>;
    assert.equal(result['success'], true);
    assert.equal(result['total'], index.active().length);
    assert.ok(index.active().length > 500, `${index.active().length} active skills`);
    assert.ok((result['shown'] as number) <= 200);
    assert.ok(JSON.stringify(result).length <= 20_000, `${JSON.stringify(result).length} characters`);
  });

  it('views every active skill and its first linked file as JSON-safe results', async function () {
    this.timeout(60_000);
    const failures: string[] = [];
    for (const record of index.active()) {
      const name = `${record.category ? `${record.category}/` : ''}${record.folderName}`;
      const viewed = (await runSkillTool('skill_view', { name }, ctx)) as Record<string, unknown>;
      if (!viewed['success'] || typeof viewed['content'] !== 'string' || viewed['name'] !== record.name) {
        failures.push(`${name}: ${JSON.stringify(viewed).slice(0, 200)}`);
        continue;
      }
      const groups = Object.values(viewed['linked_files'] as Record<string, { path: string }[]>);
      const first = groups[0]?.[0]?.path;
      if (first) {
        const file = await runSkillTool('skill_view', { name, file_path: first }, ctx);
        if (!file.success) failures.push(`${name} ${first}: ${file.error}`);
      }
      assert.deepEqual(JSON.parse(JSON.stringify(viewed)), viewed);
    }
    assert.deepEqual(failures, []);
  });

  it('cuts the one oversized SKILL.md and says so', async () => {
    const result = (await runSkillTool('skill_view', { name: 'quality-playbook' }, ctx)) as Record<string, unknown>;
    assert.equal(result['success'], true);
    assert.equal((result['content'] as string).length, MAX_VIEW_CHARS);
    assert.match(result['note'] as string, /only the first 262,144 are shown/);
  });

  it('refuses to change skills in read-only folders', async () => {
    const result = await runSkillTool('skill_manage', { action: 'remove_file', name: 'quality-playbook', file_path: 'references/x.md' }, ctx);
    assert.equal(result.success, false);
    assert.match((result as { error: string }).error, /only reads/);
  });
});

describe('skill tools: usage statistics', () => {
  it('records a view for skill_view and an edit for skill_manage, nothing for failures or deletes', async () => {
    const ws = await makeWorkspace({ setup: (w) => w.write('.agents/skills', 'ops/deploy-app/SKILL.md', skillMd('deploy-app')) });
    try {
      const seen: string[] = [];
      ws.ctx = { ...ws.ctx, usage: { record: (name, kind) => seen.push(`${kind}:${name}`) } };
      await ws.ok('skill_view', { name: 'deploy-app' });
      await ws.refused('skill_view', { name: 'no-such-skill' });
      await ws.ok('skill_manage', { action: 'patch', name: 'deploy-app', old_string: 'Do the thing.', new_string: 'Do it well.' });
      await ws.ok('skill_manage', { action: 'delete', name: 'deploy-app' });
      await ws.ok('skills_list', {});
      assert.deepEqual(seen, ['view:deploy-app', 'edit:deploy-app']);
    } finally {
      ws.cleanup();
    }
  });
});
