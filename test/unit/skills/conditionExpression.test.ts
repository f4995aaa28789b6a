import * as assert from 'node:assert/strict';
import { checkCondition, evaluateCondition, isTruthy, lookupPath } from '../../../src/core/skills/model/conditionExpression';
import type { EvalResult } from '../../../src/core/skills/model/conditionExpression';
import { parseCondition } from '../../../src/core/skills/model/conditionParser';
import { mulberry32 } from '../seededRandom';

const scope = {
  input: { x: 1, name: 'report', flag: true, off: false, zero: 0, empty: '', none: null, list: [], items: [1, 2], obj: { a: [1, { b: 'c' }] } },
  steps: { fetch: { output: { count: 3, items: [{ name: 'first' }, { name: 'second' }] } } },
  context: { languageId: 'typescript' },
};
const resolve = (path: readonly string[]): unknown => lookupPath(scope, path);

function value(text: string, resolver: (path: readonly string[]) => unknown = resolve): boolean {
  const result = checkCondition(text, resolver);
  if (!result.ok) assert.fail(`${text}: ${result.error}`);
  return result.value;
}

function evalError(text: string, resolver: (path: readonly string[]) => unknown = resolve): string {
  assert.ok(parseCondition(text).ok, `${text} should parse`);
  const result = checkCondition(text, resolver);
  if (result.ok) assert.fail(`${text} should not evaluate, got ${String(result.value)}`);
  return result.error;
}

function parseError(text: string): string {
  const result = parseCondition(text);
  if (result.ok) assert.fail(`${text.slice(0, 60)} should not parse`);
  return result.error;
}

describe('conditionExpression', () => {
  describe('literals', () => {
    it('reads numbers, including negative numbers, decimals and exponents', () => {
      assert.equal(value('0.5 == 0.5'), true);
      assert.equal(value('-1 < 0'), true);
      assert.equal(value('-2.5 < -2'), true);
      assert.equal(value('1e3 == 1000'), true);
      assert.equal(value('10 > 9'), true);
      assert.equal(value('1 == 1.0'), true);
    });

    it('reads single- and double-quoted strings with escapes', () => {
      assert.equal(value(`'it\\'s' == "it's"`), true);
      assert.equal(value(`"say \\"hi\\"" == 'say "hi"'`), true);
      assert.equal(value(`'a\\\\b' == "a\\\\b"`), true);
      assert.equal(value(`'\\u0041' == 'A'`), true);
      assert.equal(value(`'tab\\there' == "tab\there"`), true);
      assert.equal(value(`'\${input.x}' == '\${input.x}'`), true, 'a string is never interpolated');
      assert.equal(value(`'' == ""`), true);
    });

    it('reads true, false and null, and gives a bare literal its truthiness', () => {
      assert.equal(value('true'), true);
      assert.equal(value('false'), false);
      assert.equal(value('null'), false);
      assert.equal(value('null == null'), true);
      assert.equal(value('0'), false);
      assert.equal(value("''"), false);
      assert.equal(value("'no'"), true);
      assert.equal(value('2'), true);
    });

    it('reports malformed literals with their column', () => {
      assert.match(parseError("input.x == 'abc"), /unterminated string starting at column 12; close it with '/);
      assert.match(parseError('"abc'), /unterminated string starting at column 1; close it with "/);
      assert.match(parseError("'a\nb'"), /unterminated string starting at column 1/);
      assert.match(parseError("'a\\qb'"), /unknown escape "\\q" in the string starting at column 1; use/);
      assert.match(parseError("'a\\"), /unknown escape "\\"/);
      assert.match(parseError('1.5.2 == 1'), /malformed number "1\.5\." at column 1/);
      assert.match(parseError('3abc'), /malformed number "3a" at column 1/);
      assert.match(parseError('1e999 > 0'), /number "1e999" at column 1 is too large/);
    });
  });

  describe('references', () => {
    it('reads input, steps and context paths, with array indexes as segments', () => {
      assert.equal(value("steps.fetch.output.items.0.name == 'first'"), true);
      assert.equal(value("steps.fetch.output.items.1.name == 'second'"), true);
      assert.equal(value('steps.fetch.output.count >= 3'), true);
      assert.equal(value("context.languageId == 'typescript'"), true);
      assert.equal(value("input.obj.a.1.b == 'c'"), true);
    });

    it('gives a bare reference the truthiness of its value', () => {
      const cases: [string, boolean][] = [
        ['input.missing', false],
        ['input.none', false],
        ['input.off', false],
        ['input.zero', false],
        ['input.empty', false],
        ['input.list', false],
        ['input.flag', true],
        ['input.x', true],
        ['input.name', true],
        ['input.items', true],
        ['input.obj', true],
      ];
      for (const [text, expected] of cases) assert.equal(value(text), expected, text);
    });

    it('lists each reference path once, in order, including those inside exists()', () => {
      const parsed = parseCondition('input.a and (steps.s1.output.n > 1 or exists(context.languageId)) and input.a');
      assert.ok(parsed.ok);
      assert.deepEqual(parsed.references, [['input', 'a'], ['steps', 's1', 'output', 'n'], ['context', 'languageId']]);
      const literal = parseCondition('1 < 2');
      assert.ok(literal.ok);
      assert.deepEqual(literal.references, []);
    });

    it('accepts step ids with hyphens, underscores and digits', () => {
      const parsed = parseCondition('steps.fetch-data_2.output.items.10');
      assert.ok(parsed.ok);
      assert.deepEqual(parsed.references, [['steps', 'fetch-data_2', 'output', 'items', '10']]);
    });

    it('refuses an unknown root and names the allowed ones', () => {
      assert.match(parseError('foo.x == 1'), /unknown reference root "foo" at column 1; references start with input, steps or context/);
      assert.match(parseError("input.mode == fast"), /unknown reference root "fast" at column 15.*quote it: 'fast'/);
      assert.match(parseError('input.x == True'), /did you mean true\?/);
    });

    it('gives a missing path undefined, not an error', () => {
      assert.equal(value('input.nope.deeper.still'), false);
      assert.equal(value('not input.nope'), true);
      assert.equal(value("steps.other.output.x == 'a'"), false);
      assert.equal(value("steps.other.output.x != 'a'"), true);
    });

    it('passes the path to resolve as segments', () => {
      const seen: string[][] = [];
      value('steps.fetch.output.count == 3', (path) => {
        seen.push([...path]);
        return 3;
      });
      assert.deepEqual(seen, [['steps', 'fetch', 'output', 'count']]);
    });

    it('turns a throwing resolve into an error naming the reference', () => {
      const error = evalError('input.x == 1', () => {
        throw new Error('store closed');
      });
      assert.equal(error, 'could not read input.x at column 1: store closed');
    });
  });

  describe('lookupPath', () => {
    it('reads own properties only', () => {
      assert.equal(lookupPath(scope, ['input', 'toString']), undefined);
      assert.equal(lookupPath(scope, ['input', 'hasOwnProperty']), undefined);
      assert.equal(lookupPath({ input: Object.create({ inherited: 1 }) as unknown }, ['input', 'inherited']), undefined);
      const bare = Object.create(null) as Record<string, unknown>;
      bare['k'] = 'v';
      assert.equal(lookupPath({ input: bare }, ['input', 'k']), 'v');
      assert.equal(value('input.toString'), false);
      assert.equal(value('exists(input.valueOf)'), false);
    });

    it('reads arrays by index only', () => {
      assert.equal(lookupPath(scope, ['input', 'items', '1']), 2);
      assert.equal(lookupPath(scope, ['input', 'items', '2']), undefined);
      assert.equal(lookupPath(scope, ['input', 'items', '01']), undefined);
      assert.equal(lookupPath(scope, ['input', 'items', 'length']), undefined);
      assert.equal(lookupPath(scope, ['input', 'name', 'length']), undefined, 'no properties of primitives');
      assert.equal(lookupPath(scope, ['input', 'none', 'x']), undefined);
    });
  });

  describe('operators', () => {
    it('binds not tighter than and, and and tighter than or', () => {
      for (const a of [false, true]) {
        for (const b of [false, true]) {
          for (const c of [false, true]) {
            const flags = { input: { a, b, c } };
            const read = (path: readonly string[]): unknown => lookupPath(flags, path);
            assert.equal(value('not input.a and input.b or input.c', read), (!a && b) || c, `a=${a} b=${b} c=${c}`);
            assert.equal(value('input.a or input.b and input.c', read), a || (b && c));
            assert.equal(value('!input.a && input.b || input.c', read), (!a && b) || c);
            assert.equal(value('not (input.a or input.b)', read), !(a || b));
          }
        }
      }
    });

    it('binds a comparison tighter than not', () => {
      assert.equal(value("not input.name == 'other'"), true);
      assert.equal(value("!input.name == 'report'"), false);
    });

    it('compares strictly: no coercion between types', () => {
      assert.equal(value("1 == '1'"), false);
      assert.equal(value('0 == false'), false);
      assert.equal(value('null == false'), false);
      assert.equal(value("input.x != '1'"), true);
      assert.equal(value('input.none == null'), true);
    });

    it('compares arrays and objects structurally', () => {
      const data = { input: { a: [1, { k: 'v' }], b: [1, { k: 'v' }], c: [1, { k: 'w' }], d: { x: 1 }, e: { x: 1, y: 2 } } };
      const read = (path: readonly string[]): unknown => lookupPath(data, path);
      assert.equal(value('input.a == input.b', read), true);
      assert.equal(value('input.a == input.c', read), false);
      assert.equal(value('input.d == input.e', read), false);
      assert.equal(value('input.d != input.a', read), true);
    });

    it('treats a missing value as equal to nothing', () => {
      assert.equal(value('input.missing == null'), false);
      assert.equal(value('input.missing == input.other'), false);
      assert.equal(value('input.missing != 1'), true);
    });

    it('orders two numbers or two strings', () => {
      assert.equal(value("'apple' < 'banana'"), true);
      assert.equal(value("'b' >= 'a'"), true);
      assert.equal(value("'B' < 'a'"), true, 'code-unit order, not locale order');
      assert.equal(value('input.x <= 1'), true);
      assert.equal(value('input.x > 1'), false);
    });

    it('refuses to order other types and says which types met', () => {
      assert.equal(
        evalError("input.name < 2"),
        'cannot compare input.name (a string) with a number using "<" at column 12; both sides must be numbers or both strings',
      );
      assert.match(evalError('true > false'), /cannot compare a boolean with a boolean using ">" at column 6/);
      assert.match(evalError('null >= 0'), /cannot compare null with a number using ">="/);
      assert.match(evalError('input.items > 1'), /input\.items \(an array\)/);
      assert.match(evalError('input.missing > 2'), /input\.missing \(missing\) with a number.*check it with exists\(\) first/);
    });

    it('reports an evaluation error on a later line by line and column', () => {
      assert.match(evalError('input.x == 1 and\n  input.name > 3'), /using ">" at line 2, column 14/);
    });

    it('short-circuits and and or', () => {
      assert.equal(value("false and input.name < 1"), false);
      assert.equal(value("true or input.name < 1"), true);
      assert.equal(value("input.missing and input.missing > 1"), false);
      assert.equal(value("exists(input.missing) and input.missing > 1"), false);
      const seen: string[] = [];
      const read = (path: readonly string[]): unknown => {
        seen.push(path.join('.'));
        return lookupPath(scope, path);
      };
      assert.equal(value('input.off and input.x and input.name', read), false);
      assert.equal(value('input.flag or input.x', read), true);
      assert.deepEqual(seen, ['input.off', 'input.flag']);
    });
  });

  describe('exists()', () => {
    it('is true when the reference resolves to anything but undefined', () => {
      assert.equal(value('exists(input.x)'), true);
      assert.equal(value('exists(input.none)'), true, 'null is a value');
      assert.equal(value('exists(input.off)'), true);
      assert.equal(value('exists(input.missing)'), false);
      assert.equal(value('not exists(steps.fetch.output.nothing)'), true);
      assert.equal(value('exists(steps.fetch.output.items.1)'), true);
    });

    it('takes exactly one reference', () => {
      assert.match(parseError('exists(input.x, input.y)'), /exists at column 1 takes exactly one reference/);
      assert.match(parseError('exists(1)'), /exists at column 1 needs a reference, found "1"/);
      assert.match(parseError('exists()'), /needs a reference, found "\)"/);
      assert.match(parseError('exists(true)'), /needs a reference, found "true"/);
      assert.match(parseError('exists input.x'), /expected "\(" after exists at column 8/);
      assert.match(parseError('exists(input.x'), /expected "\)" to close exists\( at column 7, found the end of the condition/);
      assert.match(parseError('exists(foo.x)'), /unknown reference root "foo"/);
    });
  });

  describe('${} wrapping', () => {
    it('accepts a whole expression, an operand or the argument of exists in ${}', () => {
      assert.equal(value('${input.x}'), true);
      assert.equal(value('${input.x == 1}'), true);
      assert.equal(value("${input.name} == 'report' and ${steps.fetch.output.count} > 2"), true);
      assert.equal(value('exists(${input.x}) and not exists(${input.missing})'), true);
      assert.equal(value('${ ${input.x} == 1 }'), true);
      assert.equal(value('not ${input.off}'), true);
      const parsed = parseCondition('${steps.fetch.output.count} > 2');
      assert.ok(parsed.ok);
      assert.deepEqual(parsed.references, [['steps', 'fetch', 'output', 'count']]);
    });

    it('reports unbalanced or misspelled wrapping', () => {
      assert.match(parseError('${input.x'), /missing "}" to close "\$\{" at column 1/);
      assert.match(parseError('${input.x) == 1'), /unexpected "\)" at column 10; expected an operator or "}" to close "\$\{" at column 1/);
      assert.match(parseError('input.x}'), /unexpected "}" at column 8; it closes nothing/);
      assert.match(parseError('$input.x'), /unexpected "\$" at column 1; write a reference as input\.x or \$\{input\.x\}/);
      assert.match(parseError('${{ input.x }}'), /unexpected "\{" at column 3/);
    });
  });

  describe('syntax errors', () => {
    it('names an unknown operator and lists the known ones', () => {
      assert.equal(parseError("input.name =~ 'x'"), 'unknown operator "=~" at column 12; use ==, !=, <, <=, >, >=, and, or, not');
      assert.match(parseError('input.x === 1'), /unknown operator "===" at column 9; use ==/);
      assert.match(parseError('input.x !== 1'), /unknown operator "!==" at column 9; use !=/);
      assert.match(parseError('input.x + 1 > 2'), /unknown operator "\+" at column 9/);
      assert.match(parseError('input.x - 1'), /unknown operator "-" at column 9/);
      assert.match(parseError('input.x = 1'), /unknown operator "=" at column 9; use == to compare/);
      assert.match(parseError('input.x & input.y'), /unknown operator "&" at column 9/);
      assert.match(parseError('input.x ? 1 : 2'), /unknown operator "\?" at column 9/);
      assert.match(parseError('input.a !~ 1'), /unknown operator "!~" at column 9/);
    });

    it('refuses every function call but exists', () => {
      assert.match(parseError('alert(1)'), /unknown function "alert" at column 1; the only function is exists\(reference\)/);
      assert.match(parseError("input.x and input.run('rm')"), /unknown function "input\.run" at column 13/);
      assert.ok(!parseCondition("constructor.constructor('x')()").ok);
      assert.ok(!parseCondition("input.x.constructor.constructor('return 1')()").ok);
      assert.ok(!parseCondition("(1)('x')").ok);
    });

    it('refuses __proto__, constructor and prototype in any segment', () => {
      for (const name of ['__proto__', 'constructor', 'prototype']) {
        assert.match(parseError(`input.${name}`), new RegExp(`property name "${name}" at column 1 is not allowed`));
        assert.match(parseError(`exists(steps.a.output.${name}.x)`), /is not allowed in a reference/);
        assert.match(parseError(`${name}.x`), /is not allowed in a reference/);
      }
    });

    it('explains empty input, trailing garbage and missing operands', () => {
      assert.match(parseError(''), /^empty condition; write an expression such as/);
      assert.match(parseError('   \n  '), /^empty condition/);
      assert.equal(parseError('input.x == 1 2'), 'unexpected "2" at column 14; expected ==, !=, <, <=, >, >=, and, or, or the end of the condition');
      assert.match(parseError('input.x input.y'), /unexpected "input\.y" at column 9/);
      assert.match(parseError('input.x =='), /expected a value after "==" at column 11, found the end of the condition/);
      assert.match(parseError('input.x and'), /expected a value after "and" at column 12/);
      assert.match(parseError('and input.x'), /expected a value at column 1, found "and"/);
      assert.match(parseError('not'), /expected a value after "not"/);
      assert.match(parseError('()'), /expected a value after "\(" at column 2, found "\)"/);
      assert.match(parseError('(input.x'), /missing "\)" to close "\(" at column 1/);
      assert.match(parseError('(input.x == 1))'), /unexpected "\)" at column 15; it closes nothing/);
      assert.match(parseError('1 < 2 < 3'), /comparisons cannot be chained.*column 7.*join them with and/);
      assert.match(parseError('input. x'), /expected a property name after "\." at column 7/);
      assert.match(parseError('input.x.'), /expected a property name after "\." at column 9/);
      assert.match(parseError('input.items[0]'), /unexpected "\[" at column 12; write an index as a path segment, e.g\. items\.0/);
      assert.match(parseError('input.x # comment'), /unexpected character "#" at column 9/);
      assert.match(parseError('input.x in input.list'), /unexpected "in" at column 9/);
    });

    it('counts columns by line and by character', () => {
      assert.match(parseError('input.x == 1 and\n  input.y =~ 2'), /unknown operator "=~" at line 2, column 11/);
      assert.match(parseError("'🙂' == input.x ~"), /unknown operator "~" at column 16/);
    });
  });

  describe('hostile input', () => {
    it('refuses over-long input before reading it', () => {
      assert.equal(parseError('a'.repeat(10_000)), 'condition is 10000 characters long; the limit is 2000');
      assert.ok(parseCondition(`true${' '.repeat(1996)}`).ok, 'exactly 2,000 characters is allowed');
      assert.match(parseError(`true${' '.repeat(1997)}`), /2001 characters long/);
      const result = checkCondition('('.repeat(5000), resolve);
      assert.deepEqual(result, { ok: false, error: 'condition is 5000 characters long; the limit is 2000' });
    });

    it('refuses 1,000 nested parentheses without deep recursion', () => {
      assert.match(parseError(`${'('.repeat(1000)}true${')'.repeat(1000)}`), /the limit is 2000/);
      assert.match(parseError('('.repeat(1000)), /more than 500 tokens/);
      assert.match(parseError('!'.repeat(1000)), /more than 500 tokens/);
    });

    it('allows 32 levels of nesting and refuses the 33rd', () => {
      assert.equal(value(`${'('.repeat(32)}true${')'.repeat(32)}`), true);
      assert.match(parseError(`${'('.repeat(33)}true${')'.repeat(33)}`), /nests deeper than 32 levels at column 33/);
      assert.equal(value(`${'not '.repeat(32)}true`), true);
      assert.match(parseError(`${'not '.repeat(33)}true`), /nests deeper than 32 levels/);
      assert.match(parseError(`${'${('.repeat(17)}true${')}'.repeat(17)}`), /nests deeper than 32 levels/);
    });

    it('allows 500 tokens and refuses the 501st', () => {
      assert.equal(value(`!1${'||1'.repeat(249)}`), true);
      assert.match(parseError(`!!1${'||1'.repeat(249)}`), /^condition has more than 500 tokens/);
    });

    it('keeps a long and/or chain flat', () => {
      const parsed = parseCondition(`false${'||false'.repeat(240)}||true`);
      assert.ok(parsed.ok);
      assert.ok(parsed.ast.kind === 'or');
      assert.equal(parsed.ast.operands.length, 242);
    });

    it('allows 32 reference segments and refuses 33', () => {
      assert.ok(parseCondition(['input', ...Array.from({ length: 31 }, (_, i) => `s${i}`)].join('.')).ok);
      assert.match(
        parseError(['input', ...Array.from({ length: 32 }, (_, i) => `s${i}`)].join('.')),
        /reference at column 1 has 33 segments; the limit is 32/,
      );
    });

    it('refuses to compare values nested too deeply (or cyclic) instead of overflowing the stack', () => {
      interface Node {
        next?: Node;
      }
      const a: Node = {};
      a.next = a;
      const b: Node = {};
      b.next = b;
      const error = evalError('input.a == input.b', (path) => (path[1] === 'a' ? a : b));
      assert.match(error, /values compared at column 9 nest deeper than 64 levels/);
      assert.equal(value('input.a == input.a', () => a), true, 'the same value is equal without a walk');
    });
  });

  describe('fuzz', () => {
    const wellFormed = [
      'input.x', 'input.name', 'steps.fetch.output.count', 'context.languageId', 'input.missing', '1', '-2.5', '0', "'a'",
      '"b"', 'true', 'false', 'null', '==', '!=', '<', '<=', '>', '>=', 'and', 'or', 'not', '&&', '||', '!', '(', ')', '${',
      '}', 'exists(',
    ];
    const hostile = [
      'foo.bar', '__proto__', 'input.constructor', "'", '"', '\\', '=', '===', '=~', '+', '-', '{', '$', ',', '.', 'exists',
      'alert(', '[', ']', '#', '\n', '🙂', 'a'.repeat(40),
    ];

    it('always returns a result or a message for random token soup, never throws', () => {
      const next = mulberry32(20240611);
      let parsed = 0;
      let refused = 0;
      for (let round = 0; round < 4000; round += 1) {
        const count = 1 + Math.floor(next() * 12);
        let text = '';
        for (let i = 0; i < count; i += 1) {
          const from = next() < 0.1 ? hostile : wellFormed;
          text += from[Math.floor(next() * from.length)] ?? '';
          if (next() < 0.7) text += ' ';
        }
        const result = parseCondition(text);
        if (result.ok) {
          parsed += 1;
          const evaluated: EvalResult = evaluateCondition(result.ast, resolve);
          if (!evaluated.ok) assert.match(evaluated.error, /^cannot compare .* at column \d+/, text);
        } else {
          refused += 1;
          assert.match(result.error, /column \d+|characters long|tokens|empty condition/, text);
        }
      }
      // The soup must reach both sides, or the test would prove nothing about the parser's paths.
      assert.ok(parsed > 100, `parsed ${parsed}`);
      assert.ok(refused > 1000, `refused ${refused}`);
    });

    it('agrees with itself on random well-formed conditions (not, and, or, ${})', () => {
      const next = mulberry32(7);
      const atoms = ['input.x == 1', 'input.flag', 'input.off', 'input.missing', "input.name < 'z'", 'steps.fetch.output.count > 5', 'exists(input.none)', 'true', '0'];
      const build = (depth: number): string => {
        const pick = next();
        if (depth > 3 || pick < 0.3) return atoms[Math.floor(next() * atoms.length)] ?? 'true';
        if (pick < 0.45) return `not (${build(depth + 1)})`;
        if (pick < 0.6) return `\${${build(depth + 1)}}`;
        return `(${build(depth + 1)}) ${pick < 0.8 ? 'and' : 'or'} (${build(depth + 1)})`;
      };
      for (let round = 0; round < 500; round += 1) {
        const a = build(0);
        const b = build(0);
        const va = value(a);
        const vb = value(b);
        assert.equal(value(`not (${a})`), !va, a);
        assert.equal(value(`(${a}) and (${b})`), va && vb);
        assert.equal(value(`(${a}) || (${b})`), va || vb);
        assert.equal(value(`\${${a}}`), va);
      }
    });
  });

  it('isTruthy treats an empty array as false and an empty object as true', () => {
    assert.equal(isTruthy([]), false);
    assert.equal(isTruthy({}), true);
    assert.equal(isTruthy(Number.NaN), false);
  });
});
