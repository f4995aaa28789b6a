import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { lintSkillFile } from '../../../src/core/skills/lint/lintRunner';
import type { SkillCall } from '../../../src/core/skills/model/skillTypes';
import { skillDependencies, workflowCalls } from '../../../src/core/skills/model/skillDependencies';
import { lintSkill } from '../../../src/core/skills/lint/skillLint';
import type { LintContext } from '../../../src/core/skills/lint/ruleInput';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';
import type { LintFinding } from '../../../src/core/skills/model/skillTypes';
import { BODY, only, skill } from './lintFixtures';

describe('lintSkill: workflows that call each other in a cycle (SW709)', () => {
  /** A Level 1 skill whose second step runs `next` (and, with `fallback`, falls back to it instead). */
  const HAND_OFF = '# Hand off\n\nPrepares the input, then hands it to the next skill.\n';
  const caller = (name: string, next: string, fallback = false): string =>
    skill(
      'permissions: {}\nworkflow:\n  - step: prepare\n    skill: helper\n' +
        (fallback ? `  - step: hand-off\n    skill: helper\n    error_strategy: fallback\n    fallback_skill: ${next}\n` : `  - step: hand-off\n    skill: ${next}\n`),
      HAND_OFF,
      name,
    );
  const installed = (names: readonly string[]): LintContext['skills'] =>
    new Map([...names, 'helper'].map((name) => [name, [{ scope: 'project', file: `/p/${name}/SKILL.md`, version: '1.0.0' }]]));

  /** Lints each text with the dependency graph of all of them, as the index would give it. */
  async function lintAll(texts: Record<string, string>): Promise<Map<string, LintFinding[]>> {
    const calls = new Map<string, readonly SkillCall[]>(Object.entries(texts).map(([name, text]) => [name, workflowCalls(parseSkillText(text).frontmatter)]));
    calls.set('helper', []);
    const dependencies = skillDependencies(calls);
    const skills = installed(Object.keys(texts));
    const results = new Map<string, LintFinding[]>();
    for (const [name, text] of Object.entries(texts)) {
      results.set(name, await lintSkill(parseSkillText(text), { folderName: name, exists: () => true, skills, dependencies }));
    }
    return results;
  }

  it('reports a cycle of three on every skill in it, with the path from that skill, at its calling step', async () => {
    const results = await lintAll({ alpha: caller('alpha', 'beta'), beta: caller('beta', 'gamma'), gamma: caller('gamma', 'alpha') });
    const paths: Record<string, string> = { alpha: 'alpha → beta → gamma → alpha', beta: 'beta → gamma → alpha → beta', gamma: 'gamma → alpha → beta → gamma' };
    const next: Record<string, string> = { alpha: 'beta', beta: 'gamma', gamma: 'alpha' };
    for (const [name, findings] of results) {
      assert.deepEqual(findings.map((f) => f.code), ['SW709'], name);
      const [found] = findings;
      assert.ok(found);
      assert.equal(found.severity, 'error');
      assert.ok(found.message.startsWith(`Workflows call each other in a cycle: ${paths[name]}.`), found.message);
      assert.match(found.message, /Step "hand-off" runs/);
      // Line 8 is `    skill: <next>`; the range covers the name.
      assert.deepEqual(found.range, { startLine: 8, startColumn: 11, endLine: 8, endColumn: 11 + (next[name] ?? '').length });
    }
  });

  it('reports a cycle of two, and one made by a fallback_skill, pointing at the fallback', async () => {
    const results = await lintAll({ alpha: caller('alpha', 'beta'), beta: caller('beta', 'alpha', true) });
    const [onAlpha] = results.get('alpha') ?? [];
    const [onBeta] = results.get('beta') ?? [];
    assert.ok(onAlpha && onBeta);
    assert.match(onAlpha.message, /cycle: alpha → beta → alpha\. Step "hand-off" runs "beta"/);
    assert.match(onBeta.message, /cycle: beta → alpha → beta\. Step "hand-off" falls back to "alpha"/);
    assert.equal(onBeta.range.startLine, 10, 'the `fallback_skill:` line');
    assert.match(onBeta.message, /in the workflow of "alpha"/, 'says where else the cycle can be broken');
  });

  it('reports a workflow that runs itself, with or without the index', async () => {
    const text = caller('alpha', 'alpha');
    const [found] = await only('SW709', text, { skills: installed(['alpha']) });
    assert.match(found?.message ?? '', /cycle: alpha → alpha\. Step "hand-off" runs "alpha", its own skill/);
    assert.deepEqual((await lintAll({ alpha: text })).get('alpha')?.map((f) => f.code), ['SW709']);
    // Named by its folder when the frontmatter has no name.
    const unnamed = text.replace('name: alpha\n', '');
    const found2 = (await lintSkill(parseSkillText(unnamed), { folderName: 'alpha', exists: () => true })).filter((f) => f.code === 'SW709');
    assert.equal(found2.length, 1);
  });

  it('does not report a diamond, a chain, or a skill that only calls into a cycle', async () => {
    const diamond = skill('permissions: {}\nworkflow:\n  - step: one\n    skill: beta\n  - step: two\n    skill: gamma\n', BODY, 'alpha');
    const results = await lintAll({ alpha: diamond, beta: caller('beta', 'delta'), gamma: caller('gamma', 'delta'), delta: skill('', BODY, 'delta') });
    for (const [name, findings] of results) assert.deepEqual(findings, [], name);
    const looped = await lintAll({ alpha: caller('alpha', 'beta'), beta: caller('beta', 'gamma'), gamma: caller('gamma', 'beta') });
    assert.deepEqual(looped.get('alpha'), []);
    assert.deepEqual(looped.get('beta')?.map((f) => f.code), ['SW709']);
  });

  it('lints an unsaved edit against the others: breaking the cycle in the buffer clears it there', async () => {
    const texts = { alpha: caller('alpha', 'beta'), beta: caller('beta', 'alpha') };
    const calls = new Map<string, readonly SkillCall[]>(Object.entries(texts).map(([name, text]) => [name, workflowCalls(parseSkillText(text).frontmatter)]));
    const dependencies = skillDependencies(calls);
    const context = { folderName: 'beta', exists: () => true, skills: installed(['alpha', 'beta']), dependencies };
    assert.deepEqual((await lintSkill(parseSkillText(caller('beta', 'helper')), context)).map((f) => f.code), []);
    assert.deepEqual((await lintSkill(parseSkillText(texts.beta), context)).map((f) => f.code), ['SW709']);
  });

  it('lintSkillFile: takes the graph from the index once per version of it, and sees a fix once the index does', async () => {
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillwright-sw709-'));
    const root = path.join(temp, 'skills');
    const write = (name: string, text: string): string => {
      const file = path.join(root, name, 'SKILL.md');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return file;
    };
    class CountingFileSystem extends NodeFileSystem {
      reads = 0;
      override readFile(p: string): Promise<Uint8Array> {
        this.reads++;
        return super.readFile(p);
      }
    }
    const files = {
      alpha: write('alpha', caller('alpha', 'beta')),
      beta: write('beta', caller('beta', 'gamma')),
      gamma: write('gamma', caller('gamma', 'alpha')),
    };
    write('helper', skill('', HAND_OFF, 'helper'));
    const fsPort = new CountingFileSystem();
    let snapshot: string | undefined;
    const options = {
      fs: fsPort,
      roots: [{ path: root, scope: 'project' as const, label: 'skills', writeTarget: true }],
      platform: 'linux' as const,
      snapshot: { read: () => Promise.resolve(snapshot), write: (text: string) => Promise.resolve(void (snapshot = text)) },
    };
    /** Lints every file; returns the codes per file and how many files were read for it. */
    const lintAllFiles = async (index: SkillIndex): Promise<{ codes: string[][]; reads: number }> => {
      const before = fsPort.reads;
      const codes: string[][] = [];
      for (const file of Object.values(files)) codes.push((await lintSkillFile({ file }, fsPort, index)).map((f) => f.code));
      return { codes, reads: fsPort.reads - before };
    };
    /** The snapshot as version 2 wrote it: the same rows without the calls it did not keep. */
    const asVersion2 = (text: string | undefined): string => {
      const data = JSON.parse(text ?? '{}') as { version: number; skills: unknown[][] };
      return JSON.stringify({ ...data, version: 2, skills: data.skills.map((row) => row.slice(0, 14)) });
    };
    const fresh = new SkillIndex(options);
    const served = new SkillIndex({ ...options, snapshot: { read: () => Promise.resolve(asVersion2(snapshot)), write: () => Promise.resolve() } });
    try {
      await fresh.load();
      assert.deepEqual(fresh.get('alpha')?.calls, [{ skill: 'helper', step: 'prepare', via: 'skill' }, { skill: 'beta', step: 'hand-off', via: 'skill' }]);
      assert.deepEqual(fresh.get('helper')?.calls, []);
      // Records read from the disk carry their calls: each lint reads only its own file.
      const first = await lintAllFiles(fresh);
      assert.deepEqual(first, { codes: [['SW709'], ['SW709'], ['SW709']], reads: 3 });
      const [onBeta] = await lintSkillFile({ file: files.beta }, fsPort, fresh);
      assert.match(onBeta?.message ?? '', /cycle: beta → gamma → alpha → beta\./);

      // Served from a version 2 snapshot, which kept no workflows: the check against the disk reads
      // its skills again, so the graph is whole without the lint reading any file for it.
      await fresh.saveSnapshot();
      await served.load();
      assert.equal(served.get('alpha')?.calls, undefined, 'a version 2 snapshot kept no workflows');
      await served.validated;
      assert.deepEqual(served.get('alpha')?.calls, fresh.get('alpha')?.calls, 'read again once the index checked the disk');
      assert.deepEqual(await lintAllFiles(served), { codes: [['SW709'], ['SW709'], ['SW709']], reads: 3 });
      assert.deepEqual(await lintAllFiles(served), { codes: [['SW709'], ['SW709'], ['SW709']], reads: 3 }, 'the same index version, the same graph');

      // Break the cycle in gamma; once the index has the change, none of the three reports it,
      // and the unchanged workflows are not read again.
      write('gamma', caller('gamma', 'helper') + '\n');
      await served.invalidate(files.gamma);
      assert.deepEqual(await lintAllFiles(served), { codes: [[], [], []], reads: 3 });
    } finally {
      fresh.dispose();
      served.dispose();
      fs.rmSync(temp, { recursive: true, force: true });
    }
  });
});
