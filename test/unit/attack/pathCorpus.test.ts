import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { skillRootCandidates } from '../../../src/core/base/skillRoots';
import { NodeFileLock } from '../../../src/core/memory/memoryLock';
import { MemoryStore } from '../../../src/core/memory/memoryStore';
import type { LockEntry } from '../../../src/core/sharing/skillsLock';
import { LOCK_FILE, computeSkillFolderHash, lockedSkillDir, readLock, verifyLock } from '../../../src/core/sharing/skillsLock';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import type { SkillToolContext } from '../../../src/core/skills/tools/skillToolContext';
import { runSkillTool } from '../../../src/core/skills/tools/skillTools';
import type { ToolResult } from '../../../src/core/toolkit/toolResult';
import { NodeProcessPort } from '../../../src/core/tools/processPort';
import { RipgrepSearch } from '../../../src/core/tools/ripgrepSearch';
import { WorkspaceTools } from '../../../src/core/tools/workspaceTools';
import { findRipgrep } from '../tools/searchFixtures';
import type { PathAttack, Sandbox } from './pathFixtures';
import { makeSandbox, pathCorpus, plantLinks } from './pathFixtures';

const nodeFs = new NodeFileSystem();

/** A refusal the model can act on: says what is wrong, is not a crash report, and names no outside content. */
function assertClearRefusal(result: ToolResult, sandbox: Sandbox, context: string): string {
  assert.equal(result.success, false, `${context}: should have been refused: ${JSON.stringify(result).slice(0, 300)}`);
  const error = (result as { error: string }).error;
  assert.ok(error.length >= 20, `${context}: the refusal says too little: ${error}`);
  assert.doesNotMatch(error, /failed unexpectedly|ENAMETOOLONG|ELOOP|ENOENT|EACCES|at .*\.js:\d+/, `${context}: the refusal is an internal error, not a clear message: ${error}`);
  sandbox.assertNoLeak(result, context);
  return error;
}

/** Every outcome: nothing outside touched, no outside content; escapes refused clearly, contained paths either fine or refused clearly. */
function judge(result: ToolResult, attack: PathAttack, sandbox: Sandbox, tool: string): void {
  const context = `${tool} with ${attack.label} (${JSON.stringify(attack.path.slice(0, 80))})`;
  sandbox.assertNoLeak(result, context);
  sandbox.assertOutsideUntouched(context);
  if (attack.expect === 'escape' || !result.success) assertClearRefusal(result, sandbox, context);
}

describe('path corpus: workspace tools', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let tools: WorkspaceTools;
  let ripgrepTools: WorkspaceTools | undefined;

  beforeEach(() => {
    sandbox = makeSandbox('app', ({ root, outside }) => {
      fs.writeFileSync(path.join(root, 'inside.txt'), 'top secret but inside\n');
      fs.mkdirSync(path.join(root, 'sub'));
      fs.writeFileSync(path.join(root, 'sub', 'keep.md'), 'keep\n');
      plantLinks(root, outside, path.join(outside, 'secret.txt'));
    });
    const folders = [{ name: 'app', fsPath: sandbox.root }];
    const process = new NodeProcessPort({ killGraceMs: 500 });
    tools = new WorkspaceTools({ fs: nodeFs, folders, process });
    let rg: string | undefined;
    try {
      rg = findRipgrep();
    } catch {
      rg = undefined;
    }
    ripgrepTools = rg ? new WorkspaceTools({ fs: nodeFs, folders, process, textSearch: new RipgrepSearch(rg, process) }) : undefined;
  });
  afterEach(() => sandbox.cleanup());

  it('refuses every escaping path in every tool, and keeps the contained ones inside', async () => {
    const corpus = pathCorpus({ outside: sandbox.outside, depth: 1 });
    let calls = 0;
    for (const attack of corpus) {
      const calls0 = calls;
      const run = async (tool: string, args: Record<string, unknown>, on = tools): Promise<void> => {
        calls++;
        judge(await on.run(tool, args), attack, sandbox, tool);
      };
      await run('read_file', { path: attack.path });
      await run('list_files', { path: attack.path, depth: 3 });
      await run('find_files', { glob: '**', path: attack.path });
      // The outside file holds "top secret <canary>" and inside.txt "top secret but inside".
      await run('search_text', { query: 'top secret', path: attack.path });
      if (ripgrepTools) await run('search_text', { query: 'top secret', path: attack.path }, ripgrepTools);
      await run('run_command', { command: 'cat secret.txt deep.md nested/deep.md 2>/dev/null; pwd', cwd: attack.path });
      // The approval card reads the current text for its diff: it must not show outside content either.
      const preview = await tools.preview('write_file', { path: attack.path, content: 'attack\n' });
      sandbox.assertNoLeak(preview, `write_file preview with ${attack.label}`);
      if (attack.expect === 'escape') assert.equal(preview?.ok, false, `write_file preview with ${attack.label} should say it will be refused`);
      await run('write_file', { path: attack.path, content: 'attack\n' });
      await run('edit_file', { path: attack.path, old_string: 'top secret', new_string: 'pwned' });
      assert.ok(calls > calls0);
    }
    assert.ok(calls >= corpus.length * 7, `only ${calls} calls were made`);
  });

  it('never follows links out while walking or searching the whole workspace', async () => {
    for (const on of [tools, ripgrepTools].filter((t): t is WorkspaceTools => t !== undefined)) {
      const listed = await on.run('list_files', { depth: 10 });
      assert.ok(listed.success);
      const entries = listed['entries'] as string[];
      assert.ok(entries.includes('out-dir@') && !entries.some((entry) => entry.startsWith('out-dir/')), `a folder link was entered: ${entries.join(', ')}`);
      sandbox.assertNoLeak(listed, 'list_files of the workspace');
      const found = await on.run('find_files', { glob: '**/*' });
      assert.ok(found.success);
      assert.ok(!(found['files'] as string[]).some((file) => file.includes('secret') || file.includes('deep.md')), `find_files went through a link: ${JSON.stringify(found['files'])}`);
      // "top secret" is in the outside files and once inside: only the inside line may come back.
      const searched = await on.run('search_text', { query: 'top secret' });
      assert.ok(searched.success, JSON.stringify(searched));
      assert.equal(searched['count'], 1, `search_text (${String(searched['engine'])}) read through a link: ${JSON.stringify(searched).slice(0, 300)}`);
      sandbox.assertNoLeak(searched, 'search_text of the workspace');
    }
    sandbox.assertOutsideUntouched('walks of the workspace');
  });

  it('writes a file whose name is long but within the 255-byte limit', async () => {
    // The atomic write's temp file must fit the same limit as the name it stands in for.
    for (const name of ['a'.repeat(255), `${'é'.repeat(126)}.m`]) {
      const written = await tools.run('write_file', { path: name, content: 'long\n' });
      assert.ok(written.success, JSON.stringify(written).slice(0, 300));
      assert.equal(fs.readFileSync(path.join(sandbox.root, name), 'utf8'), 'long\n');
      const edited = await tools.run('edit_file', { path: name, old_string: 'long', new_string: 'longer' });
      assert.ok(edited.success, JSON.stringify(edited).slice(0, 300));
    }
    assert.deepEqual(fs.readdirSync(sandbox.root).filter((name) => name.endsWith('.tmp')), []);
    sandbox.assertOutsideUntouched('long names');
  });

  it('keeps a link inside the workspace usable', async () => {
    fs.symlinkSync('inside.txt', path.join(sandbox.root, 'in-link'));
    const read = await tools.run('read_file', { path: 'in-link' });
    assert.ok(read.success, JSON.stringify(read));
    assert.match(String(read['content']), /inside/);
  });
});

describe('path corpus: skill tools', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let ctx: SkillToolContext;
  const skillText = '---\nname: demo\ndescription: Demonstrates the attack corpus. Use when testing paths.\n---\n\n# Steps\n\nSee [ok](references/ok.md).\n';

  beforeEach(async () => {
    // The root is the skill folder; the project and its .agents/skills sit above it, watched like the outside.
    sandbox = makeSandbox('app/.agents/skills/demo', ({ root, outside, tmp }) => {
      fs.writeFileSync(path.join(root, 'SKILL.md'), skillText);
      fs.mkdirSync(path.join(root, 'references', 'sub'), { recursive: true });
      fs.writeFileSync(path.join(root, 'references', 'ok.md'), 'top secret but inside\n');
      plantLinks(path.join(root, 'references'), outside, path.join(outside, 'secret.txt'));
      fs.mkdirSync(path.join(tmp, 'home'));
    });
    const project = path.dirname(path.dirname(path.dirname(sandbox.root)));
    const home = path.join(sandbox.tmp, 'home');
    const roots = skillRootCandidates([{ name: 'app', fsPath: project }], home);
    const index = new SkillIndex({ fs: nodeFs, roots });
    await index.load();
    ctx = { fs: nodeFs, index };
  });
  afterEach(() => sandbox.cleanup());

  it('skill_view and skill_manage file actions refuse every escaping file_path', async () => {
    // Four folders deep (references/ → demo → skills → .agents → app) to reach tmp/outside.
    const corpus = pathCorpus({ outside: sandbox.outside, depth: 4, prefix: 'references/' });
    for (const attack of corpus) {
      const run = async (tool: string, args: Record<string, unknown>): Promise<void> => {
        judge(await runSkillTool(tool, args, ctx), attack, sandbox, `${tool} ${typeof args['action'] === 'string' ? args['action'] : ''}`.trim());
      };
      await run('skill_view', { name: 'demo', file_path: attack.path });
      await run('skill_manage', { action: 'write_file', name: 'demo', file_path: attack.path, content: 'attack\n' });
      await run('skill_manage', { action: 'patch', name: 'demo', file_path: attack.path, old_string: 'top secret', new_string: 'pwned' });
      await run('skill_manage', { action: 'remove_file', name: 'demo', file_path: attack.path });
    }
    // The skill itself is intact.
    assert.equal(fs.readFileSync(path.join(sandbox.root, 'SKILL.md'), 'utf8'), skillText);
  });

  it('skill_view lists no file behind a link that leads out', async () => {
    const viewed = await runSkillTool('skill_view', { name: 'demo' }, ctx);
    assert.ok(viewed.success, JSON.stringify(viewed));
    const listed = JSON.stringify(viewed['linked_files']);
    assert.match(listed, /references\/ok\.md/);
    assert.doesNotMatch(listed, /out-|secret|deep\.md|loop/);
    sandbox.assertNoLeak(viewed, 'skill_view');
  });

  it('skill_manage create refuses names and categories that leave the skill folder', async () => {
    const content = (name: string): string => `---\nname: ${name}\ndescription: A skill made by the corpus. Use when testing.\n---\n\n# Steps\n\n1. x\n`;
    const names = ['../x', '..', '.', 'a/b', '/abs', 'C:\\x', 'x\u0000y', 'CON', `${'a'.repeat(300)}`, '%2e%2e%2fx', 'x\\..\\..\\y'];
    const categories = ['../..', '../../../outside', 'a/../../..', 'C:\\x', 'C:x', '\\\\server\\share', '%2e%2e', 'a\u0000b', 'a/b/c/d', 'con.'];
    // Leading slashes and outer spaces are trimmed: these land inside .agents/skills.
    const normalised = ['/abs', ' spaced '];
    let refused = 0;
    const skills = path.dirname(sandbox.root);
    const before = fs.readdirSync(skills).sort();
    for (const name of names) {
      const result = await runSkillTool('skill_manage', { action: 'create', name, content: content(name) }, ctx);
      assertClearRefusal(result, sandbox, `create name ${JSON.stringify(name)}`);
      refused++;
    }
    for (const category of categories) {
      const result = await runSkillTool('skill_manage', { action: 'create', name: 'fine', category, content: content('fine') }, ctx);
      assertClearRefusal(result, sandbox, `create category ${JSON.stringify(category)}`);
      refused++;
    }
    assert.deepEqual(fs.readdirSync(skills).sort(), before, 'create left something in .agents/skills');
    sandbox.assertOutsideUntouched('skill_manage create');
    assert.equal(refused, names.length + categories.length);
    for (const [i, category] of normalised.entries()) {
      const name = `fine-${i}`;
      const result = await runSkillTool('skill_manage', { action: 'create', name, category, content: content(name) }, ctx);
      assert.ok(result.success, JSON.stringify(result));
      const folder = path.join(skills, category.trim().replace(/^\/+/, ''));
      assert.ok(fs.existsSync(path.join(folder, name, 'SKILL.md')), `${String(result['path'])} is not inside .agents/skills`);
      fs.rmSync(folder, { recursive: true });
    }
    sandbox.assertOutsideUntouched('skill_manage create with trimmed categories');
  });

  it('skill_manage create does not write through a category folder that links out', async () => {
    const skills = path.dirname(sandbox.root);
    fs.symlinkSync(sandbox.outside, path.join(skills, 'linked'), 'dir');
    const content = '---\nname: fine\ndescription: A skill made by the corpus. Use when testing.\n---\n\n# Steps\n\n1. x\n';
    const result = await runSkillTool('skill_manage', { action: 'create', name: 'fine', category: 'linked', content }, ctx);
    assertClearRefusal(result, sandbox, 'create in a linked category');
    fs.unlinkSync(path.join(skills, 'linked'));
    sandbox.assertOutsideUntouched('create in a linked category');
  });
});

describe('path corpus: project memory', function () {
  let sandbox: Sandbox;
  const project = (): string => sandbox.root;
  const store = (): MemoryStore => new MemoryStore({ fs: nodeFs, lock: new NodeFileLock({ waitMs: 500 }), projectRoot: project(), userHome: path.join(sandbox.tmp, 'home') });
  const add = [{ action: 'add' as const, target: 'memory' as const, content: 'The build runs with npm run build.' }];
  afterEach(() => sandbox.cleanup());

  const cases: { label: string; plant: (root: string, outside: string) => void }[] = [
    { label: '.agents linked out', plant: (root, outside) => fs.symlinkSync(outside, path.join(root, '.agents'), 'dir') },
    { label: '.agents/memory linked out', plant: (root, outside) => {
      fs.mkdirSync(path.join(root, '.agents'));
      fs.symlinkSync(outside, path.join(root, '.agents', 'memory'), 'dir');
    } },
    { label: 'MEMORY.md linked to an outside file', plant: (root, outside) => {
      fs.mkdirSync(path.join(root, '.agents', 'memory'), { recursive: true });
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, '.agents', 'memory', 'MEMORY.md'));
    } },
    { label: 'MEMORY.md a dangling link', plant: (root, outside) => {
      fs.mkdirSync(path.join(root, '.agents', 'memory'), { recursive: true });
      fs.symlinkSync(path.join(outside, 'gone.md'), path.join(root, '.agents', 'memory', 'MEMORY.md'));
    } },
  ];
  for (const { label, plant } of cases) {
    it(`neither reads nor writes through ${label}`, async () => {
      sandbox = makeSandbox('project', ({ root, outside, tmp }) => {
        plant(root, outside);
        fs.mkdirSync(path.join(tmp, 'home'));
        // An outside MEMORY.md the link would reach.
        fs.writeFileSync(path.join(outside, 'MEMORY.md'), 'outside entry\n');
      });
      fs.writeFileSync(path.join(sandbox.outside, 'memory.md'), `${sandbox.canary}\n`);
      const memory = store();
      const applied = await memory.apply(add);
      assert.equal(applied.ok, false, JSON.stringify(applied));
      assert.match((applied as { error: string }).error, /symbolic link that leads out of the project/);
      const read = await memory.read('memory');
      assert.equal(read && 'ok' in read ? read.ok : true, false, JSON.stringify(read));
      const snapshot = await memory.takeMemorySnapshot();
      sandbox.assertNoLeak(snapshot, `memory snapshot with ${label}`);
      sandbox.assertNoLeak(read, `memory read with ${label}`);
      fs.rmSync(path.join(sandbox.outside, 'memory.md'));
      sandbox.assertOutsideUntouched(`memory write with ${label}`);
    });
  }

  it('still reads and writes project memory through a link that stays inside', async () => {
    sandbox = makeSandbox('project', ({ root, tmp }) => {
      fs.mkdirSync(path.join(root, 'notes'));
      fs.mkdirSync(path.join(root, '.agents'));
      fs.symlinkSync(path.join(root, 'notes'), path.join(root, '.agents', 'memory'), 'dir');
      fs.mkdirSync(path.join(tmp, 'home'));
    });
    const applied = await store().apply(add);
    assert.ok(applied.ok, JSON.stringify(applied));
    assert.match(fs.readFileSync(path.join(sandbox.root, 'notes', 'MEMORY.md'), 'utf8'), /npm run build/);
  });
});

describe('path corpus: skills-lock.json entry names', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox('project', ({ root, outside }) => {
      fs.mkdirSync(path.join(root, '.agents', 'skills', 'good'), { recursive: true });
      fs.writeFileSync(path.join(root, '.agents', 'skills', 'good', 'SKILL.md'), '---\nname: good\ndescription: Good.\n---\n');
      // An outside folder that looks like a skill: reading it would give a hash.
      fs.mkdirSync(path.join(outside, 'x'));
      fs.writeFileSync(path.join(outside, 'x', 'SKILL.md'), '---\nname: x\ndescription: x\n---\n');
    });
  });
  afterEach(() => sandbox.cleanup());

  const hostile = (outside: string): string[] => [
    '../x', '../../../outside/x', '../../../../outside', path.join(outside, 'x'), 'a/b', 'a\\b', '..\\..\\x', 'C:x', 'C:\\x', '\\\\server\\share', '..', '.', '', 'x\u0000y',
  ];

  it('verifyLock reports hostile names as invalid and reads nothing for them', async () => {
    const good = await computeSkillFolderHash(nodeFs, path.join(sandbox.root, '.agents', 'skills', 'good'));
    const names = hostile(sandbox.outside);
    const skills: Record<string, LockEntry> = { good: { source: 'local', sourceType: 'local', computedHash: good } };
    for (const name of names) skills[name] = { source: 'x', sourceType: 'local', computedHash: 'f'.repeat(64) };
    const statuses = await verifyLock(nodeFs, sandbox.root, { version: 1, skills });
    assert.equal(statuses.length, names.length + 1);
    for (const status of statuses) {
      if (status.name === 'good') {
        assert.equal(status.status, 'ok');
        continue;
      }
      assert.equal(status.status, 'invalid', `${JSON.stringify(status.name)}: ${JSON.stringify(status)}`);
      assert.equal(status.actual, undefined);
      assert.match(status.problem ?? '', /skills-lock\.json: the entry .* is not checked: .*; fix its name/);
      assert.throws(() => lockedSkillDir(sandbox.root, status.name), /cannot be a folder of \.agents\/skills/);
    }
    sandbox.assertOutsideUntouched('verifyLock');
  });

  it('readLock drops hostile names with a problem each, and keeps the good entry', async () => {
    const names = hostile(sandbox.outside);
    const skills: Record<string, unknown> = { good: { source: 'local', sourceType: 'local', computedHash: 'a'.repeat(64) } };
    for (const name of names) skills[name] = { source: 'x', sourceType: 'local', computedHash: 'f'.repeat(64) };
    fs.writeFileSync(path.join(sandbox.root, LOCK_FILE), JSON.stringify({ version: 1, skills }));
    const read = await readLock(nodeFs, sandbox.root);
    assert.deepEqual(Object.keys(read.lock.skills), ['good']);
    assert.equal(read.problems.length, new Set(names).size, read.problems.join('\n'));
    sandbox.assertOutsideUntouched('readLock');
  });
});
