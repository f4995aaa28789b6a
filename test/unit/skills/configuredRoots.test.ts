import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { configuredRoots } from '../../../src/core/skills/index/configuredRoots';

const home = path.join(path.sep, 'home', 'dev');
const app = { name: 'app', fsPath: path.join(path.sep, 'w', 'app') };

describe('configuredRoots', () => {
  it('uses the standard roots when nothing is configured', () => {
    const { roots, problems } = configuredRoots([app], home);
    assert.equal(roots.length, 7);
    assert.deepEqual(problems, []);
  });

  it('drops disabled roots by label or by path', () => {
    const { roots } = configuredRoots([app], home, {
      disabledRoots: ['~/.hermes/skills', path.join(app.fsPath, '.claude', 'skills')],
    });
    const labels = roots.map((r) => r.label);
    assert.ok(!labels.includes('~/.hermes/skills'));
    assert.ok(!labels.includes('.claude/skills'));
    assert.equal(roots.length, 5);
  });

  it('adds extra roots after the standard ones, resolving ~ and workspace-relative paths', () => {
    const { roots } = configuredRoots([app], home, { extraRoots: ['~/team-skills', 'vendor/skills', '/opt/skills', '  '] });
    const extra = roots.slice(7);
    assert.deepEqual(
      extra.map((r) => r.path),
      [path.join(home, 'team-skills'), path.join(app.fsPath, 'vendor', 'skills'), path.normalize('/opt/skills')],
    );
    assert.ok(extra.every((r) => r.scope === 'other' && !r.writeTarget));
  });

  it('reports a relative extra root without a workspace folder, and keeps one copy of a repeated path', () => {
    const { roots, problems } = configuredRoots([], home, { extraRoots: ['skills', '~/.agents/skills'] });
    assert.equal(roots.length, 4);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /"skills" is relative.*absolute path/);
  });
});
