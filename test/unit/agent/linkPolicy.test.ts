import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { decideLink } from '../../../src/core/agent/linkPolicy';

describe('decideLink (links clicked in the chat)', () => {
  const root = path.resolve('/srv/project');
  const folders = [root];

  it('sends web and mail links to the external handler', () => {
    assert.deepEqual(decideLink('https://example.com/a?b=1', folders), { kind: 'external', url: 'https://example.com/a?b=1' });
    assert.equal(decideLink('mailto:dev@example.com', folders).kind, 'external');
  });

  it('opens relative paths inside the workspace, with a line anchor', () => {
    assert.deepEqual(decideLink('src/app.ts#L12', folders), { kind: 'file', path: path.join(root, 'src', 'app.ts'), line: 12 });
    assert.deepEqual(decideLink('docs/My%20Notes.md', folders), { kind: 'file', path: path.join(root, 'docs', 'My Notes.md') });
  });

  it('refuses script, data and command links, and paths that leave the workspace', () => {
    for (const href of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'command:workbench.action.terminal.new', 'vscode://file/etc/passwd']) {
      const decision = decideLink(href, folders);
      assert.equal(decision.kind, 'refuse', href);
    }
    assert.equal(decideLink('../../etc/passwd', folders).kind, 'refuse');
    assert.equal(decideLink('file:///etc/passwd', folders).kind, 'refuse');
    assert.equal(decideLink('%E0%A4%A', folders).kind, 'refuse');
    assert.equal(decideLink('notes.md', []).kind, 'refuse');
  });
});
