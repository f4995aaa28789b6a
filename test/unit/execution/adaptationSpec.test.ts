import * as assert from 'node:assert/strict';
import type { AdaptationSpec, NumericParam } from '../../../src/core/execution/adaptationSpec';
import { maxChange, normalizeValue, parseAdaptation } from '../../../src/core/execution/adaptationSpec';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';

const SCHEMA = `input_schema:
  type: object
  properties:
    batch_size: { type: integer, description: Items per request }
    temperature: { type: number, description: Sampling temperature }
    mode: { type: string, enum: [fast, thorough, exhaustive], description: How hard to look }
    verbose: { type: boolean, description: Log each item }
`;

function frontmatter(adaptation: string, schema = SCHEMA): Record<string, unknown> {
  const parsed = parseSkillText(`---\nname: tuned\ndescription: Use when testing tuning.\n${schema}${adaptation}---\nbody\n`);
  assert.deepEqual(parsed.problems, [], 'the YAML itself must parse');
  return parsed.frontmatter;
}

function errorsOf(adaptation: string, schema?: string): string[] {
  const result = parseAdaptation(frontmatter(adaptation, schema));
  assert.ok(result, 'adaptation is present');
  if (result.ok) assert.fail(`expected errors, got ${JSON.stringify(result)}`);
  return result.errors;
}

function specOf(adaptation: string): AdaptationSpec {
  const result = parseAdaptation(frontmatter(adaptation));
  assert.ok(result?.ok, `expected a spec, got ${JSON.stringify(result)}`);
  return result.spec;
}

describe('parseAdaptation', () => {
  it('reads the documented example, mapping form', () => {
    const spec = specOf(`adaptation:
  strategy: heuristic          # or: script
  feedback_window_days: 14
  min_signals: 3
  tunable_params:
    batch_size: { type: integer, min: 10, max: 500, default: 100, step: 10 }
    temperature: { type: number, min: 0, max: 1, default: 0.3 }
    mode: { type: string, enum: [fast, thorough], default: fast }
`);
    assert.deepEqual(spec, {
      strategy: 'heuristic',
      windowDays: 14,
      minSignals: 3,
      params: [
        { name: 'batch_size', type: 'integer', min: 10, max: 500, default: 100, step: 10 },
        { name: 'temperature', type: 'number', min: 0, max: 1, default: 0.3 },
        { name: 'mode', type: 'string', enum: ['fast', 'thorough'], default: 'fast' },
      ],
    });
  });

  it('reads the list form, a script strategy, and fills the defaults of window and signals', () => {
    const spec = specOf(`adaptation:
  strategy: script
  entry: ./scripts/tune.py
  tunable_params:
    - { name: verbose, type: boolean, default: false }
    - { name: batch_size, type: integer, min: 0, max: 50, default: 0 }
`);
    assert.equal(spec.strategy, 'script');
    assert.equal(spec.entry, 'scripts/tune.py');
    assert.equal(spec.windowDays, 14);
    assert.equal(spec.minSignals, 3);
    assert.deepEqual(spec.params.map((p) => p.name), ['verbose', 'batch_size']);
  });

  it('is undefined when there is no adaptation block', () => {
    assert.equal(parseAdaptation(frontmatter('')), undefined);
  });

  it('says what is wrong with bounds and defaults, and how to fix it', () => {
    const errors = errorsOf(`adaptation:
  tunable_params:
    batch_size: { type: integer, min: 500, max: 10, default: 100 }
    temperature: { type: number, min: 0, max: 1, default: 1.5 }
    mode: { type: string, enum: [fast, thorough], default: slow }
`);
    assert.equal(errors.length, 3);
    assert.match(errors[0] ?? '', /batch_size.*min 500 and max 10; min must be below max/);
    assert.match(errors[1] ?? '', /temperature\.default` 1\.5 lies outside \[0, 1\]/);
    assert.match(errors[2] ?? '', /mode\.default` is "slow", which is not in its enum \(fast, thorough\)/);
  });

  it('refuses params the 20 % rule could never move, naming the fix', () => {
    const [wideStep] = errorsOf(`adaptation:
  tunable_params:
    batch_size: { type: integer, min: 10, max: 500, default: 100, step: 50 }
`);
    assert.match(wideStep ?? '', /at most 20 % of the default \(20\), less than one step \(50\).*step of at most 20/);
    const [smallInteger] = errorsOf(`adaptation:
  tunable_params:
    batch_size: { type: integer, min: 0, max: 5, default: 2 }
`);
    assert.match(smallInteger ?? '', /less than one integer step \(1\).*default of at least 5/);
    const [narrowZero] = errorsOf(`adaptation:
  tunable_params:
    batch_size: { type: integer, min: 0, max: 4, default: 0 }
`);
    assert.match(narrowZero ?? '', /\(0\.8\), less than one integer step \(1\).*Widen the range to at least 5/);
  });

  it('refuses unknown strategies and fields, a script without entry, an entry outside the folder', () => {
    const params = `  tunable_params:\n    verbose: { type: boolean, default: true }\n`;
    assert.match(errorsOf(`adaptation:\n  strategy: genetic\n${params}`)[0] ?? '', /strategy` is "genetic"; use `heuristic`.*or `script`/);
    assert.match(errorsOf(`adaptation:\n  strategy: script\n${params}`)[0] ?? '', /needs `entry`/);
    assert.match(errorsOf(`adaptation:\n  strategy: script\n  entry: ../tune.py\n${params}`)[0] ?? '', /points outside the skill folder/);
    assert.match(errorsOf(`adaptation:\n  entry: tune.py\n${params}`)[0] ?? '', /only used with `strategy: script`/);
    assert.match(errorsOf(`adaptation:\n  window: 3\n${params}`)[0] ?? '', /`adaptation.window` is not a known field/);
    assert.match(errorsOf(`adaptation:\n  min_signals: 0\n${params}`)[0] ?? '', /min_signals` is 0; it must be a whole number from 1 to 100/);
    assert.match(errorsOf(`adaptation:\n  feedback_window_days: -2\n${params}`)[0] ?? '', /feedback_window_days` is -2/);
    assert.match(errorsOf(`adaptation:\n  tunable_params:\n    verbose: { type: boolean, default: true, maximum: 3 }\n`)[0] ?? '', /verbose\.maximum` is not a field of a boolean parameter/);
  });

  it('refuses incomplete or malformed params', () => {
    const errors = errorsOf(`adaptation:
  tunable_params:
    - { type: integer, min: 1, max: 9, default: 5 }
    - { name: batch_size, type: int, min: 1, max: 9, default: 5 }
    - { name: temperature, type: number, max: 1, default: 0.5 }
    - { name: mode, type: string, default: fast }
    - { name: verbose, type: boolean, default: yes please }
`);
    assert.equal(errors.length, 5, errors.join('\n'));
    assert.match(errors[0] ?? '', /tunable_params\[0\]` needs a `name`/);
    assert.match(errors[1] ?? '', /type` is "int"; use integer, number/);
    assert.match(errors[2] ?? '', /needs `min`/);
    assert.match(errors[3] ?? '', /enum` must list at least two strings/);
    assert.match(errors[4] ?? '', /default` must be true or false/);
    assert.match(errorsOf('adaptation:\n  tunable_params: []\n')[0] ?? '', /empty/);
    assert.match(errorsOf('adaptation:\n  tunable_params:\n    - { name: constructor, type: boolean, default: true }\n')[0] ?? '', /"constructor" cannot be tuned \(the name is reserved\)/);
    assert.match(errorsOf('adaptation: fast\n')[0] ?? '', /must be a mapping/);
  });

  it('checks each param against input_schema: declared, same type, same default, allowed enum and range', () => {
    const schema = `input_schema:
  type: object
  properties:
    batch_size: { type: string, description: Items }
    temperature: { type: number, default: 0.7, minimum: 0.1 }
    mode: { type: string, enum: [fast] }
`;
    const errors = errorsOf(
      `adaptation:
  tunable_params:
    batch_size: { type: integer, min: 10, max: 500, default: 100 }
    temperature: { type: number, min: 0, max: 1, default: 0.3 }
    mode: { type: string, enum: [fast, thorough], default: fast }
    retries: { type: integer, min: 0, max: 9, default: 5 }
`,
      schema,
    );
    assert.equal(errors.length, 5, errors.join('\n'));
    assert.match(errors[0] ?? '', /batch_size` is tuned as integer, but `input_schema.properties.batch_size.type` is string/);
    assert.match(errors[1] ?? '', /temperature.default` \(0.7\) differs from the adaptation default \(0.3\)/);
    assert.match(errors[2] ?? '', /temperature.min` 0 is below `input_schema.properties.temperature.minimum` 0.1/);
    assert.match(errors[3] ?? '', /mode.enum` has thorough, which .* does not allow/);
    assert.match(errors[4] ?? '', /retries` tunes an input that `input_schema.properties` does not declare/);
  });
});

describe('normalizeValue and maxChange', () => {
  const spec = specOf(`adaptation:
  tunable_params:
    batch_size: { type: integer, min: 10, max: 505, default: 100, step: 10 }
    temperature: { type: number, min: 0, max: 1, default: 0 }
`);
  const [batch, temperature] = spec.params;

  it('clamps into the bounds and snaps onto the step grid without leaving them', () => {
    assert.ok(batch && temperature);
    assert.equal(normalizeValue(batch, 123), 120);
    assert.equal(normalizeValue(batch, 126), 130);
    assert.equal(normalizeValue(batch, 9_999), 500, 'the highest grid point inside max 505');
    assert.equal(normalizeValue(batch, -3), 10);
    assert.equal(normalizeValue(batch, '120'), undefined);
    assert.equal(normalizeValue(batch, Number.NaN), undefined);
    assert.equal(normalizeValue(temperature, 1.7), 1);
  });

  it('caps a change at 20 % of |default|, or of the range when the default is 0', () => {
    assert.ok(batch && temperature);
    assert.equal(maxChange(batch as NumericParam), 20);
    assert.equal(maxChange(temperature as NumericParam), 0.2);
  });
});
