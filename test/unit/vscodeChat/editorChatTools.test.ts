import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EDITOR_CHAT_TOOLS, EDITOR_CHAT_TOOLS_READ_ONLY, editorChatTool, languageModelToolContribution, runEditorChatTool, withEditorNames } from '../../../src/core/agent/editorChatTools';
import { PARTICIPANT_COMMANDS, PARTICIPANT_ID, PARTICIPANT_NAME } from '../../../src/core/agent/participantTypes';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { NodeFileLock } from '../../../src/core/memory/memoryLock';
import { MemoryStore } from '../../../src/core/memory/memoryStore';
import { repoRoot } from '../../repoRoot';
import type { ChatFixture } from './chatFixture';
import { HELM_STEP, makeChatFixture } from './chatFixture';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tool results are JSON navigated without a schema here
type Json = Record<string, any>;

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as {
  contributes: { languageModelTools?: Record<string, unknown>[]; chatParticipants?: { id: string; name: string; commands: { name: string; description: string }[] }[] };
  activationEvents: string[];
};

describe('Skillwright\'s language-model tools for VS Code\'s chat', function () {
  this.timeout(30_000);
  let fx: ChatFixture;
  const run = async (name: string, input: unknown, signal = new AbortController().signal): Promise<Json> => JSON.parse(await runEditorChatTool(name, input, fx.context(), signal)) as Json;

  beforeEach(async () => {
    fx = await makeChatFixture();
  });
  afterEach(() => fx.cleanup());

  it('package.json contributes exactly these tools, with the schemas and descriptions the core derives', () => {
    assert.deepEqual(manifest.contributes.languageModelTools, EDITOR_CHAT_TOOLS.map(languageModelToolContribution));
    assert.deepEqual(EDITOR_CHAT_TOOLS.map((tool) => tool.name), ['skillwright_skills_list', 'skillwright_skill_view', 'skillwright_session_search', 'skillwright_memory_read']);
    for (const tool of manifest.contributes.languageModelTools ?? []) {
      assert.equal(tool['canBeReferencedInPrompt'], true);
      assert.match(String(tool['toolReferenceName']), /^skillwright[A-Z]\w+$/);
      assert.doesNotMatch(String(tool['modelDescription']), /\b(skill_view|skills_list|session_search)\b/, 'the model knows them by their prefixed names');
    }
  });

  it('package.json contributes the @skillwright participant with its three commands', () => {
    const [participant, ...others] = manifest.contributes.chatParticipants ?? [];
    assert.equal(others.length, 0);
    assert.equal(participant?.id, PARTICIPANT_ID);
    assert.equal(participant?.name, PARTICIPANT_NAME);
    assert.deepEqual(participant?.commands, PARTICIPANT_COMMANDS.map((command) => ({ name: command.name, description: command.description })));
  });

  it('only reads, so none asks for a confirmation; progress lines name what is read', () => {
    assert.equal(EDITOR_CHAT_TOOLS_READ_ONLY, true);
    assert.equal(editorChatTool('skillwright_skill_view')?.invocationMessage({ name: 'deploy-app' }), 'Reading the skill deploy-app');
    assert.equal(editorChatTool('skillwright_skill_view')?.invocationMessage({ name: 'deploy-app', file_path: 'references/helm.md' }), 'Reading references/helm.md of the skill deploy-app');
    assert.equal(editorChatTool('skillwright_skills_list')?.invocationMessage({ query: 42 }), 'Listing Skillwright skills');
    assert.equal(editorChatTool('skillwright_session_search')?.invocationMessage({ query: 'pgbouncer' }), 'Searching earlier sessions for "pgbouncer"');
    assert.equal(editorChatTool('skillwright_memory_read')?.invocationMessage({}), 'Reading Skillwright memory');
  });

  it('skills_list lists the active skills, never a held-back one, with hints in the prefixed names', async () => {
    const list = await run('skillwright_skills_list', {});
    assert.equal(list['success'], true);
    const names = (list['categories'] as Json[]).flatMap((group) => (group['skills'] as Json[]).map((skill) => skill['name'] as string));
    assert.deepEqual(names.sort(), ['deploy-app', 'release-notes']);
    assert.match(list['hint'], /skillwright_skill_view\(name\)/);
    const ranked = await run('skillwright_skills_list', { query: 'kubernetes rollout' });
    assert.equal((ranked['skills'] as Json[])[0]?.['name'], 'deploy-app');
  });

  it('skill_view returns the SKILL.md and linked files, refuses a held-back skill and bad input with what to do', async () => {
    const view = await run('skillwright_skill_view', { name: 'deploy-app' });
    assert.equal(view['success'], true);
    assert.ok(String(view['content']).includes(HELM_STEP));
    assert.deepEqual(view['linked_files']['references'].map((file: Json) => file['path']), ['references/helm.md']);
    assert.match(view['how_to_open'], /^skillwright_skill_view\(name="devops\/deploy-app", file_path="references\/helm.md"\)$/);

    const held = await run('skillwright_skill_view', { name: 'vendored' });
    assert.equal(held['success'], false);
    assert.match(held['error'], /vendored/);

    const bad = await run('skillwright_skill_view', { nam: 'deploy-app' });
    assert.equal(bad['success'], false);
    assert.match(bad['error'], /name/);
    const unknown = await run('skillwright_skill_manage', { name: 'x' });
    assert.match(unknown['error'], /unknown tool "skillwright_skill_manage"; Skillwright's tools are skillwright_skills_list, /);
  });

  it('session_search finds an earlier session; a stopped call returns a result too', async () => {
    const found = await run('skillwright_session_search', { query: 'pgbouncer pool' });
    assert.equal(found['success'], true);
    assert.deepEqual((found['sessions'] as Json[]).map((s) => s['session_id']), ['pgbouncer-fix']);
    assert.match(found['hint'], /call skillwright_session_search with its session_id/);
    const stop = new AbortController();
    stop.abort();
    const stopped = await run('skillwright_session_search', { query: 'pgbouncer' }, stop.signal);
    assert.deepEqual(stopped, { success: false, error: 'stopped before the tool ran' });
  });

  it('memory_read shows both files as the prompt would, flagged entries withheld; in Restricted Mode project memory is unavailable', async () => {
    const both = await run('skillwright_memory_read', {});
    assert.equal(both['memory']['file'], 'MEMORY.md');
    assert.equal(both['memory']['entries'][0], 'Build: pnpm build');
    assert.match(both['memory']['entries'][1], /^\[entry withheld: it matched the threat patterns/);
    assert.match(both['withheld'], /^1 entry was withheld/);
    assert.deepEqual(both['user']['entries'], []);
    const user = await run('skillwright_memory_read', { target: 'user' });
    assert.equal(user['memory'], undefined);
    assert.equal(user['withheld'], undefined);

    const restricted = new MemoryStore({ fs: new NodeFileSystem(), lock: new NodeFileLock(), userHome: fx.memory.home, projectUnavailableReason: 'the folder is not trusted (Restricted Mode)' });
    const context = { ...fx.context(), memory: { takeMemorySnapshot: () => restricted.takeMemorySnapshot(), projectUnavailableReason: () => 'the folder is not trusted (Restricted Mode)' } };
    const result = JSON.parse(await runEditorChatTool('skillwright_memory_read', {}, context, new AbortController().signal)) as Json;
    assert.deepEqual(result['memory'], { file: 'MEMORY.md', available: false, reason: 'project memory is unavailable: the folder is not trusted (Restricted Mode)' });
    assert.match(result['hint'], /No notes are saved yet/);
    assert.equal((await run('skillwright_memory_read', { target: 'everything' }))['success'], false);
  });

  it('renames only whole tool names in hints', () => {
    assert.equal(withEditorNames('call skill_view or my_skill_viewer, then session_search'), 'call skillwright_skill_view or my_skill_viewer, then skillwright_session_search');
  });
});
