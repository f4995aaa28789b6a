import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { until } from '../harness/until';
import { publishFigure } from './index';

const EXTENSION_ID = 'skillwright.skillwright';
const DISABLED = 'skills.disabled';

function folderOf(name: string): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  assert.ok(folder, `workspace folder ${name} is missing`);
  return folder;
}

function openTabs(): string[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).flatMap((tab) => (tab.input instanceof vscode.TabInputText ? [tab.input.uri.fsPath] : []));
}

describe('skill browser actions in a real VS Code', () => {
  let api: SkillwrightApi;
  let skillsRoot: string;
  let disabledBefore: { workspace?: string[]; global?: string[] };
  const created: string[] = [];
  const list = () => api.skillsBrowser.list();
  const row = (name: string) => list().skills.find((item) => item.name === name && item.shadowedBy === undefined);
  const actions = () => api.skillsBrowser.actions;

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    skillsRoot = path.join(folderOf('sample').uri.fsPath, '.agents', 'skills');
    const inspected = vscode.workspace.getConfiguration('skillwright').inspect<string[]>(DISABLED);
    disabledBefore = { ...(inspected?.workspaceValue ? { workspace: inspected.workspaceValue } : {}), ...(inspected?.globalValue ? { global: inspected.globalValue } : {}) };
  });

  after(async () => {
    for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
    const config = vscode.workspace.getConfiguration('skillwright');
    await config.update(DISABLED, disabledBefore.workspace, vscode.ConfigurationTarget.Workspace);
    await config.update(DISABLED, disabledBefore.global, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('lists every copy of every skill with scope, lint, catalog state and the copy that wins', async () => {
    const changelog = await until('both copies of write-changelog-entry', () => {
      const copies = list().skills.filter((item) => item.name === 'write-changelog-entry');
      return copies.length === 2 && copies;
    });
    const winner = changelog.find((item) => !item.shadowedBy);
    const loser = changelog.find((item) => item.shadowedBy);
    assert.equal(winner?.scope, 'project');
    assert.equal(winner?.category, 'docs');
    assert.equal(winner?.inCatalog, 'full');
    assert.equal(loser?.scope, 'other');
    assert.equal(loser?.shadowedBy, winner?.file);
    assert.equal(loser?.inCatalog, undefined);
    assert.equal(row('prepare-release')?.level, 1);
    assert.equal(row('count-files')?.version, '0.1.0');
    const catalog = list().catalog;
    assert.equal(catalog?.budget, 3000);
    assert.ok((catalog?.included ?? 0) >= 3);
    assert.equal(list().trusted, true);
  });

  it('creates a skill from a template through the command with scripted answers, listed and opened at once', async () => {
    const started = Date.now();
    const file = await vscode.commands.executeCommand<string | undefined>('skillwright.newSkillFromTemplate', {
      template: 'script',
      scope: 'project',
      folder: 'sample',
      category: 'tools',
      name: 'browser-made',
      description: 'Counts things for the browser test. Use when testing the skill browser.',
    });
    publishFigure('skills browser: new skill from template (ms)', Date.now() - started);
    const dir = path.join(skillsRoot, 'tools', 'browser-made');
    created.push(dir);
    assert.equal(file, path.join(dir, 'SKILL.md'));
    assert.ok(fs.existsSync(path.join(dir, 'scripts', 'run.py')), 'the template\'s script came along');
    assert.match(fs.readFileSync(file, 'utf8'), /^---\nname: browser-made\ndescription: "Counts things for the browser test\. Use when testing the skill browser\."\n/);
    // No watcher round trip: the index was told about the new folder before the command returned.
    assert.equal(row('browser-made')?.category, 'tools');
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file);
  });

  it('creates a workflow skill without opening it when asked, chaining the skills it was given', async () => {
    const before = vscode.window.activeTextEditor?.document.uri.fsPath;
    const started = Date.now();
    const file = await actions().newFromTemplate({
      template: 'workflow',
      scope: 'project',
      category: '',
      name: 'browser-flow',
      description: 'Counts files, then writes the changelog. Use when testing workflows.',
      skills: ['count-files', 'write-changelog-entry'],
      open: false,
    });
    publishFigure('skills browser: new skill without opening it (ms)', Date.now() - started);
    assert.ok(file);
    created.push(path.dirname(file));
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, before, 'no editor was opened');
    assert.match(fs.readFileSync(file, 'utf8'), /skill: count-files\n[\s\S]*skill: write-changelog-entry\n/);
    assert.equal(row('browser-flow')?.level, 1);
  });

  it('refuses invalid and taken names and bad answers with messages that say what to do', async () => {
    const make = (extra: Record<string, unknown>) =>
      actions().newFromTemplate({ template: 'instructions', scope: 'project', category: '', description: '', open: false, name: 'fine-name', ...extra });
    await assert.rejects(make({ name: 'Bad Name' }), /Invalid skill name "Bad Name".*e\.g\. "bad-name"/);
    await assert.rejects(make({ name: 'count-files' }), /A skill named "count-files" already exists \((sample\/)?\.agents\/skills\/ops\/count-files\); choose another name/);
    await assert.rejects(make({ template: 'poem' }), /There is no template "poem"; use one of instructions, script, workflow/);
    await assert.rejects(make({ category: '../out' }), /invalid category/);
    await assert.rejects(make({ category: 'ops/count-files' }), /is a skill; a skill cannot be created inside another one/);
    assert.equal(fs.existsSync(path.join(skillsRoot, 'fine-name')), false);
  });

  it('duplicates a skill with its support files under a new name', async () => {
    const source = row('count-files');
    assert.ok(source);
    const file = await actions().duplicate(source.file, { name: 'count-files-copy' });
    const dir = path.join(skillsRoot, 'ops', 'count-files-copy');
    created.push(dir);
    assert.equal(file, path.join(dir, 'SKILL.md'));
    assert.ok(fs.existsSync(path.join(dir, 'scripts', 'run.py')));
    const text = fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8');
    assert.match(text, /^name: count-files-copy$/m);
    assert.equal(text.replace('name: count-files-copy', 'name: count-files'), fs.readFileSync(source.file, 'utf8'), 'only the name changed');
    assert.ok(row('count-files-copy'));
    assert.ok(row('count-files'), 'the original stays');
  });

  it('renames folder and name together, and the open editor follows the file', async () => {
    const copy = row('count-files-copy');
    assert.ok(copy);
    await vscode.window.showTextDocument(vscode.Uri.file(copy.file));
    const file = await actions().rename(copy.file, { name: 'count-entries' });
    const dir = path.join(skillsRoot, 'ops', 'count-entries');
    created.push(dir);
    assert.equal(file, path.join(dir, 'SKILL.md'));
    assert.equal(fs.existsSync(path.dirname(copy.file)), false, 'the old folder is gone');
    assert.match(fs.readFileSync(file as string, 'utf8'), /^name: count-entries$/m);
    assert.ok(fs.existsSync(path.join(dir, 'scripts', 'run.py')));
    assert.ok(row('count-entries'));
    assert.equal(row('count-files-copy'), undefined);
    await until('the editor tab to follow the renamed file', () => openTabs().includes(file as string) && !openTabs().includes(copy.file), 5_000);
  });

  it('refuses to rename to a taken name, or while the skill has unsaved changes', async () => {
    const skill = row('count-entries');
    assert.ok(skill);
    await assert.rejects(actions().rename(skill.file, { name: 'write-changelog-entry' }), /already exists/);
    const document = await vscode.workspace.openTextDocument(skill.file);
    const editor = await vscode.window.showTextDocument(document);
    await editor.edit((edit) => edit.insert(new vscode.Position(document.lineCount, 0), '\nUnsaved.\n'));
    await assert.rejects(actions().rename(skill.file, { name: 'count-more' }), /unsaved changes; save or revert them, then rename/);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    assert.ok(fs.existsSync(skill.file), 'nothing moved');
  });

  it('disables a project skill for this workspace and enables it again, shown in the list', async () => {
    const skill = row('write-changelog-entry');
    assert.ok(skill);
    assert.equal(await actions().setEnabled(skill.file, false), 'workspace');
    await until('the disabled marker', () => row('write-changelog-entry')?.disabled === true, 5_000);
    const inspected = vscode.workspace.getConfiguration('skillwright').inspect<string[]>(DISABLED);
    assert.ok(inspected?.workspaceValue?.includes('write-changelog-entry'));
    assert.equal(row('write-changelog-entry')?.inCatalog, undefined, 'a disabled skill leaves the catalog');
    assert.equal(await actions().setEnabled(skill.file, true), 'workspace');
    await until('the marker to go', () => row('write-changelog-entry')?.disabled === false, 5_000);
    assert.equal(await actions().setEnabled(skill.file, true), undefined, 'enabling an enabled skill writes nothing');
  });

  it('keeps nothing after a declined delete, and deletes after confirmation (trash, or permanently when there is none)', async () => {
    const skill = row('count-entries');
    assert.ok(skill);
    assert.equal(await actions().delete(skill.file, { confirm: false }), undefined);
    assert.ok(fs.existsSync(skill.file));
    const how = await actions().delete(skill.file, { confirm: true, permanentIfNoTrash: true });
    assert.ok(how === 'trash' || how === 'permanently');
    publishFigure(`skills browser: delete went to the trash (1) or permanently (0)`, how === 'trash' ? 1 : 0);
    assert.equal(fs.existsSync(path.dirname(skill.file)), false);
    assert.equal(row('count-entries'), undefined);
    assert.ok(row('count-files'), 'the other skills stay');
  });

  it('opens a skill by name through "Open Skill…" and ignores paths that are not indexed skills', async () => {
    const file = await vscode.commands.executeCommand<string | undefined>('skillwright.openSkill', { name: 'prepare-release' });
    assert.equal(file, row('prepare-release')?.file);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file);
    assert.equal(await actions().open(path.join(skillsRoot, 'nope', 'SKILL.md')), undefined);
    assert.equal(await actions().rename(path.join(skillsRoot, '..', '..', 'README.md'), { name: 'x' }), undefined);
    assert.ok(fs.existsSync(path.join(skillsRoot, '..', '..', 'README.md')));
  });
});
