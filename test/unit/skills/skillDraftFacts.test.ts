import * as assert from 'node:assert/strict';
import type { ChatMessage } from '../../../src/core/llm/chatTypes';
import { withSkillSuggestions } from '../../../src/core/agent/systemPrompt';
import { redactSecrets } from '../../../src/core/skills/draft/draftText';
import { FACT_LIMITS, transcriptFacts } from '../../../src/core/skills/draft/skillDraftFacts';
import { TranscriptBuilder, parserFixSession } from './draftTranscripts';

describe('transcriptFacts', () => {
  it('reads requests, tool calls, files, commands, errors with their fixes, the outcome and the suggested name', () => {
    const facts = transcriptFacts(parserFixSession());
    assert.equal(facts.origin, 'session');
    assert.equal(facts.title, 'Fix failing parser tests');
    assert.deepEqual(facts.requests, ['Can you fix the failing parser tests? `npm test` is red since yesterday.']);
    assert.deepEqual(
      facts.toolCalls.map((c) => `${c.tool} ${c.detail} ${String(c.ok)}`),
      ['read_file src/parser.ts true', 'read_file test/parser.test.ts true', 'run_command npm test false', 'edit_file src/parser.ts false', 'read_file src/parser.ts true', 'edit_file src/parser.ts true', 'run_command npm test true'],
    );
    assert.deepEqual(facts.files, [
      { path: 'src/parser.ts', changed: true },
      { path: 'test/parser.test.ts', changed: false },
    ]);
    assert.deepEqual(facts.commands, [{ command: 'npm test', ok: true, runs: 2, failedFirst: true }]);
    const [testRun, edit] = facts.errors;
    assert.equal(testRun?.during, 'npm test');
    assert.match(testRun?.message ?? '', /exited with code 1: .*AssertionError: expected 3 to equal 4/);
    assert.equal(testRun?.explanation, 'The tokenizer drops the last element when a trailing comma follows it.');
    assert.deepEqual(testRun?.resolution, { changed: ['src/parser.ts'], actions: [], succeeded: 'npm test' });
    assert.equal(edit?.during, 'edit_file src/parser.ts');
    // Nothing changed between the failed and the good edit: the read in between is what fixed it.
    assert.deepEqual(edit?.resolution, { changed: [], actions: ['read_file src/parser.ts'], succeeded: 'edit_file src/parser.ts' });
    assert.equal(edit?.explanation, undefined, 'the next assistant message only called a tool');
    assert.equal(facts.suggestedName, 'fix-parser-tests');
    assert.match(facts.outcome ?? '', /^Fixed: the loop in `parseList` stopped one element early/);
    assert.doesNotMatch(facts.outcome ?? '', /Save as skill/);
  });

  it('drops the skill suggestions the agent adds to user messages', () => {
    const request = withSkillSuggestions('Deploy the app to staging', [{ name: 'deploy-app', description: 'Deploys the app.' }]);
    assert.match(request, /skill-suggestions/);
    const facts = transcriptFacts(new TranscriptBuilder().user(request).say('Deployed.').session());
    assert.deepEqual(facts.requests, ['Deploy the app to staging']);
  });

  it('reads plain chat messages too, matching tool results to calls by id and ignoring the system prompt', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are Skillwright.' },
      { role: 'user', content: 'Find the TODOs' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'search_text', arguments: '{"query":"TODO","path":"src"}' }, { id: 'b', name: 'mystery', arguments: '{"url":"https://example.com"}' }] },
      { role: 'tool', toolCallId: 'b', content: 'not json' },
      { role: 'tool', toolCallId: 'a', content: '{"success":true,"matches":[]}' },
      { role: 'assistant', content: 'There are none.' },
    ];
    const facts = transcriptFacts(messages);
    assert.equal(facts.origin, 'messages');
    assert.deepEqual(facts.requests, ['Find the TODOs']);
    assert.deepEqual(facts.toolCalls, [
      { tool: 'search_text', kind: 'search', detail: 'TODO src', ok: true },
      { tool: 'mystery', kind: 'other', detail: 'https://example.com', ok: undefined },
    ]);
    assert.equal(facts.outcome, 'There are none.');
  });

  it('treats a command that exits non-zero or times out as failed, and unreadable arguments as an empty detail', () => {
    const facts = transcriptFacts(
      new TranscriptBuilder()
        .user('build it')
        .call('run_command', { command: 'make' }, { success: true, command: 'make', exit_code: null, timed_out: true, output: 'compiling\n', note: 'killed after the 120 s timeout' })
        .call('read_file', '{not json', { success: false, error: 'the arguments are not valid JSON' })
        .session(),
    );
    assert.equal(facts.toolCalls[0]?.ok, false);
    assert.match(facts.toolCalls[0]?.error ?? '', /^killed after the 120 s timeout: compiling$/);
    assert.deepEqual(facts.toolCalls[1], { tool: 'read_file', kind: 'read', detail: '', ok: false, error: 'the arguments are not valid JSON' });
    assert.equal(facts.errors.length, 2);
    assert.equal(facts.errors[0]?.resolution, undefined, 'make never succeeded');
  });

  it('keeps a huge session bounded: the first and last calls, capped lists, counts of what was left out', () => {
    const builder = new TranscriptBuilder();
    for (let i = 0; i < 400; i++) {
      builder.user(`Request ${i}: ${'x'.repeat(2_000)}`);
      builder.ok('read_file', { path: `src/file${i}.ts` });
      builder.run(`npm run task-${i}`, i % 2);
    }
    const facts = transcriptFacts(builder.session());
    assert.equal(facts.requests.length, FACT_LIMITS.requests);
    assert.ok(facts.requests.every((r) => r.length <= FACT_LIMITS.requestChars));
    assert.equal(facts.omitted.requests, 400 - FACT_LIMITS.requests);
    assert.equal(facts.toolCalls.length, FACT_LIMITS.toolCallsHead + FACT_LIMITS.toolCallsTail);
    assert.equal(facts.omitted.toolCalls, 800 - facts.toolCalls.length);
    assert.equal(facts.toolCalls[0]?.detail, 'src/file0.ts');
    assert.equal(facts.toolCalls[facts.toolCalls.length - 1]?.detail, 'npm run task-399');
    assert.equal(facts.files.length, FACT_LIMITS.files);
    assert.equal(facts.commands.length, FACT_LIMITS.commands);
    assert.equal(facts.errors.length, FACT_LIMITS.errors);
    assert.equal(facts.omitted.errors, 200 - FACT_LIMITS.errors);
    assert.ok(JSON.stringify(facts).length < 60_000, `facts are ${JSON.stringify(facts).length} characters`);
  });

  it('redacts secrets typed into commands and messages', () => {
    const key = ['sk', 'proj', 'Q7rT2mX9vL4kP8sN3bW6yH1cJ5'].join('-');
    const facts = transcriptFacts(
      new TranscriptBuilder()
        .user(`Use my key ${key} to call the API`)
        .run('OPENAI_API_KEY=abcdef123456 npm run smoke --token s3cr3tvalue', 0)
        .session(),
    );
    const text = JSON.stringify(facts);
    assert.doesNotMatch(text, /Q7rT2mX9|abcdef123456|s3cr3tvalue/);
    assert.equal(facts.commands[0]?.command, 'OPENAI_API_KEY=<redacted> npm run smoke --token <redacted>');
    assert.equal(redactSecrets('Authorization: Bearer abc.def.ghijklmnop'), 'Authorization: Bearer <redacted>');
    // Ordinary words after a secret-like name are not touched.
    assert.equal(redactSecrets('the token is expired; set PATH=/usr/bin'), 'the token is expired; set PATH=/usr/bin');
  });

  it('reads a selection when there is no conversation: its topic, commands, paths and list items', () => {
    const facts = transcriptFacts(undefined, {
      text: '# Rotate the staging certificates\n\n1. Renew with certbot\n2. Reload nginx\n\n```sh\n$ sudo certbot renew --cert-name staging\nsudo systemctl reload nginx\n```\nSee deploy/nginx/staging.conf for the paths.',
      file: 'docs/ops.md',
      languageId: 'markdown',
    });
    assert.equal(facts.origin, 'selection');
    assert.deepEqual(facts.requests, ['Rotate the staging certificates']);
    assert.deepEqual(facts.commands.map((c) => c.command), ['sudo certbot renew --cert-name staging', 'sudo systemctl reload nginx']);
    assert.deepEqual(facts.files.map((f) => f.path), ['docs/ops.md', 'deploy/nginx/staging.conf']);
    assert.deepEqual(facts.outcomeSteps, ['Renew with certbot', 'Reload nginx']);
    assert.equal(facts.selection?.file, 'docs/ops.md');
  });

  it('reads every line of a shell script selection as a command, skipping comments', () => {
    const facts = transcriptFacts([], { text: '#!/bin/sh\n# build the docs\nnpm ci\nnpm run docs\n', languageId: 'shellscript' });
    assert.deepEqual(facts.commands.map((c) => c.command), ['npm ci', 'npm run docs']);
    assert.deepEqual(facts.requests, ['build the docs']);
  });

  it('gives empty facts for an empty session', () => {
    const facts = transcriptFacts(new TranscriptBuilder().session());
    assert.deepEqual(
      [facts.requests, facts.toolCalls, facts.files, facts.commands, facts.errors, facts.outcome],
      [[], [], [], [], [], undefined],
    );
  });
});
