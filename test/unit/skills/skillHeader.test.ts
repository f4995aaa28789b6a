import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readFrontmatterFast } from '../../../src/core/skills/model/fastFrontmatter';
import { HEADER_BYTES, MAX_ABOUT_PART_CHARS, parseSkillHeaderText, readSkillHeader } from '../../../src/core/skills/model/skillHeader';
import { repoRoot } from '../../repoRoot';

function corpusSkillFiles(): string[] {
  const corpus = path.join(repoRoot(), '..', 'shared', 'corpus');
  if (!fs.existsSync(corpus)) {
    throw new Error(`The skills corpus is missing: expected it at ${corpus} (../shared/corpus from the repository root).`);
  }
  const files: string[] = [];
  const visit = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name === 'SKILL.md') files.push(full);
    }
  };
  visit(corpus);
  return files;
}

function doc(frontmatter: string, body = '# Title\n'): string {
  return `---\n${frontmatter}\n---\n${body}`;
}

/** Frontmatter the fast reader must handle itself, with what js-yaml makes of each. */
const HANDLED: { yaml: string; expect: Record<string, unknown> }[] = [
  { yaml: 'name: demo\ndescription: Does things. Use when asked.', expect: { name: 'demo', description: 'Does things. Use when asked.' } },
  { yaml: "description: 'It''s quoted: with a colon'", expect: { description: "It's quoted: with a colon" } },
  { yaml: 'description: "Tab\\tand \\"quotes\\" and \\u00e9"', expect: { description: 'Tab\tand "quotes" and é' } },
  { yaml: 'description: plain # a comment', expect: { description: 'plain' } },
  { yaml: 'description: C# and F#', expect: { description: 'C# and F#' } },
  { yaml: 'description: first line\n  second line\n\n  after a blank', expect: { description: 'first line second line\nafter a blank' } },
  { yaml: 'description: |\n  line one\n  line two\n', expect: { description: 'line one\nline two\n' } },
  { yaml: 'description: |-\n  line one\n\n  line two', expect: { description: 'line one\n\nline two' } },
  { yaml: 'description: |+\n  kept\n\nname: x', expect: { description: 'kept\n\n', name: 'x' } },
  { yaml: 'description: >\n  folded\n  text\n\n  new para\n    more indented\n  back', expect: { description: 'folded text\nnew para\n  more indented\nback\n' } },
  { yaml: 'description: >-\n  folded\n  strip', expect: { description: 'folded strip' } },
  { yaml: 'tags: [a, "b c", \'d\']', expect: { tags: ['a', 'b c', 'd'] } },
  { yaml: 'tags: []', expect: { tags: [] } },
  { yaml: 'tags:\n  - one\n  - two # note', expect: { tags: ['one', 'two'] } },
  { yaml: 'tags:\n- same indent\n- list\nname: after', expect: { tags: ['same indent', 'list'], name: 'after' } },
  { yaml: 'version: 1.0.0\nlevel: 2\nratio: 1.5\nflag: true\nnothing: ~', expect: { version: '1.0.0', level: 2, ratio: 1.5, flag: true, nothing: null } },
  { yaml: 'tags: [3d, blender]', expect: { tags: ['3d', 'blender'] } },
  { yaml: 'metadata:\n  author: me\n  hermes:\n    tags: [x, y]\n    category: c', expect: { metadata: { author: 'me', hermes: { tags: ['x', 'y'], category: 'c' } } } },
  { yaml: '# leading comment\nname: a\n\n# between\ndescription: b', expect: { name: 'a', description: 'b' } },
  { yaml: 'empty:\nname: a', expect: { empty: null, name: 'a' } },
  // YAML trims spaces only: a no-break space stays part of the value.
  { yaml: 'description: \u00a0led and trailing\u00a0', expect: { description: '\u00a0led and trailing\u00a0' } },
];

/** Frontmatter the fast reader must leave to js-yaml (it is outside the subset or invalid). */
const DEFERRED = [
  'name: a\nname: b',
  'anchor: &x value\nref: *x',
  'description: has: a colon-space',
  'tags: [a, [nested]]',
  'description: "multi\n  line quoted"',
  'date: 2024-01-01',
  'number: 1e5',
  'octal: 0777',
  'inf: .inf',
  'description:\tTabbed',
  'items:\n  - key: value',
  'description: |2\n   explicit indent',
  '  indented: top',
  'text: !!str 5',
];

describe('skill header: fast frontmatter reader', () => {
  for (const { yaml, expect } of HANDLED) {
    it(`reads ${JSON.stringify(yaml.slice(0, 40))} itself, exactly as js-yaml does`, () => {
      const fast = readFrontmatterFast(yaml);
      assert.ok(fast, 'the fast reader gave up on frontmatter it should handle');
      assert.deepEqual(fast, expect);
      const text = doc(yaml);
      assert.deepEqual(parseSkillHeaderText(text, 'fast'), parseSkillHeaderText(text, 'slow'));
    });
  }

  for (const yaml of DEFERRED) {
    it(`leaves ${JSON.stringify(yaml.slice(0, 40))} to js-yaml and still gets its answer`, () => {
      assert.equal(readFrontmatterFast(yaml), undefined);
      const text = doc(yaml);
      assert.deepEqual(parseSkillHeaderText(text, 'auto'), parseSkillHeaderText(text, 'slow'));
    });
  }

  it('agrees with js-yaml on every SKILL.md of the corpus, and reads almost all of them itself', () => {
    const files = corpusSkillFiles();
    assert.equal(files.length, 612, 'the corpus should hold 612 SKILL.md files (see its SOURCES.md)');
    let handled = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const fast = parseSkillHeaderText(text, 'fast');
      if (!fast) continue;
      handled++;
      const slow = parseSkillHeaderText(text, 'slow');
      const where = path.relative(path.join(repoRoot(), '..'), file);
      assert.equal(fast.name, slow.name, `name differs for ${where}`);
      assert.equal(fast.description, slow.description, `description differs for ${where}`);
      assert.deepEqual(fast.tags, slow.tags, `tags differ for ${where}`);
      assert.deepEqual(fast, slow, `header differs for ${where}`);
    }
    // Six files use lists of mappings (left to js-yaml on purpose); the rest must take the fast path.
    assert.ok(handled >= 600, `only ${handled} of ${files.length} corpus files took the fast path`);
  });
});

describe('skill header: reading files', () => {
  const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

  it('reads name, description, tags (including Hermes metadata tags), platforms, lists and headings', () => {
    const header = readSkillHeader(
      encode(
        doc(
          'name: deploy-app\ndescription: Deploys the app. Use when releasing.\nversion: 1.2.0\ntags: [deploy]\nplatforms: [Linux, darwin]\nuse_cases:\n  - ship a release\nexample_queries: ["deploy to prod"]\nmetadata:\n  hermes:\n    tags: [k8s, deploy]',
          '# Deploy app\n\n## Steps ##\n\n```bash\n# not a heading\n```\n\n~~~\n## also not\n~~~\n   ### Indented three\n    #### code block, not a heading\n',
        ),
      ),
    );
    assert.equal(header.name, 'deploy-app');
    assert.equal(header.description, 'Deploys the app. Use when releasing.');
    assert.equal(header.version, '1.2.0');
    assert.deepEqual(header.tags, ['deploy', 'k8s']);
    assert.deepEqual(header.platforms, ['linux', 'macos']);
    assert.deepEqual(header.useCases, ['ship a release']);
    assert.deepEqual(header.exampleQueries, ['deploy to prod']);
    assert.deepEqual(header.headings, ['Deploy app', 'Steps', 'Indented three']);
    assert.deepEqual(header.readErrors, []);
  });

  it('keeps what the body says of when to use the skill: its first paragraph, its "When to use" section and `triggers`', () => {
    const header = parseSkillHeaderText(
      doc(
        'name: hue\ndescription: Control lights.\ntriggers:\n  - turn on the lights\n  - movie mode',
        '<!-- generated -->\n# Hue\n\n    indented code, not prose\n\nControl Philips Hue lamps\nfrom the terminal.\n\nA second paragraph.\n\n## Setup\n\n```bash\nbrew install hue\n```\n\n## When NOT to use\n\n- other brands\n\n## When to Use\n\n- "Dim the bedroom"\n```\ncode in the section\n```\n- Adjust colour temperature\n\n## Commands\n\nLater text.\n',
      ),
    );
    assert.equal(header.about, 'Control Philips Hue lamps\nfrom the terminal.\n- "Dim the bedroom"\n- Adjust colour temperature\nturn on the lights\nmovie mode');
    assert.deepEqual(header.headings, ['Hue', 'Setup', 'When NOT to use', 'When to Use', 'Commands']);
  });

  it('bounds each part of the about text, and has none for a body of headings and code', () => {
    const long = 'lights '.repeat(300);
    const header = parseSkillHeaderText(doc('name: long\ndescription: d', `# Long\n\n${long}\n\n## Use this skill when\n\n${long}\n`));
    const [intro = '', when = ''] = (header.about ?? '').split('\n');
    assert.equal(intro.length, MAX_ABOUT_PART_CHARS);
    assert.equal(when.length, MAX_ABOUT_PART_CHARS);
    assert.equal(parseSkillHeaderText(doc('name: bare\ndescription: d', '# Bare\n\n```\ncode\n```\n')).about, '');
  });

  it('takes the level from the frontmatter, or infers it from workflow / adaptation', () => {
    assert.equal(readSkillHeader(encode(doc('name: a\nlevel: 2'))).level, 2);
    assert.equal(readSkillHeader(encode(doc('name: a\nworkflow:\n  - step: x'))).level, 1);
    assert.equal(readSkillHeader(encode(doc('name: a\nadaptation:\n  rate: 1'))).level, 2);
    assert.equal(readSkillHeader(encode(doc('name: a'))).level, 0);
  });

  it('reads a file with a BOM and CRLF line endings like any other', () => {
    const header = readSkillHeader(encode('\uFEFF---\r\nname: crlf\r\ndescription: |\r\n  two\r\n  lines\r\n---\r\n# Heading\r\n'));
    assert.equal(header.name, 'crlf');
    assert.equal(header.description, 'two\nlines\n');
    assert.deepEqual(header.headings, ['Heading']);
    assert.deepEqual(header.readErrors, []);
  });

  it('reads a file that ends right after the closing ---', () => {
    const header = readSkillHeader(encode('---\nname: short\ndescription: d\n---'));
    assert.equal(header.name, 'short');
    assert.deepEqual(header.readErrors, []);
  });

  it('explains a missing frontmatter, an unclosed one and a YAML error, and still salvages the name', () => {
    const none = readSkillHeader(encode('# Just markdown\n'));
    assert.equal(none.name, undefined);
    assert.match(none.readErrors[0] ?? '', /No frontmatter/);
    assert.deepEqual(none.headings, ['Just markdown']);

    const unclosed = readSkillHeader(encode('---\nname: open\ndescription: never closed\n\n# Body\n'));
    assert.equal(unclosed.name, 'open');
    assert.match(unclosed.readErrors[0] ?? '', /never closed/);
    assert.deepEqual(unclosed.headings, ['Body']);

    const broken = readSkillHeader(encode(doc('name: broken\ndescription: Use this: when it breaks')));
    assert.equal(broken.name, 'broken');
    assert.equal(broken.description, 'Use this: when it breaks');
    assert.match(broken.readErrors[0] ?? '', /Frontmatter YAML error on line 3/);
  });

  it('treats an empty frontmatter as no fields, without an error', () => {
    const header = readSkillHeader(encode('---\n---\n# Body\n'));
    assert.equal(header.name, undefined);
    assert.equal(header.description, '');
    assert.deepEqual(header.readErrors, []);
    assert.deepEqual(header.headings, ['Body']);
  });

  it('reports a binary file and invalid UTF-8 instead of throwing', () => {
    const binary = readSkillHeader(new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01]));
    assert.match(binary.readErrors[0] ?? '', /binary/);
    const latin1 = readSkillHeader(new Uint8Array([...encode('---\nname: caf'), 0xe9, ...encode('\n---\n')]));
    assert.equal(latin1.name, 'caf\uFFFD');
    assert.match(latin1.readErrors[0] ?? '', /not valid UTF-8/);
  });

  it('indexes only the start of a 10 MB file and says so', () => {
    const filler = `${'word '.repeat(19)}\n`;
    const text = doc('name: huge\ndescription: big', `# First\n${filler.repeat(Math.ceil((10 * 1024 * 1024) / filler.length))}# Far away\n`);
    const bytes = encode(text);
    const header = readSkillHeader(bytes);
    assert.ok(bytes.length > HEADER_BYTES);
    assert.equal(header.name, 'huge');
    assert.deepEqual(header.headings, ['First']);
    assert.match(header.readErrors[0] ?? '', /only its first 1\.0 MB were indexed/);
  });
});
