import * as assert from 'node:assert/strict';
import { applyTextEdits } from '../../../src/core/skills/lint/applyTextEdits';
import { MAX_SKILL_BYTES, decodeSkillBytes, parseSkillBytes, parseSkillText } from '../../../src/core/skills/model/skillParser';
import type { LintFinding } from '../../../src/core/skills/model/skillTypes';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const codes = (problems: readonly LintFinding[]): string[] => problems.map((p) => p.code);

describe('parseSkillText', () => {
  it('reads name, description, key lines and where the body starts', () => {
    const parsed = parseSkillText('---\nname: pdf-tools\ndescription: Fill PDF forms. Use when the user sends a PDF.\n---\n# PDF tools\n\nSteps.\n');
    assert.deepEqual(parsed.frontmatter, { name: 'pdf-tools', description: 'Fill PDF forms. Use when the user sends a PDF.' });
    assert.equal(parsed.hasFrontmatter, true);
    assert.deepEqual(parsed.keyLines, { name: 1, description: 2 });
    assert.equal(parsed.bodyStartLine, 4);
    assert.equal(parsed.body, '# PDF tools\n\nSteps.\n');
    assert.deepEqual(parsed.problems, []);
  });

  it('strips a UTF-8 BOM, from text and from bytes', () => {
    const text = '\uFEFF---\nname: a\ndescription: b\n---\nbody\n';
    assert.equal(parseSkillText(text).frontmatter['name'], 'a');
    assert.equal(parseSkillText(text).text.startsWith('---'), true);
    const fromBytes = parseSkillBytes(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('---\nname: a\n---\n')]));
    assert.equal(fromBytes.frontmatter['name'], 'a');
    assert.deepEqual(fromBytes.problems, []);
  });

  it('handles CRLF line endings without leaving \\r in values or lines', () => {
    const parsed = parseSkillText('---\r\nname: crlf-skill\r\ndescription: Use when testing.\r\n---\r\n# Body\r\nline\r\n');
    assert.equal(parsed.frontmatter['name'], 'crlf-skill');
    assert.equal(parsed.eol, '\r\n');
    assert.deepEqual(parsed.keyLines, { name: 1, description: 2 });
    assert.equal(parsed.body, '# Body\nline\n');
    assert.ok(parsed.lines.every((line) => !line.includes('\r')));
  });

  it('accepts a file that ends right after the closing ---', () => {
    const parsed = parseSkillText('---\nname: a\ndescription: b\n---');
    assert.equal(parsed.frontmatter['name'], 'a');
    assert.equal(parsed.body, '');
    assert.equal(parsed.frontmatterEndLine, 3);
    assert.deepEqual(parsed.problems, []);
  });

  it('treats empty frontmatter as an empty mapping, not an error', () => {
    const parsed = parseSkillText('---\n---\n# Body\n');
    assert.deepEqual(parsed.frontmatter, {});
    assert.equal(parsed.hasFrontmatter, true);
    assert.deepEqual(parsed.problems, []);
  });

  it('reports a missing frontmatter and keeps the whole file as body', () => {
    const parsed = parseSkillText('# Just markdown\n\nname: not-frontmatter\n');
    assert.deepEqual(codes(parsed.problems), ['SW103']);
    assert.equal(parsed.hasFrontmatter, false);
    assert.equal(parsed.bodyStartLine, 0);
    assert.equal(parsed.body, '# Just markdown\n\nname: not-frontmatter\n');
  });

  it('falls back to line-by-line reading when an unquoted value holds ": ", and says where YAML failed', () => {
    const text = '---\nname: colon-skill\ndescription: Use this: when X happens\nversion: 1.0.0\n---\nbody\n';
    const parsed = parseSkillText(text);
    assert.equal(parsed.fallbackUsed, true);
    assert.equal(parsed.frontmatter['name'], 'colon-skill');
    assert.equal(parsed.frontmatter['description'], 'Use this: when X happens');
    assert.equal(parsed.frontmatter['version'], '1.0.0');
    const [problem] = parsed.problems;
    assert.equal(problem?.code, 'SW105');
    assert.equal(problem?.range.startLine, 2);
    assert.ok(problem);
    assert.match(problem.message, /line 3/);
    assert.match(problem.message, /quotes/);
    const fixed = parseSkillText(applyTextEdits(text, problem.fixes?.[0]?.edits ?? assert.fail('no quick fix')));
    assert.deepEqual(fixed.problems, []);
    assert.equal(fixed.fallbackUsed, false);
    assert.equal(fixed.frontmatter['description'], 'Use this: when X happens');
  });

  it('reads block scalars and quoted values in the fallback', () => {
    const parsed = parseSkillText("---\nname: 'quoted-name'\ndescription: >\n  Folded text\n  on two lines.\nbroken: a: b\n---\n");
    assert.equal(parsed.fallbackUsed, true);
    assert.equal(parsed.frontmatter['name'], 'quoted-name');
    assert.equal(parsed.frontmatter['description'], 'Folded text on two lines.\n');
  });

  it('reports a YAML error with its line, e.g. a duplicate key', () => {
    const parsed = parseSkillText('---\nname: a\ndescription: b\nname: c\n---\n');
    assert.deepEqual(codes(parsed.problems), ['SW105']);
    assert.equal(parsed.problems[0]?.range.startLine, 3);
    assert.equal(parsed.frontmatter['name'], 'a');
  });

  it('warns about tab indentation, which YAML silently misreads, and fixes it', () => {
    const text = '---\nname: tabbed\nmetadata:\n\tauthor: jane\n---\n';
    const parsed = parseSkillText(text);
    assert.deepEqual(codes(parsed.problems), ['SW108']);
    assert.deepEqual(parsed.problems[0]?.range, { startLine: 3, startColumn: 0, endLine: 3, endColumn: 1 });
    const fixed = parseSkillText(applyTextEdits(text, parsed.problems[0]?.fixes?.[0]?.edits ?? assert.fail('no quick fix')));
    assert.deepEqual(fixed.problems, []);
    assert.deepEqual(fixed.frontmatter['metadata'], { author: 'jane' });
  });

  it('reports frontmatter that is never closed, reads it anyway and offers to close it', () => {
    const text = '---\nname: open-ended\ndescription: Use when testing.\n\n# Body\n';
    const parsed = parseSkillText(text);
    assert.deepEqual(codes(parsed.problems), ['SW104']);
    assert.equal(parsed.frontmatter['name'], 'open-ended');
    assert.equal(parsed.bodyStartLine, 3);
    const fixed = parseSkillText(applyTextEdits(text, parsed.problems[0]?.fixes?.[0]?.edits ?? assert.fail('no quick fix')));
    assert.deepEqual(fixed.problems, []);
    assert.equal(fixed.frontmatter['description'], 'Use when testing.');
    assert.equal(fixed.body.trim(), '# Body');
  });

  it('reports frontmatter that is a list or a scalar rather than a mapping', () => {
    assert.deepEqual(codes(parseSkillText('---\n- a\n- b\n---\n').problems), ['SW106']);
    assert.deepEqual(codes(parseSkillText('---\njust words\n---\n').problems), ['SW106']);
  });

  it('warns when blank lines come before the frontmatter, and removes them as a fix', () => {
    const text = '\n\n---\nname: late\n---\nbody\n';
    const parsed = parseSkillText(text);
    assert.equal(parsed.frontmatter['name'], 'late');
    assert.deepEqual(codes(parsed.problems), ['SW107']);
    assert.deepEqual(parseSkillText(applyTextEdits(text, parsed.problems[0]?.fixes?.[0]?.edits ?? assert.fail('no quick fix'))).problems, []);
  });

  it('never evaluates ---js frontmatter (gray-matter would)', () => {
    const parsed = parseSkillText("---js\n{ name: (globalThis.__skillwrightPwned = 'yes') }\n---\n");
    assert.equal((globalThis as Record<string, unknown>)['__skillwrightPwned'], undefined);
    assert.deepEqual(codes(parsed.problems), ['SW103']);
  });
});

describe('decodeSkillBytes', () => {
  it('decodes clean UTF-8 without problems', () => {
    const decoded = decodeSkillBytes(utf8('---\nname: café\n---\n'));
    assert.equal(decoded.text, '---\nname: café\n---\n');
    assert.deepEqual(decoded.problems, []);
  });

  it('decodes invalid UTF-8 with replacement characters and points at the first bad byte', () => {
    const bytes = new Uint8Array([...utf8('---\nname: ok\ndescription: caf'), 0xe9, ...utf8(' latin-1\n---\n')]);
    const parsed = parseSkillBytes(bytes);
    assert.deepEqual(codes(parsed.problems), ['SW101']);
    assert.deepEqual(parsed.problems[0]?.range, { startLine: 2, startColumn: 16, endLine: 2, endColumn: 17 });
    assert.equal(parsed.frontmatter['name'], 'ok');
    assert.equal(parsed.frontmatter['description'], 'caf\uFFFD latin-1');
  });

  it('rejects a binary file (NUL bytes) with empty text', () => {
    const decoded = decodeSkillBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    assert.equal(decoded.text, '');
    assert.deepEqual(codes(decoded.problems), ['SW100']);
    const parsed = parseSkillBytes(new Uint8Array([0x00, 0x00]));
    assert.deepEqual(codes(parsed.problems), ['SW100']);
    assert.deepEqual(parsed.frontmatter, {});
  });

  it('caps a 10 MB file, cutting at a line end, and says so', () => {
    const head = '---\nname: huge\ndescription: Use when testing size limits.\n---\n';
    const line = 'All work and no play makes a very long skill file indeed. ü\n';
    const text = head + line.repeat(Math.ceil((10 * 1024 * 1024) / line.length));
    const bytes = utf8(text);
    const parsed = parseSkillBytes(bytes);
    assert.deepEqual(codes(parsed.problems), ['SW102']);
    assert.ok(parsed.problems[0]?.message.includes(`${bytes.length.toLocaleString('en-US')} bytes`));
    assert.ok(utf8(parsed.text).length <= MAX_SKILL_BYTES);
    assert.ok(parsed.text.endsWith('indeed. ü'));
    assert.equal(parsed.frontmatter['name'], 'huge');
  });

  it('caps already-decoded text the same way', () => {
    const text = '---\nname: huge\n---\n' + 'x'.repeat(100) + '\n' + 'y'.repeat(2 * MAX_SKILL_BYTES);
    const parsed = parseSkillText(text);
    assert.deepEqual(codes(parsed.problems), ['SW102']);
    assert.ok(parsed.text.length <= MAX_SKILL_BYTES);
  });
});
