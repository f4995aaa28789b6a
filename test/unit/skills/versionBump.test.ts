import * as assert from 'node:assert/strict';
import { bumpPatchVersion } from '../../../src/core/skills/model/versionBump';
import type { ToolWorkspace } from './skillToolWorkspace';
import { makeWorkspace } from './skillToolWorkspace';

const skill = (version: string, body = 'Do it.'): string => `---\nname: tidy\ndescription: Tidies files. Use when asked to tidy.\nversion: ${version}\n---\n${body}\n`;

describe('bumpPatchVersion', () => {
  it('raises the patch number of an unchanged semver version, keeping quotes, comments and line ends', () => {
    assert.equal(bumpPatchVersion(skill('1.2.3'), skill('1.2.3', 'Do it better.'))?.to, '1.2.4');
    const quoted = bumpPatchVersion(skill('"0.9.0"'), skill('"0.9.0" # keep', 'x'));
    assert.match(quoted?.text ?? '', /^version: "0\.9\.1" # keep$/m);
    const crlf = skill('2.0.0').replace(/\n/g, '\r\n');
    assert.equal(bumpPatchVersion(crlf, crlf.replace('Do it.', 'Do.'))?.text.includes('version: 2.0.1\r\n'), true);
  });

  it('leaves a version the edit changed, a non-semver version, and a skill without one', () => {
    assert.equal(bumpPatchVersion(skill('1.2.3'), skill('2.0.0')), undefined);
    assert.equal(bumpPatchVersion(skill('v1'), skill('v1', 'x')), undefined);
    const bare = '---\nname: tidy\ndescription: x\n---\nbody\n';
    assert.equal(bumpPatchVersion(bare, bare.replace('body', 'b')), undefined);
    assert.equal(bumpPatchVersion('version: 1.0.0\n', 'version: 1.0.0\nx\n'), undefined, 'only inside the frontmatter');
  });
});

describe('skill_manage bumps the version of a skill that has one', () => {
  let ws: ToolWorkspace;
  beforeEach(async () => {
    ws = await makeWorkspace({ setup: (w) => w.write('.agents/skills', 'tidy/SKILL.md', skill('1.4.0')) });
  });
  afterEach(() => ws.cleanup());

  it('on patch and edit, and says so', async () => {
    const patched = await ws.ok('skill_manage', { action: 'patch', name: 'tidy', old_string: 'Do it.', new_string: 'Do it carefully.' });
    assert.equal(patched['version'], '1.4.1');
    assert.match(String(patched['message']), /1\.4\.0 → 1\.4\.1/);
    assert.equal(ws.index.get('tidy')?.version, '1.4.1');
    const edited = await ws.ok('skill_manage', { action: 'edit', name: 'tidy', content: skill('1.4.1', 'New body.') });
    assert.equal(edited['version'], '1.4.2');
    const chosen = await ws.ok('skill_manage', { action: 'edit', name: 'tidy', content: skill('2.0.0', 'Breaking.') });
    assert.equal(chosen['version'], undefined, 'the author chose a version');
    assert.equal(ws.index.get('tidy')?.version, '2.0.0');
  });
});
