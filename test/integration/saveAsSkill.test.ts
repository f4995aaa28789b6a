import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolCall } from '../../src/core/llm/chatTypes';
import { NodeFileSystem } from '../../src/core/base/nodeFileSystem';
import { NodeAppendPort, SessionLog } from '../../src/core/sessions/sessionLog';
import type { SkillwrightApi } from '../../src/host/activateSkillwright';
import type { SaveAsSkillArgs, SaveAsSkillResult } from '../../src/host/saveAsSkill/saveAsSkillArgs';
import { ScriptedModelServer } from '../fakes/scriptedModelServer';

type Turn = { user: string } | { say: string } | { run: string; exitCode: number; output?: string } | { tool: string; args: Record<string, unknown>; result?: Record<string, unknown> };

const MODEL_SKILL = [
  '---',
  'name: rotate-nginx-logs-safely',
  'description: Rotates and compresses the nginx access logs with logrotate. Use when the user asks to rotate or clean up web server logs.',
  'version: 0.1.0',
  '---',
  '',
  '# Rotate nginx logs safely',
  '',
  '## When to use',
  '- The access logs grew too large, or rotation stopped.',
  '',
  '## Steps',
  '1. Check the logrotate configuration for nginx.',
  '2. Add `su root adm` when logrotate complains about insecure permissions.',
  '3. Run `logrotate -f` on the configuration.',
  '',
  '## Pitfalls',
  '- A parent folder writable by a group makes logrotate skip the file.',
  '',
  '## Verification',
  '- The old logs are compressed and nginx writes to a fresh file.',
  '',
].join('\n');

describe('Save as a skill in a real VS Code (session or selection → reviewed, validated SKILL.md)', () => {
  let api: SkillwrightApi;
  let projectRoot: string;
  const userRoot = path.join(os.homedir(), '.agents', 'skills');
  const created: string[] = [];
  const seeded = ['save-skill-logs', 'save-skill-changelog'];
  let changelogFile: string;
  let changelogBefore: string;

  const run = async (command: 'skillwright.saveAsSkill' | 'skillwright.saveSelectionAsSkill', args: SaveAsSkillArgs): Promise<SaveAsSkillResult> => {
    const result = await vscode.commands.executeCommand<SaveAsSkillResult | undefined>(command, args);
    assert.ok(result, `${command} returned a result (it did not fail)`);
    if (result.file && result.outcome === 'saved') created.push(path.dirname(result.file));
    return result;
  };
  /** Every SKILL.md under both writable roots, to prove a refusal wrote nothing. */
  const skillFiles = (): string[] =>
    [projectRoot, userRoot].flatMap((root) =>
      fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('SKILL.md')).map((f) => path.join(root, f)).sort() : [],
    );
  const untitledWith = (text: string) => vscode.workspace.textDocuments.filter((d) => d.isUntitled && d.getText().includes(text));

  before(async () => {
    const extension = vscode.extensions.getExtension<SkillwrightApi>('skillwright.skillwright');
    assert.ok(extension);
    api = await extension.activate();
    await api.skills.ready;
    const sample = vscode.workspace.workspaceFolders?.find((f) => f.name === 'sample');
    assert.ok(sample, 'the sample folder is open');
    projectRoot = path.join(sample.uri.fsPath, '.agents', 'skills');
    changelogFile = path.join(projectRoot, 'docs', 'write-changelog-entry', 'SKILL.md');
    changelogBefore = fs.readFileSync(changelogFile, 'utf8');

    // Sessions as an earlier chat left them, in the extension's own storage.
    const log = new SessionLog({ fs: new NodeFileSystem(), append: new NodeAppendPort(), storageDir: path.dirname(api.sessions.log.dir) });
    const seed = async (id: string, turns: Turn[]) => {
      const writer = await log.create({ id, model: 'scripted-model', systemPrompt: 'You are a test.', workspace: '/projects/web' });
      let n = 0;
      for (const turn of turns) {
        if ('user' in turn) await writer.appendMessage({ role: 'user', content: turn.user });
        else if ('say' in turn) await writer.appendMessage({ role: 'assistant', content: turn.say });
        else {
          const id = `call-${++n}`;
          const [name, args, result] =
            'run' in turn
              ? ['run_command', { command: turn.run }, { success: true, command: turn.run, exit_code: turn.exitCode, output: turn.output ?? '' }]
              : [turn.tool, turn.args, turn.result ?? { success: true }];
          const call: ToolCall = { id, name, arguments: JSON.stringify(args) };
          await writer.appendMessage({ role: 'assistant', content: '', toolCalls: [call] });
          await writer.appendMessage({ role: 'tool', toolCallId: id, toolName: name, content: JSON.stringify(result) });
        }
      }
      await writer.flush();
    };
    await seed('save-skill-logs', [
      { user: 'Rotate the nginx access logs and compress the old ones' },
      { run: 'logrotate -f deploy/logrotate/nginx', exitCode: 1, output: 'error: skipping because parent directory has insecure permissions' },
      { tool: 'edit_file', args: { path: 'deploy/logrotate/nginx', old_string: 'weekly', new_string: 'weekly\n    su root adm' } },
      { run: 'logrotate -f deploy/logrotate/nginx', exitCode: 0 },
      { say: 'Rotated: the configuration needed `su root adm`.\n\nSave as skill: rotate-nginx-logs' },
    ]);
    await seed('save-skill-changelog', [
      { user: 'Update the changelog with an entry for this change' },
      { tool: 'read_file', args: { path: 'CHANGELOG.md' } },
      { tool: 'edit_file', args: { path: 'CHANGELOG.md', old_string: '## [Unreleased]', new_string: '## [Unreleased]\n### Added\n- `--json` flag' } },
      { say: 'Added the entry under Unreleased / Added.' },
    ]);
  });

  after(async () => {
    fs.writeFileSync(changelogFile, changelogBefore);
    for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
    await api.skills.invalidate([changelogFile, ...created]);
    for (const id of seeded) await api.sessions.index.deleteSession(id).catch(() => false);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('saves the template draft of a past session to the user folder; the index and the Skills tab have it at once', async () => {
    const result = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', useModel: false, scope: 'user', category: 'ops', confirm: true });
    assert.equal(result.outcome, 'saved', result.message);
    assert.equal(result.source, 'template');
    assert.equal(result.name, 'rotate-nginx-logs');
    assert.equal(result.file, path.join(userRoot, 'ops', 'rotate-nginx-logs', 'SKILL.md'));
    assert.equal(result.findings?.errors, 0);
    assert.match(result.message, /Saved the skill "rotate-nginx-logs" as ~\/\.agents\/skills\/ops\/rotate-nginx-logs\/SKILL\.md/);
    const text = fs.readFileSync(result.file, 'utf8');
    assert.match(text, /^---\nname: rotate-nginx-logs\n/);
    assert.match(text, /logrotate -f deploy\/logrotate\/nginx/);
    assert.match(text, /insecure permissions/, 'the failure made it into Pitfalls');
    // No waiting for a file watcher: the index, search and the browser's list know it already.
    const record = api.skills.skillIndex.get('rotate-nginx-logs');
    assert.equal(record?.file, result.file);
    assert.equal(record?.category, 'ops');
    assert.equal(api.skills.search.search('rotate nginx logs')[0]?.record.name, 'rotate-nginx-logs');
    assert.ok(JSON.stringify(api.skillsBrowser.list()).includes('rotate-nginx-logs'));
    // The saved file is open; the draft's untitled editor is gone.
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, result.file);
    assert.equal(untitledWith('name: rotate-nginx-logs').length, 0);
  });

  it('saves to the project folder the text as edited in the draft editor', async () => {
    const edited = `---\nname: compress-old-nginx-logs\ndescription: Compresses rotated nginx logs. Use when the user asks to free disk space taken by old logs.\n---\n\n# Compress old nginx logs\n\n## Steps\n1. Run \`logrotate -f\` on the nginx configuration.\n2. Check the .gz files appeared.\n`;
    const result = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', useModel: false, patch: false, scope: 'project', category: 'ops', text: edited, confirm: true });
    assert.equal(result.outcome, 'saved', result.message);
    assert.equal(result.file, path.join(projectRoot, 'ops', 'compress-old-nginx-logs', 'SKILL.md'));
    assert.equal(fs.readFileSync(result.file, 'utf8'), edited);
    assert.equal(api.skills.skillIndex.get('compress-old-nginx-logs')?.scope, 'project');
  });

  it('refuses an invalid draft or a taken name, says why, writes nothing and keeps the draft in its editor', async () => {
    const before = skillFiles();
    const badName = '---\nname: Rotate Logs!\ndescription: Rotates logs. Use when the user asks to rotate logs.\n---\n\n# Rotate\n\nMarker 7f3a.\n';
    const invalid = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', useModel: false, patch: false, scope: 'user', category: '', text: badName, confirm: true });
    assert.equal(invalid.outcome, 'refused');
    assert.match(invalid.message, /invalid skill name "Rotate Logs!"/);
    assert.equal(invalid.draftText, badName);
    assert.equal(untitledWith('Marker 7f3a.').length, 1, 'the draft stays open, unsaved');

    // The template names it rotate-nginx-logs again, which the first test saved in the user folder.
    const taken = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', useModel: false, patch: false, scope: 'user', category: 'other', confirm: true });
    assert.equal(taken.outcome, 'refused');
    assert.match(taken.message, /a skill named "rotate-nginx-logs" already exists in ~\/\.agents\/skills \("ops\/rotate-nginx-logs"\)/);

    const escape = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', useModel: false, patch: false, scope: 'user', category: '../outside', confirm: true });
    assert.equal(escape.outcome, 'refused');
    assert.match(escape.message, /category/);

    const declined = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', useModel: false, patch: false, scope: 'user', category: 'new', confirm: false });
    assert.equal(declined.outcome, 'cancelled');
    assert.match(declined.message, /Nothing was saved/);
    assert.deepEqual(skillFiles(), before, 'no SKILL.md was written or changed');
    assert.ok(!fs.existsSync(path.join(userRoot, 'new')), 'not even the category folder');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('offers "Patch `write-changelog-entry` instead" for an overlapping draft and patches it only when told to', async () => {
    const declined = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-changelog', useModel: false, patch: false, scope: 'project', category: 'docs', confirm: false });
    assert.equal(declined.overlap?.skillName, 'docs/write-changelog-entry');
    assert.ok((declined.overlap?.score ?? 0) >= 0.5, JSON.stringify(declined.overlap));
    assert.equal(declined.overlap?.canPatch, true);
    assert.ok((declined.overlap?.added ?? 0) > 0);
    assert.equal(declined.outcome, 'cancelled');
    assert.equal(fs.readFileSync(changelogFile, 'utf8'), changelogBefore, 'saying no to the patch writes nothing');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    const patched = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-changelog', useModel: false, patch: true });
    assert.equal(patched.outcome, 'patched', patched.message);
    assert.equal(patched.file, changelogFile);
    const after = fs.readFileSync(changelogFile, 'utf8');
    // Every line stays but the version, which gets a patch bump; the draft's new points are added.
    const kept = changelogBefore.split('\n').filter((line) => !line.startsWith('version:'));
    assert.ok(kept.every((line) => after.includes(line)), after);
    assert.match(after, /\nversion: 0\.1\.1\n/);
    assert.match(after, /CHANGELOG\.md/);
    assert.ok(after.split('\n').length > changelogBefore.split('\n').length);
    assert.equal(api.skills.skillIndex.get('write-changelog-entry')?.size, Buffer.byteLength(after), 'the index read the patched file');
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, changelogFile);
  });

  it('drafts with the configured model (scripted server, real openai client) and falls back to the template, saying why', async () => {
    const config = vscode.workspace.getConfiguration('skillwright');
    const previous = { baseUrl: config.inspect('model.baseUrl')?.globalValue, name: config.inspect('model.name')?.globalValue };
    const server = await ScriptedModelServer.start({ models: ['scripted-draft'] });
    try {
      await vscode.commands.executeCommand('skillwright.configureModel', { baseUrl: server.baseUrl, model: 'scripted-draft', apiKey: '', skipTest: true });
      server.on({ user: '<session-facts>' }, { text: `Here is the skill.\n\n\`\`\`markdown\n${MODEL_SKILL}\`\`\`\n` });
      const result = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', patch: false, scope: 'user', category: 'ops', confirm: true });
      assert.equal(result.outcome, 'saved', result.message);
      assert.equal(result.source, 'model');
      assert.equal(result.name, 'rotate-nginx-logs-safely');
      assert.equal(fs.readFileSync(result.file ?? '', 'utf8'), MODEL_SKILL);
      const request = JSON.stringify(server.chatRequests.at(-1)?.messages);
      assert.match(request, /Rotate the nginx access logs and compress the old ones/, 'the model saw the session facts');
      assert.match(request, /insecure permissions/);

      server.on({ user: '<session-facts>' }, { text: 'I would rather not write a skill.' });
      const fallback = await run('skillwright.saveAsSkill', { sessionId: 'save-skill-logs', patch: false, scope: 'user', category: 'fallback', confirm: false });
      assert.equal(fallback.source, 'template');
      assert.match(fallback.fallbackReason ?? '', /did not reply with a SKILL\.md/);
      assert.match(fallback.draftText ?? '', /^---\nname: rotate-nginx-logs\n/);
    } finally {
      await config.update('model.baseUrl', previous.baseUrl, vscode.ConfigurationTarget.Global);
      await config.update('model.name', previous.name, vscode.ConfigurationTarget.Global);
      await server.close();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('"Save Selection as a Skill" drafts from the selected text of an editor', async () => {
    const document = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content: '# Clear the npm cache when installs fail\n\n```sh\n$ npm cache clean --force\n$ rm -rf node_modules\n$ npm ci\n```\n',
    });
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(0, 0, document.lineCount, 0);
    const result = await vscode.commands.executeCommand<SaveAsSkillResult>('skillwright.saveSelectionAsSkill', { useModel: false, scope: 'user', category: '', confirm: true });
    assert.equal(result?.outcome, 'saved', result?.message);
    created.push(path.dirname(result.file ?? ''));
    assert.equal(result.file, path.join(userRoot, result.name ?? '', 'SKILL.md'));
    const text = fs.readFileSync(result.file, 'utf8');
    assert.match(text, /npm cache clean --force/);
    assert.match(text, /npm ci/);
    assert.ok(api.skills.skillIndex.get(result.name ?? ''));

    const empty = await vscode.commands.executeCommand<SaveAsSkillResult>('skillwright.saveSelectionAsSkill', { selection: '   ', useModel: false });
    assert.equal(empty?.outcome, 'cancelled');
    assert.match(empty.message, /Select the text/);
  });
});
