import * as assert from 'node:assert/strict';
import { disabledSettingChange } from '../../../src/core/skills/index/disabledSkillsSetting';

describe('where enabling and disabling a skill is written', () => {
  it('disables a project skill for this workspace, keeping what the user list disables', () => {
    assert.deepEqual(disabledSettingChange({ scope: 'project', hasWorkspace: true, userValue: ['a'] }, 'b', false), { target: 'workspace', value: ['a', 'b'] });
  });

  it('disables a user or other tool skill in the user settings', () => {
    assert.deepEqual(disabledSettingChange({ scope: 'user', hasWorkspace: true, userValue: ['a'] }, 'b', false), { target: 'user', value: ['a', 'b'] });
    assert.deepEqual(disabledSettingChange({ scope: 'other', hasWorkspace: false }, 'b', false), { target: 'user', value: ['b'] });
  });

  it('changes the workspace list whenever one exists, because it replaces the user list', () => {
    const state = { scope: 'user' as const, hasWorkspace: true, workspaceValue: ['x'], userValue: ['a'] };
    assert.deepEqual(disabledSettingChange(state, 'b', false), { target: 'workspace', value: ['x', 'b'] });
    assert.deepEqual(disabledSettingChange(state, 'x', true), { target: 'workspace', value: [] });
  });

  it('enables by removing the name from the list in effect', () => {
    assert.deepEqual(disabledSettingChange({ scope: 'project', hasWorkspace: true, userValue: ['a', 'b'] }, 'a', true), { target: 'user', value: ['b'] });
  });

  it('writes nothing when the setting already says so', () => {
    assert.equal(disabledSettingChange({ scope: 'project', hasWorkspace: true, userValue: ['a'] }, 'a', false), undefined);
    assert.equal(disabledSettingChange({ scope: 'user', hasWorkspace: true, workspaceValue: [] }, 'a', true), undefined);
  });

  it('a project skill in a window without a folder goes to the user settings', () => {
    assert.deepEqual(disabledSettingChange({ scope: 'project', hasWorkspace: false }, 'a', false), { target: 'user', value: ['a'] });
  });

  it('ignores entries that are not names', () => {
    assert.deepEqual(disabledSettingChange({ scope: 'user', hasWorkspace: false, userValue: ['a', 3 as unknown as string] }, 'b', false), { target: 'user', value: ['a', 'b'] });
  });
});
