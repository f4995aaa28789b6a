import * as assert from 'node:assert/strict';
import { bindArguments, coerceValue } from '../../../src/core/execution/argumentBinding';
import type { BindingInput } from '../../../src/core/execution/argumentBinding';
import { SchemaValidator } from '../../../src/core/execution/schemaValidator';

const validator = new SchemaValidator();

const formatSchema = {
  type: 'object',
  required: ['path'],
  properties: {
    path: { type: 'string', description: 'The file to format' },
    count: { type: 'integer', description: 'How many passes', default: 1 },
    width: { type: 'integer' },
  },
};

function input(overrides: Partial<BindingInput>): BindingInput {
  return { skill: 'fmt', inputSchema: formatSchema, explicit: {}, context: {}, env: {}, declaredEnv: [], ...overrides };
}

function bound(overrides: Partial<BindingInput>): { arguments: Record<string, unknown>; sources: Record<string, string> } {
  const result = bindArguments(input(overrides), validator);
  if (!result.ok) assert.fail(`expected binding to succeed: ${result.error}`);
  return result;
}

function refused(overrides: Partial<BindingInput>): string {
  const result = bindArguments(input(overrides), validator);
  if (result.ok) assert.fail(`expected binding to fail, got ${JSON.stringify(result.arguments)}`);
  return result.error;
}

function coerced(value: unknown, schema: unknown): unknown {
  const result = coerceValue(value, schema);
  if (!result.ok) assert.fail(`expected ${JSON.stringify(value)} to coerce: ${result.error}`);
  return result.value;
}

function notCoerced(value: unknown, schema: unknown): string {
  const result = coerceValue(value, schema);
  if (result.ok) assert.fail(`expected ${JSON.stringify(value)} to be refused, got ${JSON.stringify(result.value)}`);
  return result.error;
}

describe('argument binding', () => {
  describe('order: explicit > context > env > tuned > default', () => {
    const layered = {
      type: 'object',
      properties: {
        file: { type: 'string', 'x-context': 'activeFile', default: '${env:SW_FILE}' },
        level: { type: 'integer', default: 2 },
      },
    };
    const full = input({
      inputSchema: layered,
      context: { activeFile: '/ws/a.ts' },
      env: { SW_FILE: '/env/b.ts' },
      declaredEnv: ['SW_FILE'],
      tuned: { file: '/tuned/c.ts', level: 4 },
    });

    it('explicit arguments win over everything', () => {
      const result = bound({ ...full, explicit: { file: '/given.ts', level: 9 } });
      assert.deepEqual(result.arguments, { file: '/given.ts', level: 9 });
      assert.deepEqual(result.sources, { file: 'explicit', level: 'explicit' });
    });

    it('then the context variable, then the declared environment variable', () => {
      assert.deepEqual(bound(full).sources, { file: 'context', level: 'tuned' });
      const noContext = bound({ ...full, context: {} });
      assert.deepEqual(noContext.arguments, { file: '/env/b.ts', level: 4 });
      assert.equal(noContext.sources['file'], 'env');
    });

    it('then tuned values, then schema defaults', () => {
      const noEnv = bound({ ...full, context: {}, env: {} });
      assert.deepEqual(noEnv.arguments, { file: '/tuned/c.ts', level: 4 });
      assert.deepEqual(noEnv.sources, { file: 'tuned', level: 'tuned' });
      const none = bound({ ...full, context: {}, env: {}, tuned: {} });
      assert.deepEqual(none.arguments, { level: 2 }, 'a placeholder default is never the value itself');
      assert.deepEqual(none.sources, { level: 'default' });
    });

    it('ignores tuned values for parameters that are not arguments, or of the wrong type', () => {
      const result = bound({ tuned: { timeout_seconds: 30, count: 'many' }, explicit: { path: 'a' } });
      assert.deepEqual(result.arguments, { path: 'a', count: 1 });
      assert.equal(result.sources['count'], 'default');
    });
  });

  describe('context variables', () => {
    const context = { workspaceFolder: '/ws', activeFile: '/ws/a.py', selection: 'x = 1', languageId: 'python', userLanguage: 'de', sessionId: 's-42' };

    it('bind properties named after them, in snake_case or camelCase', () => {
      const schema = {
        type: 'object',
        properties: { workspace_folder: { type: 'string' }, activeFile: { type: 'string' }, selection: { type: 'string' }, language_id: { type: 'string' }, userLanguage: { type: 'string' }, session_id: { type: 'string' }, other: { type: 'string' } },
      };
      const result = bound({ inputSchema: schema, context });
      assert.deepEqual(result.arguments, { workspace_folder: '/ws', activeFile: '/ws/a.py', selection: 'x = 1', language_id: 'python', userLanguage: 'de', session_id: 's-42' });
      assert.ok(Object.values(result.sources).every((source) => source === 'context'));
    });

    it('bind by x-context or a ${context.<name>} default, and coerce what they bind', () => {
      const schema = { type: 'object', properties: { code: { type: 'array', items: { type: 'string' }, 'x-context': 'selection' }, lang: { type: 'string', default: '${context.languageId}' } } };
      assert.deepEqual(bound({ inputSchema: schema, context }).arguments, { code: ['x = 1'], lang: 'python' });
    });

    it('leave a name-only match unbound when the value does not fit its type', () => {
      const schema = { type: 'object', properties: { session_id: { type: 'integer', default: 0 } } };
      assert.deepEqual(bound({ inputSchema: schema, context }).sources, { session_id: 'default' });
    });

    it('refuse an x-context or ${context.…} that names no context variable, and a declared binding that does not fit', () => {
      const badKey = refused({ inputSchema: { type: 'object', properties: { f: { type: 'string', 'x-context': 'currentFile' } } }, context });
      assert.match(badKey, /argument "f" has "x-context": "currentFile", which is not a context variable; use one of workspaceFolder, activeFile, selection, languageId, userLanguage, sessionId/);
      const badDefault = refused({ inputSchema: { type: 'object', properties: { f: { type: 'string', default: '${context.file}' } } }, context });
      assert.match(badDefault, /default "\$\{context.file\}", which names no context variable/);
      const wrongType = refused({ inputSchema: { type: 'object', properties: { n: { type: 'integer', 'x-context': 'selection' } } }, context });
      assert.equal(wrongType, 'argument "n" takes its value from the selection, which must be an integer, got "x = 1"; change the schema\'s type or pass the argument explicitly.');
    });

    it('say where a required context value was to come from when there is none', () => {
      const schema = { type: 'object', required: ['file'], properties: { file: { type: 'string', description: 'File to lint', 'x-context': 'activeFile' } } };
      assert.equal(refused({ inputSchema: schema, context: { activeFile: '' } }), 'missing required argument "file" (File to lint; taken from the active file, and there is none). Pass it, e.g. {"file": "…"}');
    });
  });

  describe('environment variables', () => {
    const schema = { type: 'object', required: ['token'], properties: { token: { type: 'string', description: 'API token', default: '${env:API_TOKEN}' }, port: { type: 'integer', default: '${env:PORT}' } } };

    it('are read only when the skill declares them', () => {
      const result = bound({ inputSchema: schema, env: { API_TOKEN: 'secret', PORT: '8080' }, declaredEnv: ['API_TOKEN', 'PORT'] });
      assert.deepEqual(result.arguments, { token: 'secret', port: 8080 });
      assert.deepEqual(result.sources, { token: 'env', port: 'env' });
      const undeclared = refused({ inputSchema: schema, env: { API_TOKEN: 'secret', PORT: '8080' }, declaredEnv: ['API_TOKEN'] });
      assert.match(undeclared, /argument "port" reads \$\{env:PORT\}, but skill "fmt" does not declare PORT; add it under `env:` in the skill's frontmatter/);
    });

    it('count as absent when declared but not set', () => {
      const error = refused({ inputSchema: schema, env: {}, declaredEnv: ['API_TOKEN', 'PORT'] });
      assert.equal(error, 'missing required argument "token" (API token; read from the environment variable API_TOKEN, which is not set). Pass it, e.g. {"token": "…"}');
      assert.deepEqual(bound({ inputSchema: schema, explicit: { token: 't' }, declaredEnv: ['API_TOKEN', 'PORT'] }).arguments, { token: 't' });
    });

    it('are never read for an explicit argument', () => {
      assert.deepEqual(bound({ inputSchema: schema, explicit: { token: 't', port: 1 }, declaredEnv: [] }).sources, { token: 'explicit', port: 'explicit' });
    });
  });

  describe('explicit arguments', () => {
    it('treat null as absent', () => {
      assert.deepEqual(bound({ explicit: { path: 'a', count: null, width: null } }).arguments, { path: 'a', count: 1 });
      assert.match(refused({ explicit: { path: null } }), /^missing required argument "path"/);
    });

    it('parse a JSON string, and refuse bad JSON or a non-object with an example', () => {
      assert.deepEqual(bound({ explicit: '{"path": "a", "count": "3"}' }).arguments, { path: 'a', count: 3 });
      assert.match(refused({ explicit: '{"path": ' }), /^arguments of skill "fmt" are not valid JSON \(.+\); send an object such as \{"path": "…"\}$/);
      assert.equal(refused({ explicit: ['a'] }), 'arguments of skill "fmt" must be a JSON object, not an array; send an object such as {"path": "…"}');
      assert.match(refused({ explicit: '   ' }), /^missing required argument "path"/);
    });

    it('name a missing required argument with its description and an example', () => {
      assert.equal(refused({}), 'missing required argument "path" (The file to format). Pass it, e.g. {"path": "…"}');
      const schema = { type: 'object', required: ['a', 'b', 'c'], properties: { a: { type: 'integer' }, b: { type: 'boolean', description: 'Whether' }, c: { enum: ['x', 'y'] } } };
      assert.equal(refused({ inputSchema: schema }), 'missing required arguments "a", "b" (Whether) and "c". Pass them, e.g. {"a": 1, "b": true, "c": "x"}');
    });

    it('name the argument and its description when a value cannot be coerced', () => {
      assert.equal(refused({ explicit: { path: 'a', width: '0x1F' } }), 'argument "width" must be an integer, got "0x1F"');
      assert.equal(refused({ explicit: { path: 'a', count: 'yes' } }), 'argument "count" (How many passes) must be an integer, got "yes"');
      const schema = { type: 'object', properties: { ids: { type: 'array', description: 'Row ids', items: { type: 'integer' } } } };
      assert.equal(refused({ inputSchema: schema, explicit: { ids: ['1', 'x'] } }), 'argument "ids" (Row ids) at [1] must be an integer, got "x"');
    });

    it('keep unknown arguments unless the schema closes the object', () => {
      assert.deepEqual(bound({ explicit: { path: 'a', colour: 'red' } }).arguments, { path: 'a', colour: 'red', count: 1 });
      const closed = { ...formatSchema, additionalProperties: false };
      assert.equal(refused({ inputSchema: closed, explicit: { path: 'a', conut: 2 } }), 'skill "fmt" has no argument "conut". Did you mean "count"? Its arguments are: path, count, width.');
      const typed = { ...formatSchema, additionalProperties: { type: 'number' } };
      assert.deepEqual(bound({ inputSchema: typed, explicit: { path: 'a', ratio: '0.5' } }).arguments, { path: 'a', ratio: 0.5, count: 1 });
    });

    it('keep every argument as given when the skill has no input_schema', () => {
      const result = bound({ inputSchema: undefined, explicit: { anything: '1', workspace_folder: 'mine' }, context: { workspaceFolder: '/ws' } });
      assert.deepEqual(result.arguments, { anything: '1', workspace_folder: 'mine' });
    });

    it('keep an argument named __proto__ as an argument', () => {
      const result = bound({ explicit: JSON.parse('{"path": "a", "__proto__": {"polluted": true}}') as unknown });
      assert.ok(Object.hasOwn(result.arguments, '__proto__'));
      assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
      assert.equal(Object.getPrototypeOf(result.arguments), Object.prototype);
    });
  });

  describe('validation after binding', () => {
    it('names the argument that breaks a constraint', () => {
      const schema = { type: 'object', properties: { count: { type: 'integer', minimum: 1, description: 'How many' }, mode: { enum: ['fast', 'slow'] } } };
      assert.equal(refused({ inputSchema: schema, explicit: { count: '0', mode: 'fast' } }), 'arguments of skill "fmt" do not match its input_schema: argument "count" (How many) must be >= 1, got 0');
      assert.match(refused({ inputSchema: schema, explicit: { mode: 'medium' } }), /argument "mode" must be one of "fast", "slow", got "medium"/);
    });

    it('reports an invalid input_schema or one that does not describe an object', () => {
      assert.match(refused({ inputSchema: { type: 'object', properties: { n: { type: 'int' } } } }), /^input_schema of skill "fmt" is not a valid JSON Schema: "type" at \/properties\/n\/type/);
      assert.equal(refused({ inputSchema: { type: 'string' } }), 'input_schema of skill "fmt" must describe an object ("type": "object" with "properties"), not a string.');
    });

    it('follows local $refs for coercion, with a description beside the $ref', () => {
      const schema = {
        type: 'object',
        required: ['limit'],
        properties: { limit: { $ref: '#/definitions/positive', description: 'Most rows' }, ids: { type: 'array', items: { $ref: '#/definitions/positive' } } },
        definitions: { positive: { type: 'integer', minimum: 1 } },
      };
      assert.deepEqual(bound({ inputSchema: schema, explicit: { limit: '5', ids: '7' } }).arguments, { limit: 5, ids: [7] });
      assert.equal(refused({ inputSchema: schema, explicit: { limit: 'x' } }), 'argument "limit" (Most rows) must be an integer, got "x"');
      assert.match(refused({ inputSchema: schema }), /^missing required argument "limit" \(Most rows\)\. Pass it, e\.g\. \{"limit": 1\}$/);
    });
  });
});

describe('coerceValue', () => {
  const number = { type: 'number' };
  const integer = { type: 'integer' };
  const boolean = { type: 'boolean' };

  it('turns full decimal literals into numbers', () => {
    assert.equal(coerced('42', number), 42);
    assert.equal(coerced(' 42 ', number), 42);
    assert.equal(coerced('-3.5', number), -3.5);
    assert.equal(coerced('1e3', number), 1000);
    assert.equal(coerced('2.5E-1', number), 0.25);
    assert.equal(coerced('0', integer), 0);
    assert.equal(coerced('2.0', integer), 2);
    assert.equal(coerced(7, number), 7);
  });

  it('refuses blanks, hex, exponents without digits, Infinity, NaN, separators and other near-numbers', () => {
    for (const text of ['', '  ', '0x1F', '1e', 'Infinity', '-Infinity', 'NaN', '1_000', '+1', '.5', '5.', '007', '1,5', '1e400', '0b11']) {
      assert.equal(notCoerced(text, number), `value must be a number, got ${JSON.stringify(text)}`, text);
    }
  });

  it('requires an integer to be whole', () => {
    assert.equal(notCoerced('2.5', integer), 'value must be an integer, got "2.5"');
    assert.equal(notCoerced(2.5, integer), 'value must be an integer, got 2.5');
  });

  it('turns only true and false into booleans, in any letter case', () => {
    assert.equal(coerced('true', boolean), true);
    assert.equal(coerced(' FALSE ', boolean), false);
    assert.equal(coerced('True', boolean), true);
    assert.equal(coerced(false, boolean), false);
    for (const text of ['yes', 'no', '1', '0', 'on', 'off', 'y', '']) assert.equal(notCoerced(text, boolean), `value must be true or false, got ${JSON.stringify(text)}`, text);
    assert.equal(notCoerced(1, boolean), 'value must be true or false, got 1');
  });

  it('does not turn numbers or booleans into strings', () => {
    assert.equal(notCoerced(5, { type: 'string' }), 'value must be a string, got 5');
    assert.equal(notCoerced(true, { type: 'string' }), 'value must be a string, got true');
  });

  it('wraps a single value into a one-item array, coercing the item', () => {
    assert.deepEqual(coerced('a.ts', { type: 'array', items: { type: 'string' } }), ['a.ts']);
    assert.deepEqual(coerced('3', { type: 'array', items: integer }), [3]);
    assert.deepEqual(coerced(5, { type: 'array' }), [5]);
    assert.deepEqual(coerced(['1', '2'], { type: 'array', items: integer }), [1, 2]);
    assert.deepEqual(coerced(['x', '2'], { type: 'array', items: [{ type: 'string' }, integer] }), ['x', 2]);
    assert.equal(notCoerced('x', { type: 'array', items: integer }), 'value must be an array, or one item of it, which must be an integer, got "x"');
  });

  it('leaves a value that already fits one of several types alone', () => {
    assert.equal(coerced('5', { type: ['integer', 'string'] }), '5');
    assert.equal(coerced('5', { type: ['integer', 'null'] }), 5);
    assert.equal(coerced(null, { type: ['integer', 'null'] }), null);
    assert.equal(notCoerced('x', { type: ['integer', 'null'] }), 'value must be an integer or null, got "x"');
  });

  it('coerces inside objects by their properties, and not without a schema', () => {
    const schema = { type: 'object', properties: { limits: { type: 'object', properties: { max: integer } } } };
    assert.deepEqual(coerced({ limits: { max: '10' }, note: '1' }, schema), { limits: { max: 10 }, note: '1' });
    assert.equal(notCoerced({ limits: { max: 'ten' } }, schema), 'value at limits.max must be an integer, got "ten"');
    assert.equal(coerced('10', undefined), '10');
    assert.equal(coerced('10', {}), '10');
  });
});
