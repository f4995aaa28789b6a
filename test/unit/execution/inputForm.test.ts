import * as assert from 'node:assert/strict';
import { bindArguments } from '../../../src/core/execution/argumentBinding';
import type { FormField, FormPrompter, FormStep, InputForm, StepReply } from '../../../src/core/execution/inputForm';
import { buildInputForm, formArguments, MAX_FORM_FIELDS, parseFieldText, pickAnswer, runInputForm } from '../../../src/core/execution/inputForm';
import { SchemaValidator } from '../../../src/core/execution/schemaValidator';

const validator = new SchemaValidator();

const deploySchema = {
  type: 'object',
  required: ['target', 'region'],
  properties: {
    dry_run: { type: 'boolean', description: 'Only print what would change', default: true },
    target: { type: 'string', title: 'Target', description: 'What to deploy' },
    replicas: { type: 'integer', minimum: 1, maximum: 10, default: 2 },
    region: { enum: ['eu', 'us', 'ap'], default: 'eu' },
    tags: { type: 'array', items: { type: 'string' } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    ratio: { type: ['number', 'null'] },
  },
};

function field(form: InputForm, name: string): FormField {
  const found = form.fields.find((f) => f.name === name);
  assert.ok(found, `a field "${name}" in ${form.fields.map((f) => f.name).join(', ')}`);
  return found;
}

function accepted(f: FormField, text: string): unknown {
  const parsed = parseFieldText(f, text);
  if (!parsed.ok) assert.fail(`expected ${JSON.stringify(text)} to be accepted for ${f.name}: ${parsed.error}`);
  return parsed.answer.keep ? 'KEEP' : parsed.answer.value;
}

function refused(f: FormField, text: string): string {
  const parsed = parseFieldText(f, text);
  if (parsed.ok) assert.fail(`expected ${JSON.stringify(text)} to be refused for ${f.name}, got ${JSON.stringify(parsed.answer)}`);
  return parsed.error;
}

/** Answers steps from a list, recording every step it was shown. */
function scripted(replies: readonly (StepReply | ((step: FormStep) => StepReply))[]): FormPrompter & { steps: FormStep[] } {
  const steps: FormStep[] = [];
  let next = 0;
  return {
    steps,
    ask(step) {
      steps.push(step);
      const reply = replies[next++];
      if (reply === undefined) return Promise.reject(new Error(`no reply for step ${step.title} (${step.field.name})`));
      return Promise.resolve(typeof reply === 'function' ? reply(step) : reply);
    },
  };
}

describe('Run Skill form (input_schema → steps)', () => {
  describe('fields', () => {
    const form = buildInputForm(deploySchema, { context: {} });

    it('asks required properties first, then the rest, each group in schema order', () => {
      assert.deepEqual(
        form.fields.map((f) => f.name),
        ['target', 'region', 'dry_run', 'replicas', 'tags', 'labels', 'ratio'],
      );
      assert.deepEqual(
        form.fields.map((f) => f.required),
        [true, true, false, false, false, false, false],
      );
      assert.deepEqual(form.notes, []);
    });

    it('gives each type its kind of step: text, number, boolean and enum picks, JSON for arrays and objects', () => {
      assert.deepEqual(
        Object.fromEntries(form.fields.map((f) => [f.name, f.kind])),
        { target: 'text', region: 'enum', dry_run: 'boolean', replicas: 'integer', tags: 'json', labels: 'json', ratio: 'number' },
      );
      assert.deepEqual(field(form, 'region').options?.map((o) => o.label), ['eu', 'us', 'ap'], 'a required enum has no "not set"');
      assert.deepEqual(field(form, 'dry_run').options?.map((o) => o.value), [true, false], 'a boolean with a default always has a value');
      const optional = buildInputForm({ type: 'object', properties: { verbose: { type: 'boolean' } } }, { context: {} });
      assert.deepEqual(field(optional, 'verbose').options?.map((o) => o.label), ['true', 'false', '(not set)']);
    });

    it('starts each step at its default and says it in words; titles and descriptions become labels and prompts', () => {
      assert.deepEqual(field(form, 'replicas').initial, { value: 2, text: '2', source: 'default' });
      assert.deepEqual(field(form, 'region').initial, { value: 'eu', text: 'eu', source: 'default' });
      assert.equal(field(form, 'target').label, 'Target');
      assert.equal(field(form, 'target').description, 'What to deploy');
      assert.equal(field(form, 'tags').initial, undefined);
    });

    it('prefers a tuned value to the default, and a context value to both, as binding does', () => {
      const schema = { type: 'object', properties: { batch: { type: 'integer', default: 100 }, file: { type: 'string', 'x-context': 'activeFile', default: 'a.txt' } } };
      const tuned = buildInputForm(schema, { context: {}, tuned: { batch: 120, file: 'b.txt' } });
      assert.deepEqual(field(tuned, 'batch').initial, { value: 120, text: '120', source: 'tuned' });
      const withContext = buildInputForm(schema, { context: { activeFile: '/ws/src/main.ts' }, tuned: { file: 'b.txt' } });
      assert.deepEqual(field(withContext, 'file').initial, { value: '/ws/src/main.ts', text: '/ws/src/main.ts', source: 'context' });
      // A tuned value of the wrong type is ignored, as binding ignores it.
      assert.deepEqual(field(buildInputForm(schema, { context: {}, tuned: { batch: 'lots' } }), 'batch').initial?.source, 'default');
    });
  });

  describe('context-bound properties', () => {
    const schema = {
      type: 'object',
      required: ['file', 'query'],
      properties: {
        file: { type: 'string', 'x-context': 'active_file' },
        query: { type: 'string' },
        code: { type: 'string', default: '${context.selection}' },
        token: { type: 'string', default: '${env:API_TOKEN}' },
        workspace_folder: { type: 'string' },
        language_id: { type: 'string' },
        selection: { type: 'integer' },
      },
    };
    const context = { activeFile: '/ws/a.py', selection: 'line one\nline two', workspaceFolder: '/ws' };
    const form = buildInputForm(schema, { context });

    it('come last, prefilled with the value of the moment, and may be left as they are', () => {
      assert.deepEqual(
        form.fields.map((f) => [f.name, f.boundFrom ?? null]),
        [
          ['query', null],
          ['language_id', null],
          ['selection', null],
          ['file', 'the active file'],
          ['code', 'the selection'],
          ['token', 'the environment variable API_TOKEN'],
          ['workspace_folder', 'the workspace folder'],
        ],
      );
      assert.equal(field(form, 'file').initial?.text, '/ws/a.py');
      assert.equal(accepted(field(form, 'file'), '/ws/a.py'), 'KEEP', 'left as it is: binding takes it from the context');
      assert.equal(accepted(field(form, 'file'), '/ws/b.py'), '/ws/b.py', 'changed: sent explicitly');
      assert.equal(field(form, 'workspace_folder').initial?.text, '/ws');
    });

    it('keep a multi-line selection out of the single-line box, and never show an environment value', () => {
      const code = field(form, 'code');
      assert.equal(code.initial?.value, 'line one\nline two');
      assert.equal(code.initial?.text, '', 'an input box would drop the line breaks');
      assert.equal(accepted(code, ''), 'KEEP');
      const token = field(form, 'token');
      assert.equal(token.initial, undefined);
      assert.equal(accepted(token, ''), 'KEEP', 'empty: binding reads the variable');
    });

    it('bind a context name only when there is a value of the right type (like binding)', () => {
      // `selection` is an integer here: the selection text does not bind to it; `language_id` has no value now.
      assert.equal(field(form, 'selection').boundFrom, undefined);
      assert.equal(field(form, 'language_id').boundFrom, undefined);
      const none = buildInputForm(schema, { context: {} });
      assert.equal(field(none, 'file').boundFrom, 'the active file');
      assert.equal(field(none, 'file').initial, undefined);
      assert.match(refused(field(form, 'query'), '  '), /query is required; type the text/);
    });
  });

  describe('odd schemas', () => {
    it('follows local $refs, with a description beside the $ref winning', () => {
      const form = buildInputForm(
        {
          $ref: '#/definitions/args',
          definitions: {
            args: { type: 'object', properties: { mode: { $ref: '#/definitions/mode', description: 'How hard to try' } } },
            mode: { enum: ['fast', 'slow'], description: 'shared', default: 'fast' },
          },
        },
        { context: {} },
      );
      const mode = field(form, 'mode');
      assert.equal(mode.kind, 'enum');
      assert.equal(mode.description, 'How hard to try');
      assert.deepEqual(mode.initial, { value: 'fast', text: 'fast', source: 'default' });
    });

    it('handles untyped, combined, constant and non-string enum properties', () => {
      const form = buildInputForm(
        {
          type: 'object',
          properties: {
            anything: {},
            either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
            size: { enum: [1, 2, 2, 4] },
            fixed: { const: 'v1' },
            mixed: { type: ['string', 'integer'] },
            nested: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'integer' } } } } },
            never: false,
          },
        },
        { context: {} },
      );
      assert.deepEqual(
        form.fields.map((f) => [f.name, f.kind]),
        [
          ['anything', 'text'],
          ['either', 'json'],
          ['size', 'enum'],
          ['fixed', 'enum'],
          ['mixed', 'text'],
          ['nested', 'json'],
        ],
      );
      assert.deepEqual(field(form, 'size').options?.map((o) => o.value), [1, 2, 4, undefined], 'duplicates once, then "not set"');
      assert.match(form.notes.join(' '), /Not asked: "never"/);
      assert.deepEqual(accepted(field(form, 'nested'), '{"a": {"b": "3"}}'), { a: { b: 3 } }, 'nested values are coerced as binding does');
    });

    it('asks nothing without a schema, and says what is wrong with a schema that is not an object', () => {
      assert.deepEqual(buildInputForm(undefined, { context: {} }), { fields: [], notes: [] });
      assert.deepEqual(buildInputForm(true, { context: {} }).fields, []);
      assert.match(buildInputForm({ type: 'string' }, { context: {} }).error ?? '', /must describe an object \("type": "object" with "properties"\), not string/);
      assert.match(buildInputForm(['x'], { context: {} }).error ?? '', /not a JSON Schema object/);
    });

    it(`caps a huge schema at ${MAX_FORM_FIELDS} fields, required first, and says how to set the rest`, () => {
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < 80; i++) properties[`p${i}`] = { type: 'string' };
      const form = buildInputForm({ type: 'object', properties, required: ['p79', 'p60'] }, { context: {} });
      assert.equal(form.fields.length, MAX_FORM_FIELDS);
      assert.deepEqual(form.fields.slice(0, 3).map((f) => f.name), ['p60', 'p79', 'p0']);
      assert.equal(form.notes.length, 1);
      assert.match(form.notes[0] ?? '', /has 80 properties; the form asks for the first 50 \(required ones first\)\. The other 30 take their defaults/);
      assert.match(form.notes[0] ?? '', /skillwright\.runSkill \{"name"/);
      const tight = buildInputForm({ type: 'object', properties, required: ['p1', 'p2', 'p3'] }, { context: {}, maxFields: 2 });
      assert.match(tight.notes[0] ?? '', /and 1 of them is required with no default/);
    });
  });

  describe('typed answers', () => {
    const form = buildInputForm(deploySchema, { context: {} });

    it('coerces numbers as binding does and checks their bounds', () => {
      const replicas = field(form, 'replicas');
      assert.equal(accepted(replicas, ' 7 '), 7);
      assert.equal(accepted(replicas, '2'), 'KEEP', 'the default as it was: left to binding');
      assert.match(refused(replicas, 'seven'), /^replicas must be an integer, got "seven"\.$/);
      assert.match(refused(replicas, '2.5'), /must be an integer/);
      assert.match(refused(replicas, '11'), /^replicas must be at most 10\.$/);
      assert.match(refused(replicas, '0'), /must be at least 1/);
      assert.equal(accepted(field(form, 'ratio'), '1e-3'), 0.001);
      assert.match(refused(field(form, 'ratio'), '0x10'), /must be a number/);
    });

    it('reads JSON for arrays and objects, and one bare item for an array', () => {
      const tags = field(form, 'tags');
      assert.deepEqual(accepted(tags, '["a", "b"]'), ['a', 'b']);
      assert.deepEqual(accepted(tags, 'solo'), ['solo']);
      assert.equal(accepted(tags, ''), 'KEEP', 'optional and empty: left out');
      assert.match(refused(field(form, 'labels'), '{oops'), /labels is not valid JSON .*; type a JSON object, e\.g\. \{"key": "value"\}\./);
      assert.match(refused(field(form, 'labels'), '{"a": 1}'), /labels at a must be a string, got 1/);
    });

    it('reads picks, where picking what binding would use anyway sends nothing', () => {
      const region = field(form, 'region');
      assert.deepEqual(pickAnswer(region, 1), { keep: false, value: 'us' });
      assert.deepEqual(pickAnswer(region, 0), { keep: true });
      assert.equal(pickAnswer(region, 9), undefined);
    });

    it('agrees with the executor: whatever the form accepts binds and validates', () => {
      const answers = new Map([
        ['target', parseFieldText(field(form, 'target'), 'web')],
        ['replicas', parseFieldText(field(form, 'replicas'), '10')],
        ['tags', parseFieldText(field(form, 'tags'), 'x')],
        ['labels', parseFieldText(field(form, 'labels'), '{"team": "ops"}')],
        ['ratio', parseFieldText(field(form, 'ratio'), '0.5')],
      ] as const);
      const explicit = formArguments(
        form.fields,
        new Map([...answers].map(([name, parsed]) => (parsed.ok ? [name, parsed.answer] : assert.fail(`${name}: ${parsed.error}`)))),
      );
      const bound = bindArguments({ skill: 'deploy', inputSchema: deploySchema, explicit, context: {}, env: {}, declaredEnv: [] }, validator);
      if (!bound.ok) assert.fail(bound.error);
      assert.deepEqual(bound.arguments, { target: 'web', replicas: 10, tags: ['x'], labels: { team: 'ops' }, ratio: 0.5, dry_run: true, region: 'eu' });
      assert.deepEqual(bound.sources, { target: 'explicit', replicas: 'explicit', tags: 'explicit', labels: 'explicit', ratio: 'explicit', dry_run: 'default', region: 'default' });
    });
  });

  describe('stepping through', () => {
    const schema = {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', description: 'Who to greet' }, times: { type: 'integer', default: 3 }, tone: { enum: ['warm', 'dry'], default: 'warm' } },
    };
    const form = buildInputForm(schema, { context: {} });

    it('titles each step "Run <skill> (i/n)" and goes back with the earlier answer kept', async () => {
      const prompter = scripted([
        { type: 'text', text: 'Ada' },
        { type: 'text', text: '5' },
        { type: 'back' },
        (step) => {
          assert.equal(step.value, '5', 'coming back shows the earlier answer');
          return { type: 'back' };
        },
        (step) => {
          assert.equal(step.value, 'Ada');
          assert.equal(step.canGoBack, false);
          return { type: 'text', text: 'Grace' };
        },
        { type: 'text', text: '5' },
        (step) => {
          assert.equal(step.activeOption, 0, 'the default is selected first');
          return { type: 'pick', option: 1 };
        },
      ]);
      const outcome = await runInputForm('greet', form, prompter);
      assert.deepEqual(outcome, { ok: true, arguments: { name: 'Grace', times: 5, tone: 'dry' } });
      assert.deepEqual(
        prompter.steps.map((s) => s.title),
        ['Run greet (1/3)', 'Run greet (2/3)', 'Run greet (3/3)', 'Run greet (2/3)', 'Run greet (1/3)', 'Run greet (2/3)', 'Run greet (3/3)'],
      );
      assert.equal(prompter.steps[0]?.prompt, 'Who to greet (required)');
      assert.match(prompter.steps[1]?.placeholder ?? '', /^Type a whole number; the default is 3$/);
    });

    it('asks again with the reason when an answer is refused, and validates as the box types', async () => {
      const prompter = scripted([
        (step) => {
          assert.match(step.validate('') ?? '', /name is required/);
          assert.equal(step.validate('x'), undefined);
          return { type: 'text', text: '' };
        },
        (step) => {
          assert.match(step.error ?? '', /name is required/);
          return { type: 'text', text: 'Ada' };
        },
        { type: 'text', text: 'many' },
        (step) => {
          assert.match(step.error ?? '', /times must be an integer, got "many"/);
          return { type: 'text', text: '3' };
        },
        { type: 'pick', option: 0 },
      ]);
      assert.deepEqual(await runInputForm('greet', form, prompter), { ok: true, arguments: { name: 'Ada' } }, 'defaults left alone are not sent');
    });

    it('ends without arguments when cancelled, at any step', async () => {
      assert.deepEqual(await runInputForm('greet', form, scripted([{ type: 'text', text: 'Ada' }, { type: 'cancel' }])), { ok: false, cancelled: true });
    });

    it('asks nothing for a skill without arguments, and shows the notes with the first step only', async () => {
      assert.deepEqual(await runInputForm('noargs', buildInputForm(undefined, { context: {} }), scripted([])), { ok: true, arguments: {} });
      const withNote = buildInputForm({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } } }, { context: {}, maxFields: 2 });
      const prompter = scripted([
        { type: 'text', text: '' },
        { type: 'text', text: '' },
      ]);
      await runInputForm('x', withNote, prompter);
      assert.equal(prompter.steps[0]?.notes.length, 1);
      assert.deepEqual(prompter.steps[1]?.notes, []);
    });
  });
});
