import * as assert from 'node:assert/strict';
import { classifyPreviewLink } from '../../../src/core/skills/preview/skillPreviewLinks';

describe('classifyPreviewLink (links clicked in the SKILL.md preview)', () => {
  it('refuses script and local-resource schemes however they are disguised', () => {
    for (const href of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      ' \u0001javascript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'command:workbench.action.terminal.new',
      'vscode://some.extension/run',
      'vscode-webview://x/y',
    ]) {
      const link = classifyPreviewLink(href);
      assert.equal(link.kind, 'refused', href);
    }
    const refused = classifyPreviewLink('javascript:alert(1)');
    assert.ok(refused.kind === 'refused' && /"javascript:" are not opened/.test(refused.reason));
  });

  it('lets http, https and mailto links out, normalised', () => {
    assert.deepEqual(classifyPreviewLink('https://example.com/a b'), { kind: 'external', url: 'https://example.com/a%20b' });
    assert.deepEqual(classifyPreviewLink('HTTP://Example.com'), { kind: 'external', url: 'http://example.com/' });
    assert.deepEqual(classifyPreviewLink('mailto:team@example.com'), { kind: 'external', url: 'mailto:team@example.com' });
    assert.equal(classifyPreviewLink('http://').kind, 'refused');
  });

  it('turns relative links into skill file paths without query or fragment, percent-decoded', () => {
    assert.deepEqual(classifyPreviewLink('references/guide.md#setup'), { kind: 'file', path: 'references/guide.md' });
    assert.deepEqual(classifyPreviewLink('./scripts/run%20me.py?x=1'), { kind: 'file', path: './scripts/run me.py' });
    assert.deepEqual(classifyPreviewLink('bad%zzescape.md'), { kind: 'file', path: 'bad%zzescape.md' });
    // The host resolves these inside the skill folder and refuses "..": see skillPaths.resolveInSkill.
    assert.deepEqual(classifyPreviewLink('../other-skill/SKILL.md'), { kind: 'file', path: '../other-skill/SKILL.md' });
  });

  it('keeps anchors in the page and refuses absolute paths and empty links', () => {
    assert.deepEqual(classifyPreviewLink('#when-to-use'), { kind: 'anchor', fragment: 'when-to-use' });
    assert.deepEqual(classifyPreviewLink('?only=query'), { kind: 'anchor', fragment: '' });
    for (const href of ['/etc/passwd', '\\\\server\\share', '~/secrets.txt', 'C:\\Windows\\win.ini', 'c:/x', '', '   ']) {
      assert.equal(classifyPreviewLink(href).kind, 'refused', JSON.stringify(href));
    }
    assert.equal(classifyPreviewLink(`https://example.com/${'a'.repeat(5000)}`).kind, 'refused');
  });
});
