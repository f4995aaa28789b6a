import * as assert from 'node:assert/strict';
import type { SkillCall } from '../../../src/core/skills/model/skillTypes';
import {
  MAX_CYCLES,
  checkRunnable,
  findSkillCycles,
  skillDependencies,
  splitSkillRef,
  workflowCalls,
} from '../../../src/core/skills/model/skillDependencies';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';

/** A call graph from `a: [b, c]` lists: each target becomes a step `to-<target>` running it. */
function graph(edges: Record<string, readonly string[]>): Map<string, SkillCall[]> {
  const calls = new Map<string, SkillCall[]>();
  for (const [from, targets] of Object.entries(edges)) {
    calls.set(from, targets.map((skill) => ({ skill, step: `to-${skill}`, via: 'skill' as const })));
    for (const skill of targets) if (!calls.has(skill) && !(skill in edges)) calls.set(skill, []);
  }
  return calls;
}

function frontmatterOf(text: string): Record<string, unknown> {
  return parseSkillText(text).frontmatter;
}

/** True when `cycle` is an elementary cycle of `calls`: every edge exists (last back to first), no skill twice. */
function isElementaryCycle(calls: ReadonlyMap<string, readonly SkillCall[]>, cycle: readonly string[]): boolean {
  if (cycle.length === 0 || new Set(cycle).size !== cycle.length) return false;
  return cycle.every((from, i) => (calls.get(from) ?? []).some((call) => call.skill === cycle[(i + 1) % cycle.length]));
}

/** Whether `name` can reach itself, by a plain breadth-first search: the reference for "is in a cycle". */
function onACycle(calls: ReadonlyMap<string, readonly SkillCall[]>, name: string): boolean {
  const seen = new Set<string>();
  const queue = (calls.get(name) ?? []).map((call) => call.skill);
  // The iterator sees what the loop appends: a plain breadth-first queue.
  for (const skill of queue) {
    if (skill === name) return true;
    if (seen.has(skill)) continue;
    seen.add(skill);
    for (const call of calls.get(skill) ?? []) queue.push(call.skill);
  }
  return false;
}

/** A small deterministic pseudo-random generator, so the property tests are repeatable. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('skillDependencies', () => {
  describe('splitSkillRef', () => {
    it('splits a name from its range at the last @', () => {
      assert.deepEqual(splitSkillRef('deploy@^1.2'), { name: 'deploy', range: '^1.2' });
      assert.deepEqual(splitSkillRef('deploy'), { name: 'deploy' });
      assert.deepEqual(splitSkillRef(' deploy @ >=2.0.0 '), { name: 'deploy', range: '>=2.0.0' });
      // A leading @ is part of the name (scoped-looking names), not an empty name with a range.
      assert.deepEqual(splitSkillRef('@team/deploy'), { name: '@team/deploy' });
      assert.deepEqual(splitSkillRef('@team/deploy@1.x'), { name: '@team/deploy', range: '1.x' });
    });
  });

  describe('workflowCalls', () => {
    it('lists step skills and fallbacks with their ranges, for the list and the `steps:` forms', () => {
      const text =
        '---\nname: a\nworkflow:\n  - step: fetch\n    skill: http-get@^1.2.0\n    error_strategy: fallback\n    fallback_skill: curl-get\n' +
        '  - step: sum\n    skill: summarize\n    version: ">=2"\n  - skill: no-id\n---\n';
      const expected: SkillCall[] = [
        { skill: 'http-get', range: '^1.2.0', step: 'fetch', via: 'skill' },
        { skill: 'curl-get', step: 'fetch', via: 'fallback' },
        { skill: 'summarize', range: '>=2', step: 'sum', via: 'skill' },
        { skill: 'no-id', step: '#3', via: 'skill' },
      ];
      assert.deepEqual(workflowCalls(frontmatterOf(text)), expected);
      const nested = '---\nname: a\nworkflow:\n  steps:\n    - step: fetch\n      skill: http-get\n---\n';
      assert.deepEqual(workflowCalls(frontmatterOf(nested)), [{ skill: 'http-get', step: 'fetch', via: 'skill' }]);
    });

    it('reads nothing from malformed workflows and skips malformed steps', () => {
      for (const workflow of [undefined, 'run everything', 42, null, { steps: 'x' }, {}, []]) {
        assert.deepEqual(workflowCalls(workflow === undefined ? {} : { workflow }), [], JSON.stringify(workflow));
      }
      const steps = ['text', 7, null, ['nested'], { step: 'a', skill: 5 }, { step: 'b', skill: '   ' }, { step: 'c', fallback_skill: ['x'] }, { step: 'd', skill: 'ok' }];
      assert.deepEqual(workflowCalls({ workflow: steps }), [{ skill: 'ok', step: 'd', via: 'skill' }]);
    });

    it('reads a workflow written with YAML aliases once per distinct call, and stops after 10,000 steps', () => {
      const aliases = Array.from({ length: 40_000 }, () => '*s').join(', ');
      const text = `---\nname: a\nshared: &s { step: fetch, skill: http-get }\nworkflow: [${aliases}]\n---\n`;
      const frontmatter = frontmatterOf(text);
      assert.equal((frontmatter['workflow'] as unknown[]).length, 40_000, 'the YAML really repeats the step');
      assert.deepEqual(workflowCalls(frontmatter), [{ skill: 'http-get', step: 'fetch', via: 'skill' }]);
      const distinct = Array.from({ length: 25_000 }, (_, i) => ({ step: `s${i}`, skill: `k${i}` }));
      const calls = workflowCalls({ workflow: distinct });
      assert.equal(calls.length, 10_000);
      assert.equal(calls.at(-1)?.skill, 'k9999');
    });
  });

  describe('findSkillCycles', () => {
    it('finds a cycle of two, of three and a workflow that runs itself, each once from its smallest name', () => {
      assert.deepEqual(findSkillCycles(graph({ b: ['a'], a: ['b'] })), [['a', 'b']]);
      assert.deepEqual(findSkillCycles(graph({ c: ['a'], a: ['b'], b: ['c'] })), [['a', 'b', 'c']]);
      assert.deepEqual(findSkillCycles(graph({ a: ['a', 'b'], b: [] })), [['a']]);
    });

    it('counts a fallback_skill as a call', () => {
      const calls = new Map<string, SkillCall[]>([
        ['a', [{ skill: 'x', step: 'fetch', via: 'skill' }, { skill: 'b', step: 'fetch', via: 'fallback' }]],
        ['b', [{ skill: 'a', step: 'run', via: 'skill' }]],
        ['x', []],
      ]);
      assert.deepEqual(findSkillCycles(calls), [['a', 'b']]);
    });

    it('reports no cycle for a diamond or a chain', () => {
      assert.deepEqual(findSkillCycles(graph({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] })), []);
      assert.deepEqual(findSkillCycles(graph({ a: ['b'], b: ['c'], c: ['unknown'] })), []);
      assert.deepEqual(findSkillCycles(new Map()), []);
    });

    it('lists every elementary cycle when cycles share skills', () => {
      // a ⇄ b, b ⇄ c, and a → b → c → a.
      const cycles = findSkillCycles(graph({ a: ['b'], b: ['a', 'c'], c: ['b', 'a'] }));
      assert.deepEqual([...cycles].sort(), [['a', 'b'], ['a', 'b', 'c'], ['b', 'c']]);
    });

    it('stops after 100 cycles in a dense graph', () => {
      const names = Array.from({ length: 12 }, (_, i) => `s${String(i).padStart(2, '0')}`);
      const edges = Object.fromEntries(names.map((name) => [name, names.filter((other) => other !== name)]));
      const cycles = findSkillCycles(graph(edges));
      assert.equal(cycles.length, MAX_CYCLES);
      assert.ok(cycles.every((cycle) => isElementaryCycle(graph(edges), cycle)));
      assert.equal(new Set(cycles.map((cycle) => cycle.join(' '))).size, cycles.length, 'no cycle twice');
    });

    it('handles 10,000 skills in one long chain with a cycle at the end, and 30,000 without deep recursion', () => {
      const chain = (length: number): Map<string, SkillCall[]> => {
        const edges: Record<string, string[]> = {};
        for (let i = 0; i < length; i++) edges[`k${i}`] = [`k${i + 1}`];
        edges[`k${length}`] = [`k${length - 2}`];
        return graph(edges);
      };
      const calls = chain(10_000);
      const dependencies = skillDependencies(calls);
      assert.deepEqual(findSkillCycles(calls), [['k10000', 'k9998', 'k9999']]);
      assert.deepEqual(dependencies.cyclesThrough('k9999'), [['k9999', 'k10000', 'k9998']]);
      assert.deepEqual(dependencies.cyclesThrough('k0'), []);
      // Far deeper than the call stack: a recursive search would throw RangeError here.
      assert.deepEqual(findSkillCycles(chain(30_000)), [['k29998', 'k29999', 'k30000']]);
    });

    it('handles one cycle of 10,000 skills without deep recursion', () => {
      const edges: Record<string, string[]> = {};
      for (let i = 0; i < 10_000; i++) edges[`r${i}`] = [`r${(i + 1) % 10_000}`];
      const cycles = findSkillCycles(graph(edges));
      assert.equal(cycles.length, 1);
      assert.equal(cycles[0]?.length, 10_000);
      assert.equal(cycles[0][0], 'r0');
    });
  });

  describe('cyclesThrough', () => {
    it('gives every skill of a cycle that cycle, starting at itself', () => {
      const dependencies = skillDependencies(graph({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }));
      assert.deepEqual(dependencies.cyclesThrough('a'), [['a', 'b', 'c']]);
      assert.deepEqual(dependencies.cyclesThrough('b'), [['b', 'c', 'a']]);
      assert.deepEqual(dependencies.cyclesThrough('c'), [['c', 'a', 'b']]);
      assert.deepEqual(dependencies.cyclesThrough('d'), [], 'd calls into the cycle but is not in it');
      assert.deepEqual(dependencies.cyclesThrough('nobody'), []);
    });

    it('uses the calls given for a skill whose text differs from the graph (an unsaved editor buffer)', () => {
      const dependencies = skillDependencies(graph({ a: ['b'], b: ['c'], c: ['x'], x: [] }));
      assert.deepEqual(dependencies.cyclesThrough('c'), []);
      assert.deepEqual(dependencies.cyclesThrough('c', [{ skill: 'a', step: 'back', via: 'skill' }]), [['c', 'a', 'b']]);
      // The same calls as the graph: the graph's answer.
      assert.deepEqual(dependencies.cyclesThrough('c', [{ skill: 'x', step: 'go', via: 'skill' }]), []);
      const looped = skillDependencies(graph({ a: ['b'], b: ['a'] }));
      assert.deepEqual(looped.cyclesThrough('a', [{ skill: 'other', step: 'go', via: 'skill' }]), [], 'the edit broke the cycle');
      assert.deepEqual(looped.cyclesThrough('new-skill', [{ skill: 'new-skill', step: 'me', via: 'skill' }]), [['new-skill']]);
    });

    it('still gives every skill on a cycle a cycle through it past the enumeration bound', () => {
      // A hub and 300 skills that each call it and are called by it: 300 cycles, more than are listed.
      const hub: string[] = [];
      const edges: Record<string, string[]> = { hub };
      for (let i = 0; i < 300; i++) {
        edges[`leaf${i}`] = ['hub'];
        hub.push(`leaf${i}`);
      }
      const dependencies = skillDependencies(graph(edges));
      for (let i = 0; i < 300; i++) assert.deepEqual(dependencies.cyclesThrough(`leaf${i}`), [[`leaf${i}`, 'hub']]);
      assert.equal(dependencies.cyclesThrough('hub').length, MAX_CYCLES);
    });

    it('on random graphs: a skill gets cycles exactly when it is on one, and each is an elementary cycle through it', () => {
      for (const [seed, size, density] of [[1, 30, 0.05], [2, 60, 0.03], [3, 25, 0.3], [4, 200, 0.01], [5, 40, 0.5]] as const) {
        const next = random(seed);
        const edges: Record<string, string[]> = {};
        for (let i = 0; i < size; i++) {
          const targets: string[] = [];
          for (let j = 0; j < size; j++) if (next() < density) targets.push(`n${j}`);
          edges[`n${i}`] = targets;
        }
        const calls = graph(edges);
        const dependencies = skillDependencies(calls);
        for (const name of calls.keys()) {
          const cycles = dependencies.cyclesThrough(name);
          assert.equal(cycles.length > 0, onACycle(calls, name), `seed ${seed}: ${name}`);
          for (const cycle of cycles) {
            assert.equal(cycle[0], name);
            assert.ok(isElementaryCycle(calls, cycle), `seed ${seed}: ${cycle.join(' → ')} is not a cycle of the graph`);
          }
        }
        for (const cycle of findSkillCycles(calls)) assert.ok(isElementaryCycle(calls, cycle));
      }
    });
  });

  describe('checkRunnable', () => {
    const calls = new Map<string, SkillCall[]>([
      ['release', [
        { skill: 'build', range: '^2.0.0', step: 'compile', via: 'skill' },
        { skill: 'publish', step: 'ship', via: 'skill' },
        { skill: 'notify', range: '^1.0.0', step: 'ship', via: 'fallback' },
      ]],
      ['build', [{ skill: 'lint-code', step: 'check', via: 'skill' }]],
      ['publish', [{ skill: 'sign', range: 'not a range!', step: 'sign', via: 'skill' }, { skill: 'release', step: 'again', via: 'skill' }]],
      ['notify', []],
      ['sign', []],
    ]);
    const versions: Record<string, string> = { release: '1.0.0', build: '1.4.0', publish: '3.0.0' };

    it('names unknown skills, unmet ranges with the installed version, and cycles with their path', () => {
      const errors = checkRunnable('release', (name) => calls.get(name), (name) => versions[name]);
      assert.deepEqual(errors, [
        'Step "compile" of "release" runs "build" at ^2.0.0, but version 1.4.0 is installed. Update "build" or change the range.',
        'Step "ship" of "release" falls back to "notify" at ^1.0.0, but the installed "notify" declares no version. Add `version:` to its SKILL.md or drop the range.',
        'Step "check" of "build" runs "lint-code", which is not installed. Fix the name in the workflow of "build" or add the skill.',
        'Step "sign" of "publish" runs "sign" at "not a range!", which is not a valid version range; write one like ^1.2.0 or >=2.0.0.',
        'Workflows call each other in a cycle: publish → release → publish, so running "release" would never finish. Change one of these workflows so that it no longer calls back into the cycle.',
      ]);
    });

    it('accepts a runnable tree, a diamond included, and checks only what the root reaches', () => {
      const tree = graph({ root: ['left', 'right'], left: ['shared'], right: ['shared'], shared: [], elsewhere: ['elsewhere'] });
      assert.deepEqual(checkRunnable('root', (name) => tree.get(name), () => '1.0.0'), []);
      assert.match(checkRunnable('elsewhere', (name) => tree.get(name), () => '1.0.0')[0] ?? '', /cycle: elsewhere → elsewhere/);
      assert.deepEqual(checkRunnable('ghost', (name) => tree.get(name), () => undefined), ['The skill "ghost" is not installed, so it cannot run. Check the name or add the skill.']);
    });

    it('walks a chain of 10,000 skills and finds the cycle at its end', () => {
      const edges: Record<string, string[]> = {};
      for (let i = 0; i < 9_999; i++) edges[`k${i}`] = [`k${i + 1}`];
      edges['k9999'] = ['k9998'];
      const chain = graph(edges);
      const errors = checkRunnable('k0', (name) => chain.get(name), () => '1.0.0');
      assert.deepEqual(errors.map((error) => /cycle: ([^,]*),/.exec(error)?.[1]), ['k9998 → k9999 → k9998']);
    });

    it('refuses a tree of more than 10,000 skills', () => {
      const edges: Record<string, string[]> = {};
      for (let i = 0; i < 10_005; i++) edges[`k${i}`] = [`k${i + 1}`];
      const chain = graph(edges);
      assert.deepEqual(checkRunnable('k0', (name) => chain.get(name), () => '1.0.0'), [
        'The workflow of "k0" reaches more than 10,000 skills through the workflows it runs; split it into smaller workflows.',
      ]);
    });
  });
});
