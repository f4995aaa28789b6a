import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import { until } from '../harness/until';

const EXTENSION_ID = 'skillwright.skillwright';

function skillText(name: string, description = `Does ${name} things. Use when the user asks for ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps.\n`;
}

function folderOf(name: string): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  assert.ok(folder, `workspace folder ${name} is missing`);
  return folder;
}

describe('skills in a real VS Code', () => {
  let api: SkillwrightApi;
  let skillsRoot: string;
  const names = () => new Set(api.skills.skillIndex.all().map((r) => r.name));
  const hasSkill = (name: string) => () => names().has(name);

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    skillsRoot = path.join(folderOf('sample').uri.fsPath, '.agents', 'skills');
  });

  it('indexes the sample skills with their categories', () => {
    const index = api.skills.skillIndex;
    assert.equal(index.get('write-changelog-entry')?.category, 'docs');
    assert.equal(index.get('count-files')?.category, 'ops');
    assert.equal(index.get('prepare-release')?.category, 'release');
  });

  it('reports a shadowed skill with the copy that wins', async () => {
    const copies = await until('both copies of write-changelog-entry', () => {
      const found = api.skills.skillIndex.byName('write-changelog-entry');
      return found.length === 2 && found;
    });
    assert.equal(copies[0]?.scope, 'project');
    assert.equal(copies[0]?.shadowedBy, undefined);
    assert.equal(copies[1]?.shadowedBy, copies[0]?.file);
    const status = await api.status.collect();
    assert.equal(status.skills?.shadowed, 1);
  });

  it('picks up a skill whose SKILL.md is written right after its folder', async () => {
    const dir = path.join(skillsRoot, 'ops', 'fresh-skill');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), skillText('fresh-skill'));
    await until('fresh-skill in the index', hasSkill('fresh-skill'), 3_000);
  });

  it('picks up a folder of skills moved in, and drops a folder deleted with its skills', async () => {
    const staging = fs.mkdtempSync(path.join(path.dirname(skillsRoot), 'staging-'));
    for (const name of ['moved-one', 'moved-two']) {
      fs.mkdirSync(path.join(staging, 'imported', name), { recursive: true });
      fs.writeFileSync(path.join(staging, 'imported', name, 'SKILL.md'), skillText(name));
    }
    fs.renameSync(path.join(staging, 'imported'), path.join(skillsRoot, 'imported'));
    fs.rmSync(staging, { recursive: true, force: true });
    await until('the moved-in skills', () => hasSkill('moved-one')() && hasSkill('moved-two')(), 3_000);

    fs.rmSync(path.join(skillsRoot, 'imported'), { recursive: true, force: true });
    await until('the deleted skills to disappear', () => !hasSkill('moved-one')() && !hasSkill('moved-two')(), 3_000);
  });

  it('watches a skill folder that is created after start', async () => {
    const lateRoot = path.join(folderOf('second').uri.fsPath, '.agents', 'skills');
    assert.ok(!fs.existsSync(lateRoot));
    fs.mkdirSync(path.join(lateRoot, 'late-skill'), { recursive: true });
    fs.writeFileSync(path.join(lateRoot, 'late-skill', 'SKILL.md'), skillText('late-skill'));
    await until('late-skill in the index', hasSkill('late-skill'), 3_000);
    // Once watched, an edit to it is seen too.
    fs.writeFileSync(path.join(lateRoot, 'late-skill', 'SKILL.md'), skillText('late-skill', 'Changed on disk. Use when testing watchers.'));
    await until('the edited description', () => api.skills.skillIndex.get('late-skill')?.description.startsWith('Changed on disk'), 3_000);
  });

  it('updates the Problems panel as you type, from the buffer', async () => {
    const file = path.join(skillsRoot, 'docs', 'write-changelog-entry', 'SKILL.md');
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document);
    const nameLine = document.getText().split('\n').findIndex((line) => line.startsWith('name:'));
    await editor.edit((edit) => edit.replace(document.lineAt(nameLine).range, 'name: Write_Changelog'));
    const nameErrors = () =>
      vscode.languages
        .getDiagnostics(document.uri)
        .filter((d) => d.source === 'Skillwright' && d.range.start.line === nameLine && d.severity === vscode.DiagnosticSeverity.Error);
    const diagnostics = await until('an error on the name line', () => nameErrors().length > 0 && nameErrors());
    assert.match(diagnostics.map((d) => d.message).join('\n'), /name/i);
    assert.equal(fs.readFileSync(file, 'utf8').includes('Write_Changelog'), false, 'the disk is untouched');

    // A quick fix puts the folder's name back.
    // Code actions see diagnostics once they reached the workbench's marker service, a moment later.
    let titles: string[] = [];
    const fix = await until(
      'the quick fix that restores the folder name',
      async () => {
        const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, diagnostics[0]?.range);
        titles = actions.map((a) => a.title);
        return actions.find((action) => action.edit && action.title.endsWith('the folder name, write-changelog-entry'));
      },
      10_000,
    ).catch((error: Error) => assert.fail(`${error.message}; actions offered: ${titles.join(', ')}`));
    assert.ok(fix.edit);
    await vscode.workspace.applyEdit(fix.edit);
    assert.match(document.lineAt(nameLine).text, /^name: write-changelog-entry$/);
    await until('the name error to clear', () => nameErrors().length === 0);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('reindexes on command, re-reading a change no watcher event can tell apart', async () => {
    // Same size and same modification time: watcher events and the window-focus check skip such a
    // file as unchanged (by design: they compare mtime and size); only a full reindex re-reads it.
    // A skill of its own, so no other test's edits of the sample skills matter here.
    const dir = path.join(skillsRoot, 'ops', 'reindex-probe');
    const file = path.join(dir, 'SKILL.md');
    const stamp = new Date('2024-01-01T00:00:00Z');
    const description = (version: string) => () => api.skills.skillIndex.get('reindex-probe')?.description.startsWith(`Version ${version} `);
    fs.mkdirSync(dir);
    fs.writeFileSync(file, skillText('reindex-probe', 'Version one of this text. Use when testing a reindex.'));
    fs.utimesSync(file, stamp, stamp);
    try {
      await vscode.commands.executeCommand('skillwright.reindexSkills');
      await until('the first text in the index', description('one'), 5_000);
      // A rename puts the new text in place in one step, already carrying the old size and time.
      const staged = `${file}.staged`;
      fs.writeFileSync(staged, skillText('reindex-probe', 'Version two of this text. Use when testing a reindex.'));
      assert.equal(fs.statSync(staged).size, fs.statSync(file).size);
      fs.utimesSync(staged, stamp, stamp);
      fs.renameSync(staged, file);
      await vscode.commands.executeCommand('skillwright.reindexSkills');
      await until('the text only the reindex read', description('two'), 5_000);
      assert.ok(names().has('write-changelog-entry'), 'every other skill is still indexed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await vscode.commands.executeCommand('skillwright.reindexSkills');
    }
  });
});
