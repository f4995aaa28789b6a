import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { restorableFile } from '../../../src/host/preview/previewState';
import type { SkillPreview } from '../../../src/shared/previewProtocol';
import { stateAfter, stateOnLoad } from '../../../src/webview/preview/previewState';

describe('restorableFile (the SKILL.md a restored preview shows)', () => {
  const file = path.resolve('/projects/skills/ops/count-files/SKILL.md');

  it('takes the absolute SKILL.md path the webview kept, with or without its last model', () => {
    assert.equal(restorableFile({ file }), file);
    assert.equal(restorableFile({ file, preview: { file, card: {} } }), file);
    assert.equal(restorableFile({ file: `${path.dirname(file)}/../count-files/SKILL.md` }), file);
  });

  it('refuses states that name no SKILL.md: nothing set, an older shape, other files, relative paths', () => {
    for (const state of [undefined, null, 'SKILL.md', {}, { preview: { file } }, { file: 7 }, { file: '' }, { file: 'ops/count-files/SKILL.md' }, { file: path.resolve('/projects/README.md') }, { file: `/${'a/'.repeat(3_000)}SKILL.md` }]) {
      assert.equal(restorableFile(state), undefined, JSON.stringify(state));
    }
  });

  it('reads what the preview webview keeps: from its first load, through updates and errors, and after a reload', () => {
    const other = path.resolve('/projects/skills/release/prepare-release/SKILL.md');
    const model = (at: string) => ({ file: at, card: { name: path.basename(path.dirname(at)) } }) as unknown as SkillPreview;
    // First load: no saved state, the page names the file. Restorable before any model arrived.
    const first = stateOnLoad(undefined, file);
    assert.deepEqual(first, { file });
    assert.equal(restorableFile(first), file);
    // A model that fails the protocol check is not kept; the file is.
    assert.deepEqual(stateOnLoad({ file, preview: model(file) }, file), { file });
    // The preview followed the editor to another skill, then could not build it: still that skill.
    const failed = stateAfter({ file }, { type: 'preview/error', message: 'The preview could not be built' });
    assert.deepEqual(failed, { file });
    const moved = stateAfter(failed, { type: 'preview/update', preview: model(other) });
    assert.equal(restorableFile(stateAfter(moved, { type: 'preview/error', message: 'gone' })), other);
    // Rebuilt after being hidden: the saved file wins over the page's (the page names the first one).
    assert.equal(restorableFile(stateOnLoad({ file: other }, file)), other);
    // A state from before the file was kept, or none at all, gives the page's file or nothing.
    assert.deepEqual(stateOnLoad({ preview: 'old shape' }, file), { file });
    assert.deepEqual(stateOnLoad(undefined, ''), {});
    assert.equal(restorableFile(stateOnLoad(undefined, '')), undefined);
  });
});
