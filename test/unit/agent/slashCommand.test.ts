import * as assert from 'node:assert/strict';
import { parseSlashCommand } from '../../../src/core/agent/slashCommand';

describe('parseSlashCommand', () => {
  const known = new Set(['write-changelog-entry', 'count-files']);
  const exists = (name: string) => known.has(name);

  it('sends ordinary text as typed, including paths and a slash after a space', () => {
    assert.deepEqual(parseSlashCommand('hello there', exists), { ok: true, text: 'hello there' });
    assert.deepEqual(parseSlashCommand('/etc/hosts looks wrong', exists), { ok: true, text: '/etc/hosts looks wrong' });
    assert.deepEqual(parseSlashCommand(' /no-such-skill', exists), { ok: true, text: ' /no-such-skill' });
  });

  it('turns /skill-name into an explicit instruction to load and follow that skill', () => {
    const result = parseSlashCommand('/write-changelog-entry for 1.2', exists);
    assert.ok(result.ok);
    assert.equal(result.skill, 'write-changelog-entry');
    assert.match(result.text ?? '', /^Use the skill "write-changelog-entry": load it with skill_view first/);
    assert.match(result.text ?? '', /for 1\.2$/);
    const bare = parseSlashCommand('/count-files', exists);
    assert.ok(bare.ok && /Apply it to the current workspace/.test(bare.text ?? ''));
  });

  it('runs the built-in /compact typed alone, even when a skill has that name; with a request it is the skill', () => {
    const named = (name: string) => name === 'compact';
    assert.deepEqual(parseSlashCommand('/compact', named), { ok: true, command: 'compact' });
    assert.deepEqual(parseSlashCommand('/compact  ', () => false), { ok: true, command: 'compact' });
    const skill = parseSlashCommand('/compact the notes', named);
    assert.ok(skill.ok && skill.skill === 'compact' && skill.command === undefined);
    assert.deepEqual(parseSlashCommand('/compact the notes', () => false), {
      ok: false,
      error: 'No skill is named "compact". Type / to pick one from the list, or put a space before the slash to send the text as it is.',
    });
  });

  it('refuses an unknown skill name with advice instead of sending it', () => {
    const result = parseSlashCommand('/no-such-skill please', exists);
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.error, /No skill is named "no-such-skill"/);
  });
});
