import * as assert from 'node:assert/strict';
import {
  buildCatalog,
  catalogLine,
  DEFAULT_CATALOG_BUDGET,
  DESCRIPTION_SHARE,
  firstSentence,
  SHORT_DESCRIPTION_CHARS,
  shortenDescription,
} from '../../../src/core/skills/catalog/skillCatalog';
import type { CatalogResult } from '../../../src/core/skills/catalog/skillCatalog';
import type { SkillRecord } from '../../../src/core/skills/model/skillTypes';
import { estimateTokens } from '../../../src/core/text/tokenEstimate';
import { seededRandom as seeded } from '../../../bench/generateSkillTree';
import { skillRecord } from './skillRecordFixture';

function skill(name: string, description: string, category = '', extra: Partial<SkillRecord> = {}): SkillRecord {
  return skillRecord(name, description, { category, ...extra });
}


const WORDS = ['deploy', 'the', 'service', 'Kubernetes', 'résumé', 'データ', 'graph', 'e.g.', 'Use', 'when', 'tests', '🙂', 'API', 'x'];

function randomSkills(random: () => number, count: number): SkillRecord[] {
  const pick = (list: readonly string[]): string => list[Math.floor(random() * list.length)] ?? assert.fail('pick from an empty list');
  return Array.from({ length: count }, (_, i) => {
    const sentences = Array.from({ length: Math.floor(random() * 4) }, () =>
      Array.from({ length: 1 + Math.floor(random() * 25) }, () => pick(WORDS)).join(' '),
    );
    const description = sentences.map((s) => `${s[0]?.toUpperCase()}${s.slice(1)}.`).join(' ');
    return skill(`skill-${i}-${pick(WORDS).toLowerCase()}`, description, pick(['', 'devops', 'devops/k8s', 'data', 'writing', 'ml/eval']));
  });
}

/** Every skill is listed with a description, listed by name only, or reported omitted: exactly one. */
function assertAccounted(result: CatalogResult, records: readonly SkillRecord[], context: string): void {
  const described = result.text.split('\n').filter((line) => line.startsWith('- ')).length;
  assert.equal(result.included, described, context);
  assert.equal(result.included + result.namesOnly.length + result.omitted.length, records.length, context);
}

const small = [
  skill('deploy-app', 'Deploy a service to the cluster with Helm. Checks the rollout afterwards.', 'devops/k8s'),
  skill('release-notes', 'Draft release notes from merged pull requests.'),
  skill('sql-review', 'Review SQL queries for correctness and performance.', 'data'),
  skill('docker-compose', 'Write docker compose files.\nUse for local multi-container setups.', 'devops'),
];

describe('catalogLine', () => {
  it('shows one skill as "- name: description" on one line', () => {
    assert.equal(catalogLine(small[3] ?? assert.fail('no fourth skill')), '- docker-compose: Write docker compose files. Use for local multi-container setups.');
    assert.equal(catalogLine(skill('bare', '  ')), '- bare');
    assert.equal(catalogLine(skill('  spaced\tname ', 'a\u0000b')), '- spaced name: a b');
  });
});

describe('buildCatalog', () => {
  it('groups skills by category in a fixed format that tells the model how to reach the rest', () => {
    const result = buildCatalog(small);
    assert.equal(
      result.text,
      [
        '## Skills',
        '',
        'Skills hold instructions for recurring tasks. When a task matches a skill below, load it with skill_view(name) before acting; skill_view(name, file_path) opens a file the skill links to.',
        'List every skill with skills_list(), or search them with skills_list(query="<words>").',
        '',
        '### (top level)',
        '- release-notes: Draft release notes from merged pull requests.',
        '',
        '### data',
        '- sql-review: Review SQL queries for correctness and performance.',
        '',
        '### devops',
        '- docker-compose: Write docker compose files. Use for local multi-container setups.',
        '',
        '### devops/k8s',
        '- deploy-app: Deploy a service to the cluster with Helm. Checks the rollout afterwards.',
        '',
      ].join('\n'),
    );
    assert.equal(result.tokens, estimateTokens(result.text));
    assert.equal(result.budgetTokens, DEFAULT_CATALOG_BUDGET);
    assert.equal(result.included, 4);
    assert.deepEqual([result.shortened, result.collapsed, result.namesOnly, result.omitted], [[], [], [], []]);
  });

  it('gives byte-identical text for the same skills in any order, whatever the usage', () => {
    const records = randomSkills(seeded(7), 60);
    const reversed = [...records].reverse();
    const usage = { [records[3]?.name ?? assert.fail('no fourth record')]: { uses: 9 } };
    for (const budget of [200, 800, 5000]) {
      assert.equal(buildCatalog(records, { budgetTokens: budget }).text, buildCatalog(reversed, { budgetTokens: budget }).text);
    }
    assert.equal(buildCatalog(records, { usage }).text, buildCatalog(reversed, { usage }).text);
  });

  it('never exceeds the budget, and accounts for every skill, over many sizes and budgets', () => {
    const random = seeded(42);
    for (let round = 0; round < 40; round++) {
      const records = randomSkills(random, Math.floor(random() * 80));
      for (const budget of [0, 1, 5, 20, 40, 60, 100, 150, 230, 400, 700, 1000, 1600, 3000, 10_000]) {
        const jittered = budget + Math.floor(random() * 7);
        const result = buildCatalog(records, { budgetTokens: jittered });
        const context = `round ${round}, ${records.length} skills, budget ${jittered}`;
        assert.ok(result.tokens <= jittered, `${context}: ${result.tokens} tokens`);
        assert.equal(result.tokens, estimateTokens(result.text), context);
        assertAccounted(result, records, context);
      }
    }
  });

  it('shortens descriptions first: the least used skills to their first sentence', () => {
    const records = [
      skill('alpha', 'Alpha does the first thing. Then it explains a lot more about the first thing.'),
      skill('beta', 'Beta does the second thing. Then it explains a lot more about the second thing.'),
    ];
    const full = buildCatalog(records);
    const result = buildCatalog(records, { budgetTokens: full.tokens - 3, usage: { alpha: { uses: 4 } } });
    assert.deepEqual(result.shortened, ['beta']);
    assert.ok(result.text.includes('- beta: Beta does the second thing.\n'));
    assert.ok(result.text.includes(catalogLine(records[0] ?? assert.fail('no records'))));
    assert.deepEqual([result.collapsed, result.omitted], [[], []]);
  });

  it('then cuts long first sentences to a fixed length with an ellipsis', () => {
    const long = `Handles ${'very '.repeat(40)}long things`;
    const records = [skill('long-one', long), skill('other', long)];
    const result = buildCatalog(records, { budgetTokens: buildCatalog(records).tokens - 20 });
    assert.ok(result.shortened.length > 0);
    const line = result.text.split('\n').find((l) => l.startsWith('- other')) as string;
    assert.ok(line.endsWith('…') && line.length <= '- other: '.length + SHORT_DESCRIPTION_CHARS, line);
  });

  it('then keeps short descriptions for the skills that need them most and lists the others by name, and says so', () => {
    const records = randomSkills(seeded(3), 40);
    const hot = records.find((r) => r.category === 'data') as SkillRecord;
    const budget = 700;
    const result = buildCatalog(records, { budgetTokens: budget, usage: { [hot.name]: { uses: 50, lastUsed: 1 } } });
    assert.ok(result.namesOnly.length > 0 && result.included > 0, JSON.stringify(result));
    assert.ok(!result.namesOnly.includes(hot.name) && !result.omitted.includes(hot.name), 'the used skill keeps its description');
    assert.deepEqual(result.omitted, []);
    assert.match(result.text, /Categories marked "\(names only\)" list skills without descriptions/);
    // A category whose skills are split lists the described ones, then its "(names only)" section.
    const lines = result.text.split('\n');
    const named = lines.indexOf('### data (names only)');
    const described = lines.indexOf('### data');
    assert.ok(described > 0 && named > described, result.text);
    assert.ok(lines.slice(described + 1, named - 1).every((line) => line.startsWith('- ')));
    assert.deepEqual(lines[named + 1]?.split(', ').sort(), records.filter((r) => r.category === 'data' && result.namesOnly.includes(r.name)).map((r) => r.name).sort());
    assert.deepEqual(result.collapsed, [...new Set(records.filter((r) => result.namesOnly.includes(r.name)).map((r) => r.category))].sort());
  });

  it('gives descriptions first to names that say little, then to skills that work, when not all fit', () => {
    const long = 'Does one particular thing with a fairly long explanation of when and why it applies here.';
    const telling = ['kafka-topic-audit', 'postgres-vacuum-tuning', 'terraform-drift-report', 'helm-chart-linter', 'grafana-panel-export'];
    const records = [
      ...Array.from({ length: 30 }, (_, i) => skill(`${telling[i % telling.length]}-${i}`, long)),
      skill('helper', long),
      skill('tools', long),
      skill('steady-worker', long),
      skill('flaky-worker', long),
    ];
    const usage = { 'steady-worker': { uses: 5, successes: 9, failures: 0 }, 'flaky-worker': { uses: 5, successes: 0, failures: 9, thumbsDown: 3 } };
    let healthyOnly = false;
    for (let budget = 150; budget < 1200; budget += 10) {
      const result = buildCatalog(records, { budgetTokens: budget, usage });
      const has = (name: string) => result.text.includes(`- ${name}: `);
      if (result.included === 0 || result.included === records.length) continue;
      // The used skills come first; of those, the one that works; then the names that tell nothing.
      if (has('flaky-worker')) assert.ok(has('steady-worker'), `budget ${budget}`);
      if (has('helper') || has('tools')) assert.ok(has('flaky-worker'), `budget ${budget}`);
      if (result.text.includes('- kafka-topic-audit-0: ')) assert.ok(has('helper') && has('tools'), `budget ${budget}`);
      if (has('steady-worker') && !has('flaky-worker')) healthyOnly = true;
    }
    assert.ok(healthyOnly, 'some budget describes the working skill and not the failing one');
  });

  it('while skills are left out, gives at most about half the room to descriptions', () => {
    const records = randomSkills(seeded(11), 1000);
    const result = buildCatalog(records, { budgetTokens: 3000 });
    assert.ok(result.omitted.length > 0 && result.namesOnly.length > 0 && result.included > 0, JSON.stringify(result).slice(0, 300));
    const lines = result.text.split('\n');
    const describedTokens = estimateTokens(lines.filter((line) => line.startsWith('- ')).join('\n'));
    const room = 3000 - estimateTokens(lines.slice(0, 6).join('\n'));
    assert.ok(describedTokens <= DESCRIPTION_SHARE * room + 40, `${describedTokens} of ${room}`);
    assert.ok(describedTokens >= DESCRIPTION_SHARE * room - 60, `${describedTokens} of ${room}`);
  });

  it('last leaves out the least used skills, names them, and tells the model how to find them', () => {
    const records = randomSkills(seeded(5), 200);
    const favourite = records[150] ?? assert.fail('fewer than 151 records');
    const result = buildCatalog(records, { budgetTokens: 300, usage: { [favourite.name]: { uses: 3 } } });
    assert.ok(result.omitted.length > 0);
    assert.ok(!result.omitted.includes(favourite.name), 'a used skill stays listed');
    assert.ok(result.text.includes(`${result.omitted.length} more skills are not listed here; find them with skills_list(query="<words>")`));
    for (const name of result.omitted) assert.ok(!result.text.includes(name), name);
    // Without usage, names later in code-unit order go first (of those listed by name; a few others
    // keep a description).
    const plain = buildCatalog(records, { budgetTokens: 300 });
    const lastKept = [...plain.namesOnly].sort().at(-1) ?? assert.fail('nothing kept');
    assert.ok(plain.omitted.every((n) => n > lastKept));
  });

  it('after skills change, are added or removed, gives exactly what a build from scratch gives', () => {
    const random = seeded(21);
    // The catalog keeps what it worked out for each record object between builds; a build from
    // copies of the records shares none of it.
    const steps: SkillRecord[][] = [randomSkills(random, 150)];
    const removed: SkillRecord[] = [];
    for (let step = 1; step < 30; step++) {
      const next = [...(steps[step - 1] ?? assert.fail('no previous step'))];
      for (let change = Math.floor(random() * 4); change >= 0; change--) {
        const at = Math.floor(random() * next.length);
        const roll = random();
        const record = next[at] ?? assert.fail('no record left to change');
        if (roll < 0.2) removed.push(...next.splice(at, 1));
        else if (roll < 0.3 && removed.length > 0) next.push(removed.shift() as SkillRecord); // the same object back
        else if (roll < 0.7) next[at] = { ...record, description: `Changed. ${record.description}` };
        else next.splice(at, 0, skill(`new-${step}-${change}`, 'Added later. With two sentences.', record.category));
      }
      steps.push(next);
    }
    const last = steps.at(-1) ?? assert.fail('no steps');
    const [first, second] = last;
    assert.ok(first && second);
    // The same record object twice, another record with the same name and file, then neither.
    steps.push([...last, first], [...last, { ...second }], last, [...last.slice(1), first]);
    const usage = { [steps[0]?.[7]?.name ?? assert.fail('no eighth record')]: { uses: 3, lastUsed: 5 } };
    const budgets = [300, 900, 2500, 100_000];
    const expected = steps.map((records, i) =>
      buildCatalog(records.map((r) => ({ ...r })), { budgetTokens: budgets[i % budgets.length], usage }),
    );
    steps.forEach((records, i) => {
      assert.deepEqual(buildCatalog(records, { budgetTokens: budgets[i % budgets.length], usage }), expected[i], `step ${i}`);
    });
  });

  it('falls back to a one-line pointer, then to nothing, when the budget is tiny', () => {
    const pointer = buildCatalog(small, { budgetTokens: 30 });
    assert.equal(pointer.text, '## Skills\n4 skills are available: skills_list() lists them, skills_list(query="<words>") searches them.\n');
    assert.equal(pointer.omitted.length, 4);
    assert.deepEqual(buildCatalog(small, { budgetTokens: 3 }).text, '');
    assert.deepEqual(buildCatalog(small, { budgetTokens: -5 }).text, '');
    assert.equal(buildCatalog(small, { budgetTokens: Number.NaN }).budgetTokens, DEFAULT_CATALOG_BUDGET);
  });

  it('leaves out shadowed, disabled and platform-hidden skills, and is empty without skills', () => {
    const hidden = [
      skill('shadowed', 'x', '', { shadowedBy: '/p/SKILL.md' }),
      skill('off', 'x', '', { disabled: true }),
      skill('windows-only', 'x', '', { platformHidden: true }),
    ];
    const result = buildCatalog([...small, ...hidden]);
    assert.equal(result.text, buildCatalog(small).text);
    assert.deepEqual(buildCatalog([]), { text: '', tokens: 0, budgetTokens: 3000, included: 0, shortened: [], collapsed: [], namesOnly: [], omitted: [] });
  });
});

describe('firstSentence and shortenDescription', () => {
  it('ends the first sentence before a capital, skipping abbreviations', () => {
    assert.equal(firstSentence('Formats code. Use it before commits.'), 'Formats code.');
    assert.equal(firstSentence('Handles files, e.g. PDF and Word. Use for exports.'), 'Handles files, e.g. PDF and Word.');
    assert.equal(firstSentence('Version 2.0 is supported. More text.'), 'Version 2.0 is supported.');
    assert.equal(firstSentence('no sentence end here'), 'no sentence end here');
  });

  it('cuts at a word boundary and never splits a surrogate pair', () => {
    assert.equal(shortenDescription('short', 80), 'short');
    assert.equal(shortenDescription('one two three four five six', 15), 'one two three…');
    const emoji = shortenDescription('🙂'.repeat(20), 8);
    assert.ok(emoji.endsWith('…') && !/[\ud800-\udbff]…$/.test(emoji), emoji);
  });
});

describe('estimateTokens', () => {
  it('never counts fewer tokens than a quarter of the characters', () => {
    const random = seeded(11);
    for (let i = 0; i < 500; i++) {
      const length = Math.floor(random() * 400);
      const text = Array.from({ length }, () => String.fromCharCode(32 + Math.floor(random() * 95))).join('');
      assert.ok(estimateTokens(text) >= Math.ceil(text.length / 4), JSON.stringify(text));
    }
    assert.ok(estimateTokens('データ分析🙂') >= Math.ceil('データ分析🙂'.length / 4));
  });

  it('counts each non-ASCII character as a token and adds up across joins', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcd'), 1);
    assert.equal(estimateTokens('abcde'), 2);
    assert.equal(estimateTokens('データ'), 3);
    assert.equal(estimateTokens('🙂'), 1);
    const random = seeded(13);
    for (let i = 0; i < 200; i++) {
      const a = WORDS.slice(0, Math.floor(random() * WORDS.length)).join(' ');
      const b = WORDS.slice(Math.floor(random() * WORDS.length)).join('-');
      assert.ok(estimateTokens(a + b) <= estimateTokens(a) + estimateTokens(b));
    }
  });
});
