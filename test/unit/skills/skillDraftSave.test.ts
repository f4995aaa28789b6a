import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { draftSkill } from '../../../src/core/skills/draft/skillDraft';
import { transcriptFacts } from '../../../src/core/skills/draft/skillDraftFacts';
import { finalizeDraft, saveDraft } from '../../../src/core/skills/draft/skillDraftSave';
import { parserFixSession } from './draftTranscripts';
import { makeWorkspace, skillMd } from './skillToolWorkspace';
import type { ToolWorkspace } from './skillToolWorkspace';

const draft = () => draftSkill(transcriptFacts(parserFixSession()));

describe('finalizeDraft and saveDraft', () => {
  let ws: ToolWorkspace;
  afterEach(() => ws?.cleanup());

  it('says where a draft would go, by scope and category, without writing anything', async () => {
    ws = await makeWorkspace();
    const project = await finalizeDraft(draft().text, 'project', 'dev/testing/', ws.ctx);
    assert.ok(project.ok, project.ok ? '' : project.error);
    assert.equal(project.target.displayPath, '.agents/skills/dev/testing/fix-parser-tests/SKILL.md');
    assert.equal(project.target.file, path.join(ws.root('.agents/skills'), 'dev', 'testing', 'fix-parser-tests', 'SKILL.md'));
    assert.equal(project.target.category, 'dev/testing');
    assert.equal(fs.existsSync(path.join(ws.project, '.agents')), false, 'nothing was written');
    const user = await finalizeDraft(draft().text, 'user', '', ws.ctx);
    assert.ok(user.ok);
    assert.equal(user.target.displayPath, '~/.agents/skills/fix-parser-tests/SKILL.md');
  });

  it('saves on confirmation through skill_manage: written, and in the index at once', async () => {
    ws = await makeWorkspace();
    const result = await saveDraft(draft().text, 'project', 'dev', ws.ctx);
    assert.ok(result.success, result.success ? '' : result.error);
    const file = path.join(ws.root('.agents/skills'), 'dev', 'fix-parser-tests', 'SKILL.md');
    assert.equal(fs.readFileSync(file, 'utf8'), draft().text);
    assert.ok(ws.index.active().some((record) => record.name === 'fix-parser-tests' && record.category === 'dev'));
    // Saving again is refused: the name is taken in that root now, whatever the category.
    const again = await finalizeDraft(draft().text, 'project', 'other', ws.ctx);
    assert.equal(again.ok, false);
    assert.match(again.ok ? '' : again.error, /^a skill named "fix-parser-tests" already exists in \.agents\/skills \("dev\/fix-parser-tests"\); choose another name, or patch that skill instead$/);
    assert.equal((await saveDraft(draft().text, 'project', 'other', ws.ctx)).success, false);
  });

  it('warns about precedence over a skill of the same name elsewhere', async () => {
    ws = await makeWorkspace({ setup: (w) => w.write('~/.agents/skills', 'fix-parser-tests/SKILL.md', skillMd('fix-parser-tests')) });
    const result = await finalizeDraft(draft().text, 'project', '', ws.ctx);
    assert.ok(result.ok);
    assert.deepEqual(result.target.warnings, ['this skill would take precedence over the skill "fix-parser-tests" in ~/.agents/skills']);
  });

  it('refuses bad names, bad categories, invalid drafts, missing roots and existing folders', async () => {
    ws = await makeWorkspace({ folder: false });
    const refusal = async (text: string, scope: 'project' | 'user', category: string) => {
      const result = await finalizeDraft(text, scope, category, ws.ctx);
      assert.equal(result.ok, false, JSON.stringify(result));
      return result.ok ? '' : result.error;
    };
    const text = draft().text;
    assert.match(await refusal(text, 'project', ''), /^no folder is open in the editor/);
    assert.match(await refusal(text.replace('name: fix-parser-tests', 'name: Fix Parser'), 'user', ''), /^invalid skill name "Fix Parser"/);
    assert.match(await refusal(text.replace('name: fix-parser-tests\n', ''), 'user', ''), /^the draft has no `name`/);
    assert.match(await refusal(text, 'user', '../escape'), /^invalid category "..\/escape": "." and ".." are not allowed/);
    assert.match(await refusal(text, 'user', 'a/b/c/d'), /at most 3 levels/);
    assert.match(await refusal(text.replace(/description: .*\n/, 'description: [1, 2]\n'), 'user', ''), /^the draft is not a valid SKILL\.md yet; fix these first:\nline 3: SW302 /);
    fs.mkdirSync(path.join(ws.root('~/.agents/skills'), 'fix-parser-tests', 'notes'), { recursive: true });
    assert.match(await refusal(text, 'user', ''), /^the folder "fix-parser-tests" already exists in ~\/\.agents\/skills/);
  });

  it('refuses a category that is a link out of the root, or that lies inside another skill', async () => {
    ws = await makeWorkspace({
      setup: (w) => {
        w.write('.agents/skills', 'host/SKILL.md', skillMd('host'));
        fs.mkdirSync(path.join(w.tmp, 'outside'));
        fs.symlinkSync(path.join(w.tmp, 'outside'), path.join(w.root('.agents/skills'), 'linked'), 'dir');
      },
    });
    const linked = await finalizeDraft(draft().text, 'project', 'linked', ws.ctx);
    assert.match(linked.ok ? '' : linked.error, /^cannot save to "linked\/fix-parser-tests\/SKILL\.md" in \.agents\/skills: .*leads outside the skill folder through a symbolic link/);
    const nested = await finalizeDraft(draft().text, 'project', 'host', ws.ctx);
    assert.match(nested.ok ? '' : nested.error, /^category "host" is inside the skill "host"; choose a category that is not a skill$/);
    assert.equal(fs.existsSync(path.join(ws.tmp, 'outside', 'fix-parser-tests')), false);
  });
});
