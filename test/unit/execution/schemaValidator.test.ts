import * as assert from 'node:assert/strict';
import { SchemaValidator } from '../../../src/core/execution/schemaValidator';
import type { SchemaCheck } from '../../../src/core/execution/schemaValidator';

type Validate = (value: unknown) => SchemaCheck;

function compiled(validator: SchemaValidator, schema: unknown, skill = 'fmt', kind: 'input' | 'output' = 'output'): Validate {
  const result = validator.compile(skill, kind, schema);
  if (!result.ok) assert.fail(`expected the schema to compile: ${result.error}`);
  return result.validate;
}

function refusal(validator: SchemaValidator, schema: unknown, kind: 'input' | 'output' = 'input'): string {
  const result = validator.compile('fmt', kind, schema);
  if (result.ok) assert.fail(`expected ${String(JSON.stringify(schema)).slice(0, 200)} to be refused`);
  return result.error;
}

function errorsOf(check: SchemaCheck): string[] {
  if (check.ok) assert.fail('expected the value not to match');
  return check.errors;
}

const itemList = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string' }, kind: { enum: ['a', 'b'] }, size: { type: 'number', minimum: 0 } } },
    },
  },
};

/** `depth` objects nested through `key`, innermost `leaf`. */
function nested(depth: number, key: string, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

describe('SchemaValidator', () => {
  describe('output checks', () => {
    it('accept a matching value and describe each mismatch by its JSON pointer', () => {
      const validate = compiled(new SchemaValidator(), itemList);
      assert.deepEqual(validate({ items: [{ name: 'x', kind: 'a', size: 2 }] }), { ok: true });
      const errors = errorsOf(validate({ items: [{ name: 5, kind: 'c', size: -1, extra: true }, {}] }));
      assert.ok(errors.includes('/items/0/name must be string, got 5'), errors.join('\n'));
      assert.ok(errors.includes('/items/0/kind must be one of "a", "b", got "c"'), errors.join('\n'));
      assert.ok(errors.includes('/items/0/size must be >= 0, got -1'), errors.join('\n'));
      assert.ok(errors.includes('/items/0/extra is not allowed (the schema lists no such property)'), errors.join('\n'));
      assert.ok(errors.includes('/items/1/name is required'), errors.join('\n'));
      assert.deepEqual(errorsOf(validate('text')), ['(root) must be object, got "text"']);
    });

    it('list at most ten problems and say how many more there were', () => {
      const validate = compiled(new SchemaValidator(), { type: 'array', items: { type: 'string' } });
      const errors = errorsOf(validate(Array.from({ length: 30 }, (_, i) => i)));
      assert.equal(errors.length, 10);
      assert.equal(errors[0], '/0 must be string, got 0');
      assert.equal(errors[9], '… and 21 more problems');
    });

    it('accept boolean schemas', () => {
      const validator = new SchemaValidator();
      assert.deepEqual(compiled(validator, true)({ anything: 1 }), { ok: true });
      assert.equal(compiled(validator, false)(1).ok, false);
    });

    it('use the draft that "$schema" names: 2020-12 prefixItems, 2019-09 dependentRequired', () => {
      const validator = new SchemaValidator();
      const tuple = compiled(validator, { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] });
      assert.deepEqual(tuple(['a', 1]), { ok: true });
      assert.deepEqual(errorsOf(tuple(['a', 'b'])), ['/1 must be integer, got "b"']);
      const pair = compiled(validator, { $schema: 'https://json-schema.org/draft/2019-09/schema#', type: 'object', dependentRequired: { user: ['password'] } });
      assert.deepEqual(pair({}), { ok: true });
      assert.equal(pair({ user: 'x' }).ok, false);
      const seven = compiled(validator, { $schema: 'http://json-schema.org/draft-07/schema#', type: 'integer' });
      assert.equal(seven(1.5).ok, false);
    });
  });

  describe('cache', () => {
    it('compiles a schema once per skill, kind and content', () => {
      const validator = new SchemaValidator();
      const schema = { type: 'object', properties: { n: { type: 'integer' } } };
      const first = compiled(validator, schema);
      assert.equal(validator.compilations, 1);
      assert.equal(compiled(validator, schema), first, 'the same object is a cache hit');
      assert.equal(compiled(validator, JSON.parse(JSON.stringify(schema))), first, 'equal content is a cache hit');
      assert.equal(compiled(validator, { properties: { n: { type: 'integer' } }, type: 'object' }), first, 'key order does not matter');
      assert.equal(validator.compilations, 1);
      compiled(validator, schema, 'other-skill');
      compiled(validator, schema, 'fmt', 'input');
      assert.equal(validator.compilations, 3, 'another skill or kind compiles its own');
    });

    it('recompiles when the same object changes', () => {
      const validator = new SchemaValidator();
      const schema: { type: string; properties: Record<string, unknown> } = { type: 'object', properties: { n: { type: 'integer' } } };
      assert.equal(compiled(validator, schema)({ n: 'x' }).ok, false);
      schema.properties['n'] = { type: 'string' };
      const changed = compiled(validator, schema);
      assert.equal(validator.compilations, 2);
      assert.deepEqual(changed({ n: 'x' }), { ok: true });
    });

    it('forgets the least recently used schema past maxCached', () => {
      const validator = new SchemaValidator({ maxCached: 2 });
      const a = { type: 'string' };
      const b = { type: 'number' };
      const c = { type: 'boolean' };
      compiled(validator, a);
      compiled(validator, b);
      compiled(validator, a);
      compiled(validator, c);
      assert.equal(validator.compilations, 3);
      compiled(validator, a);
      assert.equal(validator.compilations, 3, 'a was used last, so it stayed');
      compiled(validator, b);
      assert.equal(validator.compilations, 4, 'b was the oldest, so it went');
    });

    it('keeps the schemas of two skills apart even when they share an "$id"', () => {
      const validator = new SchemaValidator();
      const one = compiled(validator, { $id: 'https://example.com/args.json', type: 'string' }, 'one');
      const two = compiled(validator, { $id: 'https://example.com/args.json', type: 'integer' }, 'two');
      assert.deepEqual(one('x'), { ok: true });
      assert.deepEqual(two(3), { ok: true });
      assert.equal(two('x').ok, false);
    });
  });

  describe('hostile schemas', () => {
    it('name the keyword at fault in an invalid schema', () => {
      const validator = new SchemaValidator();
      const typeError = refusal(validator, { type: 12 });
      assert.match(typeError, /^input_schema of skill "fmt" is not a valid JSON Schema: "type" at \/type must be equal to one of the allowed values \(array, boolean, integer, null, number, object, string\)/);
      const nestedError = refusal(validator, { type: 'object', properties: { count: { type: 'integer', minimum: 'one' } }, required: 'count' });
      assert.match(nestedError, /"minimum" at \/properties\/count\/minimum must be number/);
      assert.match(nestedError, /"required" at \/required must be array/);
    });

    it('refuse what is not a schema at all', () => {
      const validator = new SchemaValidator();
      assert.match(refusal(validator, 'type: object'), /must be a JSON Schema object .* but it is a string/);
      assert.match(refusal(validator, [{ type: 'string' }]), /but it is a list/);
      assert.match(refusal(validator, null, 'output'), /^output_schema of skill "fmt" must be a JSON Schema object/);
      assert.equal(validator.compilations, 0);
    });

    it('refuse a schema over maxSchemaBytes before compiling it', () => {
      const validator = new SchemaValidator();
      const error = refusal(validator, { type: 'string', description: 'x'.repeat(300 * 1024) });
      assert.match(error, /is larger than 256 KiB written as JSON/);
      const small = new SchemaValidator({ maxSchemaBytes: 1000 });
      assert.match(refusal(small, { type: 'object', properties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: 'string' }])) }), /larger than 1000 bytes/);
      assert.equal(validator.compilations + small.compilations, 0);
    });

    it('bound the cost of objects shared through YAML aliases, and accept modest sharing', () => {
      const validator = new SchemaValidator();
      // Each level uses the one below twice: 2^40 copies once written out.
      let bomb: unknown = { type: 'string' };
      for (let i = 0; i < 40; i++) bomb = { type: 'object', properties: { left: bomb, right: bomb } };
      assert.match(refusal(validator, bomb), /larger than 256 KiB .*YAML aliases count once per use/);
      const shared = { type: 'string', minLength: 1 };
      const validate = compiled(validator, { type: 'object', properties: { from: shared, to: shared } });
      assert.deepEqual(validate({ from: 'a', to: 'b' }), { ok: true });
      assert.deepEqual(errorsOf(validate({ from: '', to: 'b' })), ['/from must NOT have fewer than 1 characters']);
    });

    it('refuse an object that contains itself', () => {
      const validator = new SchemaValidator();
      const loop: Record<string, unknown> = { type: 'object' };
      loop['properties'] = { child: loop };
      assert.match(refusal(validator, loop), /contains itself .*"\$ref": "#\/definitions\/<name>"/);
    });

    it('compile recursive schemas and check deep values without crashing', () => {
      const validator = new SchemaValidator();
      const tree = compiled(validator, { type: 'object', properties: { child: { $ref: '#' }, name: { type: 'string' } } });
      assert.deepEqual(tree(nested(200, 'child', { name: 'leaf' })), { ok: true });
      const wrongLeaf = errorsOf(tree(nested(3, 'child', { name: 1 })));
      assert.deepEqual(wrongLeaf, ['/child/child/child/name must be string, got 1']);
      const tooDeep = errorsOf(tree(nested(100_000, 'child', {})));
      assert.deepEqual(tooDeep, ['(root) is nested too deeply to check against a schema that refers to itself']);

      const viaDefinitions = compiled(validator, {
        $ref: '#/definitions/node',
        definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' }, value: { type: 'integer' } } } },
      });
      assert.deepEqual(viaDefinitions(nested(50, 'next', { value: 1 })), { ok: true });
      assert.equal(viaDefinitions(nested(50, 'next', { value: 'x' })).ok, false);
    });

    it('refuse references that would need the network, wherever they sit', () => {
      const validator = new SchemaValidator();
      const remote = refusal(validator, { type: 'object', properties: { user: { $ref: 'https://example.com/user.json' } } });
      assert.match(remote, /has "\$ref": "https:\/\/example.com\/user.json" at \/properties\/user\/\$ref; only local references/);
      assert.match(refusal(validator, { items: { $ref: 'other.json#/definitions/x' } }), /only local references/);
      assert.match(refusal(validator, { $defs: { a: { $ref: 'http://json-schema.org/draft-07/schema#' } } }), /only local references/);
      assert.equal(validator.compilations, 0, 'refused before compiling');
    });

    it('allow references to the schema itself by "$id", and "$ref" as data or as a property name', () => {
      const validator = new SchemaValidator();
      const byId = compiled(validator, {
        $id: 'https://example.com/list.json',
        type: 'array',
        items: { $ref: 'https://example.com/list.json#/definitions/entry' },
        definitions: { entry: { type: 'string' } },
      });
      assert.deepEqual(byId(['a']), { ok: true });
      assert.equal(byId([1]).ok, false);
      const data = compiled(validator, { enum: [{ $ref: 'https://example.com/x' }], default: { $ref: 'http://x' } });
      assert.deepEqual(data({ $ref: 'https://example.com/x' }), { ok: true });
      const named = compiled(validator, { type: 'object', properties: { $ref: { type: 'string' } } });
      assert.equal(named({ $ref: 3 }).ok, false);
    });

    it('explain a local reference to nothing, a bad pattern, an unsupported draft and $async', () => {
      const validator = new SchemaValidator();
      assert.match(refusal(validator, { $ref: '#/definitions/missing' }), /reference "#\/definitions\/missing" that points at nothing in the schema/);
      assert.match(refusal(validator, { type: 'string', pattern: '(' }), /cannot be compiled: Invalid regular expression/);
      assert.match(refusal(validator, { $schema: 'http://json-schema.org/draft-04/schema#' }), /"\$schema": "http:\/\/json-schema.org\/draft-04\/schema#", which is not supported; use .*draft-07/);
      assert.match(refusal(validator, { $async: true, type: 'object' }), /"\$async", which skills do not support/);
    });
  });
});
