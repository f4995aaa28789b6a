import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeFileSystem } from '../../../src/core/base/nodeFileSystem';
import type { RunResult } from '../../../src/core/execution/executionTypes';
import { locateJsonError, parseJsonText } from '../../../src/core/execution/jsonText';
import type { SkillExample } from '../../../src/core/execution/skillExamples';
import { checkExample, loadSkillExamples, readExample, subsetMismatch, testSkillExamples } from '../../../src/core/execution/skillExamples';
import { SchemaValidator } from '../../../src/core/execution/schemaValidator';
import { SkillIndex } from '../../../src/core/skills/index/skillIndex';
import { SkillSearch } from '../../../src/core/skills/search/skillSearch';
import { repoRoot } from '../../repoRoot';

const example = (expect: SkillExample['expect']): SkillExample => ({ file: 'examples/x.json', arguments: {}, expect });
const ok = (output: unknown): RunResult => ({ success: true, output, error: null, trace_id: 't' });
const failed = (error: string): RunResult => ({ success: false, output: null, error, trace_id: 't' });

describe('JSON with positions', () => {
  it('parses valid JSON like JSON.parse', () => {
    assert.deepEqual(parseJsonText('{"a": [1, -2.5e3, "x\\n\\u00e9"], "b": null}'), { ok: true, value: { a: [1, -2500, 'x\né'], b: null } });
    for (const text of ['0', '"s"', 'true', '[]', '{}', ' [ {"k": false} ] ']) assert.equal(locateJsonError(text), undefined, text);
  });

  it('names the line, the column and what was expected', () => {
    const cases: [string, number, number, RegExp][] = [
      ['{"a": 1,}', 1, 9, /a comma before \} is not allowed/],
      ['[1, 2,]', 1, 7, /a comma before \] is not allowed/],
      ['{a: 1}', 1, 2, /property names must be in double quotes/],
      ["{'a': 1}", 1, 2, /double quotes/],
      ['{\n  "a": 1\n  "b": 2\n}', 3, 3, /expected , or \} after the property value but found "\\""/],
      ['{"a" 1}', 1, 6, /expected : after the property name/],
      ['{"a": tru}', 1, 7, /expected true but found "t"/],
      ['{"a": 01}', 1, 8, /expected , or \}/],
      ['[1.]', 1, 4, /expected a digit after the decimal point/],
      ['"line\nbreak"', 1, 6, /must be escaped/],
      ['"\\x"', 1, 3, /\\x is not a JSON escape/],
      ['{"a": 1', 1, 8, /expected , or \} after the property value but the text ends/],
      ['', 1, 1, /expected a JSON value .* but the text ends/],
      ['{} {}', 1, 4, /unexpected text after the JSON value/],
      ['// note\n{}', 1, 1, /JSON has no comments/],
      ['{"a": 1}\r\n,', 2, 1, /unexpected text/],
    ];
    for (const [text, line, column, message] of cases) {
      const parsed = parseJsonText(text);
      assert.equal(parsed.ok, false, text);
      assert.deepEqual([parsed.line, parsed.column], [line, column], `${JSON.stringify(text)}: ${parsed.message}`);
      assert.match(parsed.message, message, text);
    }
  });

  it('reports JSON nested too deeply instead of crashing', () => {
    const parsed = parseJsonText('['.repeat(200_000));
    assert.equal(parsed.ok, false);
  });
});

describe('skill examples', () => {
  it('reads an example and its expectation', () => {
    assert.deepEqual(readExample('examples/a.json', '\uFEFF{"description": "d", "arguments": {"n": 1}, "expect": {"output": {"ok": true}, "schema": {"type": "object"}}}'), {
      ok: true,
      example: { file: 'examples/a.json', description: 'd', arguments: { n: 1 }, expect: { success: true, output: { ok: true }, schema: { type: 'object' } } },
    });
    assert.deepEqual(readExample('e.json', '{"arguments": {}, "expect": {"error": "boom"}}'), { ok: true, example: { file: 'e.json', arguments: {}, expect: { success: false, error: 'boom' } } });
    assert.deepEqual(readExample('e.json', '{}'), { ok: true, example: { file: 'e.json', arguments: {}, expect: { success: true } } });
  });

  it('explains what is wrong with a bad example', () => {
    const error = (text: string): string => {
      const loaded = readExample('examples/bad.json', text);
      assert.equal(loaded.ok, false, text);
      return loaded.error;
    };
    assert.match(error('{"arguments": {"a": 1},}'), /^examples\/bad\.json: not valid JSON at line 1, column 24: a comma before \}/);
    assert.match(error('[1]'), /an example is a JSON object/);
    assert.match(error('{"args": {}}'), /no key "args".*"arguments", "expect", "description"/);
    assert.match(error('{"arguments": [1]}'), /"arguments" must be an object/);
    assert.match(error('{"expect": {"outptu": {}}}'), /"expect" has no key "outptu" \(did you mean "output"\?\)/);
    assert.match(error('{"expect": {"success": "no"}}'), /"expect.success" must be true or false/);
    assert.match(error('{"expect": {"error": 3}}'), /"expect.error" must be a piece of the error text/);
    assert.match(error('{"expect": {"success": true, "error": "x"}}'), /keep one of them/);
    assert.match(error('{"expect": {"success": false, "output": {}}}'), /checks the output of a run that must fail/);
  });

  it('matches an expected subset of the output', () => {
    assert.equal(subsetMismatch({ a: 1, b: { c: [1, { d: 'x' }] } }, { a: 1, z: 0, b: { c: [1, { d: 'x', e: 2 }], y: 1 } }), undefined);
    assert.equal(subsetMismatch({ a: 2 }, { a: 1 }), 'output.a: expected 2, got 1');
    assert.equal(subsetMismatch({ b: 1 }, { a: 1 }), 'output.b: missing (the output has "a")');
    assert.equal(subsetMismatch({ 'x-y': 1 }, {}), 'output["x-y"]: missing (the output has no keys)');
    assert.equal(subsetMismatch([1, 2], [1, 2, 3]), 'output: expected 2 item(s), got 3: [1,2,3]');
    assert.equal(subsetMismatch([1, 2], [2, 1]), 'output[0]: expected 1, got 2');
    assert.equal(subsetMismatch({ a: {} }, { a: [] }), 'output.a: expected an object, got []');
    assert.equal(subsetMismatch([], {}), 'output: expected a list, got {}');
    assert.equal(subsetMismatch('5', 5), 'output: expected "5", got 5');
    assert.equal(subsetMismatch(null, null), undefined);
  });

  it('checks a run against output, schema, success and error expectations', () => {
    const validator = new SchemaValidator();
    assert.deepEqual(checkExample('s', example({ success: true }), ok(1), validator), { passed: true });
    assert.match(checkExample('s', example({ success: true }), failed('boom'), validator).message ?? '', /the run failed: boom/);
    assert.match(checkExample('s', example({ success: true, output: { n: 2 } }), ok({ n: 3 }), validator).message ?? '', /expect\.output: output\.n: expected 2, got 3/);
    const schema = { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } };
    assert.deepEqual(checkExample('s', example({ success: true, schema }), ok({ n: 3 }), validator), { passed: true });
    assert.match(checkExample('s', example({ success: true, schema }), ok({ n: 'x' }), validator).message ?? '', /does not match expect\.schema: .*n/);
    assert.match(checkExample('s', example({ success: true, schema: 5 }), ok({}), validator).message ?? '', /expect\.schema cannot be used/);
    assert.deepEqual(checkExample('s', example({ success: false }), failed('any'), validator), { passed: true });
    assert.match(checkExample('s', example({ success: false }), ok({ n: 1 }), validator).message ?? '', /expected the run to fail, but it succeeded with \{"n":1\}/);
    assert.deepEqual(checkExample('s', example({ success: false, error: 'quota' }), failed('over quota today'), validator), { passed: true });
    assert.match(checkExample('s', example({ success: false, error: 'quota' }), failed('timed out'), validator).message ?? '', /containing "quota", but it failed with: timed out/);
  });

  describe('on disk', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-examples-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('loads examples/*.json sorted, skipping other files, and keeps a broken one as a failure', async () => {
      assert.deepEqual(await loadSkillExamples(new NodeFileSystem(), dir), [], 'no examples folder');
      fs.mkdirSync(path.join(dir, 'examples', 'nested.json'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'examples', 'b.json'), '{"arguments": {"n": 2}}');
      fs.writeFileSync(path.join(dir, 'examples', 'a.JSON'), '{"arguments": {"n": 1}}');
      fs.writeFileSync(path.join(dir, 'examples', 'c.json'), '{"arguments": ');
      fs.writeFileSync(path.join(dir, 'examples', 'README.md'), '# not an example');
      const loaded = await loadSkillExamples(new NodeFileSystem(), dir);
      assert.deepEqual(loaded.map((l) => (l.ok ? l.example.file : l.file)), ['examples/a.JSON', 'examples/b.json', 'examples/c.json']);
      assert.match(loaded[2]?.ok === false ? loaded[2].error : '', /examples\/c\.json: not valid JSON at line 1, column 15/);
    });

    it('runs the examples, then checks binding and ranking of the example queries', async () => {
      const root = path.join(dir, 'skills');
      fs.cpSync(path.join(repoRoot(), 'test', 'fixtures', 'execution', 'skills'), root, { recursive: true });
      // Three skills that answer vague-notes' example query better than it does.
      for (const name of ['meeting-notes', 'notes-of-meetings', 'write-meeting-notes']) {
        fs.mkdirSync(path.join(root, name));
        const description = 'Writes up meeting notes from a transcript. Use when the user wants the meeting notes written up.';
        fs.writeFileSync(path.join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\nexample_queries:\n  - write up the meeting notes\n---\n\n# Notes\n`);
      }
      const index = new SkillIndex({ fs: new NodeFileSystem(), roots: [{ path: root, scope: 'project', label: 'fixtures', writeTarget: false }] });
      await index.load();
      const search = new SkillSearch(index.active());
      const shout = index.get('shout');
      const vague = index.get('vague-notes');
      assert.ok(shout && vague);
      const calls: unknown[] = [];
      const seen: string[] = [];
      const report = await testSkillExamples({
        record: shout,
        kind: 'script',
        fs: new NodeFileSystem(),
        validator: new SchemaValidator(),
        search,
        run: (args) => {
          calls.push(args);
          const text = String(args['text']);
          return Promise.resolve(text === '' ? failed('shout.mjs exited with code 1: nothing to shout') : ok({ shout: `${text.toUpperCase()}!` }));
        },
        onResult: (result) => seen.push(result.name),
      });
      assert.deepEqual(calls, [{ text: 'hi' }, { text: 'hi' }, { text: '' }], 'the broken and the mistyped example do not run');
      assert.deepEqual(seen, ['examples/a-passes.json', 'examples/b-wrong-output.json', 'examples/c-broken.json', 'examples/d-must-fail.json', 'examples/e-typo.json']);
      assert.deepEqual(report.results.map((r) => r.passed), [true, false, false, true, false]);
      assert.deepEqual([report.skill, report.passed, report.failed], ['shout', 2, 3]);

      const queries = await testSkillExamples({
        record: vague,
        kind: 'instructions',
        fs: new NodeFileSystem(),
        validator: new SchemaValidator(),
        search,
        run: () => Promise.resolve(failed('missing required argument "topic"')),
      });
      assert.deepEqual(queries.results.map((r) => [r.kind, r.name, r.passed]), [
        ['binding', 'binding', false],
        ['query', 'write up the meeting notes', false],
      ]);
      assert.match(queries.results[1]?.message ?? '', /ranks "vague-notes" #4 for this query; it must be in the top 3 \(ahead of it: write-meeting-notes, (meeting-notes, notes-of-meetings|notes-of-meetings, meeting-notes)\)/);
      assert.equal(queries.results[1]?.rank, 4);
    });
  });
});
