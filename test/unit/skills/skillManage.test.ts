import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_SKILL_MD_CHARS, MAX_SUPPORT_FILE_BYTES } from '../../../src/core/skills/tools/skillManage';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import type { ToolWorkspace } from './skillToolWorkspace';
import { makeWorkspace, names, skillMd } from './skillToolWorkspace';

const manage = (args: Record<string, unknown>): ['skill_manage', Record<string, unknown>] => ['skill_manage', args];

function read(file: string): string {
  return fs.readFileSync(file, 'utf8');
}

describe('skill_manage create', () => {
  let ws: ToolWorkspace;
  beforeEach(async () => {
    ws = await makeWorkspace({ setup: (w) => w.write('~/.agents/skills', 'shared/SKILL.md', skillMd('shared')) });
  });
  afterEach(() => ws.cleanup());

  it('writes a new project skill in its category, visible to skills_list and skill_view at once', async () => {
    const content = skillMd('deploy-app', 'Deploys the app to Kubernetes. Use when the user wants to ship a release.');
    const result = await ws.ok(...manage({ action: 'create', name: 'deploy-app', category: 'devops/k8s', content }));
    assert.equal(result['path'], '.agents/skills/devops/k8s/deploy-app/SKILL.md');
    assert.equal(result['scope'], 'project');
    assert.equal(read(path.join(ws.root('.agents/skills'), 'devops', 'k8s', 'deploy-app', 'SKILL.md')), content);
    assert.deepEqual(names(await ws.ok('skills_list', { category: 'devops' })), ['deploy-app']);
    assert.equal((await ws.ok('skill_view', { name: 'deploy-app' }))['content'], content);
    // Atomic writes leave no temp files behind.
    assert.deepEqual(fs.readdirSync(path.join(ws.root('.agents/skills'), 'devops', 'k8s', 'deploy-app')), ['SKILL.md']);
  });

  it('writes to ~/.agents/skills with scope user, and warns about precedence', async () => {
    const result = await ws.ok(...manage({ action: 'create', name: 'notes', scope: 'user', content: skillMd('notes') }));
    assert.equal(result['path'], '~/.agents/skills/notes/SKILL.md');
    assert.ok(fs.existsSync(path.join(ws.home, '.agents', 'skills', 'notes', 'SKILL.md')));
    const shadowing = await ws.ok(...manage({ action: 'create', name: 'shared', content: skillMd('shared') }));
    assert.deepEqual(shadowing['warnings'], ['this skill takes precedence over the skill "shared" in ~/.agents/skills']);
    assert.equal((await ws.ok('skill_view', { name: 'shared' }))['scope'], 'project');
  });

  it('warns when a project skill hides the new user skill, and names similar skills', async () => {
    await ws.ok(...manage({ action: 'create', name: 'both', content: skillMd('both') }));
    const hidden = await ws.ok(...manage({ action: 'create', name: 'both', scope: 'user', content: skillMd('both') }));
    assert.deepEqual(hidden['warnings'], ['the skill "both" in .agents/skills takes precedence over this one, so this one stays hidden until that one is renamed or removed']);
    const description = 'Repairs failing continuous integration pipelines and flaky builds. Use when a CI build is red.';
    await ws.ok(...manage({ action: 'create', name: 'ci-fix', content: skillMd('ci-fix', description) }));
    ws.ctx = { ...ws.ctx, search: new SkillSearch(ws.index.active()) };
    const similar = await ws.ok(...manage({ action: 'create', name: 'ci-repair', content: skillMd('ci-repair', description) }));
    assert.deepEqual(similar['warnings'], ['similar skill "ci-fix" exists; consider improving it with "patch" instead of keeping two']);
  });

  it('says there is no project folder when none is open, and suggests scope user', async () => {
    const bare = await makeWorkspace({ folder: false });
    try {
      assert.match(await bare.refused(...manage({ action: 'create', name: 'x', content: skillMd('x') })), /no folder is open.*scope "user"/);
      await bare.ok(...manage({ action: 'create', name: 'x', scope: 'user', content: skillMd('x') }));
    } finally {
      bare.cleanup();
    }
  });

  it('validates the name, the category and the size before writing', async () => {
    assert.match(await ws.refused(...manage({ action: 'create', name: 'Deploy_App', content: skillMd('deploy-app') })), /invalid skill name "Deploy_App".*"deploy-app"/);
    assert.match(await ws.refused(...manage({ action: 'create', name: 'x'.repeat(65), content: 'x' })), /65 characters/);
    assert.match(await ws.refused(...manage({ action: 'create', name: 'a', category: 'a/b/c/d', content: skillMd('a') })), /at most 3 levels/);
    assert.match(await ws.refused(...manage({ action: 'create', name: 'a', category: '../../etc', content: skillMd('a') })), /"\." and "\.\."/);
    const huge = skillMd('big', undefined, 'x'.repeat(MAX_SKILL_MD_CHARS));
    assert.match(await ws.refused(...manage({ action: 'create', name: 'big', content: huge })), /the limit is 100,000.*references\//);
    assert.ok(!fs.existsSync(ws.root('.agents/skills')), 'nothing may be written');
  });

  it('refuses invalid frontmatter with the lint findings, and writes nothing', async () => {
    const noFront = await ws.refused(...manage({ action: 'create', name: 'a', content: '# Just markdown\n' }));
    assert.match(noFront, /SKILL.md is not valid, so nothing was written/);
    assert.match(noFront, /line 1: SW103/);
    const noDescription = await ws.refused(...manage({ action: 'create', name: 'a', content: '---\nname: a\n---\nBody\n' }));
    assert.match(noDescription, /SW301/);
    const badYaml = await ws.refused(...manage({ action: 'create', name: 'a', content: '---\nname: a\ndescription: [unclosed\n---\n' }));
    assert.match(badYaml, /SW105/);
    assert.match(await ws.refused(...manage({ action: 'create', name: 'a', content: skillMd('b') })), /frontmatter says name: "b", but the skill is "a"/);
    assert.ok(!fs.existsSync(path.join(ws.root('.agents/skills'), 'a')));
  });

  it('refuses a folder that exists without being a skill, and a missing user root', async () => {
    fs.mkdirSync(path.join(ws.root('.agents/skills'), 'tools', 'lint'), { recursive: true });
    assert.match(await ws.refused(...manage({ action: 'create', name: 'lint', category: 'tools', content: skillMd('lint') })), /the folder "tools\/lint" already exists in \.agents\/skills/);
    ws.ctx = { ...ws.ctx, roots: ws.roots.filter((root) => root.scope !== 'user') };
    assert.match(await ws.refused(...manage({ action: 'create', name: 'x', scope: 'user', content: skillMd('x') })), /there is no user skill folder.*scope "project"/);
  });

  it('returns warnings with success', async () => {
    const result = await ws.ok(...manage({ action: 'create', name: 'tiny', content: '---\nname: tiny\ndescription: Does it.\n---\n\nBody\n' }));
    const warnings = result['warnings'] as string[];
    assert.ok(warnings.some((w) => /SW304/.test(w)), warnings.join('\n'));
  });

  it('refuses a name that exists in the same root and points to patch', async () => {
    await ws.ok(...manage({ action: 'create', name: 'dup', category: 'one', content: skillMd('dup') }));
    assert.match(await ws.refused(...manage({ action: 'create', name: 'dup', category: 'two', content: skillMd('dup') })), /already exists in \.agents\/skills \("one\/dup"\); change it with action "patch" or "edit"/);
  });

  it('refuses a category inside another skill, and a category linked outside the root', async () => {
    await ws.ok(...manage({ action: 'create', name: 'host', content: skillMd('host') }));
    assert.match(await ws.refused(...manage({ action: 'create', name: 'inner', category: 'host', content: skillMd('inner') })), /inside the skill folder "host"/);
    const elsewhere = path.join(ws.tmp, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(ws.root('.agents/skills'), 'linked'));
    assert.match(await ws.refused(...manage({ action: 'create', name: 'x', category: 'linked', content: skillMd('x') })), /symbolic link/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  });

  it('refuses arguments that belong to other actions, and missing ones', async () => {
    assert.match(await ws.refused(...manage({ action: 'create', name: 'x' })), /action "create" needs "content"/);
    assert.match(await ws.refused(...manage({ action: 'create', name: 'x', content: skillMd('x'), old_string: 'a' })), /does not take "old_string"/);
    // Empty leftovers from a model that fills every field are ignored.
    await ws.ok(...manage({ action: 'create', name: 'x', content: skillMd('x'), old_string: '', replace_all: false }));
  });
});

describe('skill_manage patch and edit', () => {
  let ws: ToolWorkspace;
  let file: string;
  beforeEach(async () => {
    ws = await makeWorkspace({
      setup: (w) => {
        file = w.write('.agents/skills', 'ops/deploy/SKILL.md', skillMd('deploy', 'Deploys the service. Use when releasing.', '# Steps\n\n- build\n    - run make\n- test\n- test\n'));
        w.write('.agents/skills', 'ops/deploy/references/notes.md', 'Old note.\n');
        w.write('.agents/skills', 'ops/deploy/LICENSE.txt', 'MIT\n');
        w.write('~/.claude/skills', 'theirs/SKILL.md', skillMd('theirs'));
        w.write('.github/skills', 'copilot/SKILL.md', skillMd('copilot'));
      },
    });
  });
  afterEach(() => ws.cleanup());

  it('patches SKILL.md and the index sees the new description', async () => {
    const result = await ws.ok(...manage({ action: 'patch', name: 'deploy', old_string: 'Deploys the service.', new_string: 'Deploys the API service.' }));
    assert.equal(result['replacements'], 1);
    assert.equal(result['match'], 'exact');
    assert.deepEqual(result['lines'], [3]);
    assert.match(read(file), /Deploys the API service\./);
    const listed = await ws.ok('skills_list', { category: 'ops' });
    const groups = listed['categories'] as { skills: { name: string; description: string }[] }[];
    assert.deepEqual(groups[0]?.skills, [{ name: 'deploy', description: 'Deploys the API service. Use when releasing.' }]);
  });

  it('tolerates indentation drift and keeps the file indentation', async () => {
    const result = await ws.ok(...manage({ action: 'patch', name: 'deploy', old_string: '    - run make', new_string: '    - run make all\n    - run make check' }));
    assert.equal(result['match'], 'exact');
    const drift = await ws.ok(...manage({ action: 'patch', name: 'deploy', old_string: '- build\n- run make all', new_string: '- build it\n- run make all' }));
    assert.equal(drift['match'], 'line-trimmed');
    assert.match(read(file), /- build it\n {4}- run make all\n {4}- run make check\n/);
  });

  it('refuses an ambiguous patch unless replace_all, and a missing one with the closest lines', async () => {
    const ambiguous = await ws.refused(...manage({ action: 'patch', name: 'deploy', old_string: '- test', new_string: '- verify' }));
    assert.match(ambiguous, /cannot patch SKILL.md of "deploy": old_string matches 2 places \(lines 10, 11\).*replace_all/);
    const all = await ws.ok(...manage({ action: 'patch', name: 'deploy', old_string: '- test', new_string: '- verify', replace_all: true }));
    assert.equal(all['replacements'], 2);
    const missing = await ws.refused(...manage({ action: 'patch', name: 'deploy', old_string: '- run make al', new_string: 'x' }));
    assert.match(missing, /not found.*line 9: "    - run make"/);
  });

  it('refuses a patch that would break the frontmatter, and keeps the file', async () => {
    const before = read(file);
    const broken = await ws.refused(...manage({ action: 'patch', name: 'deploy', old_string: 'description: Deploys the service. Use when releasing.\n', new_string: '' }));
    assert.match(broken, /not valid, so nothing was written[\s\S]*SW301/);
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'deploy', old_string: 'name: deploy', new_string: 'name: ship' })), /must be equal \(renaming a skill is not supported/);
    assert.equal(read(file), before);
  });

  it('does not block a fix because of errors the skill already had', async () => {
    fs.writeFileSync(file, skillMd('deploy', 'Deploys the service. Use when releasing.').replace('---\n\n', 'level: 7\n---\n\n'));
    await ws.index.invalidate(file);
    const result = await ws.ok(...manage({ action: 'patch', name: 'deploy', old_string: 'Do the thing.', new_string: 'Do the right thing.' }));
    assert.ok((result['warnings'] as string[]).some((w) => /still an error.*SW405/.test(w)));
  });

  it('keeps a byte order mark and CRLF line endings', async () => {
    fs.writeFileSync(file, `\uFEFF${skillMd('deploy').replace(/\n/g, '\r\n')}`);
    await ws.index.invalidate(file);
    await ws.ok(...manage({ action: 'patch', name: 'deploy', old_string: '# Steps\n\n1. Do', new_string: '# Steps\n\n1. Now do' }));
    assert.equal(read(file), `\uFEFF${skillMd('deploy', undefined, '# Steps\n\n1. Now do the thing.\n').replace(/\n/g, '\r\n')}`);
  });

  it('patches a support file, and refuses files outside the support folders', async () => {
    const result = await ws.ok(...manage({ action: 'patch', name: 'deploy', file_path: 'references/notes.md', old_string: 'Old', new_string: 'New' }));
    assert.equal(result['file_path'], 'references/notes.md');
    assert.equal(read(path.join(path.dirname(file), 'references', 'notes.md')), 'New note.\n');
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'deploy', file_path: 'LICENSE.txt', old_string: 'MIT', new_string: 'X' })), /only be added, changed or removed inside the support folders/);
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'deploy', file_path: 'references/none.md', old_string: 'a', new_string: 'b' })), /no file "references\/none.md"; create it with action "write_file"/);
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'deploy', file_path: '../deploy/SKILL.md', old_string: 'a', new_string: 'b' })), /contains "\.\."/);
  });

  it('refuses to patch binary or oversized support files, or to grow one past 1 MiB', async () => {
    const refs = path.join(path.dirname(file), 'references');
    fs.writeFileSync(path.join(refs, 'data.bin'), new Uint8Array([1, 0, 2]));
    fs.writeFileSync(path.join(refs, 'huge.txt'), 'x'.repeat(MAX_SUPPORT_FILE_BYTES + 1));
    fs.writeFileSync(path.join(refs, 'full.txt'), `${'x'.repeat(MAX_SUPPORT_FILE_BYTES - 2)}ab`);
    const patch = (file_path: string, old_string: string, new_string: string): Promise<string> =>
      ws.refused(...manage({ action: 'patch', name: 'deploy', file_path, old_string, new_string }));
    assert.match(await patch('references/data.bin', 'a', 'b'), /"references\/data.bin" is not UTF-8 text; binary files cannot be patched/);
    assert.match(await patch('references/huge.txt', 'x', 'y'), /is 1,048,577 bytes, over the 1,048,576 byte limit/);
    assert.match(await patch('references/full.txt', 'ab', 'abc'), /would be 1,048,577 bytes; support files are limited to 1,048,576 bytes/);
  });

  it('refuses to patch a SKILL.md that turned binary or vanished behind the index', async () => {
    fs.writeFileSync(file, new Uint8Array([0x2d, 0, 0x2d]));
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'deploy', old_string: 'a', new_string: 'b' })), /SKILL.md of "deploy" is binary; replace it with action "edit"/);
    assert.match(await ws.refused('skill_view', { name: 'deploy' }), /SKILL.md of "deploy" is a binary file and cannot be shown/);
    fs.rmSync(file);
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'deploy', old_string: 'a', new_string: 'b' })), /SKILL.md of "deploy" is gone/);
    assert.match(await ws.refused('skill_view', { name: 'deploy' }), /SKILL.md of "deploy" is gone/);
  });

  it('edits the whole SKILL.md with the same validation', async () => {
    const content = skillMd('deploy', 'Deploys everything. Use when releasing anything.', '# New body\n');
    const result = await ws.ok(...manage({ action: 'edit', name: 'deploy', content }));
    assert.equal(result['file_path'], 'SKILL.md');
    assert.equal(read(file), content);
    const unchanged = await ws.ok(...manage({ action: 'edit', name: 'deploy', content }));
    assert.equal(unchanged['changed'], false);
    assert.match(await ws.refused(...manage({ action: 'edit', name: 'deploy', content: 'no frontmatter' })), /SW103/);
    assert.match(await ws.refused(...manage({ action: 'edit', name: 'deploy', content: skillMd('deploy', undefined, 'y'.repeat(MAX_SKILL_MD_CHARS)) })), /limit is 100,000/);
    assert.equal(read(file), content);
  });

  it('refuses to change skills in folders Skillwright only reads', async () => {
    assert.match(await ws.refused(...manage({ action: 'edit', name: 'theirs', content: skillMd('theirs') })), /~\/\.claude\/skills, another tool's skill folder, which Skillwright only reads.*action "create"/);
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'copilot', old_string: 'thing', new_string: 'x' })), /\.github\/skills, which Skillwright only reads/);
  });

  it('suggests names for an unknown skill', async () => {
    assert.match(await ws.refused(...manage({ action: 'patch', name: 'deplyo', old_string: 'a', new_string: 'b' })), /no skill named "deplyo"; did you mean "deploy"/);
  });
});

describe('skill_manage delete', () => {
  let ws: ToolWorkspace;
  beforeEach(async () => {
    ws = await makeWorkspace({
      setup: (w) => {
        w.write('.agents/skills', 'ops/ci-fix/SKILL.md', skillMd('ci-fix', 'Project copy. Use when CI fails.'));
        w.write('.agents/skills', 'ops/ci-fix/scripts/run.sh', 'echo hi\n');
        w.write('~/.agents/skills', 'ci-fix/SKILL.md', skillMd('ci-fix', 'User copy. Use when CI fails at home.'));
        w.write('~/.claude/skills', 'theirs/SKILL.md', skillMd('theirs'));
        w.write('.claude/skills', 'project-claude/SKILL.md', skillMd('project-claude'));
      },
    });
  });
  afterEach(() => ws.cleanup());

  it('removes the skill folder, reports what was deleted, and the shadowed copy takes over', async () => {
    const result = await ws.ok(...manage({ action: 'delete', name: 'ci-fix' }));
    assert.equal(result['deleted_folder'], '.agents/skills/ops/ci-fix');
    assert.deepEqual(result['files'], ['SKILL.md', 'scripts/run.sh']);
    assert.ok(!fs.existsSync(path.join(ws.root('.agents/skills'), 'ops')), 'the emptied category folder is removed too');
    assert.ok(fs.existsSync(ws.root('.agents/skills')), 'the root stays');
    const viewed = await ws.ok('skill_view', { name: 'ci-fix' });
    assert.equal(viewed['scope'], 'user');
  });

  it('refuses skills outside the writable roots, with the reason', async () => {
    assert.match(await ws.refused(...manage({ action: 'delete', name: 'theirs' })), /cannot delete "theirs": it lives in ~\/\.claude\/skills, another tool's skill folder/);
    assert.match(await ws.refused(...manage({ action: 'delete', name: 'project-claude' })), /cannot delete "project-claude": it lives in \.claude\/skills, which Skillwright only reads/);
    assert.ok(fs.existsSync(path.join(ws.home, '.claude', 'skills', 'theirs', 'SKILL.md')));
  });

  it('refuses a skill folder that is a link to somewhere else, and leaves the target alone', async () => {
    const outside = path.join(ws.tmp, 'outside-skill');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'SKILL.md'), skillMd('linked'));
    fs.symlinkSync(outside, path.join(ws.root('.agents/skills'), 'linked'));
    await ws.index.invalidate(path.join(ws.root('.agents/skills'), 'linked'));
    assert.match(await ws.refused(...manage({ action: 'delete', name: 'linked' })), /not inside \.agents\/skills/);
    assert.ok(fs.existsSync(path.join(outside, 'SKILL.md')));
  });

  it('refuses a skill folder that holds other skills', async () => {
    ws.write('.agents/skills', 'outer/SKILL.md', skillMd('outer'));
    ws.write('.agents/skills', 'outer/inner/SKILL.md', skillMd('inner'));
    await ws.index.invalidate(path.join(ws.root('.agents/skills'), 'outer'));
    assert.match(await ws.refused(...manage({ action: 'delete', name: 'outer' })), /holds other skills \("inner"\)/);
  });
});

describe('skill_manage write_file and remove_file', () => {
  let ws: ToolWorkspace;
  let dir: string;
  beforeEach(async () => {
    ws = await makeWorkspace({
      setup: (w) => {
        dir = path.dirname(w.write('.agents/skills', 'tool/SKILL.md', skillMd('tool', undefined, 'Read [api](references/api.md).\n')));
        w.write('~/.claude/skills', 'theirs/SKILL.md', skillMd('theirs'));
      },
    });
  });
  afterEach(() => ws.cleanup());

  it('writes files under the support folders, creating folders, and reports unlinked files', async () => {
    const created = await ws.ok(...manage({ action: 'write_file', name: 'tool', file_path: 'references/api.md', content: '# API\n' }));
    assert.equal(created['created'], true);
    assert.equal(created['bytes'], 6);
    assert.equal(created['note'], undefined);
    assert.equal(read(path.join(dir, 'references', 'api.md')), '# API\n');
    const replaced = await ws.ok(...manage({ action: 'write_file', name: 'tool', file_path: 'references/api.md', content: '# API v2\n' }));
    assert.equal(replaced['created'], false);
    const nested = await ws.ok(...manage({ action: 'write_file', name: 'tool', file_path: 'templates/deep/t.txt', content: 'T' }));
    assert.match(nested['note'] as string, /does not mention "templates\/deep\/t.txt"/);
    const listed = await ws.ok('skill_view', { name: 'tool' });
    assert.deepEqual(Object.keys(listed['linked_files'] as object).sort(), ['references', 'templates']);
  });

  it('refuses paths outside the support folders and every escape', async () => {
    const write = (file_path: string): Promise<string> => ws.refused(...manage({ action: 'write_file', name: 'tool', file_path, content: 'x' }));
    assert.match(await write('notes.md'), /inside the support folders references\/, templates\/, scripts\/, assets\//);
    assert.match(await write('SKILL.md'), /changed with action "edit" or "patch"/);
    assert.match(await write('scripts'), /"scripts" is a folder/);
    assert.match(await write('references/../../x.md'), /contains "\.\."/);
    assert.match(await write(path.join(ws.tmp, 'x.md')), /absolute/);
    assert.match(await write('references\\x.md'), /backslash/);
    const outside = path.join(ws.tmp, 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(dir, 'assets'));
    assert.match(await write('assets/x.txt'), /outside the skill folder through a symbolic link/);
    assert.deepEqual(fs.readdirSync(outside), []);
  });

  it('limits support files to 1 MiB, counted in bytes', async () => {
    const limit = MAX_SUPPORT_FILE_BYTES;
    await ws.ok(...manage({ action: 'write_file', name: 'tool', file_path: 'assets/max.txt', content: 'x'.repeat(limit) }));
    const over = await ws.refused(...manage({ action: 'write_file', name: 'tool', file_path: 'assets/big.txt', content: 'é'.repeat(limit / 2 + 1) }));
    assert.match(over, /would be 1,048,578 bytes; support files are limited to 1,048,576 bytes/);
    assert.ok(!fs.existsSync(path.join(dir, 'assets', 'big.txt')));
  });

  it('refuses to write over a folder, and to write into skills it only reads', async () => {
    fs.mkdirSync(path.join(dir, 'references', 'sub'), { recursive: true });
    assert.match(await ws.refused(...manage({ action: 'write_file', name: 'tool', file_path: 'references/sub', content: 'x' })), /"references\/sub" is a folder/);
    assert.match(await ws.refused(...manage({ action: 'write_file', name: 'theirs', file_path: 'references/a.md', content: 'x' })), /cannot write files of "theirs"/);
  });

  it('removes a support file, prunes emptied folders, and says when SKILL.md still links it', async () => {
    await ws.ok(...manage({ action: 'write_file', name: 'tool', file_path: 'references/api.md', content: '# API\n' }));
    const removed = await ws.ok(...manage({ action: 'remove_file', name: 'tool', file_path: 'references/api.md' }));
    assert.match(removed['note'] as string, /SKILL.md still mentions "references\/api.md"/);
    assert.ok(!fs.existsSync(path.join(dir, 'references')));
    assert.ok(fs.existsSync(path.join(dir, 'SKILL.md')));
  });

  it('refuses to remove missing files, SKILL.md, folders and paths outside the skill', async () => {
    const remove = (file_path: string): Promise<string> => ws.refused(...manage({ action: 'remove_file', name: 'tool', file_path }));
    assert.match(await remove('references/none.md'), /has no file "references\/none.md"; nothing was removed/);
    assert.match(await remove('SKILL.md'), /SKILL.md is changed with action "edit" or "patch"/);
    assert.match(await remove('../tool/SKILL.md'), /contains "\.\."/);
    fs.mkdirSync(path.join(dir, 'scripts', 'sub'), { recursive: true });
    assert.match(await remove('scripts/sub'), /is a folder/);
    const secret = path.join(ws.tmp, 'secret.txt');
    fs.writeFileSync(secret, 's');
    fs.symlinkSync(secret, path.join(dir, 'scripts', 'leak.sh'));
    assert.match(await remove('scripts/leak.sh'), /symbolic link/);
    assert.ok(fs.existsSync(secret));
  });
});
