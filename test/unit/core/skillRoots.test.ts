import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { skillRootCandidates } from '../../../src/core/base/skillRoots';

const home = path.join(path.sep, 'home', 'dev');

describe('skillRootCandidates', () => {
  it('lists project roots before user roots before other tools, with one write target per scope', () => {
    const roots = skillRootCandidates([{ name: 'app', fsPath: path.join(path.sep, 'w', 'app') }], home);
    assert.deepEqual(
      roots.map((r) => `${r.scope} ${r.label}`),
      [
        'project .agents/skills',
        'project .github/skills',
        'project .claude/skills',
        'user ~/.agents/skills',
        'other ~/.claude/skills',
        'other ~/.copilot/skills',
        'other ~/.hermes/skills',
      ],
    );
    assert.equal(roots[0]?.path, path.join(path.sep, 'w', 'app', '.agents', 'skills'));
    assert.deepEqual(
      roots.filter((r) => r.writeTarget).map((r) => r.path),
      [path.join(path.sep, 'w', 'app', '.agents', 'skills'), path.join(home, '.agents', 'skills')],
    );
  });

  it('prefixes labels with the folder name in a multi-root workspace', () => {
    const roots = skillRootCandidates(
      [
        { name: 'api', fsPath: path.join(path.sep, 'w', 'api') },
        { name: 'web', fsPath: path.join(path.sep, 'w', 'web') },
      ],
      home,
    );
    const project = roots.filter((r) => r.scope === 'project');
    assert.equal(project.length, 6);
    assert.deepEqual(project.map((r) => r.folder), ['api', 'api', 'api', 'web', 'web', 'web']);
    assert.equal(project[3]?.label, 'web/.agents/skills');
  });

  it('has only user-level roots without a folder, and none without a home', () => {
    assert.equal(skillRootCandidates([], home).length, 4);
    assert.equal(skillRootCandidates([], '').length, 0);
  });
});
