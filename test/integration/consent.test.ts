import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { ConsentEntry } from '../../src/core/skills/consent/projectConsent';
import { until } from '../harness/until';

const EXTENSION_ID = 'skillwright.skillwright';
const SETTING = 'skills.projectConsent';

function skillText(name: string, extra = ''): string {
  return `---\nname: ${name}\ndescription: Helps with ${name} chores. Use when the user asks for ${name}.\n${extra}---\n\n# ${name}\n\nSteps.\n`;
}

/**
 * The harness turns consent off for every other suite (test/harness/codeServer.ts); this suite
 * turns it on as a person's user setting would, and back off when it ends.
 */
describe('consent for project skills in a real VS Code', () => {
  let api: SkillwrightApi;
  let skillsRoot: string;
  const made: string[] = [];
  /** The harness's user setting (false), put back at the end for the suites that run after this one. */
  let harnessValue: boolean | undefined;
  const entryOf = (name: string): ConsentEntry | undefined => api.consent.result?.entries.find((entry) => entry.record.name === name);
  const inCatalog = (name: string) => api.skills.catalog().text.includes(name);

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === 'sample');
    assert.ok(folder, 'the sample folder is open');
    assert.ok(vscode.workspace.isTrusted, 'this suite runs in the trusted pass');
    skillsRoot = path.join(folder.uri.fsPath, '.agents', 'skills');
    assert.equal(api.consent.enabled, false, 'the harness starts with consent off');
    harnessValue = vscode.workspace.getConfiguration('skillwright').inspect<boolean>(SETTING)?.globalValue;
    await vscode.workspace.getConfiguration('skillwright').update(SETTING, true, vscode.ConfigurationTarget.Global);
    await until('consent to turn on and look at the project skills', () => api.consent.enabled && api.consent.result !== undefined);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('skillwright').update(SETTING, harnessValue, vscode.ConfigurationTarget.Global);
    await until('consent as the harness set it', () => api.consent.enabled === (harnessValue !== false));
    await until('every project skill back in', () => !api.skills.skillIndex.all().some((record) => record.awaitingConsent));
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds back the skills that came with the repository: pending, out of the catalog, marked in the Skills tab', async () => {
    const dir = path.join(skillsRoot, 'ops', 'repo-helper');
    made.push(dir);
    fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'scripts', 'run.sh'), '#!/bin/sh\necho helping\n');
    fs.writeFileSync(path.join(dir, 'SKILL.md'), skillText('repo-helper', 'entry: scripts/run.sh\npermissions:\n  commands: true\n'));
    const entry = await until('repo-helper to wait for consent', () => entryOf('repo-helper')?.state === 'pending' && entryOf('repo-helper'));
    assert.equal(entry.reason, 'new');
    assert.equal(api.skills.skillIndex.get('repo-helper'), undefined);
    assert.equal(inCatalog('repo-helper'), false);
    assert.equal(api.skills.search.search('repo-helper chores').some((hit) => hit.record.name === 'repo-helper'), false);
    const row = api.skillsBrowser.list().skills.find((item) => item.name === 'repo-helper');
    assert.equal(row?.awaitingConsent, true);
    // The sample skills came with the folder too (the harness wrote them before the window opened).
    assert.equal(entryOf('count-files')?.state, 'pending');
    assert.equal(api.skills.skillIndex.get('count-files'), undefined);
  });

  it('lets an approved skill into the catalog, through the message the card sends', async () => {
    const entry = entryOf('repo-helper');
    assert.ok(entry);
    api.panel.receive({ type: 'consent/decide', file: entry.record.file, hash: entry.hash, decision: 'approve' });
    await until('repo-helper in the catalog', () => api.skills.skillIndex.get('repo-helper') !== undefined && inCatalog('repo-helper'));
    assert.equal(entryOf('repo-helper')?.reason, 'approved');
    const countFiles = entryOf('count-files');
    assert.ok(countFiles);
    api.panel.receive({ type: 'consent/decide', file: countFiles.record.file, hash: countFiles.hash, decision: 'decline' });
    await until('count-files kept out', () => entryOf('count-files')?.state === 'declined');
    assert.equal(api.skills.skillIndex.get('count-files'), undefined);
    assert.equal(api.consent.result?.pending.some((pending) => pending.record.name === 'count-files'), false, 'a declined skill is not asked about again');
  });

  it('asks again when the approved skill’s script changes', async () => {
    const script = path.join(skillsRoot, 'ops', 'repo-helper', 'scripts', 'run.sh');
    fs.writeFileSync(script, '#!/bin/sh\necho helping differently\n');
    // The watchers see the script change; nothing in SKILL.md changed.
    const entry = await until('repo-helper pending again', () => entryOf('repo-helper')?.state === 'pending' && entryOf('repo-helper'), 15_000);
    assert.equal(entry.reason, 'changed');
    assert.equal(api.skills.skillIndex.get('repo-helper'), undefined);
    assert.equal(inCatalog('repo-helper'), false);
  });

  it('does not ask about a skill the person saved in the editor, nor one written through Skillwright', async () => {
    const dir = path.join(skillsRoot, 'docs', 'edited-here');
    made.push(dir);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'SKILL.md');
    fs.writeFileSync(file, skillText('edited-here'));
    await until('edited-here to wait for consent', () => entryOf('edited-here')?.state === 'pending');
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(document);
    // A workspace edit, not the editor's: another editor (the SKILL.md preview) may take the focus.
    const edit = new vscode.WorkspaceEdit();
    edit.insert(document.uri, new vscode.Position(document.lineCount, 0), '\nOne more step.\n');
    assert.ok(await vscode.workspace.applyEdit(edit), 'the edit applied');
    // save() is false when the document was saved already (an auto save in between): the disk decides.
    await document.save();
    await until('the edit saved to the disk', () => !document.isDirty && fs.readFileSync(file, 'utf8').includes('One more step.'));
    await until('edited-here in the catalog', () => api.skills.skillIndex.get('edited-here') !== undefined && inCatalog('edited-here'));
    assert.equal(entryOf('edited-here')?.reason, 'authored');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    const ours = path.join(skillsRoot, 'docs', 'written-by-us');
    made.push(ours);
    await api.skills.fs.writeFileAtomic(path.join(ours, 'SKILL.md'), skillText('written-by-us'));
    await api.skills.invalidate([ours]);
    // Never held back, not even between the write and the consent's next look.
    assert.ok(api.skills.skillIndex.get('written-by-us'), 'in the index at once');
    await until('written-by-us recorded as written here', () => entryOf('written-by-us')?.reason === 'authored');
  });

  it('refuses to rename, duplicate, copy or move a held-back skill when asked through the host, not only in the menu', async () => {
    const project = path.dirname(path.dirname(skillsRoot));
    const claude = path.join(project, '.claude');
    const dir = path.join(claude, 'skills', 'held-tool');
    made.push(fs.existsSync(claude) ? dir : claude);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), skillText('held-tool'));
    // A rescan: the watcher of a skill folder that did not exist yet never fires.
    await api.skills.reindex();
    const record = await until('held-tool held back', () => entryOf('held-tool')?.state === 'pending' && api.skills.skillIndex.all().find((r) => r.name === 'held-tool' && r.awaitingConsent));
    const row = api.skillsBrowser.list().skills.find((item) => item.file === record.file);
    assert.equal(row?.awaitingConsent, true);
    const refused = /^Error: Approve held-tool on the consent card first \(Skillwright: Review Project Skills…\)\.$/;
    // What the webview would send if it offered them: the host checks for itself.
    await assert.rejects(api.skillsBrowser.handle({ type: 'skills/rename', file: record.file }), refused);
    await assert.rejects(api.skillsBrowser.handle({ type: 'skills/duplicate', file: record.file }), refused);
    await assert.rejects(api.sharing.relocate.run(false, { file: record.file }), refused);
    await assert.rejects(api.sharing.relocate.run(true, { file: record.file, confirm: true }), refused);
    // The commands report the refusal (in the log and a notification) instead of throwing at the caller.
    assert.equal(await vscode.commands.executeCommand('skillwright.copyToAgentsSkills', { file: record.file }), undefined);
    assert.equal(await vscode.commands.executeCommand('skillwright.moveToAgentsSkills', { file: record.file, confirm: true }), undefined);
    await vscode.commands.executeCommand('skillwright.showLogs');
    const log = await until('both refusals in the log', () => {
      const text = logText();
      return text.includes('Command skillwright.copyToAgentsSkills failed: Approve held-tool on the consent card first') && text.includes('Command skillwright.moveToAgentsSkills failed: Approve held-tool on the consent card first') && text;
    });
    assert.ok(log);
    await vscode.commands.executeCommand('workbench.action.closePanel');
    // Nothing was written anywhere: no copy, no renamed or duplicated folder, the original untouched.
    assert.equal(fs.existsSync(path.join(skillsRoot, 'held-tool')), false);
    assert.deepEqual(fs.readdirSync(path.dirname(dir)), ['held-tool']);
    assert.equal(fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8'), skillText('held-tool'));
    assert.equal(entryOf('held-tool')?.state, 'pending', 'still waiting for consent');
    assert.equal(api.skills.skillIndex.get('held-tool'), undefined);
  });

  it('lets every project skill in once the setting is off', async () => {
    await vscode.workspace.getConfiguration('skillwright').update(SETTING, false, vscode.ConfigurationTarget.Global);
    await until('consent off', () => !api.consent.enabled);
    await until('every project skill in', () => api.skills.skillIndex.get('repo-helper') !== undefined && api.skills.skillIndex.get('count-files') !== undefined);
    assert.equal(api.skills.skillIndex.all().some((record) => record.awaitingConsent), false);
    assert.ok(inCatalog('repo-helper'));
  });
});

/** The Skillwright log as the Output view shows it (VS Code gives extensions only the documents of channels on screen). */
function logText(): string {
  const documents = vscode.workspace.textDocuments.filter((document) => document.uri.scheme === 'output' && decodeURIComponent(document.uri.toString()).includes('Skillwright'));
  return documents.map((document) => document.getText()).find((text) => text.includes('activated in')) ?? '';
}
