import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hasWhenToUseSignal } from '../../../src/core/skills/lint/whenToUse';
import { LINT_RULES, lintSkill } from '../../../src/core/skills/lint/skillLint';
import type { LintContext } from '../../../src/core/skills/lint/ruleInput';
import { parseSkillText } from '../../../src/core/skills/model/skillParser';
import { repoRoot } from '../../repoRoot';
import { DESCRIPTION, BODY, skill, lint, codes, only, applyFix } from './lintFixtures';

describe('lintSkill', () => {
  it('finds nothing in a clean skill', async () => {
    assert.deepEqual(await lint(skill()), []);
  });

  it('includes the parse problems and sorts everything by position, then code', async () => {
    const text = '---\nname: Bad Name\ndescription: Use this: when X\nauthor: me\n---\n';
    const found = await lint(text);
    assert.deepEqual(found.map((f) => f.code), ['SW202', 'SW105', 'SW401', 'SW501']);
    for (let i = 1; i < found.length; i++) {
      const a = found[i - 1]?.range;
      const b = found[i]?.range;
      assert.ok(a && b);
      assert.ok(a.startLine < b.startLine || (a.startLine === b.startLine && a.startColumn <= b.startColumn));
    }
  });

  it('reports only the binary problem for a binary file', async () => {
    const parsed = { ...parseSkillText(''), problems: [{ code: 'SW100', severity: 'error' as const, message: 'binary', range: { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 } }] };
    const found = await lintSkill(parsed, { folderName: 'x', exists: () => true });
    assert.deepEqual(found.map((f) => f.code), ['SW100']);
  });

  it('does not throw when exists() throws or rejects', async () => {
    const text = skill('', '[a](references/a.md)\n');
    const throwing = await lintSkill(parseSkillText(text), { folderName: 'my-skill', exists: () => { throw new Error('EACCES'); } });
    const rejecting = await lintSkill(parseSkillText(text), { folderName: 'my-skill', exists: () => Promise.reject(new Error('EIO')) });
    assert.deepEqual(throwing, []);
    assert.deepEqual(rejecting, []);
  });

  describe('frontmatter (SW1xx)', () => {
    it('SW103 offers to add a frontmatter block named after the folder', async () => {
      const text = '# Notes\n\nSome instructions.\n';
      const [found] = await only('SW103', text, { folder: 'release-notes' });
      const fixed = applyFix(text, found!);
      assert.match(fixed, /^---\nname: release-notes\ndescription: "TODO: /);
      const after = await codes(fixed, { folder: 'release-notes' });
      assert.ok(!after.includes('SW103') && !after.includes('SW201') && !after.includes('SW301'));
      assert.deepEqual(after, ['SW306']);
    });

    it('SW103 does not also report name and description as missing', async () => {
      assert.deepEqual(await codes('plain text\n'), ['SW103']);
    });
  });

  describe('name (SW2xx)', () => {
    it('SW201 fires when name is missing, and the fix adds the folder name', async () => {
      const text = `---\ndescription: ${DESCRIPTION}\n---\n${BODY}`;
      const [found] = await only('SW201', text);
      assert.ok(found);
      assert.deepEqual(await lint(applyFix(text, found)), []);
    });

    it('SW201 fires for an empty name and the fix fills it in', async () => {
      const text = skill('', BODY, '');
      const [found] = await only('SW201', text);
      assert.deepEqual(await lint(applyFix(text, found!)), []);
    });

    it('SW202 fires for a malformed name and suggests a slug', async () => {
      const text = skill('', BODY, 'PDF_Tools');
      const [found] = await only('SW202', text, { folder: 'pdf-tools' });
      assert.ok(found);
      assert.deepEqual(found.range, { startLine: 1, startColumn: 6, endLine: 1, endColumn: 15 });
      assert.equal(found.fixes?.[0]?.title, 'Change name to pdf-tools');
      assert.deepEqual(await lint(applyFix(text, found), { folder: 'pdf-tools' }), []);
    });

    it('SW202 explains each defect', async () => {
      const messages = async (name: string): Promise<string> => (await only('SW202', skill('', BODY, name), { folder: 'x' }))[0]?.message ?? '';
      assert.match(await messages('a'.repeat(65)), /65 characters/);
      assert.match(await messages('my--skill'), /consecutive hyphens/);
      assert.match(await messages('-skill'), /hyphen/);
      assert.match(await messages('my skill'), /characters other than/);
    });

    it('SW202 quotes a numeric name so YAML keeps it text', async () => {
      const text = skill('', BODY, '2048');
      const [found] = await only('SW202', text, { folder: '2048' });
      assert.match(found!.message, /not text/);
      assert.deepEqual(await lint(applyFix(text, found!), { folder: '2048' }), []);
    });

    it('SW202 does not fire for valid names of 1 to 64 characters', async () => {
      for (const name of ['a', 'pdf2-tools', 'a'.repeat(64)]) {
        assert.deepEqual(await only('SW202', skill('', BODY, name), { folder: name }), []);
      }
    });

    it('SW203 fires when the name differs from the folder; the fix sets the folder name', async () => {
      const text = skill('', BODY, 'other-name');
      const [found] = await only('SW203', text);
      assert.ok(found);
      assert.match(found.message, /"other-name" differs from its folder "my-skill"/);
      assert.deepEqual(await lint(applyFix(text, found)), []);
    });

    it('SW203 offers no fix when the folder name itself is not a valid name', async () => {
      const [found] = await only('SW203', skill('', BODY, 'my-skill'), { folder: 'My Skill' });
      assert.ok(found);
      assert.equal(found.fixes, undefined);
    });
  });

  describe('description (SW3xx)', () => {
    it('SW301 fires when description is missing; the fix inserts a placeholder that says what to write', async () => {
      const text = `---\nname: my-skill\n---\n${BODY}`;
      const [found] = await only('SW301', text);
      assert.ok(found);
      const fixed = applyFix(text, found);
      assert.match(fixed, /^---\nname: my-skill\ndescription: "TODO: say what this skill does and when to use it/);
      assert.deepEqual(await codes(fixed), ['SW306']);
    });

    it('SW301 fires for an empty description and the fix fills the existing line', async () => {
      const text = `---\nname: my-skill\ndescription:\n---\n${BODY}`;
      const [found] = await only('SW301', text);
      assert.deepEqual(await codes(applyFix(text, found!)), ['SW306']);
    });

    it('keeps CRLF line endings when a quick fix inserts a line', async () => {
      const text = `---\r\nname: my-skill\r\n---\r\n${BODY.replace(/\n/g, '\r\n')}`;
      const [found] = await only('SW301', text);
      const fixed = applyFix(text, found!);
      assert.ok(fixed.startsWith('---\r\nname: my-skill\r\ndescription: "TODO'));
      assert.ok(!/[^\r]\n/.test(fixed), 'no bare LF');
      assert.deepEqual(await codes(fixed), ['SW306']);
    });

    it('SW302 fires when description is not text', async () => {
      assert.deepEqual(await codes(`---\nname: my-skill\ndescription: [a, b]\n---\n${BODY}`), ['SW302']);
    });

    it('SW303 fires over 1,024 characters and not at 1,024', async () => {
      const base = 'Use when testing. ';
      const at = (n: number): string => skill('', BODY).replace(DESCRIPTION, (base + 'x'.repeat(n - base.length)));
      assert.deepEqual(await codes(at(1025)), ['SW303']);
      assert.deepEqual(await codes(at(1024)), []);
    });

    it('SW304 fires for a very short description', async () => {
      assert.deepEqual(await codes(skill().replace(DESCRIPTION, 'PDF tool')), ['SW304']);
    });

    it('SW305 fires when the description never says when to use the skill', async () => {
      assert.deepEqual(await codes(skill().replace(DESCRIPTION, 'Fills PDF forms from JSON data files.')), ['SW305']);
    });

    it('recognises the usual "when to use" phrasings and not incidental "when"', () => {
      const yes = [
        'Fill PDFs. Use when the user sends a form.',
        'Fill PDFs. USE FOR: forms, invoices.',
        'Toolkit for styling artifacts with a theme.',
        'Fill PDFs whenever a form arrives.',
        'Triggers on "fill this form".',
        'Fill PDFs if you need a signed copy.',
        'Load this skill when connecting an agent to Power Automate.',
        'Best suited for educational visuals.',
      ];
      const no = [
        'Fill PDFs, only when appropriate.',
        'Prefer the CLI when installed.',
        'Best practices for NUnit unit testing.',
        'Create a README.md file for the project.',
        'Parse a string of text.',
      ];
      for (const text of yes) assert.equal(hasWhenToUseSignal(text), true, text);
      for (const text of no) assert.equal(hasWhenToUseSignal(text), false, text);
    });

    it('SW306 fires for a TODO description', async () => {
      assert.deepEqual(await codes(skill().replace(DESCRIPTION, 'TODO write this later please')), ['SW306']);
    });
  });

  describe('other fields (SW4xx)', () => {
    it('SW401 reports unknown keys and accepts every spec and Skillwright field', async () => {
      const [found] = await only('SW401', skill('author: jane\n'));
      assert.deepEqual(found?.range, { startLine: 3, startColumn: 0, endLine: 3, endColumn: 6 });
      assert.equal(found?.severity, 'info');
      const known = [
        'license: MIT', 'compatibility: Needs git', 'metadata:\n  owner: jane', 'allowed-tools: Read Grep', 'version: 1.0.0',
        'tags: [pdf]', 'platforms: [linux]', 'priority: 10', 'level: 0', 'use_cases: [forms]', 'example_queries: [fill this]',
        'requires_tools: [read_file]', 'permissions:\n  network: false', 'timeout_seconds: 30', 'input_schema:\n  type: object',
        'output_schema:\n  type: object', 'adaptation:\n  parameters: {}',
      ];
      assert.deepEqual(await only('SW401', skill(known.join('\n') + '\n')), []);
    });

    it('SW402 fires for compatibility over 500 characters or not text', async () => {
      assert.deepEqual(await codes(skill(`compatibility: ${'x'.repeat(501)}\n`)), ['SW402']);
      assert.deepEqual(await codes(skill('compatibility: [linux]\n')), ['SW402']);
      assert.deepEqual(await codes(skill(`compatibility: ${'x'.repeat(500)}\n`)), []);
    });

    it('SW403 fires for non-string metadata values; the fix quotes a scalar as written', async () => {
      const text = skill('metadata:\n  owner: jane\n  version: 1.0\n  nested:\n    a: b\n');
      const found = await only('SW403', text);
      assert.equal(found.length, 2);
      const scalar = found.find((f) => f.message.includes('metadata.version'))!;
      assert.deepEqual(scalar.range, { startLine: 5, startColumn: 11, endLine: 5, endColumn: 14 });
      const fixed = applyFix(text, scalar);
      assert.match(fixed, /version: "1\.0"/);
      assert.deepEqual((await only('SW403', fixed)).map((f) => f.message.slice(0, 18)), ['`metadata.nested` ']);
      assert.deepEqual(await codes(skill('metadata:\n  owner: jane\n')), []);
      assert.deepEqual(await codes(skill('metadata: just text\n')), ['SW403']);
    });

    it('SW404 fires for a version that is not semver; the fix suggests a full one', async () => {
      const text = skill('version: 1.2\n');
      const [found] = await only('SW404', text);
      assert.equal(found?.fixes?.[0]?.title, 'Change version to 1.2.0');
      assert.deepEqual(await lint(applyFix(text, found!)), []);
      assert.deepEqual(await codes(skill('version: latest\n')), ['SW404']);
      assert.deepEqual(await codes(skill('version: 2.0.0-beta.1\n')), []);
    });

    it('SW405 fires for a level other than 0, 1, 2', async () => {
      assert.deepEqual(await codes(skill('level: 3\n')), ['SW405']);
      assert.deepEqual(await codes(skill('level: "1"\n')), ['SW405']);
      assert.deepEqual(await codes(skill('level: 2\n')), []);
    });

    it('SW406 fires for a priority outside 0-100', async () => {
      assert.deepEqual(await codes(skill('priority: 101\n')), ['SW406']);
      assert.deepEqual(await codes(skill('priority: high\n')), ['SW406']);
      assert.deepEqual(await codes(skill('priority: 0\n')), []);
    });

    it('SW407 fires for unknown platforms, suggests the right one, and accepts darwin/win32', async () => {
      const text = skill('platforms: [linux, mac]\n');
      const [found] = await only('SW407', text);
      assert.deepEqual(found?.range, { startLine: 3, startColumn: 19, endLine: 3, endColumn: 22 });
      assert.deepEqual(await lint(applyFix(text, found!)), []);
      assert.deepEqual(await codes(skill('platforms: linux\n')), ['SW407']);
      assert.deepEqual(await codes(skill('platforms: [darwin, win32, linux, macos, windows]\n')), []);
    });

    it('SW408 fires for a timeout that is not a positive number', async () => {
      for (const value of ['0', '-5', '"60"']) {
        assert.deepEqual(await codes(skill(`timeout_seconds: ${value}\n`)), ['SW408'], value);
      }
      assert.deepEqual(await codes(skill('timeout_seconds: 2.5\n')), []);
    });

    it('SW409 fires for list fields written as text and for a non-text license', async () => {
      assert.deepEqual(await codes(skill('tags: pdf, forms\n')), ['SW409']);
      assert.deepEqual(await codes(skill('license: 3\n')), ['SW409']);
      assert.deepEqual(await codes(skill('tags: [pdf, forms]\nlicense: MIT\nallowed-tools: [Read, Grep]\n')), []);
    });
  });

  describe('body and links (SW5xx)', () => {
    it('SW501 fires for an empty body', async () => {
      const [found] = await only('SW501', skill('', '\n\n'));
      assert.equal(found?.range.startLine, 3);
      assert.deepEqual(await only('SW501', skill()), []);
    });

    it('SW502 fires past 500 body lines, at line 501 of the body', async () => {
      const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n') + '\n';
      const [found] = await only('SW502', skill('', lines(501)));
      assert.equal(found?.range.startLine, 4 + 500);
      assert.deepEqual(await only('SW502', skill('', lines(500) + '\n\n')), []);
    });

    it('SW503 fires for a relative link to a missing file, with the range of the target', async () => {
      const text = skill('', 'See [the guide](references/guide.md#setup) and ![logo](assets/logo.png).\n');
      const found = await only('SW503', text, { files: ['assets/logo.png'] });
      assert.equal(found.length, 1);
      assert.deepEqual(found[0]?.range, { startLine: 4, startColumn: 16, endLine: 4, endColumn: 41 });
      assert.match(found[0]?.message ?? '', /references\/guide\.md#setup/);
    });

    it('SW503 ignores URLs, anchors, mailto, placeholders, code spans and fenced code', async () => {
      const body = [
        '[site](https://example.com/x.md) [top](#usage) [mail](mailto:a@b.c) [abs](/etc/hosts)',
        '[link](url) [tmpl]({slug}.md) `[code](missing.md)`',
        '```markdown',
        '[inside fence](missing.md)',
        '```',
        '~~~',
        'references/also-missing.md',
        '~~~',
        '[ok](references/guide.md) [ref]: references/guide.md',
      ].join('\n');
      assert.deepEqual(await lint(skill('', body + '\n'), { files: ['references/guide.md'] }), []);
    });

    it('SW503 checks reference-style link definitions and decodes %20', async () => {
      const body = '[guide][g]\n\n[g]: references/missing%20file.md\n[ok](references/my%20notes.md)\n';
      const found = await only('SW503', skill('', body), { files: ['references/my notes.md'] });
      assert.equal(found.length, 1);
      assert.equal(found[0]?.range.startLine, 6);
    });

    it('SW504 fires for a support-folder path mentioned in prose or inline code that does not exist', async () => {
      const text = skill('', 'Run `python scripts/extract.py input.pdf`, then read references/forms.md.\n');
      const found = await only('SW504', text, { files: ['references/forms.md'] });
      assert.equal(found.length, 1);
      assert.deepEqual(found[0]?.range, { startLine: 4, startColumn: 12, endLine: 4, endColumn: 30 });
    });

    it('SW504 ignores folders, placeholders, illustrations and other skills\' paths', async () => {
      const body = [
        'Put helpers in scripts/ and docs in references/<topic>.md.',
        'Example: `scripts/rotate_pdf.py` for PDF rotation.',
        'See references/filename.md for the naming rule.',
        'Other skill: ../pdf/scripts/fill.py and ~/.hermes/skills/x/scripts/y.py',
      ].join('\n');
      assert.deepEqual(await lint(skill('', body + '\n')), []);
    });
  });

  describe('schema, permissions, execution (SW6xx)', () => {
    const schema = (props: string, required = ''): string =>
      `input_schema:\n  type: object\n  properties:\n${props}${required ? `  required: [${required}]\n` : ''}`;

    it('SW601 fires when more than half the parameters have no description', async () => {
      const props = '    a:\n      type: string\n    b:\n      type: string\n    c:\n      type: string\n      description: The c value.\n';
      const [found] = await only('SW601', skill(schema(props)));
      assert.match(found!.message, /2 of 3 input parameters/);
      assert.equal(found!.range.startLine, 5);
      const half = '    a:\n      type: string\n    b:\n      type: string\n      description: The b value.\n';
      assert.deepEqual(await codes(skill(schema(half))), []);
    });

    it('SW602 fires when a required parameter is described as optional', async () => {
      const props = '    path:\n      type: string\n      description: Optional path; may be empty.\n    mode:\n      type: string\n      description: Read or write.\n';
      const [found] = await only('SW602', skill(schema(props, 'path, mode')));
      assert.match(found!.message, /"path" is required/);
      assert.equal(found!.range.startLine, 6);
      assert.deepEqual(await codes(skill(schema(props, 'mode'))), []);
    });

    it('SW603 fires for an executable skill without permissions', async () => {
      const [found] = await only('SW603', skill('entry: scripts/fill.py\n'));
      assert.equal(found?.range.startLine, 3);
      assert.deepEqual(await codes(skill('entry: scripts/fill.py\npermissions:\n  filesystem: read\n')), []);
    });

    it('SW604 fires when the entry script does not exist', async () => {
      assert.deepEqual(await codes(skill('entry: scripts/missing.py\npermissions: {}\n')), ['SW604']);
      assert.deepEqual(await codes(skill('entry: 42\npermissions: {}\n')), ['SW604']);
    });

    it('SW605 fires for an entry outside the skill folder', async () => {
      assert.deepEqual(await codes(skill('entry: ../other/run.sh\npermissions: {}\n')), ['SW605']);
      assert.deepEqual(await codes(skill('entry: /usr/bin/python\npermissions: {}\n')), ['SW605']);
    });

    it('SW606 fires for a malformed schema', async () => {
      assert.deepEqual(await codes(skill('input_schema: a string\n')), ['SW606']);
      assert.deepEqual(await codes(skill('input_schema:\n  properties: [a, b]\n')), ['SW606']);
      assert.deepEqual(await codes(skill(schema('    a:\n      description: The a value.\n', 'b'))), ['SW606']);
      assert.deepEqual(await codes(skill('output_schema: 3\n')), ['SW606']);
    });

    it('SW607 fires for an endpoint that is not http(s)', async () => {
      assert.deepEqual(await codes(skill('endpoint: ftp://host/run\npermissions: {}\n')), ['SW607']);
      assert.deepEqual(await codes(skill('endpoint: https://tools.example.com/v1\npermissions: {}\n')), []);
    });
  });

  describe('workflow (SW7xx)', () => {
    const installed: LintContext['skills'] = new Map([
      ['fetch-url', [{ scope: 'project', file: '/p/fetch-url/SKILL.md', version: '1.4.0' }]],
      ['summarize', [{ scope: 'user', file: '/u/summarize/SKILL.md', version: '2.1.0' }]],
    ]);
    const flow = (steps: string, extra = 'permissions: {}\n'): string => skill(`${extra}workflow:\n${steps}`);
    const good =
      '  - step: fetch\n    skill: fetch-url\n    with:\n      url: ${input.url}\n' +
      '  - step: sum\n    skill: summarize@^2.0.0\n    depends_on: [fetch]\n    with:\n      text: ${steps.fetch.output.body}\n    error_strategy: fallback\n    fallback_skill: fetch-url\n';
    const withSchema = 'permissions: {}\ninput_schema:\n  type: object\n  properties:\n    url:\n      type: string\n      description: Page to read.\n';

    it('accepts a valid workflow', async () => {
      assert.deepEqual(await lint(flow(good, withSchema), { skills: installed }), []);
    });

    it('SW701 fires for a workflow that is not a list of steps, or a step without skill or id', async () => {
      assert.deepEqual(await codes(skill('permissions: {}\nworkflow: run everything\n')), ['SW701']);
      const found = await only('SW701', flow('  - step: a\n  - skill: fetch-url\n  - just text\n'));
      assert.equal(found.length, 3);
      assert.deepEqual(found.map((f) => f.range.startLine), [5, 6, 7]);
    });

    it('SW702 fires for a duplicate step id, on the second one', async () => {
      const [found] = await only('SW702', flow('  - step: a\n    skill: x\n  - step: a\n    skill: y\n'));
      assert.equal(found?.range.startLine, 7);
    });

    it('SW703 fires for an unknown skill, only when the installed skills are known', async () => {
      const steps = '  - step: a\n    skill: no-such-skill\n';
      const [found] = await only('SW703', flow(steps), { skills: installed });
      assert.deepEqual(found?.range, { startLine: 6, startColumn: 11, endLine: 6, endColumn: 24 });
      assert.deepEqual(await only('SW703', flow(steps)), []);
    });

    it('SW704 fires for references to undeclared inputs or steps and unknown forms', async () => {
      const steps =
        '  - step: a\n    skill: fetch-url\n    with:\n      u: ${input.nope}\n      v: ${env.HOME}\n      w: ${steps.ghost.output}\n      x: ${steps.b.result}\n      y: ${steps.a.output}\n' +
        '  - step: b\n    skill: fetch-url\n';
      const found = await only('SW704', flow(steps, withSchema), { skills: installed });
      assert.equal(found.length, 5);
      assert.deepEqual(found.map((f) => f.range.startLine), [14, 15, 16, 17, 18]);
      assert.match(found[0]?.message ?? '', /does not declare/);
    });

    it('SW704 accepts any input name when there is no input_schema, and later steps by id', async () => {
      const steps = '  - step: a\n    skill: fetch-url\n    with:\n      u: ${input.anything.deep}\n      v: ${steps.b.output}\n  - step: b\n    skill: fetch-url\n';
      assert.deepEqual(await only('SW704', flow(steps), { skills: installed }), []);
    });

    it('SW704 accepts ${context.<name>} for the run\'s context variables and names the others', async () => {
      const steps = '  - step: a\n    skill: fetch-url\n    with:\n      f: ${context.activeFile}\n      g: ${context.cwd}\n';
      const found = await only('SW704', flow(steps), { skills: installed });
      assert.equal(found.length, 1);
      assert.match(found[0]?.message ?? '', /"cwd".*workspaceFolder, activeFile/);
    });

    it('SW710 fires for an `if` that cannot be read, and SW704 for what a readable one reads wrongly', async () => {
      const steps =
        "  - step: a\n    skill: fetch-url\n  - step: b\n    skill: fetch-url\n    if: \"steps.a.output.n =~ 3\"\n" +
        "  - step: c\n    skill: fetch-url\n    if: \"steps.ghost.status == 'failed' or input.nope or steps.a.result\"\n" +
        "  - step: d\n    skill: fetch-url\n    if: \"steps.a.status == 'failed' and exists(steps.a.output.x) and context.languageId == 'go'\"\n";
      const unreadable = await only('SW710', flow(steps, withSchema), { skills: installed });
      assert.equal(unreadable.length, 1);
      assert.match(unreadable[0]?.message ?? '', /step b cannot be read: .*=~/);
      const wrong = await only('SW704', flow(steps, withSchema), { skills: installed });
      assert.deepEqual(wrong.map((f) => f.message.match(/no step "ghost"|does not declare "nope"|offers output, status and error/)?.[0]), ['no step "ghost"', 'does not declare "nope"', 'offers output, status and error']);
    });

    it('SW706 counts the steps an `if` reads as dependencies', async () => {
      const steps = "  - step: a\n    skill: fetch-url\n    if: \"steps.b.status == 'success'\"\n  - step: b\n    skill: fetch-url\n    depends_on: a\n";
      assert.equal((await only('SW706', flow(steps), { skills: installed })).length, 1);
    });

    it('SW705 fires when no installed version matches the range', async () => {
      const [found] = await only('SW705', flow('  - step: a\n    skill: summarize@^1.0.0\n'), { skills: installed });
      assert.match(found?.message ?? '', /installed: 2\.1\.0/);
      assert.deepEqual(await codes(flow('  - step: a\n    skill: summarize\n    version: not-a-range!\n'), { skills: installed }), ['SW705']);
      assert.deepEqual(await codes(flow('  - step: a\n    skill: summarize\n    version: ">=2"\n'), { skills: installed }), []);
    });

    it('SW706 fires for a cycle through depends_on and ${steps} references', async () => {
      const steps = '  - step: a\n    skill: fetch-url\n    depends_on: b\n  - step: b\n    skill: fetch-url\n    with:\n      x: ${steps.a.output}\n';
      const found = await only('SW706', flow(steps), { skills: installed });
      assert.equal(found.length, 1);
      assert.match(found[0]?.message ?? '', /a → b → a/);
    });

    it('SW707 fires when depends_on names an unknown step', async () => {
      const [found] = await only('SW707', flow('  - step: a\n    skill: fetch-url\n    depends_on: [nope]\n'), { skills: installed });
      assert.equal(found?.range.startLine, 7);
    });

    it('SW708 fires for bad error handling settings', async () => {
      const steps = '  - step: a\n    skill: fetch-url\n    error_strategy: explode\n    max_retries: -1\n  - step: b\n    skill: fetch-url\n    error_strategy: fallback\n';
      assert.deepEqual(await codes(flow(steps), { skills: installed }), ['SW708', 'SW708', 'SW708']);
    });

    it('survives a very long chain of steps', async () => {
      const steps = Array.from({ length: 5000 }, (_, i) => `  - step: s${i}\n    skill: fetch-url\n${i > 0 ? `    depends_on: s${i - 1}\n` : ''}`).join('');
      assert.deepEqual(await lint(flow(steps), { skills: installed }), []);
    });
  });

  describe('duplicates (SW801)', () => {
    const skills: LintContext['skills'] = new Map([
      ['my-skill', [
        { scope: 'project', file: '/w/.agents/skills/my-skill/SKILL.md' },
        { scope: 'user', file: '/home/u/.agents/skills/my-skill/SKILL.md' },
      ]],
    ]);

    it('says this skill wins when it has the higher-precedence scope', async () => {
      const [found] = await only('SW801', skill(), { skills, self: { scope: 'project', file: '/w/.agents/skills/my-skill/SKILL.md' } });
      assert.equal(found?.severity, 'info');
      assert.match(found!.message, /This one \(project\) wins/);
      assert.match(found!.message, /\/home\/u\/\.agents\/skills\/my-skill\/SKILL\.md \(user\)/);
    });

    it('says which skill shadows this one', async () => {
      const [found] = await only('SW801', skill(), { skills, self: { scope: 'user', file: '/home/u/.agents/skills/my-skill/SKILL.md' } });
      assert.match(found!.message, /\/w\/\.agents\/skills\/my-skill\/SKILL\.md \(project\) wins, so this one is shadowed/);
    });

    it('does not fire for a unique name', async () => {
      const unique: LintContext['skills'] = new Map([['my-skill', [{ scope: 'project', file: '/a/SKILL.md' }]]]);
      assert.deepEqual(await only('SW801', skill(), { skills: unique, self: { scope: 'project', file: '/a/SKILL.md' } }), []);
    });
  });

  describe('LINT_RULES and docs/lint-rules.md', () => {
    const readDocs = (): string => fs.readFileSync(path.join(repoRoot(), 'docs', 'lint-rules.md'), 'utf8');

    it('has unique codes in the documented ranges', () => {
      const all = LINT_RULES.map((rule) => rule.code);
      assert.equal(new Set(all).size, all.length);
      for (const code of all) assert.match(code, /^SW[1-9]\d\d$/);
    });

    it('documents every code with its severity and an example, and nothing else', () => {
      const docs = readDocs();
      const headings = [...docs.matchAll(/^### (SW\d{3}) /gm)].map((m) => m[1]);
      assert.deepEqual(headings, LINT_RULES.map((rule) => rule.code));
      for (const rule of LINT_RULES) {
        const section = docs.slice(docs.indexOf(`### ${rule.code} `), docs.indexOf('\n### ', docs.indexOf(`### ${rule.code} `) + 1));
        assert.ok(section.includes(`Severity: ${rule.severity}`), `${rule.code} severity`);
        assert.ok(/```/.test(section), `${rule.code} example`);
      }
    });
  });
});

