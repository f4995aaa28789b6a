import * as assert from 'node:assert/strict';
import { exportFileName } from '../../../src/core/sessions/exportFileName';

describe('exportFileName', () => {
  it('turns the title into a hyphenated Markdown file name', () => {
    assert.equal(exportFileName('Why does the login time out', 's1'), 'Why-does-the-login-time-out.md');
  });

  it('drops characters file systems refuse and Markdown emphasis', () => {
    assert.equal(exportFileName('Fix a/b: "quotes" <and> *stars* | pipes? C:\\path', 's1'), 'Fix-a-b-quotes-and-stars-pipes-C-path.md');
    assert.equal(exportFileName('tab\there\nnewline', 's1'), 'tab-here-newline.md');
  });

  it('cuts long titles at a word near 60 characters, never inside an emoji', () => {
    const name = exportFileName('Investigate the intermittent failures of the nightly integration pipeline on arm64 runners', 's1');
    assert.equal(name, 'Investigate-the-intermittent-failures-of-the-nightly.md');
    assert.ok(name.length <= 63);
    const emoji = exportFileName(`${'x'.repeat(59)}🎉 party`, 's1');
    assert.equal(emoji, `${'x'.repeat(59)}.md`);
    assert.doesNotMatch(emoji, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('keeps letters of any script', () => {
    assert.equal(exportFileName('Café déploiement 東京', 's1'), 'Café-déploiement-東京.md');
  });

  it('falls back to the session id when the title leaves nothing usable', () => {
    assert.equal(exportFileName('', '20250501-091500-3fa2b1c9'), 'session-20250501-091500-3fa2b1c9.md');
    assert.equal(exportFileName('???///', 'abc'), 'session-abc.md');
    assert.equal(exportFileName('Untitled session', 'abc'), 'session-abc.md');
    assert.equal(exportFileName('CON', 'abc'), 'session-abc.md');
    assert.equal(exportFileName('...', 'abc'), 'session-abc.md');
  });

  it('never starts with a dot (no hidden files) or ends with one', () => {
    assert.equal(exportFileName('.env values explained.', 's1'), 'env-values-explained.md');
  });
});
