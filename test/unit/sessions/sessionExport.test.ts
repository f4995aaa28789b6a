import * as assert from 'node:assert/strict';
import { renderSessionMarkdown } from '../../../src/core/sessions/sessionExport';
import { draftTitle } from '../../../src/core/sessions/sessionTitle';
import { SessionFixture } from './sessionFixture';

describe('session titles and Markdown export', () => {
  it('drafts short, deterministic titles from the first exchange', () => {
    assert.equal(draftTitle('Please fix the login timeout in auth-service.', 'Sure.'), 'Fix the login timeout in auth-service');
    assert.equal(draftTitle('hey, could you please add dark mode? It hurts my eyes.'), 'Add dark mode');
    assert.equal(draftTitle('# Bug\n> The `build` fails on [CI](https://ci.example/run/1)'), 'Bug');
    assert.equal(draftTitle('```\nstack trace only\n```', 'This is a null pointer in parser.ts. Fixed it.'), 'This is a null pointer in parser.ts');
    assert.equal(draftTitle('ok', '?'), 'Untitled session');
    const long = draftTitle('Investigate why the nightly integration suite takes forty minutes instead of ten on the shared runners');
    assert.ok(long.length <= 60 && long.endsWith('…'), long);
    assert.equal(long, draftTitle('Investigate why the nightly integration suite takes forty minutes instead of ten on the shared runners'));
  });

  it('exports a session as Markdown with tool calls and results fenced safely', async () => {
    const fixture = new SessionFixture();
    try {
      const writer = await fixture.log.create({ id: 'export-me', model: 'openai:gpt-4.1-mini', systemPrompt: 'SYSTEM TEXT', workspace: '/projects/app' });
      await writer.appendMessage({ role: 'user', content: 'Show me the README' });
      await writer.appendMessage({ role: 'assistant', content: 'Reading it.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"README.md"}' }] });
      await writer.appendMessage({ role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: '# App\n```sh\nnpm start\n```', isError: false });
      await writer.appendMessage({ role: 'assistant', content: 'It says to run `npm start`.', status: 'stopped' });
      await writer.appendUsage({ promptTokens: 1500, completionTokens: 40, cachedTokens: 1024 });
      const index = fixture.newIndex();
      const markdown = await index.exportSessionMarkdown('export-me');
      assert.ok(markdown);
      assert.match(markdown, /^# Show me the README\n/);
      assert.match(markdown, /- Workspace: \/projects\/app\n- Model: openai:gpt-4\.1-mini\n- Messages: 4\n- Tokens: 1,500 prompt \(1,024 cached\), 40 completion/);
      assert.match(markdown, /### User · 2025-05-01 09:00:0\d UTC\n\nShow me the README/);
      assert.match(markdown, /\*\*Tool call\*\* `read_file`\n\n```json\n\{\n {2}"path": "README.md"\n\}\n```/);
      // The result holds a ``` fence of its own, so it is wrapped in a longer one.
      assert.match(markdown, /#### Tool result `read_file`\n\n````text\n# App\n```sh\nnpm start\n```\n````/);
      assert.match(markdown, /### Assistant · [^\n]* \(stopped\)/);
      assert.doesNotMatch(markdown, /SYSTEM TEXT/);
      const session = await index.readSession('export-me');
      assert.ok(session);
      assert.match(renderSessionMarkdown(session, { includeSystemPrompt: true }), /## System prompt\n\n```text\nSYSTEM TEXT\n```/);
      assert.equal(await index.exportSessionMarkdown('missing'), undefined);
    } finally {
      fixture.cleanup();
    }
  });
});
