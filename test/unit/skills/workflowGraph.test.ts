import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';
import { MAX_DIAGRAM_STEPS, skillName, workflowGraph } from '../../../src/core/skills/model/workflowGraph';
import { repoRoot } from '../../repoRoot';

const known = (...names: string[]) => (name: string) => names.includes(name);

function frontmatter(yaml: string): Record<string, unknown> {
  const parsed = parseSkillText(`---\n${yaml}\n---\nbody\n`);
  assert.deepEqual(parsed.problems, [], 'the test YAML parses');
  return parsed.frontmatter;
}

/** The shipped Level 1 template, filled the way the sample workspace fills it. */
function workflowTemplate(first: string, second: string): Record<string, unknown> {
  const text = fs.readFileSync(path.join(repoRoot(), 'skills-templates', 'workflow', 'SKILL.md'), 'utf8');
  const vars: Record<string, string> = { name: 'prepare-release', title: 'Prepare', description: 'Prepares a release. Use when releasing.', first_skill: first, second_skill: second };
  return parseSkillText(text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => vars[key] ?? '')).frontmatter;
}

describe('workflowGraph', () => {
  it('draws the shipped Level 1 template: two steps, the dependency, the condition', () => {
    const graph = workflowGraph(workflowTemplate('count-files', 'write-changelog-entry'), known('count-files', 'write-changelog-entry'));
    assert.ok(graph);
    assert.equal(graph.total, 2);
    assert.deepEqual(
      graph.steps.map((step) => [step.id, step.skill, step.unknown, step.next]),
      [
        ['gather', 'count-files', false, ['report']],
        ['report', 'write-changelog-entry', false, []],
      ],
    );
    assert.equal(graph.steps[1]?.condition, 'steps.gather.output.entries > 0');
  });

  it('marks steps whose skill the index does not have, ignoring a pinned version range', () => {
    const graph = workflowGraph(
      frontmatter('workflow:\n  - step: a\n    skill: known-one@^1.2.0\n  - step: b\n    skill: ghost-skill\n    error_strategy: fallback\n    fallback_skill: also-missing\n  - step: c\n    skill: known-one\n    fallback_skill: known-one'),
      known('known-one'),
    );
    const byId = new Map(graph!.steps.map((step) => [step.id, step]));
    assert.equal(byId.get('a')?.unknown, false);
    assert.equal(byId.get('a')?.skill, 'known-one@^1.2.0');
    assert.equal(byId.get('b')?.unknown, true);
    assert.equal(byId.get('b')?.fallback, 'also-missing (not installed)');
    assert.equal(byId.get('c')?.fallback, 'known-one');
    assert.equal(skillName('name@>=2.0.0'), 'name');
    assert.equal(skillName('@scoped'), '@scoped');
  });

  it('takes edges from depends_on, ${steps.x…} references and steps.x in conditions, not from itself or unknown ids', () => {
    const graph = workflowGraph(
      frontmatter(
        [
          'workflow:',
          '  - step: fetch',
          '    skill: s',
          '  - step: parse',
          '    skill: s',
          '    with:',
          '      raw: ${steps.fetch.output.body}',
          '      again: ${steps.parse.output}',
          '  - step: store',
          '    skill: s',
          '    depends_on: ghost',
          '    if: steps.parse.output.ok == true',
          '  - step: notify',
          '    skill: s',
          '    depends_on: [fetch, store]',
        ].join('\n'),
      ),
      known('s'),
    );
    const next = Object.fromEntries(graph!.steps.map((step) => [step.id, step.next]));
    assert.deepEqual(next, { fetch: ['parse', 'notify'], parse: ['store'], store: ['notify'], notify: [] });
  });

  it('orders steps after the steps they wait for, file order among equals, cycles last in file order', () => {
    const graph = workflowGraph(
      frontmatter('workflow:\n  - step: last\n    skill: s\n    depends_on: [middle]\n  - step: first\n    skill: s\n  - step: middle\n    skill: s\n    depends_on: first\n  - step: other\n    skill: s'),
      known('s'),
    );
    assert.deepEqual(graph!.steps.map((step) => step.id), ['first', 'middle', 'last', 'other']);
    const cyclic = workflowGraph(frontmatter('workflow:\n  - step: x\n    skill: s\n    depends_on: y\n  - step: y\n    skill: s\n    depends_on: x\n  - step: z\n    skill: s'), known('s'));
    assert.deepEqual(cyclic!.steps.map((step) => step.id), ['z', 'x', 'y']);
    assert.deepEqual(cyclic!.steps.find((step) => step.id === 'x')?.next, ['y']);
  });

  it('still draws malformed steps: missing and repeated ids get unique keys, non-mappings become empty steps', () => {
    const graph = workflowGraph(frontmatter('workflow:\n  - skill: s\n  - step: dup\n    skill: s\n  - step: dup\n    skill: t\n  - just a string\n  - step: 7\n    skill: s'), known('s'));
    assert.deepEqual(
      graph!.steps.map((step) => [step.id, step.label, step.skill ?? null, step.unknown]),
      [
        ['#1', 'step 1', 's', false],
        ['dup', 'dup', 's', false],
        ['dup (2)', 'dup', 't', true],
        ['#4', 'step 4', null, false],
        ['7', '7', 's', false],
      ],
    );
  });

  it('reads `workflow: {steps: […]}`, is undefined without a workflow, and has no steps when it is not a list', () => {
    assert.equal(workflowGraph(frontmatter('workflow:\n  steps:\n    - step: a\n      skill: s'), known('s'))?.steps.length, 1);
    assert.equal(workflowGraph(frontmatter('name: x'), known()), undefined);
    assert.deepEqual(workflowGraph(frontmatter('workflow: run everything'), known()), { steps: [], total: 0 });
    assert.deepEqual(workflowGraph(frontmatter('workflow:'), known()), { steps: [], total: 0 });
  });

  it(`draws at most ${MAX_DIAGRAM_STEPS} steps of a huge workflow, one-line and bounded texts`, () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({ step: `s${i}`, skill: 'k', depends_on: i > 0 ? [`s${i - 1}`] : [], if: `x\n${'y'.repeat(2000)}` }));
    const graph = workflowGraph({ workflow: steps }, known('k'));
    assert.equal(graph!.total, 1000);
    assert.equal(graph!.steps.length, MAX_DIAGRAM_STEPS);
    assert.deepEqual(graph!.steps[MAX_DIAGRAM_STEPS - 2]?.next, [`s${MAX_DIAGRAM_STEPS - 1}`]);
    const condition = graph?.steps[0]?.condition ?? assert.fail('the first step has no condition');
    assert.ok(!condition.includes('\n') && condition.length <= 500 && condition.endsWith('…'));
  });
});
